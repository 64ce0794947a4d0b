/**
 * A person's decision on a consent or an action, recorded just before the
 * server is killed (SIGKILL at `user_input.after_decision_recorded`: the
 * decision's row is committed, the agent has heard nothing, and the agent
 * dies with the server). The built `clarion serve` on each driver, with the
 * real demo agent. After the restart the transcript keeps the decision, never
 * says the request ended unanswered, and says once that the decision was
 * recorded but the agent may not have received it. A request still waiting
 * at the crash says it ended unanswered; a decision whose turn finished
 * before the crash gets no note at all.
 */
import { describe, expect, it } from 'vitest';
import {
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
} from '../../src/wire/index.js';
import type { FailpointName } from '../../src/support/failpoints.js';
import { eventually } from '../support/clarification-harness.js';
import { useServedDatabase, type Serving } from '../support/clarion-process.js';
import { DRIVERS } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const ADMIN_TOKEN = 'crash-after-decision-token-0123456789';
const AFTER_DECISION: FailpointName = 'user_input.after_decision_recorded';
/** The built server starts the demo agent before it can ask. */
const AGENT_WAIT_MS = 30_000;

interface Row {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

// The two databases at once, each with its own servers: one test each, mostly waiting on
// its agent and restarts.
describe.concurrent.each(DRIVERS)('a decision recorded just before a crash (%s)', (driver) => {
  const served = useServedDatabase();

  it('is kept, never called unanswered, and noted as perhaps not received', async () => {
    const database = await served.open(driver);
    let server: Serving | undefined;
    const serve = async (failpoints: FailpointName[] = []) => {
      server = await database.serve({
        CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
        CLARION_FAILPOINTS: failpoints.join(','),
      });
      return bearerApi(server.url, ADMIN_TOKEN);
    };
    let api = await serve([AFTER_DECISION]);

    const asking = (title: string, prompt: string) =>
      waitingItems(api, AGENT_WAIT_MS).requestOfTask(prompt, title);
    const rows = async (sessionId: string) =>
      (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json.messages as Row[];
    const ofType = async (sessionId: string, type: string) =>
      (await rows(sessionId)).filter((row) => row.type === type);

    const consent = await asking('Allowed at the crash', '/permission');
    const action = await asking('Done at the crash', '/action');
    const waiting = await asking('Waiting at the crash', '/permission');

    // The action's decision is recorded and the server dies before the agent hears it.
    const done = api('POST', `/api/v1/user-inputs/${action.request.id}/respond`, {
      decision: 'done',
    });
    await expect(done).rejects.toThrow();
    expect((await server?.exited)?.signal).toBe('SIGKILL');

    // The consent, on the restarted server: the same point.
    api = await serve([AFTER_DECISION]);
    const doomedConsent = await asking('Allowed at the second crash', '/permission');
    const allowed = api('POST', `/api/v1/user-inputs/${doomedConsent.request.id}/respond`, {
      option_id: 'allow-once',
    });
    await expect(allowed).rejects.toThrow();
    expect((await server?.exited)?.signal).toBe('SIGKILL');

    api = await serve();
    for (const [asked, kind, loss] of [
      [action, 'action', 'restart'],
      [doomedConsent, 'consent', 'restart'],
    ] as const) {
      expect(await ofType(asked.sessionId, USER_INPUT_DECISION_TYPE)).toHaveLength(1);
      expect(await ofType(asked.sessionId, USER_INPUT_ENDED_TYPE)).toEqual([]);
      const [note, ...more] = await ofType(asked.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE);
      expect(more).toEqual([]);
      expect(note).toMatchObject({
        author: 'system',
        metadata: { request_id: asked.request.id, kind, title: asked.request.title, loss },
      });
      expect(note?.content).toContain('may not have received it');
    }
    // Waiting at the first crash: it ended unanswered then, and says so once.
    for (const asked of [consent, waiting]) {
      const [ended, ...again] = await ofType(asked.sessionId, USER_INPUT_ENDED_TYPE);
      expect(again).toEqual([]);
      expect(ended?.metadata).toMatchObject({ request_id: asked.request.id, loss: 'restart' });
      expect(await ofType(asked.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);
    }

    // A decision whose turn finished before the crash: nothing to doubt, so no note.
    const finished = await asking('Allowed and finished', '/permission');
    expect(
      (
        await api('POST', `/api/v1/user-inputs/${finished.request.id}/respond`, {
          option_id: 'allow-once',
        })
      ).status,
    ).toBe(200);
    await eventually(async () => {
      const listed = (await api('GET', `/api/v1/tasks/${finished.taskId}/sessions`)).json as {
        sessions: { id: string; state: string }[];
      };
      return listed.sessions.some((one) => one.id === finished.sessionId && one.state === 'idle');
    }, 30_000);
    server?.child.kill('SIGKILL');
    await server?.exited;
    api = await serve();
    expect(await ofType(finished.sessionId, USER_INPUT_DECISION_TYPE)).toHaveLength(1);
    expect(await ofType(finished.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);
    expect(await ofType(finished.sessionId, USER_INPUT_ENDED_TYPE)).toEqual([]);
    // Written once: this start wrote nothing more for the first crash's decisions.
    expect(await ofType(action.sessionId, USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toHaveLength(1);
  }, 240_000);
});
