import { describe, expect, it } from 'vitest';
import { CLARIFICATION_TYPE } from './clarification.js';
import { postgresDialect, sqliteDialect, type Dialect } from './dialect.js';
import { sql } from 'kysely';
import { Kysely, PostgresAdapter, DummyDriver, PostgresQueryCompiler } from 'kysely';

const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: () => {
      throw new Error('not used');
    },
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

function text(dialect: Dialect, build: (d: Dialect) => ReturnType<typeof sql.raw>): string {
  return sql`${build(dialect)}`.compile(compiler).sql;
}

describe('dialect expressions', () => {
  it('spells the pending-ID expression exactly as its indexes do', () => {
    for (const dialect of [sqliteDialect, postgresDialect]) {
      const expression = text(dialect, (d) => d.pendingId());
      for (const index of dialect.pendingIdIndexes) expect(index.ddl).toContain(expression);
    }
    expect(text(sqliteDialect, (d) => d.pendingId())).toBe(
      "json_extract(metadata, '$.pending_id')",
    );
    expect(text(postgresDialect, (d) => d.pendingId())).toBe("(metadata::jsonb ->> 'pending_id')");
  });

  it('defines the ordered index with its key order and non-null predicate', () => {
    const ordered = sqliteDialect.pendingIdIndexes[2];
    expect(ordered?.ddl).toBe(
      'CREATE INDEX IF NOT EXISTS idx_messages_metadata_pending_id_lookup_ordered ON task_session_messages ' +
        "(json_extract(metadata, '$.pending_id'), created_at, id) " +
        "WHERE json_extract(metadata, '$.pending_id') IS NOT NULL",
    );
    expect(postgresDialect.pendingIdIndexes[2]?.ddl).toBe(
      'CREATE INDEX IF NOT EXISTS idx_messages_metadata_pending_id_lookup_ordered ON task_session_messages ' +
        "((metadata::jsonb ->> 'pending_id'), created_at, id) " +
        "WHERE (metadata::jsonb ->> 'pending_id') IS NOT NULL",
    );
  });

  it('spells the pending-row predicate as the pending-rows index does', () => {
    for (const dialect of [sqliteDialect, postgresDialect]) {
      const predicate = text(dialect, (d) => d.pendingClarificationRow());
      expect(dialect.pendingRowsIndex.ddl).toMatch(/ON task_session_messages \(turn_id\) WHERE /);
      expect(dialect.pendingRowsIndex.ddl.endsWith(`WHERE ${predicate.slice(1, -1)}`)).toBe(true);
      expect(predicate).toContain(`type = '${CLARIFICATION_TYPE}'`);
    }
    expect(text(sqliteDialect, (d) => d.pendingClarificationRow('m'))).toBe(
      "(m.type = 'clarification_request' AND (json_extract(m.metadata, '$.status') IS NULL " +
        "OR json_extract(m.metadata, '$.status') = 'pending') AND json_extract(m.metadata, '$.pending_id') IS NOT NULL)",
    );
  });

  it('qualifies other keys by alias and refuses anything that is not an identifier', () => {
    expect(text(sqliteDialect, (d) => d.metadataText('status', 't'))).toBe(
      "json_extract(t.metadata, '$.status')",
    );
    expect(text(postgresDialect, (d) => d.metadataFlag('prompt_dispatch_attempted', 't'))).toBe(
      "COALESCE((t.metadata::jsonb ->> 'prompt_dispatch_attempted') IN ('true', '1'), false)",
    );
    expect(() => sqliteDialect.metadataText('status', 't; DROP TABLE x')).toThrow(
      'invalid table alias',
    );
  });
});
