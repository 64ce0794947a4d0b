/**
 * The session write unit on both dialects: events leave only after the
 * commit, a rolled-back write publishes nothing, each write takes one
 * revision, and `pending_action` combines the clarification rows with the
 * registry's port.
 */
import type { KyselyPlugin, QueryId } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSessionWriter,
  type ClarionEvent,
  type EventPublisher,
  type PendingAction,
  type SessionWriter,
} from '../../src/events/index.js';
import {
  appendMessage,
  endWaitWhenNoneOpen,
  getSession,
  isPendingClarificationRow,
  messagesByPendingId,
  openStore,
  transitionSession,
  type MessageRecord,
  type RepoContext,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';
import { bundleRows, seedSession, type Seeded } from '../support/seed.js';

/** Keeps every event, and for each one whether its row was already committed when it left. */
class CommitCheckingPublisher implements EventPublisher {
  readonly events: ClarionEvent[] = [];
  readonly checks: Promise<boolean>[] = [];
  constructor(
    private readonly store: () => Store,
    private readonly log: string[],
  ) {}

  publish(event: ClarionEvent): void {
    this.events.push(event);
    this.log.push(`publish ${event.type}`);
    if (event.type === 'message.added') {
      // A read outside the write: it sees the row only once the write has committed.
      this.checks.push(
        messagesByPendingId(this.store(), String(event.message.metadata.pending_id)).then((rows) =>
          rows.some((row) => row.id === event.message.id),
        ),
      );
    }
  }
}

/** Records the SQL of every query run through the connection it is added to. */
/**
 * Records the text of each statement the transaction sends. A subquery
 * passes through `transformQuery` too, but only a statement that ran has a
 * result: the text is recorded there.
 */
function recordingPlugin(tx: RepoContext, statements: string[]): KyselyPlugin {
  const texts = new WeakMap<QueryId, string>();
  return {
    transformQuery: ({ node, queryId }) => {
      texts.set(queryId, tx.db.getExecutor().compileQuery(node, queryId).sql);
      return node;
    },
    transformResult: ({ result, queryId }) => {
      const text = texts.get(queryId);
      if (text !== undefined) statements.push(text);
      return Promise.resolve(result);
    },
  };
}

describe.each(DRIVERS)('session write unit on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let seeded: Seeded;
  let publisher: CommitCheckingPublisher;
  let registryPending: 'consent' | 'action' | null;
  let writer: SessionWriter;
  /** Commits and publications, in the order they happened. */
  let log: string[];
  /** The bound each transaction was given. */
  let bounds: unknown[];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    seeded = await seedSession(store);
    await transitionSession(store, seeded.session.id, ['idle'], 'running');
    log = [];
    bounds = [];
    publisher = new CommitCheckingPublisher(() => store, log);
    registryPending = null;
    const logged = store;
    writer = createSessionWriter({
      store: {
        ...logged,
        transaction: async (work, options) => {
          bounds.push(options?.remainingMs);
          const result = await logged.transaction(work, options);
          log.push('commit');
          return result;
        },
      },
      events: publisher,
      userInputPending: (sessionId) => (sessionId === seeded.session.id ? registryPending : null),
    });
  });

  afterEach(async () => {
    // The publisher's reads run outside any test's await: they end before their store does.
    await Promise.allSettled(publisher.checks);
    await store.close();
    await database.dispose();
  });

  async function revision(): Promise<number> {
    return (await getSession(store, seeded.session.id))?.revision ?? -1;
  }

  /** One pending clarification bundle of `questions` rows in the current turn. */
  /** A write unit over the same store whose transactions record each statement they send. */
  function recordingWriter(statements: string[]): SessionWriter {
    return createSessionWriter({
      store: {
        ...store,
        transaction: (work, options) =>
          store.transaction(
            (tx) => work({ ...tx, db: tx.db.withPlugin(recordingPlugin(tx, statements)) }),
            options,
          ),
      },
      events: publisher,
      userInputPending: () => 'consent',
    });
  }

  function askBundle(pendingId: string, questions = 1): Promise<MessageRecord[]> {
    return writer.write(seeded.session.id, async (write) => {
      const rows: MessageRecord[] = [];
      for (const row of bundleRows(seeded, pendingId, questions)) {
        rows.push(await appendMessage(write.tx, row));
      }
      write.added(...rows);
      return rows;
    });
  }

  it('publishes only after the commit, and returns what the change returned', async () => {
    const rows = await askBundle('bundle-1', 2);

    expect(rows).toHaveLength(2);
    expect(log).toEqual(['commit', 'publish message.added', 'publish message.added']);
    expect(await Promise.all(publisher.checks)).toEqual([true, true]);
  });

  it('keeps the events of a committed write back when its caller says it no longer publishes', async () => {
    let gaveUp = false;
    const kept = writer.write(
      seeded.session.id,
      async (write) => {
        const [row] = bundleRows(seeded, 'bundle-late', 1);
        if (!row) throw new Error('no row');
        const appended = await appendMessage(write.tx, row);
        write.added(appended);
        // The caller stops waiting while the write is still under way.
        gaveUp = true;
        return appended.id;
      },
      { publishes: () => !gaveUp },
    );

    expect(await kept).toBeTypeOf('string');
    expect(log).toEqual(['commit']);
    expect(publisher.events).toEqual([]);
    expect(await messagesByPendingId(store, 'bundle-late')).toHaveLength(1);
  });

  it('publishes nothing and keeps nothing when the change throws', async () => {
    const before = await revision();
    const failing = writer.write(seeded.session.id, async (write) => {
      const [row] = bundleRows(seeded, 'bundle-doomed', 1);
      if (!row) throw new Error('no row');
      write.added(await appendMessage(write.tx, row));
      write.moved(
        await transitionSession(write.tx, seeded.session.id, ['running'], 'waiting_for_input'),
      );
      throw new Error('the change failed after writing');
    });

    await expect(failing).rejects.toThrow('the change failed after writing');
    expect(publisher.events).toEqual([]);
    expect(log).toEqual([]);
    expect(await messagesByPendingId(store, 'bundle-doomed')).toEqual([]);
    expect(await revision()).toBe(before);
    expect((await getSession(store, seeded.session.id))?.state).toBe('running');
  });

  it('rolls back a write that moves another session', async () => {
    const other = await seedSession(store, 'other');
    const failing = writer.write(seeded.session.id, async (write) => {
      write.moved(await transitionSession(write.tx, other.session.id, ['idle'], 'running'));
    });

    await expect(failing).rejects.toThrow(/moved session/);
    expect(publisher.events).toEqual([]);
    expect((await getSession(store, other.session.id))?.state).toBe('idle');
  });

  it('takes one revision per write, a state move included, and none for a write that reports nothing', async () => {
    const start = await revision();

    await writer.write(seeded.session.id, async (write) => {
      const [row] = bundleRows(seeded, 'bundle-2', 1);
      if (!row) throw new Error('no row');
      write.added(await appendMessage(write.tx, row));
      write.moved(
        await transitionSession(write.tx, seeded.session.id, ['running'], 'waiting_for_input'),
      );
    });
    expect(await revision()).toBe(start + 1);
    expect(publisher.events.map((event) => [event.type, event.revision])).toEqual([
      ['message.added', start + 1],
      ['session.state_changed', start + 1],
    ]);

    const [added] = await messagesByPendingId(store, 'bundle-2');
    await writer.write(seeded.session.id, async (write) => {
      if (added) write.updated(added);
      // A refused move reports nothing and takes nothing.
      write.moved(await transitionSession(write.tx, seeded.session.id, ['idle'], 'running'));
    });
    expect(await revision()).toBe(start + 2);
    expect(publisher.events.at(-1)).toMatchObject({
      type: 'message.updated',
      revision: start + 2,
    });

    const count = publisher.events.length;
    expect(await writer.write(seeded.session.id, () => Promise.resolve('quiet'))).toBe('quiet');
    expect(await revision()).toBe(start + 2);
    expect(publisher.events).toHaveLength(count);
  });

  it('computes pending_action from the clarification rows first, then the registry', async () => {
    const pendingOfLastWrite = (): PendingAction | undefined =>
      publisher.events.at(-1)?.pending_action;
    const stateWrite = (
      from: 'running' | 'waiting_for_input',
      to: 'running' | 'waiting_for_input',
    ) =>
      writer.write(seeded.session.id, async (write) => {
        write.moved(await transitionSession(write.tx, seeded.session.id, [from], to));
      });

    await stateWrite('running', 'waiting_for_input');
    expect(pendingOfLastWrite()).toBeNull();
    expect(await writer.pendingAction(seeded.session.id)).toBeNull();

    registryPending = 'consent';
    await stateWrite('waiting_for_input', 'running');
    expect(pendingOfLastWrite()).toBe('consent');
    expect(await writer.pendingAction(seeded.session.id)).toBe('consent');

    registryPending = 'action';
    await askBundle('bundle-3');
    expect(pendingOfLastWrite()).toBe('clarification');
    expect(await writer.pendingAction(seeded.session.id)).toBe('clarification');

    // Once the question is no longer pending, the registry's request shows again.
    const [row] = await messagesByPendingId(store, 'bundle-3');
    await writer.write(seeded.session.id, async (write) => {
      await write.tx.db
        .updateTable('task_session_messages')
        .set({ metadata: JSON.stringify({ ...row?.metadata, status: 'answered' }) })
        .where('id', '=', row?.id ?? '')
        .execute();
      const [answered] = await messagesByPendingId(write.tx, 'bundle-3');
      if (answered) write.updated(answered);
    });
    expect(pendingOfLastWrite()).toBe('action');
    expect(await writer.pendingAction(seeded.session.id)).toBe('action');
  });

  it('says an ask leaves a clarification pending without reading it back, unless the write ends the session', async () => {
    const statements: string[] = [];
    const recording = recordingWriter(statements);
    const ask = (pendingId: string, end: boolean) =>
      recording.write(seeded.session.id, async (write) => {
        const [row] = bundleRows(seeded, pendingId, 1);
        if (!row) throw new Error('no row');
        write.added(await appendMessage(write.tx, row));
        if (end) {
          write.moved(
            await transitionSession(write.tx, seeded.session.id, ['running'], 'cancelled'),
          );
        }
      });
    const pendingActionReads = () =>
      statements.filter((text) => /^select 1 as "one" from "task_session_messages"/i.test(text));

    await ask('bundle-asked', false);
    expect(publisher.events.at(-1)?.pending_action).toBe('clarification');
    expect(pendingActionReads()).toEqual([]);
    expect(await recording.pendingAction(seeded.session.id)).toBe('clarification');

    // The same rows in a write that ends the session: the read decides, and finds none active.
    await ask('bundle-ended', true);
    expect(pendingActionReads()).toHaveLength(1);
    expect(publisher.events.at(-1)).toMatchObject({
      type: 'session.state_changed',
      state: 'cancelled',
      pending_action: 'consent',
    });
  });

  it('takes pending_action from the revision bump when a write moves no state, in no statement of its own', async () => {
    const statements: string[] = [];
    const recording = recordingWriter(statements);
    await askBundle('bundle-open');
    const [row] = await messagesByPendingId(store, 'bundle-open');
    if (!row) throw new Error('no row');
    const touch = () =>
      recording.write(seeded.session.id, (write) => {
        write.updated(row);
        return Promise.resolve();
      });

    await touch();
    expect(publisher.events.at(-1)?.pending_action).toBe('clarification');
    await store.db
      .updateTable('task_session_messages')
      .set({ metadata: JSON.stringify({ ...row.metadata, status: 'answered' }) })
      .where('id', '=', row.id)
      .execute();
    await touch();
    expect(publisher.events.at(-1)?.pending_action).toBe('consent');
    // Each write: the revision bump, which also answered whether a clarification waits.
    expect(statements).toHaveLength(2);
    expect(statements.every((text) => /^update "task_sessions"/i.test(text))).toBe(true);
  });

  it("takes pending_action from the wait's end when it moves the session, in no statement of its own", async () => {
    const statements: string[] = [];
    const recording = recordingWriter(statements);
    await askBundle('bundle-first');
    await askBundle('bundle-second');
    await transitionSession(store, seeded.session.id, ['running'], 'waiting_for_input');
    /** Answers one bundle and ends the wait if no other question of the turn is open. */
    const answer = (pendingId: string) =>
      recording.write(seeded.session.id, async (write) => {
        const [row] = await messagesByPendingId(write.tx, pendingId);
        if (!row) throw new Error('no row');
        await write.tx.db
          .updateTable('task_session_messages')
          .set({ metadata: JSON.stringify({ ...row.metadata, status: 'answered' }) })
          .where('id', '=', row.id)
          .execute();
        write.waitEnded(await endWaitWhenNoneOpen(write.tx, seeded.session.id));
      });
    const pendingActionReads = () =>
      statements.filter((text) => /^select 1 as "one" from "task_session_messages"/i.test(text));

    // Another question is still open: no move, and the revision bump's probe finds it.
    await answer('bundle-first');
    expect(publisher.events.at(-1)?.pending_action).toBe('clarification');
    expect((await getSession(store, seeded.session.id))?.state).toBe('waiting_for_input');

    // The last one: the wait's end found none open, so the registry's request shows, unread.
    await answer('bundle-second');
    expect(publisher.events.at(-1)).toMatchObject({
      type: 'session.state_changed',
      state: 'running',
      pending_action: 'consent',
    });
    expect(pendingActionReads()).toEqual([]);
  });

  it('judges a row in hand pending exactly as the pending-rows predicate does', async () => {
    const [base] = bundleRows(seeded, 'bundle-judged', 1);
    if (!base) throw new Error('no row');
    const variants: [string, Record<string, unknown>][] = [
      ['clarification_request', { ...base.metadata }],
      ['clarification_request', { ...base.metadata, status: undefined }],
      ['clarification_request', { ...base.metadata, status: null }],
      ['clarification_request', { ...base.metadata, status: 'answered' }],
      ['clarification_request', { ...base.metadata, status: 'expired' }],
      ['clarification_request', { ...base.metadata, pending_id: undefined }],
      ['clarification_request', { ...base.metadata, pending_id: null }],
      ['message', { ...base.metadata }],
    ];
    const rows: MessageRecord[] = [];
    for (const [type, metadata] of variants) {
      rows.push(await appendMessage(store, { ...base, type, metadata }));
    }
    const judged = await store.db
      .selectFrom('task_session_messages')
      .select(['id', store.dialect.pendingClarificationRow().as('pending')])
      .where('turn_id', '=', seeded.turn.id)
      .execute();
    // SQLite says 1 or 0, PostgreSQL true or false.
    const bySql = new Map(judged.map((row) => [row.id, Number(row.pending) === 1]));

    expect(rows.map((row) => isPendingClarificationRow(row))).toEqual(
      rows.map((row) => bySql.get(row.id)),
    );
    expect(rows.map((row) => isPendingClarificationRow(row))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('bounds the transaction with the budget left when it begins', async () => {
    const remainingMs = () => 5_000;
    await writer.write(seeded.session.id, () => Promise.resolve(), { remainingMs });
    expect(bounds).toEqual([remainingMs]);
  });
});
