/**
 * A turn a crash cut off (SIGKILL while the real demo agent works on it):
 * the built `clarion serve` on SQLite. The next start's recovery closes the
 * turn and writes in its transcript, once, the note a graceful stop writes:
 * the turn ended and its message must be sent again (`loss: 'restart'`). A
 * turn that finished before the crash gets no note, and a later start
 * writes none again.
 */
import { describe, expect, it } from 'vitest';
import { TURN_INTERRUPTED_TEXTS } from '../../src/wire/index.js';
import { clarionApi } from './supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { useServedDatabase, type Serving } from '../support/clarion-process.js';

const ADMIN_TOKEN = 'crash-cuts-turn-token-0123456789abcdef';

interface Row {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

describe('a turn a crash cut off (sqlite)', () => {
  const served = useServedDatabase();

  it('says once that the turn ended and its message must be sent again', async () => {
    const database = await served.open('sqlite');
    let server: Serving | undefined;
    const serve = async () => {
      server = await database.serve({ CLARION_ADMIN_TOKEN: ADMIN_TOKEN });
      return clarionApi(server.url, ADMIN_TOKEN);
    };
    let api = await serve();
    const crash = async () => {
      server?.child.kill('SIGKILL');
      expect((await server?.exited)?.signal).toBe('SIGKILL');
    };

    const task = async (title: string, prompt: string, state: string) => {
      const created = await api('POST', '/api/v1/tasks', { title, prompt });
      expect(created.status).toBe(201);
      const { session, task } = created.json as { session: { id: string }; task: { id: string } };
      await eventually(async () => {
        const listed = (await api('GET', `/api/v1/tasks/${task.id}/sessions`)).json as {
          sessions: { id: string; state: string }[];
        };
        return listed.sessions.some((one) => one.id === session.id && one.state === state);
      }, 30_000);
      return session.id;
    };
    const notes = async (sessionId: string) =>
      (
        (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json
          .messages as Row[]
      ).filter((row) => row.metadata.turn_outcome === 'interrupted');

    // The agent waits on its question: its turn is under way when the server dies.
    const cutOff = await task('Asking at the crash', '/ask', 'waiting_for_input');
    const finished = await task('Finished before the crash', 'hello', 'idle');
    await crash();

    api = await serve();
    const [note, ...more] = await notes(cutOff);
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      author: 'system',
      type: 'status',
      content: TURN_INTERRUPTED_TEXTS.restart,
      metadata: { turn_outcome: 'interrupted', loss: 'restart' },
    });
    expect(await notes(finished)).toEqual([]);

    // Written once: the next start finds the turn closed and writes nothing more.
    await crash();
    api = await serve();
    expect(await notes(cutOff)).toHaveLength(1);
    expect(await notes(finished)).toEqual([]);
  }, 180_000);
});
