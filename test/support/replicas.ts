/**
 * Several replicas on one real PostgreSQL for the cluster suites (issue 16):
 * real `clarion serve` processes on a fresh database, or in-process replicas
 * (a store connection, a registered replica and a wake bus each) for suites
 * that wire the owners themselves.
 */
import { onTestFailed, type TestContext } from 'vitest';
import {
  createWakeBus,
  startReplica,
  type Replica,
  type WakeBus,
} from '../../src/cluster/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { Principal } from '../../src/auth/principal.js';
import {
  addWorkspaceMember,
  createUser,
  openStore,
  setSessionState,
  type DatabaseTarget,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { childrenOf } from '../agents/supervisor-support.js';
import { eventually } from './clarification-harness.js';
import { startServing, type Serving } from './clarion-process.js';
import { freshDatabase, type TestDatabase } from './databases.js';
import { seedSession, type Seeded } from './seed.js';

type PostgresTarget = Extract<DatabaseTarget, { driver: 'postgres' }>;

/** A fresh PostgreSQL database; `dispose` in `afterEach`. */
export async function freshPostgres(): Promise<TestDatabase & { target: PostgresTarget }> {
  const database = await freshDatabase('postgres', { migrated: true });
  if (database.target.driver !== 'postgres') throw new Error('postgres only');
  return database as TestDatabase & { target: PostgresTarget };
}

/**
 * `clarion serve` replicas on one fresh database, all with `adminToken`;
 * `stopAll` (in `afterEach`) stops those still running and drops the database.
 * A test of a `describe.concurrent` passes its `context`: each test then has
 * processes and a database of its own, and a failure prints its own replicas'
 * output (the module's `onTestFailed` names whichever test started last).
 */
export function replicaProcesses(adminToken: string, context?: TestContext) {
  let database: (TestDatabase & { target: PostgresTarget }) | undefined;
  const servers: Serving[] = [];
  // One connection for the suite's reads: opening a store per read is slow enough to miss a state.
  let reader: Store | undefined;
  return {
    servers,
    /** The database, once `start` made it. */
    target(): PostgresTarget {
      if (!database) throw new Error('no replicas started');
      return database.target;
    },
    /**
     * Starts one replica per ID on the same database, all at once (each start is a second or
     * more of a process loading; replicas starting together is what a deployment does anyway,
     * `start-together.test.ts`), and returns them in the order of `ids`. A test that needs one
     * up before the next starts calls this once per replica.
     */
    async start(ids: readonly string[], env: Record<string, string> = {}): Promise<Serving[]> {
      const { target } = (database ??= await freshPostgres());
      const started: [id: string, server: Serving][] = [];
      // A race seen once in CI is only worth its failure with what each replica said.
      (context?.onTestFailed ?? onTestFailed)(() => {
        for (const [id, server] of started) printLogTail(id, server);
      });
      const starts = await Promise.allSettled(
        ids.map((id) =>
          startServing({
            DATABASE_URL: target.url,
            CLARION_ADMIN_TOKEN: adminToken,
            CLARION_REPLICA_ID: id,
            ...env,
          }),
        ),
      );
      // Those that did start are stopped with the rest, even when another did not.
      for (const [index, result] of starts.entries()) {
        if (result.status === 'fulfilled') {
          servers.push(result.value);
          started.push([ids[index] ?? '?', result.value]);
        }
      }
      const failed = starts.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return started.map(([, server]) => server);
    },
    /** The replica holding the session's lease, as the store says now. */
    async leaseHolder(sessionId: string): Promise<string | undefined> {
      if (!database) throw new Error('no replicas started');
      reader ??= await openStore(database.target);
      return leaseHolderIn(reader, sessionId);
    },
    async stopAll(): Promise<void> {
      await reader?.close();
      reader = undefined;
      for (const server of servers.splice(0)) {
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
      }
      await database?.dispose();
      database = undefined;
    },
  };
}

/**
 * Replicas for one test of a `describe.concurrent`, with a database of their
 * own: when the test finishes, `beforeStop` (letting a stopped process run
 * again, say, or closing what stands between a replica and its database),
 * then `stopAll`.
 */
export function replicaProcessesOfTest(
  adminToken: string,
  context: TestContext,
  beforeStop: () => unknown = () => undefined,
): ReturnType<typeof replicaProcesses> {
  const processes = replicaProcesses(adminToken, context);
  context.onTestFinished(async () => {
    await beforeStop();
    await processes.stopAll();
  });
  return processes;
}

const LOG_TAIL_CHARS = 12_000;

function printLogTail(id: string, server: Serving): void {
  const { stdout, stderr } = server.output();
  console.error(
    `--- ${id} (pid ${server.child.pid ?? '?'}), its last output ---\n` +
      `${stdout.slice(-LOG_TAIL_CHARS)}\n${stderr.slice(-LOG_TAIL_CHARS)}`,
  );
}

export interface InProcessReplica {
  readonly id: string;
  readonly store: Store;
  readonly replica: Replica;
  readonly bus: WakeBus;
  /** Closes the bus, stops the replica and closes the store. */
  readonly close: () => Promise<void>;
}

/** A registered replica with its own store connection and wake bus (no owners wired). */
export async function inProcessReplica(
  target: DatabaseTarget,
  id: string,
  options: { leaseMs: number; pollIntervalMs?: number },
): Promise<InProcessReplica> {
  const store = await openStore(target);
  const replica = await startReplica({
    store,
    target,
    id,
    leaseMs: options.leaseMs,
    heartbeatMs: 1_000,
    timers: systemTimers,
    logger: silentLogger,
    exclusive: false,
  });
  const bus = createWakeBus({
    store,
    replicaId: id,
    timers: systemTimers,
    logger: silentLogger,
    pollIntervalMs: options.pollIntervalMs ?? 60_000,
  });
  return {
    id,
    store,
    replica,
    bus,
    close: async () => {
      bus.close();
      await replica.stop().catch(() => undefined);
      await store.close();
    },
  };
}

/** A running session and a workspace member who may answer it, written through a short-lived store. */
export async function seedAnsweringMember(
  target: DatabaseTarget,
): Promise<{ seeded: Seeded; person: Extract<Principal, { kind: 'user' }> }> {
  const store = await openStore(target);
  try {
    const seeded = await seedSession(store, 'parser');
    const member = await createUser(store, { name: 'member' });
    await addWorkspaceMember(store, {
      workspaceId: seeded.task.workspace_id,
      userId: member.id,
      role: 'member',
    });
    await setSessionState(store, seeded.session.id, 'running');
    return {
      seeded,
      person: { kind: 'user', userId: member.id, name: member.name, isAdmin: false },
    };
  } finally {
    await store.close();
  }
}

type Api = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; json: unknown }>;

/** What the cluster suites read of a session through one replica's REST API. */
export function sessionReads(api: Api) {
  return {
    /** The session's pending bundle, as the inbox lists it. */
    pendingOf: async (sessionId: string) => {
      const list = (await api('GET', '/api/v1/pending')).json as {
        bundles: { pending_id: string; session_id: string; detached: boolean }[];
      };
      return list.bundles.find((bundle) => bundle.session_id === sessionId);
    },
    /** What the session's agents said, oldest first. */
    agentText: async (sessionId: string) => {
      const { messages } = (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`))
        .json as { messages: { author: string; content: string }[] };
      return messages.filter((message) => message.author === 'agent').map((m) => m.content);
    },
  };
}

/**
 * A task created through `api` whose demo agent asks at once: its session,
 * the pending bundle as `reads` lists it, and the agent process, which must
 * be the one child of `serverPid` (the replica `api` reaches).
 */
export async function askingSession(
  api: Api,
  reads: ReturnType<typeof sessionReads>,
  serverPid: number,
  title: string,
) {
  const created = await api('POST', '/api/v1/tasks', { title, prompt: '/ask' });
  if (created.status !== 201) throw new Error(`the task was not created: ${created.status}`);
  const sessionId = (created.json as { session: { id: string } }).session.id;
  await eventually(async () => (await reads.pendingOf(sessionId)) !== undefined, 30_000);
  const ask = await reads.pendingOf(sessionId);
  if (!ask) throw new Error('the ask is pending');
  // The demo agent runs in its own process group, a child of the replica.
  const children = childrenOf(serverPid);
  const [agent] = children;
  if (agent === undefined || children.length !== 1) {
    throw new Error(`one demo agent expected under ${serverPid}, found ${children.join(', ')}`);
  }
  return { sessionId, ask, agent };
}

/** Reads the database with a store of its own, closed after `read`. */
export async function readStore<T>(
  target: DatabaseTarget,
  read: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore(target);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

async function leaseHolderIn(store: Store, sessionId: string): Promise<string | undefined> {
  const row = await store.db
    .selectFrom('session_leases')
    .select('replica_id')
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row?.replica_id;
}

/** The replica holding the session's lease, read with a store of its own. */
export const leaseHolder = (target: DatabaseTarget, sessionId: string) =>
  readStore(target, (store) => leaseHolderIn(store, sessionId));
