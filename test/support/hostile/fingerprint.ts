/**
 * One hash per table over every row, so a hostile request that changed
 * anything names the table. Liveness that runs on its own clock is left out
 * (a replica's heartbeat, a lease's renewal): a slow run crosses a beat.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.js';

const BEATS: Readonly<Record<string, readonly string[]>> = {
  replicas: ['heartbeat_at'],
  session_leases: ['expires_at'],
};

export async function fingerprint(store: Store): Promise<Record<string, string>> {
  const tables = (await store.db.introspection.getTables()).map((table) => table.name).sort();
  if (!tables.includes('task_session_messages')) throw new Error('no transcript table to watch');
  const hashes: Record<string, string> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(
      store.db,
    );
    const lines = rows
      .map((row) =>
        JSON.stringify(row, (key, value: unknown) => {
          if (BEATS[table]?.includes(key)) return undefined;
          return typeof value === 'bigint' ? value.toString() : value;
        }),
      )
      .sort();
    hashes[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
  }
  return hashes;
}
