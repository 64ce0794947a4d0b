/**
 * One whole Clarion server in this process (`startServer`, real socket on
 * 127.0.0.1, ephemeral port) over a fresh SQLite or PostgreSQL database, with
 * an admin bearer token, plus the few helpers the benchmarks share: sessions
 * in the admin's workspace, an in-process ask whose pending ID is found, and
 * the REST respond.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentProfiles } from '../src/agents/profiles.js';
import type { AskResult } from '../src/clarification/service.js';
import type { Config } from '../src/config.js';
import { silentLogger } from '../src/observability/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import {
  createSession,
  createTask,
  firstAdmin,
  listMemberWorkspaces,
  setSessionState,
  startTurn,
  type DatabaseTarget,
  type Driver,
} from '../src/store/index.js';
import type { BenchPostgres } from './postgres.js';
import type { BenchClient, JsonReply } from './http-client.js';
import { watchQuestions, type QuestionWatch } from './question-watch.js';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** One question, two options: the smallest bundle, so the path is measured, not the payload. */
export function askArgs(tag: string) {
  return {
    context: `bench ${tag}`,
    questions: [
      {
        prompt: 'Proceed with the migration?',
        options: [
          { label: 'Yes', description: 'Run it now' },
          { label: 'No', description: 'Leave it' },
        ],
      },
    ],
  };
}

export const ANSWER = { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }] };

export interface ClarionInstance {
  readonly server: RunningServer;
  readonly driver: Driver;
  readonly adminUserId: string;
  /** Sessions in `running` state in the admin's workspace. */
  seedSessions(count: number): Promise<string[]>;
  /** Starts a live ask and resolves once its bundle is stored and its waiter registered. */
  ask(sessionId: string, tag: string): Promise<{ pendingId: string; done: Promise<AskResult> }>;
  respond(client: BenchClient, pendingId: string): Promise<JsonReply>;
  close(): Promise<void>;
}

export async function startClarion(
  driver: Driver,
  postgres: BenchPostgres | undefined,
): Promise<ClarionInstance> {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarion-bench-'));
  let dropDatabase = () => Promise.resolve();
  let target: DatabaseTarget = { driver: 'sqlite', dataDir };
  if (driver === 'postgres') {
    if (!postgres) throw new Error('PostgreSQL benchmark without a PostgreSQL server');
    const database = await postgres.createDatabase();
    dropDatabase = () => database.drop();
    target = database.target;
  }
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    database: target,
    logLevel: 'silent',
    adminToken: ADMIN_TOKEN,
    publicOrigin: undefined,
    agentProfiles: loadAgentProfiles({}),
  };
  const cleanup = async () => {
    await dropDatabase();
    await rm(dataDir, { recursive: true, force: true });
  };
  let server: RunningServer;
  try {
    server = await startServer(config, silentLogger);
  } catch (error) {
    await cleanup();
    throw error;
  }
  const { store } = server;
  const admin = await firstAdmin(store);
  const [workspace] = admin ? await listMemberWorkspaces(store, admin.id) : [];
  if (!admin || !workspace) throw new Error('start-up made no admin workspace');
  // Opened lazily: the full-cycle benchmark has its own client on the event stream.
  let watch: QuestionWatch | undefined;

  return {
    server,
    driver,
    adminUserId: admin.id,
    async seedSessions(count) {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) {
        const task = await createTask(store, {
          workspaceId: workspace.id,
          title: `bench ${index}`,
          createdBy: admin.id,
        });
        const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
        await startTurn(store, { sessionId: session.id, taskId: task.id });
        await setSessionState(store, session.id, 'running');
        ids.push(session.id);
      }
      return ids;
    },
    async ask(sessionId, tag) {
      watch ??= await watchQuestions(server.url, ADMIN_TOKEN);
      const seen = watch.next(sessionId);
      const done = server.clarification.ask(sessionId, askArgs(tag));
      const pendingId = await seen;
      // Events go out right after the commit and the waiter registers a few
      // microtasks later; one macrotask turn later it certainly has.
      await new Promise((resolve) => setImmediate(resolve));
      return { pendingId, done };
    },
    respond: (client, pendingId) =>
      client.post(`/api/v1/clarification/${pendingId}/respond`, ANSWER, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      }),
    async close() {
      watch?.close();
      await server.close();
      await cleanup();
    },
  };
}
