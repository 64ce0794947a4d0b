/**
 * Events across replicas on a real PostgreSQL: two stores on one database are
 * two replicas in one test process. A write on A reaches B's hub once, in
 * order, with A's revisions; B never relays its own events back to itself; a
 * rolled-back write logs nothing; events published outside a write cross too;
 * the prune keeps the log short.
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
  openStore,
  transitionSession,
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
    database = await freshDatabase('postgres');
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

  it('a row held behind an older transaction still running is relayed once that ends, with no wake', async () => {
    const a = await replica('A');
    const b = await replica('B');
    seeded = await seedSession(a.store);
    // Another writer (anywhere on the server) began first and is still running,
    // so A's row is not yet final when its one wake reaches B.
    const older = new pg.Client({ connectionString: pgUrl(database) });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      await ask(a, 'held');
      await settle();
      expect(b.hub.events).toEqual([]);
      await older.query('COMMIT');
      await eventually(() => b.hub.events.length === 1, 2_000);
      expect(b.hub.events.map(shape)).toEqual(a.hub.events.map(shape));
    } finally {
      await older.end();
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
