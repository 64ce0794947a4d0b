/**
 * A database that refuses one statement: a Kysely plugin that, once armed,
 * fails the next statement of a kind on a table with a storage fault (a full
 * disk, as `StorageUnavailableError` says it), on SQLite and PostgreSQL
 * alike. The statement itself runs for real; its answer is the fault, so its
 * transaction rolls back as after a write the disk could not take. Outside a
 * transaction that write would stand: `refuseNext` fails one before it runs,
 * as when the connection drops before the statement reaches the server.
 */
import {
  DeleteQueryNode,
  InsertQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { StorageUnavailableError } from '../../src/store/index.js';

export type FaultedStatement = 'insert' | 'delete' | 'update';

function tableName(node: OperationNode | undefined): string | undefined {
  return node && TableNode.is(node) ? node.table.identifier.name : undefined;
}

function statementOn(node: RootOperationNode): { kind: FaultedStatement; table?: string } | null {
  if (InsertQueryNode.is(node)) return { kind: 'insert', table: tableName(node.into) };
  if (DeleteQueryNode.is(node)) return { kind: 'delete', table: tableName(node.from.froms[0]) };
  if (UpdateQueryNode.is(node)) return { kind: 'update', table: tableName(node.table) };
  return null;
}

export class StatementFaults implements KyselyPlugin {
  private armed:
    { kind: FaultedStatement; table: string; refused: boolean; lasting?: boolean } | undefined;
  private readonly doomed = new WeakSet<object>();
  /** Statements failed so far. */
  failed = 0;

  /** Fails the next `kind` statement on `table`. */
  failNext(kind: FaultedStatement, table: string): void {
    this.armed = { kind, table, refused: false };
  }

  /** Fails every `kind` statement on `table` until `heal` (a disk that stays full). */
  failEvery(kind: FaultedStatement, table: string): void {
    this.armed = { kind, table, refused: false, lasting: true };
  }

  /** Ends a fault `failEvery` armed. */
  heal(): void {
    this.armed = undefined;
  }

  /** Fails the next `kind` statement on `table` without running it. */
  refuseNext(kind: FaultedStatement, table: string): void {
    this.armed = { kind, table, refused: true };
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const statement = statementOn(node);
    const { armed } = this;
    if (armed && statement?.kind === armed.kind && statement.table === armed.table) {
      if (armed.lasting !== true) this.armed = undefined;
      if (armed.refused) {
        this.failed += 1;
        throw new StorageUnavailableError(
          'unreachable',
          new Error('Connection terminated unexpectedly'),
        );
      }
      this.doomed.add(queryId);
    }
    return node;
  }

  transformResult({
    result,
    queryId,
  }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (!this.doomed.has(queryId)) return Promise.resolve(result);
    this.failed += 1;
    return Promise.reject(
      new StorageUnavailableError('disk_full', new Error('database or disk is full')),
    );
  }
}
