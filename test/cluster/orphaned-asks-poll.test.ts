/**
 * The delivery poll's detach of an external agent's question whose replica
 * is gone (issue 16), with replicas in one test process on one real
 * PostgreSQL, each with its own store connection, replica row, wake bus,
 * live waiters and clarification service, polling every 200 ms. A replica
 * that reads itself dead leaves its own live wait alone; two other replicas
 * whose polls both read the question before either writes detach it once
 * between them: one `message.updated` per row, published by one of them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import {
  ClarificationService,
  DEFAULT_BUDGETS,
  LiveWaiters,
} from '../../src/clarification/index.js';
import { claimReplicas, sessionEventLog } from '../../src/cluster/index.js';
import { createSessionWriter, type SessionWriter } from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { messagesByPendingId } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { createSuccessorTurns } from '../../src/turns/successor-turn.js';
import type { ClarionEvent } from '../../src/wire/index.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { freshPostgres, inProcessReplica, seedAnsweringMember } from '../support/replicas.js';
import { RecordingObserver } from '../support/recorders.js';
import type { TestDatabase } from '../support/databases.js';
import type { Seeded } from '../support/seed.js';
import { TestRuntime } from '../support/test-runtime.js';

const LEASE_MS = 15_000;
const POLL_MS = 200;

describe('the poll that detaches questions of a gone replica, on postgres', () => {
  let database: TestDatabase;
  let seeded: Seeded;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    database = await freshPostgres();
    ({ seeded } = await seedAnsweringMember(database.target));
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await database.dispose();
  });

  /**
   * Wraps two replicas' session writers so their first writes begin only once
   * both have begun one: each poll read the question before either detached it.
   */
  function meeting() {
    let arrived = 0;
    let open: () => void = () => undefined;
    const together = new Promise<void>((resolve) => {
      open = resolve;
    });
    return (writer: SessionWriter): SessionWriter => ({
      pendingAction: (sessionId, active) => writer.pendingAction(sessionId, active),
      deleteSessions: (change) => writer.deleteSessions(change),
      async write(sessionId, change, options) {
        if (++arrived === 2) open();
        await together;
        return writer.write(sessionId, change, options);
      },
    });
  }

  async function node(id: string, wrap: (writer: SessionWriter) => SessionWriter = (w) => w) {
    const { store, replica, bus, close } = await inProcessReplica(database.target, id, {
      leaseMs: LEASE_MS,
      pollIntervalMs: POLL_MS,
    });
    const published: ClarionEvent[] = [];
    const sessions = wrap(
      createSessionWriter({
        store,
        events: { publish: (event) => void published.push(event) },
        userInputPending: () => null,
        log: sessionEventLog(bus),
      }),
    );
    const waiters = new LiveWaiters(systemTimers);
    const service = new ClarificationService({
      store,
      waiters,
      successors: createSuccessorTurns(new TestRuntime()),
      sessions,
      observer: new RecordingObserver(),
      logger: silentLogger,
      timers: systemTimers,
      budgets: DEFAULT_BUDGETS,
      replicas: claimReplicas({ store, bus, leaseMs: LEASE_MS, timers: systemTimers }),
    });
    bus.subscribe(service.deliveryWakes());
    closers.push(async () => {
      await service.close();
      await close();
    });
    await eventually(() => bus.listenerState() === 'listening');
    /** The rows this replica's writes said were detached, still pending. */
    const detachedRows = () =>
      published.flatMap((event) =>
        event.type === 'message.updated' &&
        event.message.metadata.status === 'pending' &&
        event.message.metadata.agent_disconnected === true
          ? [event.message.id]
          : [],
      );
    return { store, replica, waiters, service, detachedRows };
  }

  it('leaves a wait on the replica itself, and is detached once by two pollers', async () => {
    const a = await node('A');
    await a.store.db
      .updateTable('task_sessions')
      .set({ agent_profile: EXTERNAL_AGENT_PROFILE })
      .where('id', '=', seeded.session.id)
      .execute();
    let pendingId = '';
    const asked = a.service.ask(seeded.session.id, TWO_QUESTIONS, {
      onBundle: (id) => {
        pendingId = id;
      },
    });
    await eventually(() => pendingId !== '' && a.waiters.has(pendingId));
    const detached = async () =>
      (await messagesByPendingId(a.store, pendingId)).map(
        (row) => row.metadata.agent_disconnected === true,
      );

    // A reads dead, to itself too; its own polls leave the wait it still holds.
    await a.replica.stop();
    await new Promise((resolve) => setTimeout(resolve, 5 * POLL_MS));
    expect(await detached()).toEqual([false, false]);
    expect(a.detachedRows()).toEqual([]);

    // Two live replicas whose polls both read the question before either detaches it:
    // the rows are detached once, by one of them.
    const together = meeting();
    const b = await node('B', together);
    const c = await node('C', together);
    await eventually(async () => (await detached()).every(Boolean), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 5 * POLL_MS));
    const rows = [...b.detachedRows(), ...c.detachedRows()];
    expect(rows).toHaveLength(2);
    expect(new Set(rows).size).toBe(2);
    expect(a.detachedRows()).toEqual([]);

    // A's wait still ends as a wait ends: open, with the bundle detached already.
    a.waiters.end(pendingId, 'detached');
    expect(await asked).toMatchObject({ ok: true, outcome: 'open', pendingId });
  });
});
