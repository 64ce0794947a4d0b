/**
 * A restart ends the registry's requests (consent, action, form), which live
 * in memory only, and the transcript says so: the built `clarion serve` on
 * each driver, stopped gracefully and killed. After each start the session
 * whose agent waited shows once, as a system note, that the agent's request
 * (its title) ended unanswered because the server restarted; an answered
 * request gets no note, and a later start writes none again.
 */
import { describe, expect, it } from 'vitest';
import { USER_INPUT_ENDED_TYPE } from '../../src/wire/index.js';
import { useServedDatabase, type Serving } from '../support/clarion-process.js';
import { DRIVERS } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const ADMIN_TOKEN = 'restart-ends-requests-token-0123456789';
/** The built server starts the demo agent before it can ask. */
const AGENT_WAIT_MS = 30_000;

interface Note {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

describe.each(DRIVERS)('a restart with agent requests waiting (%s)', (driver) => {
  const served = useServedDatabase();

  it('leaves one transcript note per request that ended unanswered', async () => {
    const database = await served.open(driver);
    let server: Serving | undefined;
    const serve = async () => {
      server = await database.serve({ CLARION_ADMIN_TOKEN: ADMIN_TOKEN });
      return bearerApi(server.url, ADMIN_TOKEN);
    };
    let api = await serve();

    const consenting = (title: string) =>
      waitingItems(api, AGENT_WAIT_MS).requestOfTask('/permission', title);
    const notes = async (sessionId: string) =>
      (
        (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json
          .messages as Note[]
      ).filter((message) => message.type === USER_INPUT_ENDED_TYPE);

    const answered = await consenting('Answered before the stop');
    const allowed = await api('POST', `/api/v1/user-inputs/${answered.request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(allowed.status).toBe(200);
    const stopped = await consenting('Waiting at the stop');

    // A graceful stop: the registry settles what waits, and the next start says it ended.
    await server?.stop();
    api = await serve();
    const [note, ...more] = await notes(stopped.sessionId);
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      author: 'system',
      metadata: { request_id: stopped.request.id, kind: 'consent' },
    });
    expect(note?.content).toContain(`"${stopped.request.title}" ended unanswered`);
    expect(note?.content).toContain('the server restarted');
    expect(await notes(answered.sessionId)).toEqual([]);

    // A crash: nothing settled the request, and the start still finds it.
    const killed = await consenting('Waiting at the crash');
    server?.child.kill('SIGKILL');
    await server?.exited;
    api = await serve();
    expect(await notes(killed.sessionId)).toHaveLength(1);
    // Written once: the starts after the first write nothing more.
    expect(await notes(stopped.sessionId)).toHaveLength(1);
    expect(await notes(answered.sessionId)).toEqual([]);
  }, 180_000);
});
