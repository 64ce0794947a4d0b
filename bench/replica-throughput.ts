/**
 * Benchmark 8, part one: respond throughput of several `clarion serve`
 * replicas on one PostgreSQL against one (issue 16). Each phase gets a fresh
 * database seeded alike (same size, same seed): detached one-question
 * bundles, cloned in SQL over `external` sessions, so a claim is recorded
 * where it is made (no agent to resume, no lease holder, hence no hand-off
 * between replicas) and every respond is a winning claim on a distinct
 * pending ID. Then `replicas` fresh server processes start
 * (`CLARION_REPLICA_ID` distinct, same `DATABASE_URL`) and `concurrency`
 * responder lanes answer over REST, lane `l` always through replica
 * `l % replicas`: first the warm-up share of the set, untimed, then the rest,
 * timed. One phase and another differ only in how many processes serve.
 */
import { sql, type SqlBool } from 'kysely';
import { EXTERNAL_AGENT_PROFILE } from '../src/agents/index.js';
import { CLARIFICATION_TYPE, openStore, type DatabaseTarget } from '../src/store/index.js';
import { ADMIN_TOKEN, ANSWER } from './clarion-instance.js';
import { BenchClient, type JsonReply } from './http-client.js';
import { openCensus } from './pending-census.js';
import { backendsCpuMs, processCpuMs } from './process-cpu.js';
import type { BenchPostgres } from './postgres.js';
import { seedDatabase } from './seed-database.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { elapsedMs, round } from './stats.js';

export interface ThroughputPhase {
  replicas: number;
  /** Timed responds, and the wall time of the timed part. */
  responds: number;
  wallMs: number;
  perSecond: number;
  /**
   * CPU per timed respond, ms: the server processes together, the
   * PostgreSQL backends of this phase's database (`process-cpu.ts`), and
   * this process (the responders' HTTP client).
   */
  cpuMsPerRespond: { servers: number; database: number; generator: number };
  /** Timed responds whose reply was not `200` with a winning claim. */
  failures: number;
  /** Seeded bundles still pending after the phase (0 when every respond claimed). */
  leftPending: number;
  /** The first few unexpected replies, to say why. */
  unexpected: string[];
}

/** Bundles per holder session: consecutive responds land in distinct sessions. */
const BUNDLES_PER_SESSION = 10;
const MAX_UNEXPECTED = 5;
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface PhaseSize {
  concurrency: number;
  warmup: number;
  responds: number;
}

export async function throughputPhase(
  postgres: BenchPostgres,
  replicas: number,
  size: PhaseSize,
  seed: number,
): Promise<ThroughputPhase> {
  const database = await postgres.createDatabase();
  const target: DatabaseTarget = database.target;
  const servers: ServerProcess[] = [];
  const clients: BenchClient[] = [];
  try {
    const ids = await seedPending(target, size.warmup + size.responds, seed);
    for (let index = 0; index < replicas; index++) {
      servers.push(
        await startServerProcess(target, { CLARION_REPLICA_ID: `bench-replica-${index}` }),
      );
    }
    for (const server of servers) clients.push(new BenchClient(server.url));
    const unexpected: string[] = [];
    const warm = await respondAll(ids.slice(0, size.warmup), clients, size.concurrency);
    const databaseName = new URL(database.url).pathname.slice(1);
    const cpu = async () => ({
      servers: (await Promise.all(servers.map((server) => processCpuMs(server.pid)))).reduce(
        (sum, ms) => sum + ms,
        0,
      ),
      database: await backendsCpuMs(databaseName),
      generator: ((usage) => (usage.user + usage.system) / 1000)(process.cpuUsage()),
    });
    const before = await cpu();
    const started = performance.now();
    const timed = await respondAll(ids.slice(size.warmup), clients, size.concurrency);
    const wallMs = elapsedMs(started);
    const after = await cpu();
    for (const reply of [...warm, ...timed]) {
      if (!won(reply) && unexpected.length < MAX_UNEXPECTED) {
        unexpected.push(`${reply.status} ${reply.body.slice(0, 200)}`);
      }
    }
    const census = await openCensus(target);
    const leftPending = await census.count().finally(() => census.close());
    return {
      replicas,
      responds: timed.length,
      wallMs: round(wallMs, 1),
      perSecond: round((timed.length / wallMs) * 1000, 1),
      cpuMsPerRespond: {
        servers: round((after.servers - before.servers) / timed.length),
        database: round((after.database - before.database) / timed.length),
        generator: round((after.generator - before.generator) / timed.length),
      },
      failures: timed.filter((reply) => !won(reply)).length,
      leftPending: leftPending.pending,
      unexpected,
    };
  } finally {
    for (const client of clients) client.close();
    await Promise.allSettled(servers.map((server) => server.stop()));
    await database.drop();
  }
}

function won(reply: JsonReply): boolean {
  if (reply.status !== 200) return false;
  const body = JSON.parse(reply.body) as { claimed?: unknown; status?: unknown };
  return body.claimed === true && body.status === 'answered';
}

/** Answers every ID once through `concurrency` lanes, lane `l` through `clients[l % n]`. */
async function respondAll(
  ids: readonly string[],
  clients: readonly BenchClient[],
  concurrency: number,
): Promise<JsonReply[]> {
  const replies: JsonReply[] = [];
  let next = 0;
  const lane = async (index: number) => {
    const client = clients[index % clients.length];
    if (!client) throw new Error('no replica to answer through');
    while (next < ids.length) {
      const id = ids[next++];
      if (id === undefined) return;
      replies.push(
        await client
          .post(`/api/v1/clarification/${id}/respond`, ANSWER, AUTH)
          .catch((error: unknown): JsonReply => ({
            status: 0,
            body: error instanceof Error ? error.message : String(error),
          })),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, (_, l) => lane(l)));
  return replies;
}

/**
 * Seeds `count` pending bundles and returns their pending IDs in an order
 * that visits the holder sessions round-robin. The holders become external
 * sessions before any server starts, so start-up recovery has no agent to
 * start and a claim has nothing to resume.
 */
async function seedPending(target: DatabaseTarget, count: number, seed: number): Promise<string[]> {
  await seedDatabase(target, {
    agents: 0,
    detached: count,
    detachedPerSession: BUNDLES_PER_SESSION,
    seed,
  });
  const store = await openStore(target);
  try {
    await sql`UPDATE task_sessions SET agent_profile = ${EXTERNAL_AGENT_PROFILE}, state = 'running'
      WHERE id IN (SELECT session_id FROM bench_holders)`.execute(store.db);
    const status = store.dialect.metadataText('status');
    const rows = await store.db
      .selectFrom('task_session_messages')
      .select(store.dialect.metadataText('pending_id').as('pending_id'))
      .where('type', '=', CLARIFICATION_TYPE)
      .where(sql<SqlBool>`${status} = 'pending'`)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const ids = rows.map((row) => row.pending_id).filter((id): id is string => id !== null);
    if (ids.length !== count) throw new Error(`seeded ${ids.length} pending, not ${count}`);
    return ids;
  } finally {
    await store.close();
  }
}
