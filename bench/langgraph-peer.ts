/**
 * The peer: the same ask → answer → continue cycle in LangGraph.js. A graph
 * whose `ask` node calls `interrupt()` and whose `continue` node runs after
 * the answer; one cycle is the first `invoke` (runs to the interrupt and
 * checkpoints it) plus the resume with `new Command({ resume })`. The
 * checkpointer is `SqliteSaver` on a file database with the same pragmas as
 * Clarion's SQLite (WAL, synchronous=NORMAL). Everything runs in-process with
 * no network hop, which favours the peer; the report says so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import BetterSqlite3 from 'better-sqlite3';
import type { Contestant } from './cycle-level.js';
import { elapsedMs, round } from './stats.js';

const State = Annotation.Root({
  question: Annotation<string>(),
  answer: Annotation<string>(),
  continued: Annotation<boolean>(),
});

/** Each cycle runs on a thread of its own, so an agent's cycles share nothing. */
export interface LangGraphPeer extends Contestant {
  /** Stores `count` finished threads, cloned from one real finished thread; returns ms. */
  addHistory(count: number): Promise<number>;
}

export async function startLangGraph(): Promise<LangGraphPeer> {
  const dir = await mkdtemp(join(tmpdir(), 'clarion-bench-langgraph-'));
  const db = new BetterSqlite3(join(dir, 'checkpoints.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const saver = new SqliteSaver(db);
  const graph = new StateGraph(State)
    .addNode('ask', (state) => {
      const answer = interrupt<{ question: string }, string>({ question: state.question });
      return { answer };
    })
    .addNode('continue', () => ({ continued: true }))
    .addEdge(START, 'ask')
    .addEdge('ask', 'continue')
    .addEdge('continue', END)
    .compile({ checkpointer: saver });
  let tag = 0;

  /** One cycle on a new thread; true when it ended continued with the answer. */
  async function cycle(threadId: string): Promise<boolean> {
    const config = { configurable: { thread_id: threadId } };
    const asked = await graph.invoke({ question: 'Proceed with the migration?' }, config);
    if (!('__interrupt__' in asked)) return false;
    const done = await graph.invoke(new Command({ resume: 'Yes' }), config);
    return done.continued && done.answer === 'Yes';
  }

  return {
    cycle: () => cycle(`bench-${String(tag++)}`),
    otherFailures: () => 0,
    async addHistory(count) {
      const started = performance.now();
      const template = 'history-template';
      if (!(await cycle(template))) throw new Error('template thread did not finish');
      const clone = (table: string, columns: string) =>
        db
          .prepare(
            `INSERT INTO ${table} WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
             SELECT 'history-' || n.i, ${columns} FROM n, ${table} t WHERE t.thread_id = ?`,
          )
          .run(count, template);
      db.transaction(() => {
        clone(
          'checkpoints',
          't.checkpoint_ns, t.checkpoint_id, t.parent_checkpoint_id, t.type, t.checkpoint, t.metadata',
        );
        clone(
          'writes',
          't.checkpoint_ns, t.checkpoint_id, t.task_id, t.idx, t.channel, t.type, t.value',
        );
      })();
      return round(elapsedMs(started), 0);
    },
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
