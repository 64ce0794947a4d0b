/**
 * A replica cut off from the database fences itself (issue 16), with two
 * real `clarion serve` processes on one real PostgreSQL. A reaches the
 * database through a TCP proxy; its demo agent waits on a live ask. The proxy
 * then passes nothing (a network partition as A sees it): A keeps running,
 * every statement it sends hangs, and its lease runs out. B takes the session
 * over and an answer through B reaches an agent B starts, while A, unable to
 * renew, stops its own agent within a bound: at no point after the takeover
 * settles do two agents run the session.
 */
import { describe, it, type TestContext } from 'vitest';
import { childrenOf, clarionApi, groupGone } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { askingSession, replicaProcessesOfTest, sessionReads } from '../support/replicas.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { SHUTDOWN_REPORTS_MS } from '../../src/tunables.js';

const ADMIN_TOKEN = 'cut-off-replica-admin-token-0123456789';
const LEASE_S = 6;
/** The stop's wait for requests in flight (`CLARION_SHUTDOWN_DRAIN_S`; 10 s by default). */
const SHUTDOWN_DRAIN_S = 2;
/** The rest of a stop after its drain (`CLARION_SHUTDOWN_STOP_S`; 20 s by default). */
const SHUTDOWN_STOP_S = 3;
/**
 * The rest of a stop for one whose steps fail: its agents' last reports alone may take
 * their whole bound against a store that refuses them, and the stop must outlast that.
 */
const FAILING_STOP_S = SHUTDOWN_REPORTS_MS / 1000 + SHUTDOWN_STOP_S;
/** How long A's stop may take before it stops its agents and exits anyway. */
const stopBoundMs = (stopS: number) => (SHUTDOWN_DRAIN_S + stopS) * 1000;

// Each test on its own database. The two stops wait out their bounds at once, after the
// lease case has run alone: its fencing path is the one most sensitive to a loaded machine.
describe('a replica cut off from the database', () => {
  /**
   * B on this test's own database, then A through a proxy in front of it; the
   * proxy, for cutting A off. When the test ends, A's statements stop hanging
   * (they fail) before it is asked to stop.
   */
  async function replicasWithAProxied(context: TestContext, stopS = SHUTDOWN_STOP_S) {
    const between: { proxy?: TcpProxy } = {};
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context, () => between.proxy?.close());
    const env = {
      CLARION_LEASE_S: String(LEASE_S),
      CLARION_SHUTDOWN_DRAIN_S: String(SHUTDOWN_DRAIN_S),
      CLARION_SHUTDOWN_STOP_S: String(stopS),
    };
    const [b] = await processes.start(['replica-b'], env);
    const direct = new URL(processes.target().url);
    const started = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    between.proxy = started;
    const proxied = new URL(direct);
    proxied.port = String(started.port);
    const [a] = await processes.start(['replica-a'], { ...env, DATABASE_URL: proxied.href });
    if (!a?.child.pid || !b?.child.pid) throw new Error('two replicas expected');
    return { processes, a, aPid: a.child.pid, b, bPid: b.child.pid, proxy: started };
  }

  it('stops its own agent once it cannot renew, while B takes the session over', async (context) => {
    const { expect } = context;
    const { processes, a, aPid, b, bPid, proxy: line } = await replicasWithAProxied(context);
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const reads = sessionReads(onB);
    const { agentText } = reads;
    const { sessionId, ask, agent: agentOnA } = await askingSession(onA, reads, aPid, 'cut off');

    line.blackhole();
    // A still runs and serves HTTP; only the database is out of its reach.
    await eventually(
      async () => (await processes.leaseHolder(sessionId)) === 'replica-b',
      3 * LEASE_S * 1000,
    );
    // Its lease's validity, and one more beat, after its last renew: A has stopped its agent.
    await eventually(() => Promise.resolve(groupGone(agentOnA)), 2 * LEASE_S * 1000);
    expect(childrenOf(aPid)).toEqual([]);
    expect(a.child.exitCode).toBeNull();
    // Written before the agent was stopped, but read from A's pipe whenever it arrives.
    await eventually(() =>
      Promise.resolve(
        a.output().stdout.includes('could not renew this session’s lease within its validity'),
      ),
    );

    const answered = await onB('POST', `/api/v1/clarification/${ask.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ claimed: true });
    await eventually(
      async () => (await agentText(sessionId)).some((t) => t.includes('"Generated"')),
      30_000,
    );
    expect(childrenOf(bPid)).toHaveLength(1);
    expect(childrenOf(aPid)).toEqual([]);
    expect((await agentText(sessionId)).filter((t) => t.includes('"Generated"'))).toHaveLength(1);
    // A cut off for good is then killed, as an operator would.
    process.kill(aPid, 'SIGKILL');
  }, 180_000);

  /**
   * SIGTERM to A once its database is out of reach, as `cut` leaves it; A must
   * exit 1 within the stop's bound with its agent gone, whichever way its stop
   * ends: a statement that never answers (the bound) or one that fails. The
   * time it took, for the caller to check against the bound.
   */
  async function stopsCutOff(
    context: TestContext,
    cut: (line: TcpProxy) => void | Promise<void>,
    stopS: number,
  ) {
    const { expect } = context;
    const { a, aPid, b, proxy: line } = await replicasWithAProxied(context, stopS);
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const reads = sessionReads(clarionApi(b.url, ADMIN_TOKEN));
    const { agent } = await askingSession(onA, reads, aPid, 'stopping cut off');

    await cut(line);
    const asked = Date.now();
    a.child.kill('SIGTERM');
    // The drain and the rest of the stop, then the agents' bounded stop.
    const boundMs = stopBoundMs(stopS) + 15_000;
    const exit = await Promise.race([
      a.exited,
      new Promise<never>((_, reject) => {
        setTimeout(() => {
          reject(new Error(`A still runs ${boundMs} ms after SIGTERM`));
        }, boundMs).unref();
      }),
    ]);
    const tookMs = Date.now() - asked;
    expect(tookMs).toBeLessThan(boundMs);
    expect(exit.code).toBe(1);
    expect(exit.stdout).toContain('the stop did not finish');
    expect(groupGone(agent)).toBe(true);
    return { ...exit, tookMs };
  }

  it.concurrent(
    'still stops on SIGTERM within its bound, its agent first, though no statement answers',
    async (context) => {
      const { expect } = context;
      const exit = await stopsCutOff(
        context,
        (line) => {
          line.blackhole();
        },
        SHUTDOWN_STOP_S,
      );
      // Its bound ended the stop, the one it was configured with: not a step's failure.
      expect(exit.stdout).toContain('the stop did not finish in time');
      expect(exit.tookMs).toBeGreaterThanOrEqual(stopBoundMs(SHUTDOWN_STOP_S));
    },
    180_000,
  );

  it.concurrent(
    'still exits on SIGTERM, its agent first, when a step of its stop fails',
    async (context) => {
      const { expect } = context;
      // Connections refused: every statement of the stop fails at once instead of hanging.
      const exit = await stopsCutOff(context, (line) => line.close(), FAILING_STOP_S);
      expect(exit.stdout).toContain('a step failed');
      // The other steps were still done; the log names those it could not.
      expect(exit.stdout).toContain('the stop left undone: ');
    },
    180_000,
  );
});
