/**
 * Compatibility with the pinned real Gemini CLI (`@google/gemini-cli`
 * 0.61.0, `gemini --acp`) through the built server, offline: its model is a
 * local Gemini API stand-in. It answers a prompt, and a delete leaves no
 * process of its group. It asks for a person's approval before it runs a
 * shell command: the request reaches Clarion's inbox with the CLI's own
 * options, the person's Allow runs the command and Reject keeps it from
 * running, each recorded as theirs. Without a key the session fails with the
 * CLI's words.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import {
  functionResponse,
  startGeminiApiStandIn,
  type GeminiApiStandIn,
  type GeminiScript,
} from '../support/gemini-api-stand-in.js';
import { GEMINI_KEY_VARIABLE, geminiProfile } from './gemini-profile.js';
import { childrenOf, clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'gemini-compat-admin-token-0123456789';
/** The CLI's start and a turn on a loaded machine. */
const AGENT_WAIT_MS = 60_000;
/** Stop grace plus kill wait, with room for a loaded machine. */
const TEARDOWN_BOUND_MS = 15_000;

interface ConsentView {
  id: string;
  kind: string;
  session_id: string;
  title: string;
  options: { option_id: string; label: string; kind: string }[];
}

describe('the Gemini CLI through Clarion', () => {
  let standIn: GeminiApiStandIn | undefined;
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let home: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await standIn?.close();
    standIn = undefined;
    await database?.dispose();
    if (home) rmSync(home, { recursive: true, force: true });
    home = undefined;
  });

  /** A Clarion whose Gemini has a key and the stand-in for its model, or neither. */
  async function serve(script: GeminiScript | undefined) {
    home = mkdtempSync(join(tmpdir(), 'clarion-gemini-home-'));
    standIn = script === undefined ? undefined : await startGeminiApiStandIn(script);
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_PROFILES: JSON.stringify({ gemini: geminiProfile(home, standIn?.url) }),
      ...(standIn === undefined ? {} : { [GEMINI_KEY_VARIABLE]: 'stand-in-not-a-key' }),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);
    const startTask = async (prompt: string) => {
      const created = await api('POST', '/api/v1/tasks', {
        title: 'gemini',
        agent_profile: 'gemini',
        prompt,
        cwd: home,
      });
      expect(created.status).toBe(201);
      return {
        taskId: (created.json.task as { id: string }).id,
        sessionId: (created.json.session as { id: string }).id,
      };
    };
    const transcriptHas = async (sessionId: string, text: string) => {
      const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
      return (page.json.messages as { content: string }[]).some((message) =>
        message.content.includes(text),
      );
    };
    const stateOf = async (taskId: string) => {
      const list = await api('GET', `/api/v1/tasks/${taskId}/sessions`);
      return (list.json.sessions as { state: string }[])[0]?.state;
    };
    return { api, serverPid: server.child.pid ?? 0, startTask, transcriptHas, stateOf };
  }

  it('answers a prompt, and a delete leaves no process of its group', async () => {
    const { api, serverPid, startTask, transcriptHas } = await serve(() => [
      { text: 'Hello from the stand-in.' },
    ]);
    const { sessionId } = await startTask('Say hello.');
    await eventually(() => transcriptHas(sessionId, 'Hello from the stand-in.'), AGENT_WAIT_MS);
    const asked = JSON.stringify(standIn?.requests.at(-1)?.contents.at(-1));
    expect(asked).toContain('Say hello.');
    const agents = childrenOf(serverPid);
    expect(agents.length).toBe(1);

    const started = Date.now();
    const deleted = await api('DELETE', `/api/v1/sessions/${sessionId}`);
    expect(deleted.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(TEARDOWN_BOUND_MS);
    await eventually(() => groupGone(agents[0] ?? 0), TEARDOWN_BOUND_MS);
  }, 120_000);

  it.each([
    { choice: 'allow_once', runs: true },
    { choice: 'reject_once', runs: false },
  ])(
    'asks the person before it runs a shell command; $choice decides whether it runs',
    async ({ choice, runs }) => {
      const proof = join(tmpdir(), `clarion-gemini-proof-${process.pid}-${choice}.txt`);
      rmSync(proof, { force: true });
      const { api, startTask, transcriptHas, stateOf } = await serve((request) => {
        const response = functionResponse(request, 'run_shell_command');
        if (response === undefined) {
          return [
            {
              functionCall: {
                name: 'run_shell_command',
                args: { command: `echo approved > ${proof}`, description: 'Write the proof file' },
              },
            },
          ];
        }
        return [{ text: 'The command ended.' }];
      });
      const { taskId, sessionId } = await startTask('Write the proof file.');

      let consent: ConsentView | undefined;
      await eventually(async () => {
        const list = await api('GET', '/api/v1/user-inputs');
        consent = (list.json.requests as ConsentView[]).find(
          (request) => request.session_id === sessionId && request.kind === 'consent',
        );
        return consent !== undefined;
      }, AGENT_WAIT_MS);
      if (!consent) throw new Error('no consent');
      expect(consent.title).toContain(`echo approved > ${proof}`);
      // The CLI's own options, each read by what it does.
      expect(consent.options.map((option) => option.kind).sort()).toEqual([
        'allow_always',
        'allow_once',
        'reject_once',
      ]);
      expect(existsSync(proof)).toBe(false);

      const option = consent.options.find((candidate) => candidate.kind === choice);
      const answered = await api('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
        option_id: option?.option_id,
      });
      expect(answered.status).toBe(200);
      if (runs) {
        await eventually(() => transcriptHas(sessionId, 'The command ended.'), AGENT_WAIT_MS);
        expect(readFileSync(proof, 'utf8')).toBe('approved\n');
        rmSync(proof, { force: true });
      } else {
        // A rejected call ends the CLI's turn: the session is idle again, the file never written.
        await eventually(async () => (await stateOf(taskId)) === 'idle', AGENT_WAIT_MS);
        expect(existsSync(proof)).toBe(false);
      }

      const log = await api('GET', '/api/v1/decisions');
      expect(log.json.decisions).toEqual([
        expect.objectContaining({
          kind: 'consent',
          responded_by: expect.objectContaining({ name: 'admin', surface: 'rest' }) as unknown,
        }),
      ]);
    },
    120_000,
  );

  it('without a key fails the session with the CLI’s words; the next message is 409 session_failed', async () => {
    const { api, serverPid, startTask } = await serve(undefined);
    const { taskId, sessionId } = await startTask('Say hello.');
    let session: Record<string, unknown> = {};
    await eventually(async () => {
      const list = await api('GET', `/api/v1/tasks/${taskId}/sessions`);
      session = (list.json.sessions as Record<string, unknown>[])[0] ?? {};
      return session.state === 'failed';
    }, AGENT_WAIT_MS);
    expect(session.failure).toMatchObject({
      code: 'start_failed',
      message: expect.stringContaining('Gemini API key is missing') as unknown,
    });
    const next = await api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'again',
      admission_key: 'gemini-again',
    });
    expect(next.status).toBe(409);
    expect(next.json.code).toBe('session_failed');
    await eventually(() => childrenOf(serverPid).length === 0, TEARDOWN_BOUND_MS);
  }, 120_000);
});
