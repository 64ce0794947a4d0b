/**
 * Counts pending bundles straight from the database, beside a running
 * server, for the checks around benchmark 6. The inbox listing would say the
 * same but costs seconds per page at 10k pending on PostgreSQL (see
 * bench/RESULTS.md), so it is timed once per level, not paged through.
 * Benchmarks ask one question per bundle, so rows are bundles.
 */
import { sql, type SqlBool } from 'kysely';
import { CLARIFICATION_TYPE, openStore, type DatabaseTarget } from '../src/store/index.js';

export interface Census {
  pending: number;
  /** Pending and not detached: a live waiter holds them, or did until the server notices it left. */
  attached: number;
}

export interface CensusTaker {
  count(): Promise<Census>;
  /** Polls until no pending bundle is attached any more, or throws after `timeoutMs`. */
  untilAllDetached(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function openCensus(target: DatabaseTarget): Promise<CensusTaker> {
  const store = await openStore(target);
  const count = async (): Promise<Census> => {
    const status = store.dialect.metadataText('status');
    const detached = store.dialect.metadataFlag('agent_disconnected');
    const row = await store.db
      .selectFrom('task_session_messages')
      .select([
        sql<number | string>`COUNT(*)`.as('pending'),
        sql<number | string>`COUNT(*) - COUNT(CASE WHEN ${detached} THEN 1 END)`.as('attached'),
      ])
      .where('type', '=', CLARIFICATION_TYPE)
      .where(sql<SqlBool>`${status} = 'pending'`)
      .executeTakeFirstOrThrow();
    return { pending: Number(row.pending), attached: Number(row.attached) };
  };
  return {
    count,
    async untilAllDetached(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const { attached } = await count();
        if (attached === 0) return;
        if (performance.now() > deadline) throw new Error(`${attached} bundles still attached`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => store.close(),
  };
}
