/**
 * Events across replicas on a real PostgreSQL: two stores on one database are
 * two replicas in one test process. A write on A reaches B's hub once, in
 * order, with A's revisions; B never relays its own events back to itself; a
 * rolled-back write logs nothing; events published outside a write cross too;
 * a transaction left open anywhere on the server holds back none of them; a
 * row that commits late with a lower txid is relayed, once; the prune keeps
 * the log short.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWakeBus,
  encodeWake,
  loggingPublisher,
  sessionEventLog,
  startEventRelay,
  type EventRelay,
  type WakeBus,
} from '../../src/cluster/index.js';
import {
  createSessionWriter,
  type ClarionEvent,
  type EventPublisher,
  type SessionWriter,
} from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  appendMessage,
  appendSessionEvents,
  deleteSessionRow,
  eventLogStart,
  openStore,
  readEventLog,
  transitionSession,
  WAKE_CHANNEL,
  type EventLogCursor,
  type LoggableEvent,
  type MessageRecord,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bundleRows, seedSession, type Seeded } from '../support/seed.js';

class Recorder implements EventPublisher {
  readonly events: ClarionEvent[] = [];
  publish(event: ClarionEvent): void {
    this.events.push(event);
  }
}

interface Replica {
  store: Store;
  bus: WakeBus;
  hub: Recorder;
  relay: EventRelay;
  writer: SessionWriter;
}

async function eventually(check: () => boolean, withinMs = 5_000) {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pgUrl(database: TestDatabase): string {
  if (database.target.driver !== 'postgres') throw new Error('a PostgreSQL database was expected');
  return database.target.url;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe('event relay on postgres', () => {
  let database: TestDatabase;
  const replicas: Replica[] = [];
  let seeded: Seeded;

  async function replica(replicaId: string, pollIntervalMs = 60_000): Promise<Replica> {
    const store = await openStore(database.target);
    const bus = createWakeBus({
      store,
      replicaId,
      timers: systemTimers,
      logger: silentLogger,
      pollIntervalMs,
    });
    const hub = new Recorder();
    const relay = await startEventRelay({
      store,
      bus,
      hub,
      timers: systemTimers,
      logger: silentLogger,
    });
    const writer = createSessionWriter({
      store,
      events: hub,
      userInputPending: () => null,
      log: sessionEventLog(bus),
    });
    const made = { store, bus, hub, relay, writer };
    replicas.push(made);
    await eventually(() => bus.listenerState() === 'listening');
    return made;
  }

  beforeEach(async () => {
    database = await freshDatabase('postgres', { migrated: true });
  });

  afterEach(async () => {
    for (const { relay, bus, store } of replicas.splice(0)) {
      await relay.stop();
      bus.close();
      await store.close();
    }
    await database.dispose();
  });

  function ask(on: Replica, pendingId: string): Promise<MessageRecord[]> {
    return on.writer.write(seeded.session.id, async (write) => {
      const rows: MessageRecord[] = [];
      for (const row of bundleRows(seeded, pendingId, 1)) {
        rows.push(await appendMessage(write.tx, row));
      }
      write.added(...rows);
      return rows;
    });
  }

  const shape = (event: ClarionEvent) => ({
    type: event.type,
    revision: event.revision,
    session_id: event.session_id,
    ...('message' in event ? { message: event.message.id } : {}),
  });

  it("a deletion on A reaches B's hub after the session's other events", async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    await ask(a, 'bundle-gone');
    await a.writer.deleteSessions(async (tx) => {
      const gone = await deleteSessionRow(tx, seeded.session.id);
      return gone && { ...gone, withTask: false };
    });
    await eventually(() => b.hub.events.length === a.hub.events.length);
    expect(b.hub.events).toEqual(a.hub.events);
    expect(b.hub.events.at(-1)).toMatchObject({
      type: 'session.deleted',
      session_id: seeded.session.id,
      workspace_id: seeded.task.workspace_id,
      revision: (a.hub.events.at(-2)?.revision ?? 0) + 1,
    });
  });

  it("a write on A reaches B's hub once, in order, with A's revisions", async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);

    for (let n = 0; n < 5; n += 1) await ask(a, `bundle-${n}`);
    await a.writer.write(seeded.session.id, async (write) => {
      write.moved(await transitionSession(write.tx, seeded.session.id, ['idle'], 'running'));
    });

    expect(a.hub.events).toHaveLength(6);
    await eventually(() => b.hub.events.length >= 6);
    // More wakes and polls meanwhile publish nothing twice.
    await b.relay.drain();
    await settle();
    expect(b.hub.events.map(shape)).toEqual(a.hub.events.map(shape));
    expect(b.hub.events).toEqual(a.hub.events);
    const revisions = b.hub.events.map((event) => event.revision);
    expect([...revisions].sort((x, y) => x - y)).toEqual(revisions);
    // A never hears its own events back.
    expect(a.hub.events).toHaveLength(6);
  });

  it('writes on both replicas cross both ways, each once', async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, n) => ask(a, `a-${n}`)),
      ...Array.from({ length: 10 }, (_, n) => ask(b, `b-${n}`)),
    ]);
    await eventually(() => a.hub.events.length === 20 && b.hub.events.length === 20);
    await settle();
    const byRevision = (events: ClarionEvent[]) =>
      [...events].map(shape).sort((x, y) => x.revision - y.revision);
    expect(byRevision(a.hub.events)).toEqual(byRevision(b.hub.events));
    // Each side published in revision order: the log keeps the session's order.
    for (const { hub } of [a, b]) {
      const revisions = hub.events.map((event) => event.revision);
      expect(new Set(revisions).size).toBe(20);
    }
    const relayedToB = b.hub.events.filter((event) =>
      'message' in event ? String(event.message.metadata.pending_id).startsWith('a-') : false,
    );
    const revisions = relayedToB.map((event) => event.revision);
    expect([...revisions].sort((x, y) => x - y)).toEqual(revisions);
  });

  it("one transaction's many events reach B in the order they were logged", async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    // Twelve rows of one transaction: their ids pass from one digit to two.
    const events: ClarionEvent[] = Array.from({ length: 12 }, (_, n) => ({
      type: 'queue.changed',
      session_id: seeded.session.id,
      task_id: seeded.task.id,
      revision: n + 1,
      pending_action: null,
    }));
    await appendSessionEvents(
      a.store,
      'A',
      events,
      encodeWake('A', { kind: 'session', sessionId: seeded.session.id }),
    );
    await eventually(() => b.hub.events.length === 12);
    expect(b.hub.events.map((event) => event.revision)).toEqual(events.map((e) => e.revision));
  });

  it('a rolled-back write logs nothing; an event published outside a write crosses too', async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    await expect(
      a.writer.write(seeded.session.id, async (write) => {
        const [row] = bundleRows(seeded, 'doomed', 1);
        if (row) write.added(await appendMessage(write.tx, row));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');

    const outside = loggingPublisher(a.store, a.bus, a.hub, silentLogger);
    const queueChanged: ClarionEvent = {
      type: 'queue.changed',
      session_id: seeded.session.id,
      task_id: seeded.task.id,
      revision: 0,
      pending_action: null,
    };
    outside.publish(queueChanged);
    expect(a.hub.events).toEqual([queueChanged]);
    await eventually(() => b.hub.events.length === 1);
    await settle();
    expect(b.hub.events).toEqual([queueChanged]);
  });

  /** A client on `url` that has begun a transaction and taken an xid, left open. */
  async function openTransaction(url: string, take: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(take);
    return client;
  }

  it("A's events reach B while unrelated transactions elsewhere on the server stay open", async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    // An operator's transaction left open in this database, and another
    // application's in another database of the same server: neither is
    // anything of Clarion's, and neither may hold its events back.
    const other = await freshDatabase('postgres');
    const open: pg.Client[] = [];
    try {
      open.push(await openTransaction(pgUrl(database), 'SELECT pg_current_xact_id()'));
      const scratch = new pg.Client({ connectionString: pgUrl(other) });
      await scratch.connect();
      await scratch.query('CREATE TABLE scratch (n integer)');
      await scratch.end();
      open.push(await openTransaction(pgUrl(other), 'INSERT INTO scratch VALUES (1)'));

      await ask(a, 'while-open');
      await eventually(() => b.hub.events.length === 1, 3_000);
      await ask(a, 'still-open');
      await eventually(() => b.hub.events.length === 2, 3_000);
      await b.relay.drain();
      await settle();
      expect(b.hub.events).toEqual(a.hub.events);
    } finally {
      for (const client of open) await client.end();
      await other.dispose();
    }
  });

  it('a row that commits late with a lower txid is relayed once it commits, after newer rows, once', async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    // Another replica's write began first (its row has the lower txid) and
    // commits only after A's newer row has been relayed.
    const late: ClarionEvent = {
      type: 'queue.changed',
      session_id: seeded.session.id,
      task_id: seeded.task.id,
      revision: 0,
      pending_action: null,
    };
    const older = await openTransaction(pgUrl(database), 'SELECT pg_current_xact_id()');
    try {
      await older.query(
        `INSERT INTO session_events (session_id, revision, origin, event, created_at)
         VALUES ($1, 0, 'C', $2, $3)`,
        [late.session_id, JSON.stringify(late), a.store.clock.timestamp()],
      );
      await older.query('SELECT pg_notify($1, $2)', [
        WAKE_CHANNEL,
        encodeWake('C', { kind: 'session', sessionId: late.session_id }),
      ]);
      await ask(a, 'newer');
      const newer = [...a.hub.events];
      await eventually(() => b.hub.events.length === 1, 3_000);
      expect(b.hub.events).toEqual(newer);
      // The late row's txid is lower than the newer row's it commits after.
      const { rows } = await older.query<{ lower: boolean }>(
        'SELECT pg_current_xact_id() < max(txid) AS lower FROM session_events',
      );
      expect(rows[0]?.lower).toBe(true);
      await older.query('COMMIT');
      await eventually(() => b.hub.events.length === 2, 3_000);
      await b.relay.drain();
      await settle();
      expect(b.hub.events).toEqual([...newer, late]);
      // A relays the other replica's row too.
      expect(a.hub.events).toEqual([...newer, late]);
    } finally {
      await older.end();
    }
  });

  it("the log's pages read each row once: of the snapshot paged, then what committed meanwhile, then late rows", async () => {
    const store = await openStore(database.target);
    try {
      const wake = encodeWake('A', { kind: 'session', sessionId: 's' });
      const log = (origin: string, revision: number) =>
        appendSessionEvents(store, origin, [{ session_id: 's', revision }], wake);
      const read = async (from: EventLogCursor) => {
        const revisions: number[] = [];
        let cursor = from;
        for (;;) {
          const page = await readEventLog(store, cursor, 'B', 2);
          revisions.push(...page.events.map((logged) => (logged.event as LoggableEvent).revision));
          cursor = page.cursor;
          if (!page.more) return { revisions, cursor };
          // Committed while the pages are read: not one of this snapshot's rows.
          if (revisions.length === 2) await log('A', 100);
        }
      };
      const start = await eventLogStart(store);
      const older = await openTransaction(pgUrl(database), 'SELECT pg_current_xact_id()');
      try {
        await older.query(
          `INSERT INTO session_events (session_id, revision, origin, event, created_at)
           VALUES ('s', 50, 'C', '{"session_id":"s","revision":50}', $1)`,
          [store.clock.timestamp()],
        );
        for (const revision of [1, 2, 3]) await log('A', revision);
        await log('B', 4);
        await log('A', 5);
        const first = await read(start);
        expect(first.revisions).toEqual([1, 2, 3, 5]);
        const second = await read(first.cursor);
        expect(second.revisions).toEqual([100]);
        await older.query('COMMIT');
        const third = await read(second.cursor);
        expect(third.revisions).toEqual([50]);
        expect((await read(third.cursor)).revisions).toEqual([]);
      } finally {
        await older.end();
      }
    } finally {
      await store.close();
    }
  });

  it('the poll alone relays when no wake is heard, and the prune drops old rows', async () => {
    const a = await replica('A');
    const b = await replica('B', 200);
    seeded = await seedSession(a.store);
    // The wake is lost: B's relay takes no wakes, only its polls.
    b.bus.close();
    const polled = createWakeBus({
      store: b.store,
      replicaId: 'B',
      timers: systemTimers,
      logger: silentLogger,
      pollIntervalMs: 200,
    });
    await b.relay.stop();
    const hub = new Recorder();
    b.relay = await startEventRelay({
      store: b.store,
      bus: {
        ...polled,
        subscribe: (subscriber) => polled.subscribe({ ...subscriber, wake: () => undefined }),
      },
      hub,
      timers: systemTimers,
      logger: silentLogger,
    });
    b.bus = polled;
    await ask(a, 'polled');
    await eventually(() => hub.events.length === 1, 2_000);
    expect(hub.events.map(shape)).toEqual(a.hub.events.map(shape));
    // A relay keeping nothing: its prune empties the log.
    const pruning = await startEventRelay({
      store: b.store,
      bus: polled,
      hub: new Recorder(),
      timers: systemTimers,
      logger: silentLogger,
      retentionMs: 0,
      pruneIntervalMs: 100,
    });
    const count = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM session_events`.execute(a.store.db))
          .rows[0]?.n,
      );
    const deadline = Date.now() + 3_000;
    while ((await count()) > 0 && Date.now() < deadline) await settle();
    await pruning.stop();
    expect(await count()).toBe(0);
  });
});
