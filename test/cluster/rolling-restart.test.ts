/**
 * A rolling restart under the load benchmark's traffic (issue 16): two real
 * `clarion serve` replicas, A and B, on one real PostgreSQL behind a load
 * balancer (`load-balancer.ts`). External MCP agents ask back to back
 * through it (no sticky routing) and responders answer from their event
 * streams, one ask in five raced by two (`bench/load-responders.ts`). A is
 * stopped (SIGTERM) and started again under its ID, as a deploy does, then
 * B; traffic runs before, between and after. Each replica says `draining`
 * on `/healthz` for half a second before it stops accepting. The audit
 * (`bench/load-audit.ts`): every ask answered and received by its agent
 * once, live or through `wait_for_answer`; no bundle with two winners; every
 * loser told the winner; no reply of 500 or more through the balancer.
 *
 * An agent does what the protocol tells it: an ask that comes back `open`
 * or `waiting` is collected with `wait_for_answer`, and a call whose
 * connection was cut (no result at all) is sent again as the identical ask,
 * which reuses its bundle.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, askArgs } from '../../bench/clarion-instance.js';
import { auditDatabase, tally, type Received } from '../../bench/load-audit.js';
import { loadTag, startResponders, type Responders } from '../../bench/load-responders.js';
import {
  askQuestion,
  connectAgent,
  waitForAnswer,
  type AskOutcome,
} from '../../bench/mcp-agent.js';
import { ensureExternalSession } from '../../src/turns/index.js';
import { firstAdmin, openStore, type DatabaseTarget } from '../../src/store/index.js';
import type { Serving } from '../support/clarion-process.js';
import { loadBalancer, type LoadBalancer } from '../support/load-balancer.js';
import { replicaProcesses } from '../support/replicas.js';

const AGENTS = 6;
const RESPONDERS = 3;
/** Steady traffic before the first stop, between the restarts and after the last. */
const STEADY_MS = 3_000;
/** One call's bound: past it the agent gives up on that call and asks again. */
const CALL_BOUND_MS = 40_000;
/**
 * As a deploy behind a balancer sets it: a stopping replica says `draining`
 * for longer than the balancer's health checks take (every 100 ms here) to
 * take it out, so no new connection meets its closing listener.
 */
const REPLICA_ENV = { CLARION_DRAIN_DELAY_S: '0.5' };

const clientName = (agent: number) => `rolling agent ${agent}`;

/** The agents' external sessions, made before they ask so the responders can subscribe. */
async function externalSessions(target: DatabaseTarget): Promise<string[]> {
  const store = await openStore(target);
  try {
    const admin = await firstAdmin(store);
    if (!admin) throw new Error('no admin');
    const sessions: string[] = [];
    for (let agent = 0; agent < AGENTS; agent++) {
      const made = await ensureExternalSession(store, admin.id, clientName(agent));
      if (!made.ok) throw new Error(made.code);
      sessions.push(made.sessionId);
    }
    return sessions;
  } finally {
    await store.close();
  }
}

interface AgentRecord {
  received: Received[];
  cycles: number;
  /** Asks that came back open or waiting and were collected with `wait_for_answer`. */
  collected: number;
  /** Calls that ended without a result (their connection cut), sent again. */
  cut: string[];
  /** Anything else: a tool error, a skip, an ask never answered. */
  failed: string[];
}

/** One agent asking back to back until `running()` is false, as the protocol tells it to. */
async function agentLoop(
  client: Client,
  agent: number,
  running: () => boolean,
  record: AgentRecord,
): Promise<void> {
  const bounded = async (
    call: (signal: AbortSignal) => Promise<AskOutcome>,
  ): Promise<AskOutcome | 'cut'> => {
    const signal = AbortSignal.timeout(CALL_BOUND_MS);
    return call(signal).catch((error: unknown) => {
      record.cut.push(`agent ${agent}: ${String(error)}`);
      return 'cut' as const;
    });
  };
  for (let cycle = 0; running(); cycle++) {
    record.cycles++;
    const args = askArgs(loadTag(agent, cycle));
    let outcome: AskOutcome | 'cut' = 'cut';
    let pendingId: string | undefined;
    for (let attempt = 0; attempt < 10; attempt++) {
      outcome = await bounded((signal) =>
        pendingId === undefined
          ? askQuestion(client, args, { signal, longWait: true })
          : waitForAnswer(client, pendingId, { signal, longWait: true, timeoutSeconds: 30 }),
      );
      if (outcome === 'cut') continue;
      if (outcome.status !== 'open' && outcome.status !== 'waiting') break;
      if (pendingId === undefined) record.collected++;
      pendingId = outcome.pendingId;
    }
    if (outcome !== 'cut' && outcome.status === 'answered' && outcome.pendingId !== undefined) {
      record.received.push({ pendingId: outcome.pendingId, selected: outcome.selected });
    } else {
      const status = outcome === 'cut' ? 'cut' : outcome.status;
      record.failed.push(`agent ${agent} cycle ${cycle}: ${status}`);
    }
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a rolling restart under load', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    await processes.stopAll();
  });

  it('loses nothing: every ask answered once, no double winner, no 5xx', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], REPLICA_ENV);
    if (!a || !b) throw new Error('two replicas expected');
    const balancer: LoadBalancer = await loadBalancer([a.url, b.url]);
    cleanups.push(() => balancer.close());
    const sessions = await externalSessions(processes.target());

    const responders: Responders = await startResponders(balancer.url, sessions, RESPONDERS, {
      reconnect: true,
    });
    cleanups.push(() => {
      responders.close();
      return Promise.resolve();
    });
    let agentStatuses5xx = 0;
    const clients: Client[] = [];
    for (let agent = 0; agent < AGENTS; agent++) {
      clients.push(
        await connectAgent(balancer.url, ADMIN_TOKEN, {
          clientName: clientName(agent),
          onStatus: (status) => {
            if (status >= 500) agentStatuses5xx++;
          },
        }),
      );
    }
    cleanups.push(() => Promise.allSettled(clients.map((client) => client.close())));

    let running = true;
    const records = clients.map((): AgentRecord => ({
      received: [],
      cycles: 0,
      collected: 0,
      cut: [],
      failed: [],
    }));
    const agentsDone = Promise.all(
      clients.map((client, agent) => {
        const record = records[agent];
        if (!record) throw new Error('no record');
        return agentLoop(client, agent, () => running, record);
      }),
    );

    const restart = async (old: Serving, id: string): Promise<Serving> => {
      const exited = await old.stop();
      expect(exited.code).toBe(0);
      balancer.remove(old.url);
      const [started] = await processes.start([id], REPLICA_ENV);
      if (!started) throw new Error(`${id} did not start`);
      balancer.add(started.url);
      return started;
    };
    const t0 = performance.now();
    await pause(STEADY_MS);
    const a2 = await restart(a, 'replica-a');
    await pause(STEADY_MS);
    const b2 = await restart(b, 'replica-b');
    await pause(STEADY_MS);
    running = false;
    await agentsDone;
    await responders.settled();
    const wallMs = performance.now() - t0;
    responders.close();
    await Promise.allSettled(clients.map((client) => client.close()));

    const received = records.flatMap((record) => record.received);
    const asks = records.reduce((sum, record) => sum + record.cycles, 0);
    const database = await auditDatabase(processes.target(), sessions);
    const counts = tally(asks, received, responders.replies, database);
    const report = {
      asks,
      wallMs: Math.round(wallMs),
      counts,
      balancer5xx: balancer.serverErrors,
      agent5xx: agentStatuses5xx,
      retriedConnects: balancer.retried(),
      collectedLater: records.reduce((sum, record) => sum + record.collected, 0),
      cut: records.flatMap((record) => record.cut),
      failed: records.flatMap((record) => record.failed),
      unexpected: responders.unexpected,
      served: { a2: balancer.served(a2.url), b2: balancer.served(b2.url) },
    };
    console.log(JSON.stringify(report, null, 2));

    // Traffic ran all along, and the restarted replicas served their share.
    expect(asks).toBeGreaterThan(AGENTS * 3);
    expect(report.served.a2).toBeGreaterThan(0);
    expect(report.served.b2).toBeGreaterThan(0);
    // Every ask answered, once, with the winner's answer; no bundle with two winners.
    expect(report.failed).toEqual([]);
    // A stop hands each call in flight its result: none was cut and sent again.
    expect(report.cut).toEqual([]);
    expect(counts.findings).toEqual([]);
    expect(counts).toMatchObject({ lost: 0, doubles: 0, inconsistent: 0, serverErrors: 0 });
    expect(counts.otherFailures).toBe(0);
    // Every bundle someone won reached its agent: none answered into the void.
    const got = new Set(received.map((answer) => answer.pendingId));
    const won = [...responders.replies]
      .filter(([, replies]) => replies.some((reply) => reply.claimed === true))
      .map(([pendingId]) => pendingId);
    expect(won.filter((pendingId) => !got.has(pendingId))).toEqual([]);
    expect(database.deliveryIntents).toBe(0);
    // Nothing of 500 or more through the balancer, to agents or responders.
    expect(report.balancer5xx).toEqual([]);
    expect(agentStatuses5xx).toBe(0);
  }, 120_000);
});
