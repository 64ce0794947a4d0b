/**
 * A request that arrives as its turn ends, a real ACP agent
 * (`edge-request-fixtures.ts`) on the whole server in this process: a pause
 * point holds the request still opening (its copy not yet kept) while the
 * turn ends and that end settles the request that was open. Released, the
 * late one ends too, as it opens: its agent hears `cancelled`, nothing waits
 * on the idle session and nobody is left to decide it. A permission request
 * and a form of the turn alike.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { armPause, type ArmedPause } from '../../src/support/failpoints.js';
import type { SessionView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { writeEdgeRequestAgent } from './edge-request-fixtures.js';

const ADMIN_TOKEN = 'requests-at-turn-end-admin-token-0123456789';
/** The agent process starts before it asks. */
const AGENT_WAIT_MS = 30_000;
/** The pause lets the request go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 40_000;

interface Started {
  sessionId: string;
  taskId: string;
}

/** Each ask, and what its agent hears once its turn's end ended it. */
const ASKS = [
  {
    what: 'permission request',
    kind: 'consent',
    asked: 'permission',
    heard: { outcome: { outcome: 'cancelled' } },
  },
  { what: 'form', kind: 'form', asked: 'form', heard: { action: 'cancel' } },
] as const;

describe('a request still opening as its turn ends', () => {
  let dir: string;
  let agentPath: string;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let pause: ArmedPause | undefined;
  let api: ApiCall;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-turn-end-'));
    agentPath = writeEdgeRequestAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    pause?.release();
    pause = undefined;
    await server?.close();
    server = undefined;
    await database?.dispose();
    database = undefined;
  });

  async function serve(): Promise<RunningServer> {
    database = await freshDatabase('sqlite');
    const agentProfiles = loadAgentProfiles({
      CLARION_AGENT_PROFILES: JSON.stringify({
        edger: { command: process.execPath, args: [agentPath] },
      }),
    });
    server = await startServer(
      serverConfig(database, ADMIN_TOKEN, { agentProfiles }),
      silentLogger,
    );
    api = bearerApi(server.url, ADMIN_TOKEN);
    return server;
  }

  async function startTask(prompt: string): Promise<Started> {
    const created = await api('POST', '/api/v1/tasks', {
      title: prompt,
      agent_profile: 'edger',
      prompt,
    });
    expect(created.status).toBe(201);
    return {
      sessionId: (created.json.session as { id: string }).id,
      taskId: (created.json.task as { id: string }).id,
    };
  }

  async function listed(sessionId: string): Promise<{ id: string; kind: string }[]> {
    const list = await api('GET', '/api/v1/user-inputs');
    return (list.json.requests as { id: string; kind: string; session_id: string }[]).filter(
      (request) => request.session_id === sessionId,
    );
  }

  async function sessionOf({ sessionId, taskId }: Started): Promise<SessionView | undefined> {
    const read = await api<{ sessions: SessionView[] }>('GET', `/api/v1/tasks/${taskId}/sessions`);
    return read.json.sessions.find((session) => session.id === sessionId);
  }

  const heardBy = (tag: string, n: number): unknown =>
    JSON.parse(readFileSync(join(dir, `${tag}-${n}.json`), 'utf8'));

  it.each(ASKS)(
    'ends a $what that opens after its turn ended, and leaves nothing waiting',
    async ({ kind, asked, heard }) => {
      const running = await serve();
      const registry = running.turns.userInputs;
      const tag = `ending-${asked}`;
      const started = await startTask(`/end-while-opening ${asked} ${tag}`);
      let first: { id: string; kind: string } | undefined;
      await eventually(async () => {
        [first] = await listed(started.sessionId);
        return first !== undefined;
      }, AGENT_WAIT_MS);
      expect(first?.kind).toBe(kind);

      // The second ask reaches the registry while its turn runs, and waits there to open.
      pause = armPause('user_input.before_copy_kept', PAUSE_BOUND_MS);
      writeFileSync(join(dir, `${tag}.go`), '');
      await pause.reached;
      writeFileSync(join(dir, `${tag}.end`), '');
      // The turn's end settled the request open then: the second missed it.
      await eventually(() => registry.get(first?.id ?? '')?.status === 'settled', AGENT_WAIT_MS);
      expect(registry.get(first?.id ?? '')).toMatchObject({ settled_reason: 'swept' });
      expect(await sessionOf(started)).toMatchObject({ state: 'idle' });

      pause.release();
      await eventually(
        async () =>
          existsSync(join(dir, `${tag}-2.json`)) || (await listed(started.sessionId)).length > 0,
        AGENT_WAIT_MS,
      );
      expect(await listed(started.sessionId)).toEqual([]);
      expect(registry.snapshot()).toEqual([]);
      expect(await sessionOf(started)).toMatchObject({ state: 'idle', pending_action: null });
      expect(heardBy(tag, 2)).toEqual({ reply: heard });
      expect(heardBy(tag, 1)).toEqual({ reply: heard });
      const decisions = await api('GET', '/api/v1/decisions');
      expect(decisions.json.decisions).toEqual([]);
    },
    60_000,
  );
});
