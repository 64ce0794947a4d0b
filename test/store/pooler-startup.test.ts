/**
 * PostgreSQL behind a connection pooler (the README's advice for several
 * servers: PgBouncer in session mode). PgBouncer refuses a connection whose
 * startup packet carries a parameter it does not know ("unsupported startup
 * parameter", 08P01), and it knows only a handful; the store's bounds on
 * every connection (lock wait, idle transaction) must still hold, so they
 * are set once the connection is open rather than asked for in its startup
 * packet. The stand-in below refuses exactly as PgBouncer does and passes
 * the rest through.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  holdReplicaLock,
  openStore,
  type DatabaseTarget,
  type Store,
} from '../../src/store/index.js';
import { postgresWakeChannel, type WakeChannel } from '../../src/store/wake.js';
import { PG_IDLE_IN_TRANSACTION_MAX_MS, STORE_LOCK_WAIT_MAX_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';

/** The startup parameters PgBouncer accepts without `ignore_startup_parameters`. */
const POOLER_PARAMETERS = new Set([
  'user',
  'database',
  'application_name',
  'client_encoding',
  'datestyle',
  'timezone',
  'standard_conforming_strings',
  'replication',
]);

function startupParameters(packet: Buffer): string[] {
  const fields = packet.subarray(8).toString('utf8').split('\0');
  return fields.filter((_, index) => index % 2 === 0 && fields[index] !== '');
}

function refusal(message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C08P01\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

interface Pooler {
  readonly port: number;
  readonly refused: string[];
  close(): Promise<void>;
}

async function startPooler(target: { host: string; port: number }): Promise<Pooler> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
      client.off('data', onData);
      const unknown = startupParameters(buffered).find(
        (name) => !POOLER_PARAMETERS.has(name.toLowerCase()),
      );
      if (unknown !== undefined) {
        refused.push(unknown);
        client.end(refusal(`unsupported startup parameter: ${unknown}`));
        return;
      }
      const upstream = createConnection(target);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.write(buffered);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no port');
  return {
    port: address.port,
    refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('PostgreSQL behind a pooler that refuses unknown startup parameters', () => {
  let database: TestDatabase | undefined;
  let pooler: Pooler | undefined;
  let store: Store | undefined;
  let channel: WakeChannel | undefined;

  afterEach(async () => {
    await channel?.close();
    channel = undefined;
    await store?.close();
    store = undefined;
    await pooler?.close();
    pooler = undefined;
    await database?.dispose();
    database = undefined;
  });

  async function pooledTarget(): Promise<DatabaseTarget & { driver: 'postgres' }> {
    database = await freshDatabase('postgres');
    if (database.target.driver !== 'postgres') throw new Error('postgres only');
    const url = new URL(database.target.url);
    pooler = await startPooler({ host: url.hostname, port: Number(url.port) });
    url.port = String(pooler.port);
    return { driver: 'postgres', url: url.href };
  }

  it('opens the store, and every pooled connection still bounds lock waits and idle transactions', async () => {
    const target = await pooledTarget();
    // One connection: the one start-up ran its schema on is the one read below.
    store = await openStore(target, { poolSize: 1 });
    expect(pooler?.refused).toEqual([]);

    const setting = async (name: string) =>
      (await sql<Record<string, string>>`SHOW ${sql.raw(name)}`.execute(store?.db ?? never()))
        .rows[0]?.[name];
    expect(await setting('lock_timeout')).toBe(`${STORE_LOCK_WAIT_MAX_MS / 1000}s`);
    expect(await setting('idle_in_transaction_session_timeout')).toBe(
      `${PG_IDLE_IN_TRANSACTION_MAX_MS / 1000}s`,
    );
  });

  it('takes the replica lock and listens for wake-ups through it', async () => {
    const target = await pooledTarget();
    const lock = await holdReplicaLock(target);
    await lock.release();
    channel = postgresWakeChannel(target.url);
    channel.listen({ wake: () => undefined, reconnected: () => undefined });
    await eventually(() => channel?.state() === 'listening');
    expect(pooler?.refused).toEqual([]);
  });
});

function never(): never {
  throw new Error('no store');
}
