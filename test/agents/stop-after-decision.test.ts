/**
 * A person's decision on a consent or an action, recorded just before the
 * server is stopped gracefully (SIGTERM) while the agent's turn still runs:
 * the agents are held (SIGSTOP) so that none hears the decision, and the stop
 * ends their turns by stopping them. The built `clarion serve` on each
 * driver, with the real demo agent. After the restart the transcript keeps
 * the decision, never says the request ended unanswered, and says once that
 * the decision was recorded but the agent may not have received it, as after
 * a crash (`crash-after-decision.test.ts`). A request still waiting at the
 * stop says it ended unanswered.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_UNCONFIRMED_TYPE,
  TURN_INTERRUPTED_OUTCOME,
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
} from '../../src/wire/index.js';
import { useServedDatabase, type Serving } from '../support/clarion-process.js';
import { DRIVERS } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const ADMIN_TOKEN = 'stop-after-decision-token-0123456789';
/** The built server starts the demo agent before it can ask. */
const AGENT_WAIT_MS = 30_000;

interface Row {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** The processes `parentPid` started (its agents), read from `/proc`. */
function childrenOf(parentPid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces: the fields after its closing parenthesis are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === parentPid) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

describe.each(DRIVERS)('a decision recorded just before a graceful stop (%s)', (driver) => {
  const served = useServedDatabase();

  it('is kept, never called unanswered, and noted as perhaps not received', async () => {
    const database = await served.open(driver);
    let server: Serving | undefined;
    const serve = async () => {
      server = await database.serve({
        CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
        CLARION_AGENT_STOP_GRACE_S: '1',
      });
      return bearerApi(server.url, ADMIN_TOKEN);
    };
    let api = await serve();

    const asking = (title: string, prompt: string) =>
      waitingItems(api, AGENT_WAIT_MS).requestOfTask(prompt, title);
    const ofType = async (sessionId: string, type: string) =>
      (
        (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json
          .messages as Row[]
      ).filter((row) => row.type === type);

    const consent = await asking('Allowed at the stop', '/permission');
    const action = await asking('Done at the stop', '/action');
    const waiting = await asking('Waiting at the stop', '/permission');

    // Held, no agent hears the decisions, so each turn still runs when the stop comes.
    const serverPid = server?.child.pid;
    if (serverPid === undefined) throw new Error('no server process');
    const agents = childrenOf(serverPid);
    expect(agents).toHaveLength(3);
    for (const pid of agents) process.kill(pid, 'SIGSTOP');

    const allowed = await api('POST', `/api/v1/user-inputs/${consent.request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(allowed.status).toBe(200);
    const done = await api('POST', `/api/v1/user-inputs/${action.request.id}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);

    const stopped = await server?.stop();
    expect(stopped).toMatchObject({ code: 0, signal: null });

    api = await serve();
    for (const [asked, kind] of [
      [consent, 'consent'],
      [action, 'action'],
    ] as const) {
      expect(await ofType(asked.sessionId, USER_INPUT_DECISION_TYPE)).toHaveLength(1);
      expect(await ofType(asked.sessionId, USER_INPUT_ENDED_TYPE)).toEqual([]);
      const [note, ...more] = await ofType(asked.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE);
      expect(more).toEqual([]);
      expect(note).toMatchObject({
        author: 'system',
        metadata: {
          request_id: asked.request.id,
          kind,
          title: asked.request.title,
          loss: 'restart',
        },
      });
      expect(note?.content).toContain('may not have received it');
    }
    const [ended, ...again] = await ofType(waiting.sessionId, USER_INPUT_ENDED_TYPE);
    expect(again).toEqual([]);
    expect(ended?.metadata).toMatchObject({ request_id: waiting.request.id, loss: 'restart' });
    expect(await ofType(waiting.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);

    // Written once: a later start writes nothing more for these decisions.
    await server?.stop();
    api = await serve();
    expect(await ofType(consent.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toHaveLength(1);
    expect(await ofType(action.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toHaveLength(1);
  }, 240_000);

  it('an answer handed to the agent’s live wait is noted as perhaps not received, as after a crash', async () => {
    const database = await served.open(driver);
    let server: Serving | undefined;
    const serve = async () => {
      server = await database.serve({
        CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
        CLARION_AGENT_STOP_GRACE_S: '1',
      });
      return bearerApi(server.url, ADMIN_TOKEN);
    };
    let api = await serve();
    const items = waitingItems(api, AGENT_WAIT_MS);
    const started = await items.startTask('/ask', 'Answered at the stop');
    const bundle = await items.pendingOf(started.sessionId);

    const serverPid = server?.child.pid;
    if (serverPid === undefined) throw new Error('no server process');
    for (const pid of childrenOf(serverPid)) process.kill(pid, 'SIGSTOP');
    const answered = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(await server?.stop()).toMatchObject({ code: 0, signal: null });

    api = await serve();
    const rows = (await api('GET', `/api/v1/sessions/${started.sessionId}/messages?limit=500`)).json
      .messages as Row[];
    // The answer reached its wait, and the agent was stopped before it finished the turn: the
    // note offers to send the answer again, and does not ask for the message the agent had.
    const [note, ...more] = rows.filter((row) => row.type === DELIVERY_UNCONFIRMED_TYPE);
    expect(more).toEqual([]);
    expect(note?.metadata).toMatchObject({ clarification_pending_id: bundle.pending_id });
    expect(rows.filter((row) => row.metadata.turn_outcome === TURN_INTERRUPTED_OUTCOME)).toEqual(
      [],
    );
  }, 120_000);
});
