/**
 * Statements compiled once and then only bound. Building a Kysely query and
 * compiling it to SQL text costs more CPU than SQLite takes to run one of
 * Clarion's short statements: profiled under the respond load (benchmark 3),
 * the respond path's builders and compiler were about a third of the
 * server's CPU per respond, for eleven statements whose text never changes.
 *
 * A statement is built once per driver and shape with placeholder values
 * (`Slot`s) where the caller's values go, compiled, and kept; each execution
 * copies the compiled text with the real values put in the slots' places.
 * The text is therefore byte for byte what the builder produces, so plan
 * tests and expression indexes see the same statement either way.
 *
 * Invariants: the builder must produce the same SQL for any values of the
 * same shape (list lengths and the like go into `shape`); every slot must
 * appear among the compiled parameters; a value is never spliced into the
 * text. A connection with Kysely plugins (tests inject a slow database that
 * way) bypasses the cache and builds with real values, so each plugin still
 * sees every query it would have seen.
 */
import { createQueryId, sql, type Compilable, type CompiledQuery } from 'kysely';
import type { RepoContext } from './context.js';

/**
 * `LIMIT 1` written into the text: Kysely binds a limit, and SQLite plans a
 * bound LIMIT with its value and so prepares the statement again at every
 * execution. Measured on the ask's pending-rows reads: 38 µs bound, 10 µs
 * literal. A page's size stays bound: written in, each size would be another
 * text, and a client varying it could take the statement caches' places.
 */
export const ONE_ROW = sql.lit(1);

const CONSTANT_TEXT = /^[a-z_]+$/;

/**
 * A constant (a message type, a status) written into the text where a
 * messages query compares it. The pending-rows index's predicate names
 * `type = 'clarification_request'` and the pending status; to judge whether a
 * bound `type = ?` implies it, SQLite reads the bound value, which again marks
 * the statement to be prepared at every execution. Measured on the claim:
 * about 300 µs with its type bound, 20 µs written in.
 */
export function constantText(value: string) {
  // Spliced into SQL text, so only identifier-like constants.
  if (!CONSTANT_TEXT.test(value)) throw new Error(`not a constant: ${value}`);
  return sql.lit(value);
}

/** Where a caller's value goes in a statement built once. */
class Slot {
  constructor(readonly index: number) {}
}

/** Statements per driver and shape; bounded by the shapes the callers can produce. */
const compiled = new Map<string, CompiledQuery>();

/** Largest number of kept statements; a shape beyond it is built each time. */
const MAX_KEPT = 1_024;

/**
 * A statement whose values are `args`: built by `build` (which must use each
 * argument only as a bound value), compiled once per driver and `shape`.
 */
export function compiledStatement<Args extends readonly unknown[], Row>(
  name: string,
  build: (ctx: RepoContext, ...args: Args) => Compilable<Row>,
): (ctx: RepoContext, shape: string, ...args: Args) => Promise<Row[]> {
  return async (ctx, shape, ...args) => {
    if (ctx.db.getExecutor().plugins.length > 0) {
      const result = await ctx.db.executeQuery(build(ctx, ...args));
      return result.rows;
    }
    const key = `${ctx.dialect.driver}\u0000${name}\u0000${shape}`;
    let template = compiled.get(key);
    if (template === undefined) {
      const slots = args.map((_, index) => new Slot(index)) as unknown as Args;
      template = build(ctx, ...slots).compile();
      checkSlots(name, template, args.length);
      if (compiled.size < MAX_KEPT) compiled.set(key, template);
    }
    const parameters = template.parameters.map((value) =>
      value instanceof Slot ? args[value.index] : value,
    );
    const result = await ctx.db.executeQuery<Row>({
      query: template.query,
      queryId: createQueryId(),
      sql: template.sql,
      parameters,
    });
    return result.rows;
  };
}

function checkSlots(name: string, template: CompiledQuery, count: number): void {
  const used = new Set<number>();
  for (const value of template.parameters) if (value instanceof Slot) used.add(value.index);
  if (used.size !== count) {
    throw new Error(`statement ${name} binds ${used.size} of its ${count} values`);
  }
}
