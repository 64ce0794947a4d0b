/**
 * Compatibility with the pinned real Codex ACP adapter
 * (`@zed-industries/codex-acp` 0.16.0, its npm launcher and native binary)
 * through the built server, offline: its model is a local Responses API
 * stand-in. Codex refuses `session/new` until the client authenticates,
 * even with its key set, so Clarion authenticates with the method the
 * profile's environment holds; without a key the session fails saying
 * which variables Codex reads. Codex asks for a person's approval before a
 * command leaves its sandbox: the request reaches Clarion's inbox with
 * Codex's own options, the person's Allow runs the command and Reject keeps
 * it from running, each recorded as theirs. A delete leaves no process of
 * the agent's group.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import {
  functionCallOutput,
  startResponsesApiStandIn,
  type ResponsesApiStandIn,
  type ResponsesScript,
} from '../support/responses-api-stand-in.js';
import { CODEX_KEY_VARIABLE, codexProfile } from './codex-profile.js';
import { childrenOf, clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'codex-compat-admin-token-0123456789';
/** Codex's start and a turn on a loaded machine. */
const AGENT_WAIT_MS = 60_000;
/** Stop grace plus kill wait, with room for a loaded machine. */
const TEARDOWN_BOUND_MS = 15_000;

interface ConsentView {
  id: string;
  kind: string;
  session_id: string;
  title: string;
  status: string;
  options: { option_id: string; label: string; kind: string }[];
}

describe('the Codex ACP adapter through Clarion', () => {
  let standIn: ResponsesApiStandIn | undefined;
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

  async function serve(script: ResponsesScript | undefined) {
    home = mkdtempSync(join(tmpdir(), 'clarion-codex-home-'));
    standIn = script === undefined ? undefined : await startResponsesApiStandIn(script);
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_PROFILES: JSON.stringify({ codex: codexProfile(home, standIn?.url) }),
      ...(standIn === undefined ? {} : { [CODEX_KEY_VARIABLE]: 'sk-stand-in-not-a-key' }),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);
    const serverPid = server.child.pid ?? 0;
    const startTask = async (prompt: string) => {
      const created = await api('POST', '/api/v1/tasks', {
        title: 'codex',
        agent_profile: 'codex',
        prompt,
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
    return { api, serverPid, startTask, transcriptHas };
  }

  it('authenticates with the key its profile passes, answers a prompt, and a delete leaves no process of its group', async () => {
    const { api, serverPid, startTask, transcriptHas } = await serve(() => [
      { type: 'message', text: 'Hello from the stand-in.' },
    ]);
    const { sessionId } = await startTask('Say hello.');
    await eventually(() => transcriptHas(sessionId, 'Hello from the stand-in.'), AGENT_WAIT_MS);
    expect(standIn?.requests.at(-1)?.input.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'input_text', text: 'Say hello.' }],
    });
    const agents = childrenOf(serverPid);
    expect(agents.length).toBe(1);

    const started = Date.now();
    const deleted = await api('DELETE', `/api/v1/sessions/${sessionId}`);
    expect(deleted.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(TEARDOWN_BOUND_MS);
    // The launcher led its own group; the native binary it started goes with it.
    await eventually(() => groupGone(agents[0] ?? 0), TEARDOWN_BOUND_MS);
  }, 120_000);

  it.each([
    { choice: 'allow_once', runs: true },
    { choice: 'reject_once', runs: false },
  ])(
    'asks the person before a command leaves its sandbox; $choice decides whether it runs',
    async ({ choice, runs }) => {
      const proof = join(tmpdir(), `clarion-codex-proof-${process.pid}-${choice}.txt`);
      rmSync(proof, { force: true });
      const { api, startTask, transcriptHas } = await serve((request) => {
        const output = functionCallOutput(request, 'call_proof');
        if (output === undefined) {
          return [
            {
              type: 'function_call',
              callId: 'call_proof',
              name: 'exec_command',
              arguments: {
                cmd: `echo approved > ${proof}`,
                sandbox_permissions: 'require_escalated',
                justification: 'May I write the proof file?',
                tty: false,
              },
            },
          ];
        }
        return [{ type: 'message', text: `The command ended: ${output.split('\n')[0] ?? ''}` }];
      });
      const { sessionId } = await startTask('Write the proof file.');

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
      // Codex's own options, each read by what it does.
      expect(consent.options.map((option) => option.kind)).toEqual([
        'allow_once',
        'allow_always',
        'reject_once',
      ]);
      expect(existsSync(proof)).toBe(false);

      const option = consent.options.find((candidate) => candidate.kind === choice);
      const answered = await api('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
        option_id: option?.option_id,
      });
      expect(answered.status).toBe(200);
      // Codex's reject ("tell Codex what to do differently") ends the turn: the model hears nothing.
      await eventually(
        () => transcriptHas(sessionId, runs ? 'The command ended: ' : 'Cancelled'),
        AGENT_WAIT_MS,
      );
      expect(standIn?.requests.length).toBe(runs ? 2 : 1);
      expect(existsSync(proof)).toBe(runs);
      if (runs) expect(readFileSync(proof, 'utf8')).toBe('approved\n');
      rmSync(proof, { force: true });

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

  it('without a key fails the session saying which variables Codex reads; the next message is 409 session_failed', async () => {
    const { api, serverPid, startTask } = await serve(undefined);
    const { taskId, sessionId } = await startTask('Say hello.');
    let session: Record<string, unknown> = {};
    await eventually(async () => {
      const list = await api('GET', `/api/v1/tasks/${taskId}/sessions`);
      session = (list.json.sessions as Record<string, unknown>[])[0] ?? {};
      return session.state === 'failed';
    }, AGENT_WAIT_MS);
    const failure = session.failure as { code: string; message: string };
    expect(failure.code).toBe('start_failed');
    expect(failure.message).toContain('Authentication required');
    expect(failure.message).toContain('CODEX_API_KEY or OPENAI_API_KEY');
    const next = await api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'again',
      admission_key: 'codex-again',
    });
    expect(next.status).toBe(409);
    expect(next.json.code).toBe('session_failed');
    await eventually(() => childrenOf(serverPid).length === 0, TEARDOWN_BOUND_MS);
  }, 120_000);
});
