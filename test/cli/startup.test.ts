/**
 * `clarion serve` as a process: it serves only after start-up succeeded, and
 * every failure before that ends with one clear line and a non-zero exit.
 */
import { spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PENDING_ID_ORDERED_INDEX,
  PID_FILE,
  SQLITE_FILE,
  START_UP_LOCK_CLASS,
  connectDatabase,
  openStore,
  dialectFor,
  schemaSteps,
  type DatabaseTarget,
  type Driver,
} from '../../src/store/index.js';
import { STORE_LOCK_WAIT_MAX_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import {
  databaseEnv,
  runUntilExit,
  startingServe,
  startServing,
  type Exited,
  type RunAs,
} from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, withPgAdmin, type TestDatabase } from '../support/databases.js';
import { holdDataDirLock, holdSqliteLock } from '../support/lock-holder.js';

function expectOneLineFailure(result: Exited, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  const lines = result.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^clarion: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stdout).not.toContain('serving on');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no port');
  return { port: address.port, server };
}

/** Makes creating the ordered index fail for real, in each engine's own way. */
const OBSTRUCT_ORDERED_INDEX: Record<Driver, (target: DatabaseTarget) => Promise<void>> = {
  // SQLite refuses an index whose name a table already holds.
  sqlite: async (target) => {
    const db = await connectDatabase(target);
    await sql.raw(`CREATE TABLE ${PENDING_ID_ORDERED_INDEX} (id TEXT)`).execute(db);
    await db.destroy();
  },
  // An event trigger that rejects the statement creating this one index.
  postgres: async (target) => {
    const db = await connectDatabase(target);
    await sql
      .raw(
        `CREATE FUNCTION refuse_ordered_index() RETURNS event_trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF current_query() LIKE '%${PENDING_ID_ORDERED_INDEX}%' THEN
             RAISE EXCEPTION 'injected failure: ordered index refused';
           END IF;
         END $$`,
      )
      .execute(db);
    await sql
      .raw(
        'CREATE EVENT TRIGGER refuse_ordered_index ON ddl_command_start ' +
          "WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION refuse_ordered_index()",
      )
      .execute(db);
    await db.destroy();
  },
};

describe.each(DRIVERS)('clarion serve on %s', (driver) => {
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await database?.dispose();
    database = undefined;
  });

  it('serves /healthz with the driver and schema state', async () => {
    database = await freshDatabase(driver);
    const server = await startServing(databaseEnv(database.target));
    try {
      // PostgreSQL's wake-up listener connects beside the start; SQLite has none to wait for.
      const listener = driver === 'postgres' ? 'listening' : 'local';
      let response = await fetch(`${server.url}/healthz`);
      await eventually(async () => {
        response = await fetch(`${server.url}/healthz`);
        const body = (await response.clone().json()) as { replica: { listener: string } };
        return body.replica.listener === listener;
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        status: 'ok',
        driver,
        database: 'reachable',
        schema: { state: 'ready', steps: schemaSteps(dialectFor(driver)).length },
        replica: { id: expect.any(String) as unknown, leases: 0, listener, lock: 'held' },
      });
    } finally {
      const exited = await server.stop();
      expect(exited.code).toBe(0);
    }
  });

  it('exits non-zero and serves nothing when creating the ordered index fails', async () => {
    database = await freshDatabase(driver);
    await OBSTRUCT_ORDERED_INDEX[driver](database.target);
    const { port, server } = await occupiedPort();
    await new Promise((resolve) => server.close(resolve));

    const result = await runUntilExit({
      ...databaseEnv(database.target),
      CLARION_PORT: String(port),
    });
    expectOneLineFailure(result, new RegExp(`schema step "index ${PENDING_ID_ORDERED_INDEX}"`));
    expect(await listening(port)).toBe(false);
  });
});

describe('clarion serve with bad configuration', () => {
  const scratch: string[] = [];

  afterEach(async () => {
    await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('names an unreachable DATABASE_URL without its password', async () => {
    const { port, server } = await occupiedPort();
    await new Promise((resolve) => server.close(resolve));
    const result = await runUntilExit({
      DATABASE_URL: `postgres://clarion:secret@127.0.0.1:${port}/clarion`,
    });
    expectOneLineFailure(result, /cannot connect to PostgreSQL at postgres:\/\/clarion:\*\*\*@/);
    expect(result.stderr).not.toContain('secret');
  });

  it('names a data directory it cannot create', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-bad-dir-'));
    scratch.push(dir);
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    const result = await runUntilExit({ CLARION_DATA_DIR: join(file, 'data') });
    expectOneLineFailure(result, /data directory .*a-file\/data is not usable/);
  });

  /** Root writes any file whatever its mode; the server then runs as nobody. */
  const unprivileged: RunAs | undefined =
    process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

  /** A data directory holding a database Clarion made, owned by whoever the server runs as. */
  async function existingDatabase(): Promise<{ dir: string; file: string }> {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-read-only-'));
    scratch.push(dir);
    const store = await openStore({ driver: 'sqlite', dataDir: dir });
    await store.close();
    const file = join(dir, SQLITE_FILE);
    if (unprivileged) {
      await chown(dir, unprivileged.uid, unprivileged.gid);
      await chown(file, unprivileged.uid, unprivileged.gid);
    }
    return { dir, file };
  }

  it('names a read-only database file', async () => {
    const { dir, file } = await existingDatabase();
    await chmod(file, 0o444);
    const result = await runUntilExit({ CLARION_DATA_DIR: dir }, 30_000, unprivileged);
    expectOneLineFailure(result, new RegExp(`database file ${file} is read-only`));
  });

  it('names a read-only data directory', async () => {
    const { dir } = await existingDatabase();
    await chmod(dir, 0o555);
    try {
      const result = await runUntilExit({ CLARION_DATA_DIR: dir }, 30_000, unprivileged);
      expectOneLineFailure(result, new RegExp(`data directory ${dir} is read-only`));
    } finally {
      await chmod(dir, 0o755);
    }
  });

  it('names a lock another process holds past the store’s bound as that, not as a bug', async () => {
    const { dir, file } = await existingDatabase();
    const held = await holdSqliteLock(file, STORE_LOCK_WAIT_MAX_MS + 4_000);
    try {
      const result = await runUntilExit({ CLARION_DATA_DIR: dir }, 30_000, unprivileged);
      expectOneLineFailure(result, /database unavailable during start-up: another process held/);
      expect(result.stderr).not.toMatch(/unexpected/);
    } finally {
      // Held past the server's bound already: it has exited.
      await held.release();
    }
  });

  it('names a PostgreSQL role out of connections as that, not as a bug', async () => {
    // The pool's first connection takes the role's only one; the replica lock's is refused.
    const database = await freshDatabase('postgres');
    if (database.target.driver !== 'postgres') throw new Error('postgres only');
    const url = new URL(database.target.url);
    const role = `clarion_one_${url.pathname.slice(-12)}`;
    const admin = new pg.Client({ connectionString: database.target.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'one' CONNECTION LIMIT 1`);
      await admin.query(`GRANT ALL ON SCHEMA public TO ${role}`);
    } finally {
      await admin.end();
    }
    try {
      url.username = role;
      url.password = 'one';
      const result = await runUntilExit({
        ...databaseEnv(database.target),
        DATABASE_URL: url.href,
      });
      expectOneLineFailure(result, /too many connections for role/);
      expect(result.stderr).not.toMatch(/unexpected/);
    } finally {
      await database.dispose();
      await withPgAdmin((client) => client.query(`DROP ROLE IF EXISTS ${role}`));
    }
  });

  it('names a port that is already in use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-port-'));
    scratch.push(dir);
    const { port, server } = await occupiedPort();
    try {
      const result = await runUntilExit({ CLARION_DATA_DIR: dir, CLARION_PORT: String(port) });
      expectOneLineFailure(result, new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names a malformed setting', async () => {
    const result = await runUntilExit({ CLARION_PORT: 'seventy' });
    expectOneLineFailure(result, /invalid configuration: CLARION_PORT must be a number/);
    const url = await runUntilExit({ DATABASE_URL: 'mysql://localhost/clarion' });
    expectOneLineFailure(url, /DATABASE_URL must start with postgres:\/\//);
  });
});

describe('one clarion serve per data directory', () => {
  const scratch: string[] = [];
  const servers: { stop(): Promise<Exited> }[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const ADMIN = 'one-server-admin-token-0123456789';
  const asAdmin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

  async function sessionState(url: string, taskId: string): Promise<string | undefined> {
    const reply = await fetch(`${url}/api/v1/tasks/${taskId}/sessions`, { headers: asAdmin });
    const body = (await reply.json()) as { sessions: { state: string }[] };
    return body.sessions[0]?.state;
  }

  it('refuses a second server at once, naming the first one’s PID, and leaves the first alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-two-'));
    scratch.push(dir);
    const env = { CLARION_DATA_DIR: dir, CLARION_ADMIN_TOKEN: ADMIN };
    const first = await startServing(env);
    servers.push(first);
    const created = await fetch(`${first.url}/api/v1/tasks`, {
      method: 'POST',
      headers: asAdmin,
      body: JSON.stringify({ title: 'waits', prompt: '/ask' }),
    });
    const { task } = (await created.json()) as { task: { id: string } };
    await eventually(
      async () => (await sessionState(first.url, task.id)) === 'waiting_for_input',
      20_000,
    );

    const second = await runUntilExit(env);
    expectOneLineFailure(
      second,
      new RegExp(
        `data directory ${dir} is in use by another Clarion server \\(PID ${first.child.pid}\\)`,
      ),
    );
    expect(await sessionState(first.url, task.id)).toBe('waiting_for_input');
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  /** A PID no process has: one that ran and exited. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    return child.pid ?? 0;
  }

  it('a server refused before the holder wrote its PID file never names a crashed server’s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-racing-'));
    scratch.push(dir);
    const crashed = await deadPid();
    // What a server killed earlier left behind.
    await writeFile(join(dir, PID_FILE), `${crashed}\n`);

    const holder = await holdDataDirLock(dir);
    try {
      const unsure = await runUntilExit({ CLARION_DATA_DIR: dir });
      expectOneLineFailure(
        unsure,
        /is in use by another Clarion server \(its PID could not be told\)/,
      );
      expect(unsure.stderr).not.toContain(`PID ${crashed}`);

      // The holder writes its PID file a moment after the refused server looked: it is named.
      const refused = runUntilExit({ CLARION_DATA_DIR: dir });
      setTimeout(() => {
        holder.writePidFile();
      }, 1_000);
      expectOneLineFailure(
        await refused,
        new RegExp(`is in use by another Clarion server \\(PID ${holder.pid}\\)`),
      );
    } finally {
      await holder.stop();
    }
  });

  it('of two servers started at once over a crashed one’s PID file, the refused one names the other', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-together-'));
    scratch.push(dir);
    await writeFile(join(dir, PID_FILE), `${await deadPid()}\n`);
    const env = { CLARION_DATA_DIR: dir };
    const [a, b] = [startServing(env), startServing(env)];
    const [one, other] = await Promise.allSettled([a, b]);
    const winner = [one, other].find((result) => result.status === 'fulfilled')?.value;
    const loser = [one, other].find((result) => result.status === 'rejected');
    if (!winner || !loser) throw new Error('expected one server to serve and one to be refused');
    servers.push(winner);
    expect(String(loser.reason)).toMatch(
      new RegExp(`in use by another Clarion server \\(PID ${winner.child.pid}\\)`),
    );
  });

  it('starts on the directory of a server that was SIGKILLed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-killed-'));
    scratch.push(dir);
    const first = await startServing({ CLARION_DATA_DIR: dir });
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const next = await startServing({ CLARION_DATA_DIR: dir });
    servers.push(next);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
  });

  it('stops gracefully on a SIGTERM during start-up, once start-up ends, never saying it serves', async () => {
    const database = await freshDatabase('postgres', { migrated: true });
    if (database.target.driver !== 'postgres') throw new Error('postgres only');
    // Start-up waits for the lock another server holds while it runs its schema steps.
    const holder = new pg.Client({ connectionString: database.target.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::int, 0)', [START_UP_LOCK_CLASS]);
    const { child, exited } = startingServe(databaseEnv(database.target));
    try {
      await eventually(async () => {
        const waiting = await holder.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1`,
          [START_UP_LOCK_CLASS],
        );
        return waiting.rowCount === 1;
      }, 20_000);
      child.kill('SIGTERM');
      await holder.query('SELECT pg_advisory_unlock($1::int, 0)', [START_UP_LOCK_CLASS]);
      const result = await exited;
      expect(result).toMatchObject({ code: 0, signal: null });
      expect(result.stdout).toContain('SIGTERM: stopping once start-up ends');
      expect(result.stdout).not.toContain('serving on');
    } finally {
      // A failed check must not leave a server running past the test.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await holder.end();
      await database.dispose();
    }
  });
});

describe('clarion serve beyond loopback', () => {
  const scratch: string[] = [];

  afterEach(async () => {
    await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function serveOnce(env: Record<string, string>): Promise<Exited> {
    const dir = await mkdtemp(join(tmpdir(), 'clarion-exposed-'));
    scratch.push(dir);
    const server = await startServing({ CLARION_DATA_DIR: dir, ...env });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    return server.stop();
  }

  it('warns when listening on every interface without an https public origin', async () => {
    const exposed = await serveOnce({ CLARION_HOST: '0.0.0.0' });
    expect(exposed.code).toBe(0);
    // 0.0.0.0 is no address to open: the lines name the loopback this machine reaches it at.
    expect(exposed.stdout).toMatch(/^Clarion is serving on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(exposed.stdout).toMatch(
      /^Sign in \(one-time link\): http:\/\/127\.0\.0\.1:\d+\/auth\//m,
    );
    expect(exposed.stderr).toMatch(
      /^clarion: warning: listening on 0\.0\.0\.0, reachable from other machines, without an https:\/\/ CLARION_PUBLIC_ORIGIN/m,
    );

    const proxied = await serveOnce({
      CLARION_HOST: '0.0.0.0',
      CLARION_PUBLIC_ORIGIN: 'https://clarion.example.com',
    });
    expect(proxied.stderr).not.toContain('warning');
    const local = await serveOnce({});
    expect(local.stderr).not.toContain('warning');
  });
});
