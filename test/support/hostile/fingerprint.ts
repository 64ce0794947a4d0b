/** One hash per table over every row, so a hostile request that changed anything names the table. */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.js';

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
        JSON.stringify(row, (_key, value: unknown) =>
          typeof value === 'bigint' ? value.toString() : value,
        ),
      )
      .sort();
    hashes[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
  }
  return hashes;
}
