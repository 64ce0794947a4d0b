/**
 * A real ACP agent that holds many requests open in one turn
 * (`flood-fixtures.ts`), on the whole server in this process over SQLite
 * (the registry counts in memory, whatever the store): as many as the bound
 * allows wait quietly, without Node calling the turn's signal a leak; the
 * next one, a permission request, a form or a link (and a question form over
 * the open-question bound), is refused with a JSON-RPC error
 * naming `too_many_open_requests` (never ACP's `cancelled`, which says the
 * turn was cancelled), logged, and noted in the session's transcript.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { OPEN_ASKS_PER_AGENT, OPEN_USER_INPUTS_PER_AGENT } from '../../src/tunables.js';
import { ACP_REFUSAL_ERROR_CODE, USER_INPUT_REFUSED_TYPE } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { writeFloodAgent } from './flood-fixtures.js';

const ADMIN_TOKEN = 'acp-open-bound-admin-token-0123456789';
/** The agent process starts and floods before the requests are all open. */
const OPEN_WAIT_MS = 30_000;

interface Message {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** What the agent hears over the bound, whichever request it is. */
const REFUSAL = {
  code: ACP_REFUSAL_ERROR_CODE,
  message:
    `${OPEN_USER_INPUTS_PER_AGENT} of your requests (permission, action, form) wait for a ` +
    `person, and an agent may hold at most ${OPEN_USER_INPUTS_PER_AGENT} open at once; ` +
    'nothing was asked. A person must answer one first.',
  data: {
    code: 'too_many_open_requests',
    open: OPEN_USER_INPUTS_PER_AGENT,
    limit: OPEN_USER_INPUTS_PER_AGENT,
  },
};

describe('an ACP agent at its open-request bound', () => {
  let dir: string;
  let agentPath: string;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let api: ApiCall;
  let logLines: string[];
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-flood-'));
    agentPath = writeFloodAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    process.off('warning', onWarning);
    warnings.length = 0;
    await server?.close();
    server = undefined;
    await database?.dispose();
    database = undefined;
  });

  async function serve(): Promise<RunningServer> {
    database = await freshDatabase('sqlite');
    logLines = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });
    const agentProfiles = loadAgentProfiles({
      CLARION_AGENT_PROFILES: JSON.stringify({
        flooder: { command: process.execPath, args: [agentPath] },
      }),
    });
    server = await startServer(serverConfig(database, ADMIN_TOKEN, { agentProfiles }), logger);
    api = bearerApi(server.url, ADMIN_TOKEN);
    return server;
  }

  async function startTask(prompt: string): Promise<string> {
    const created = await api('POST', '/api/v1/tasks', {
      title: prompt,
      agent_profile: 'flooder',
      prompt,
    });
    expect(created.status).toBe(201);
    return (created.json.session as { id: string }).id;
  }

  async function messagesOf(sessionId: string): Promise<Message[]> {
    const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return page.json.messages as Message[];
  }

  /** The agent's report lines that start with `word`, once there are `count` of them. */
  async function reported(sessionId: string, word: string, count: number): Promise<string[]> {
    let lines: string[] = [];
    await eventually(async () => {
      const text = (await messagesOf(sessionId))
        .filter((message) => message.author === 'agent')
        .map((message) => message.content)
        .join('\n');
      lines = text.split('\n').filter((line) => line.startsWith(`${word} `));
      return lines.length >= count;
    }, OPEN_WAIT_MS);
    return lines;
  }

  async function refusalNotes(sessionId: string): Promise<Message[]> {
    return (await messagesOf(sessionId)).filter(
      (message) => message.type === USER_INPUT_REFUSED_TYPE,
    );
  }

  function refusalLogs(): Record<string, unknown>[] {
    return logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'an agent request was refused over its open-request bound');
  }

  it('answers a permission request over the bound with an error naming it, logs it and notes it for the person', async () => {
    const running = await serve();
    const sessionId = await startTask(`/flood ${OPEN_USER_INPUTS_PER_AGENT + 1}`);
    const [error] = await reported(sessionId, 'ERROR', 1);
    const refused = JSON.parse(error?.replace(/^ERROR \d+ /, '') ?? 'null') as unknown;
    expect(refused).toEqual(REFUSAL);
    expect(running.turns.userInputs.snapshot()).toHaveLength(OPEN_USER_INPUTS_PER_AGENT);
    const n = /^ERROR (\d+)/.exec(error ?? '')?.[1];

    await eventually(async () => (await refusalNotes(sessionId)).length === 1, OPEN_WAIT_MS);
    const [note] = await refusalNotes(sessionId);
    expect(note).toMatchObject({
      author: 'system',
      content:
        `The agent's permission request "Run step ${n}" was not shown: the agent already waits ` +
        `on ${OPEN_USER_INPUTS_PER_AGENT} open requests, as many as it may. Answer one and it can ask again.`,
      metadata: {
        kind: 'consent',
        title: `Run step ${n}`,
        code: 'too_many_open_requests',
        limit: OPEN_USER_INPUTS_PER_AGENT,
      },
    });
    expect(refusalLogs()).toEqual([
      expect.objectContaining({
        level: 40,
        sessionId,
        kind: 'consent',
        code: 'too_many_open_requests',
      }),
    ]);
  });

  it('notes a refused request once in its turn however often the agent retries it', async () => {
    await serve();
    const sessionId = await startTask(`/flood ${OPEN_USER_INPUTS_PER_AGENT + 1} +retry`);
    const errors = await reported(sessionId, 'ERROR', 2);
    expect(errors).toHaveLength(2);
    expect(new Set(errors).size).toBe(1);
    // Each try was refused and logged; the second found its note already written.
    expect(refusalLogs()).toHaveLength(2);
    expect(await refusalNotes(sessionId)).toHaveLength(1);
  });

  it.each([
    { what: 'form', word: 'form', kind: 'form', title: 'One more form' },
    { what: 'link to open', word: 'link', kind: 'action', title: 'Sign in to the tracker' },
  ])(
    'answers a $what over the bound with the same error, not a cancel, and notes it',
    async ({ word, kind, title }) => {
      const running = await serve();
      rmSync(join(dir, 'form-go'), { force: true });
      const sessionId = await startTask(`/flood ${OPEN_USER_INPUTS_PER_AGENT} +${word}`);
      await eventually(
        () => running.turns.userInputs.snapshot().length === OPEN_USER_INPUTS_PER_AGENT,
        OPEN_WAIT_MS,
      );
      writeFileSync(join(dir, 'form-go'), '');
      const [error] = await reported(sessionId, 'ERROR', 1);
      expect(error?.startsWith(`ERROR ${word} `)).toBe(true);
      expect(JSON.parse(error?.replace(/^ERROR \w+ /, '') ?? 'null')).toEqual(REFUSAL);
      await eventually(async () => (await refusalNotes(sessionId)).length === 1, OPEN_WAIT_MS);
      const [note] = await refusalNotes(sessionId);
      expect(note?.metadata).toEqual({
        kind,
        title,
        code: 'too_many_open_requests',
        limit: OPEN_USER_INPUTS_PER_AGENT,
      });
      expect(refusalLogs()).toEqual([
        expect.objectContaining({ level: 40, sessionId, kind, code: 'too_many_open_requests' }),
      ]);
    },
  );

  it('answers a question form over the open-question bound with the error, not a cancel, and notes it', async () => {
    await serve();
    const sessionId = await startTask(`/ask ${OPEN_ASKS_PER_AGENT + 1}`);
    const [error] = await reported(sessionId, 'ERROR', 1);
    expect(JSON.parse(error?.replace(/^ERROR \w+ /, '') ?? 'null')).toEqual({
      code: ACP_REFUSAL_ERROR_CODE,
      message:
        `${OPEN_ASKS_PER_AGENT} of your questions are open, and an agent may hold at most ` +
        `${OPEN_ASKS_PER_AGENT} open at once; nothing was asked. A person must answer, skip or ` +
        'cancel one of them before you ask again.',
      data: {
        code: 'too_many_open_requests',
        open: OPEN_ASKS_PER_AGENT,
        limit: OPEN_ASKS_PER_AGENT,
      },
    });
    const n = /^ERROR q(\d+)/.exec(error ?? '')?.[1];
    const pending = await api('GET', '/api/v1/pending');
    expect(pending.json.bundles).toHaveLength(OPEN_ASKS_PER_AGENT);

    await eventually(async () => (await refusalNotes(sessionId)).length === 1, OPEN_WAIT_MS);
    const [note] = await refusalNotes(sessionId);
    expect(note?.metadata).toEqual({
      kind: 'form',
      title: `Question ${n}`,
      code: 'too_many_open_requests',
      limit: OPEN_ASKS_PER_AGENT,
    });
    expect(refusalLogs()).toEqual([
      expect.objectContaining({
        level: 40,
        sessionId,
        kind: 'form',
        code: 'too_many_open_requests',
      }),
    ]);
  });

  it('holds as many permission requests as the bound allows in one turn without a listener-leak warning', async () => {
    const running = await serve();
    process.on('warning', onWarning);
    await startTask(`/flood ${OPEN_USER_INPUTS_PER_AGENT}`);
    await eventually(
      () => running.turns.userInputs.snapshot().length === OPEN_USER_INPUTS_PER_AGENT,
      OPEN_WAIT_MS,
    );
    // A warning is emitted on the next tick after the listener that crossed the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});
