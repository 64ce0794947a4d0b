/**
 * A fresh database (a temporary SQLite directory, or a new database on the
 * bench's PostgreSQL), seeded, with `clarion serve` running on it as a child
 * process. `grow` adds to the database while the server runs; `close` stops
 * the server and removes the database, whatever state the run left them in.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseTarget, Driver } from '../src/store/index.js';
import type { BenchPostgres } from './postgres.js';
import { mintAgentTokens, seedDatabase, type SeedPlan, type SeededAgent } from './seed-database.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

export interface SeededServer {
  readonly server: ServerProcess;
  readonly target: DatabaseTarget;
  readonly agents: readonly SeededAgent[];
  /** Seeds more while the server runs; returns only the agents added now. */
  grow(plan: SeedPlan): Promise<SeededAgent[]>;
  close(): Promise<void>;
}

export async function startSeededServer(
  driver: Driver,
  postgres: BenchPostgres | undefined,
  plan: SeedPlan,
): Promise<SeededServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarion-bench-'));
  let target: DatabaseTarget = { driver: 'sqlite', dataDir };
  let drop = () => Promise.resolve();
  let server: ServerProcess | undefined;
  const close = async () => {
    await server?.stop();
    await drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (driver === 'postgres') {
      if (!postgres) throw new Error('PostgreSQL benchmark without a PostgreSQL server');
      const database = await postgres.createDatabase();
      drop = () => database.drop();
      target = database.target;
    }
    const sessions = await seedDatabase(target, plan);
    server = await startServerProcess(target);
    const seeded = target;
    const agents = await mintAgentTokens(seeded, sessions);
    const grow = async (more: SeedPlan) =>
      mintAgentTokens(seeded, await seedDatabase(seeded, more));
    return { server, target, agents, grow, close };
  } catch (error) {
    await close();
    throw error;
  }
}
