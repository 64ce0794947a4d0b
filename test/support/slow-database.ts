/**
 * A database that answers late: a Kysely plugin that, once armed, holds back
 * the result of the next statement of a kind. The statement itself runs for
 * real (inside its transaction, if any); only its answer is delayed, as with
 * a stalled disk or a lock wait.
 */
import { SelectQueryNode, TableNode, UpdateQueryNode, type OperationNode } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

export type StatementKind = 'select' | 'update';

function tableName(node: OperationNode | undefined): string | undefined {
  return node && TableNode.is(node) ? node.table.identifier.name : undefined;
}

function touchesMessages(node: RootOperationNode): StatementKind | undefined {
  if (SelectQueryNode.is(node)) {
    return tableName(node.from?.froms[0]) === 'task_session_messages' ? 'select' : undefined;
  }
  if (UpdateQueryNode.is(node)) {
    return tableName(node.table) === 'task_session_messages' ? 'update' : undefined;
  }
  return undefined;
}

export class SlowDatabase implements KyselyPlugin {
  private armed: { kind: StatementKind; delayMs: number } | undefined;
  private readonly delayed = new WeakSet<object>();
  private holding: Promise<unknown> = Promise.resolve();
  private endHold: () => void = () => undefined;

  /** Delays the result of the next statement of `kind` on the messages table. */
  arm(kind: StatementKind, delayMs: number): void {
    this.armed = { kind, delayMs };
  }

  /**
   * Hands on the result held back now without waiting out the rest of its
   * delay, as a stalled disk that recovers would; nothing if none is held.
   */
  release(): void {
    this.endHold();
  }

  /** Resolves once the result held back last has been handed on (at once if none was). */
  async released(): Promise<void> {
    await this.holding;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.armed && touchesMessages(args.node) === this.armed.kind) {
      this.delayed.add(args.queryId);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.armed && this.delayed.has(args.queryId)) {
      const { delayMs } = this.armed;
      this.armed = undefined;
      this.holding = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.endHold = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      await this.holding;
    }
    return args.result;
  }
}
