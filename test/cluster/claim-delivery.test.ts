/**
 * Which replica delivers a claim (issue 16), with two replicas in one test
 * process on one real PostgreSQL: each has its own store connection, replica
 * row, wake bus, live waiters, agent runtime and clarification service. An
 * answer on B reaches A's live wait; a wait that ended on A moves the claim
 * on without a loop; a claim on a dead replica's bundle is delivered by the
 * responder; a lost announcement is delivered by A's poll; two replicas
 * taking one claim get one taker. A replica that starts while A hands an
 * answer to its live wait leaves that claim to A, and a hand-off whose claim
 * was put back meanwhile gives the agent nothing, as does a rejection's
 * clear that finds its claim put back. An external agent's claim
 * whose taker died is delivered by another replica's poll. A wait held on a
 * replica that lost its session ends before the claim, which goes to the holder.
 * A recovery leaves a claim a replica took after the recovery read it. The
 * asker's `wait_for_answer` on B of a question asked on A names B, so a
 * cancel or an answer on A reaches it there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import {
  ClarificationService,
  DEFAULT_BUDGETS,
  LiveWaiters,
  recoverAtStartUp,
  recoverClarifications,
  type ClarificationBudgets,
} from '../../src/clarification/index.js';
import {
  claimReplicas,
  sessionEventLog,
  type ClaimReplicasView,
  type Replica,
  type WakeBus,
} from '../../src/cluster/index.js';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import { createSessionWriter, type SessionWriter } from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  claimBundle,
  messagesByPendingId,
  restoreClaim,
  retireClaim,
  takeDelivery,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { createSuccessorTurns } from '../../src/turns/successor-turn.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { normalizeAsk } from '../../src/clarification/index.js';
import { RecordingObserver } from '../support/recorders.js';
import type { Seeded } from '../support/seed.js';
import { inProcessReplica, seedAnsweringMember } from '../support/replicas.js';
import { TestRuntime } from '../support/test-runtime.js';

const LEASE_MS = 15_000;
/**
 * A wait's own timeout, far past `HANDED_OVER_WITHIN_MS`: a wait that ends
 * within the bound was ended by the hand-over, however loaded the machine.
 */
const WAIT_TIMEOUT_MS = 50_000;
const HANDED_OVER_WITHIN_MS = 30_000;

/** Live waits whose hand-offs stop just before their confirmation until `release`. */
class HeldWaiters extends LiveWaiters {
  reached = false;
  release: () => void = () => undefined;
  private readonly held = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  override async deliver(...args: Parameters<LiveWaiters['deliver']>) {
    this.reached = true;
    await this.held;
    return super.deliver(...args);
  }
}

const REJECTION = { rejected: true, reject_reason: 'not now' };

/** A session writer with no browsers to tell; with `bus`, it logs events for the other replicas. */
function unheardWriter(store: Store, bus?: WakeBus): SessionWriter {
  return createSessionWriter({
    store,
    events: { publish: () => undefined },
    userInputPending: () => null,
    ...(bus ? { log: sessionEventLog(bus) } : {}),
  });
}

interface Node {
  id: string;
  store: Store;
  replica: Replica;
  bus: WakeBus;
  waiters: LiveWaiters;
  runtime: TestRuntime;
  observer: RecordingObserver;
  service: ClarificationService;
  close(): Promise<void>;
}

describe('claim delivery across replicas on postgres', () => {
  let database: TestDatabase;
  let seeded: Seeded;
  let person: Principal;
  const nodes: Node[] = [];

  beforeEach(async () => {
    database = await freshDatabase('postgres', { migrated: true });
    ({ seeded, person } = await seedAnsweringMember(database.target));
  });

  /** Held hand-offs, let go before teardown so a failed check cannot hang it. */
  const holds: HeldWaiters[] = [];
  const heldWaiters = () => {
    const waiters = new HeldWaiters(systemTimers);
    holds.push(waiters);
    return waiters;
  };

  afterEach(async () => {
    for (const held of holds.splice(0)) held.release();
    for (const node of nodes.splice(0).reverse()) {
      await node.service.close();
      await node.close();
    }
    await database.dispose();
  });

  async function node(
    id: string,
    options: {
      budgets?: Partial<ClarificationBudgets>;
      pollIntervalMs?: number;
      replicas?: (view: ClaimReplicasView) => ClaimReplicasView;
      waiters?: LiveWaiters;
      leases?: { confirm(sessionId: string): Promise<boolean> };
      /** Wraps this replica's session writer (to act between a delivery's writes). */
      sessions?: (writer: SessionWriter) => SessionWriter;
    } = {},
  ): Promise<Node> {
    const { store, replica, bus, close } = await inProcessReplica(database.target, id, {
      leaseMs: LEASE_MS,
      ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    const writer = unheardWriter(store, bus);
    const sessions = options.sessions ? options.sessions(writer) : writer;
    const view = claimReplicas({ store, bus, leaseMs: LEASE_MS, timers: systemTimers });
    const waiters = options.waiters ?? new LiveWaiters(systemTimers);
    const runtime = new TestRuntime();
    const observer = new RecordingObserver();
    const service = new ClarificationService({
      store,
      waiters,
      successors: createSuccessorTurns(runtime),
      sessions,
      observer,
      logger: silentLogger,
      timers: systemTimers,
      budgets: { ...DEFAULT_BUDGETS, ...options.budgets },
      replicas: options.replicas ? options.replicas(view) : view,
      ...(options.leases ? { leases: options.leases } : {}),
    });
    bus.subscribe(service.deliveryWakes());
    const made = { id, store, replica, bus, waiters, runtime, observer, service, close };
    nodes.push(made);
    await eventually(() => bus.listenerState() === 'listening');
    return made;
  }

  const caller = () => ({ principal: person, surface: 'rest' as const });

  /** An ask held live on `on`; resolves with the pending ID once its rows exist. */
  async function askLive(on: Node) {
    let pendingId: string | undefined;
    const asked = on.service.ask(seeded.session.id, TWO_QUESTIONS, {
      onBundle: (id) => {
        pendingId = id;
      },
    });
    await eventually(() => pendingId !== undefined && on.waiters.has(pendingId));
    return { pendingId: pendingId ?? '', asked };
  }

  /** A bundle asked on `on` whose wait is already gone there (no live waiter anywhere). */
  async function askedWithoutWaiter(on: Node): Promise<string> {
    const normalized = normalizeAsk(TWO_QUESTIONS);
    if (!normalized.ok) throw new Error('bad questions');
    const pendingId = await on.service.createBundle(seeded.session.id, normalized.value);
    if (!pendingId) throw new Error('no bundle');
    return pendingId;
  }

  const deliveryOutcomes = (on: Node) =>
    on.observer.phases.filter((phase) => phase.phase === 'delivery').map((phase) => phase.outcome);

  it('an answer on B reaches the live wait on A, and B reports it delivered', async () => {
    const a = await node('A');
    const b = await node('B');
    const { pendingId, asked } = await askLive(a);

    const result = await b.service.respond(caller(), pendingId, ANSWERS);
    expect(result).toMatchObject({ ok: true, claimed: true, status: 'answered' });
    expect(await asked).toMatchObject({ ok: true, outcome: 'answered', pendingId });
    expect(deliveryOutcomes(b)).toEqual(['elsewhere']);
    // Handed over live: no resume prompt on either replica, and the intent is gone.
    expect(a.runtime.prompts).toEqual([]);
    expect(b.runtime.prompts).toEqual([]);
    const rows = await messagesByPendingId(a.store, pendingId);
    expect(rows.map((row) => row.metadata.response_delivery_pending ?? null)).toEqual([null, null]);
  });

  it('B announces its claim once, in the claim transaction, so A starts at the commit', async () => {
    const a = await node('A');
    const announced: { inTransaction: boolean }[] = [];
    const b = await node('B', {
      replicas: (view) => ({
        ...view,
        announce(pendingId, tx) {
          announced.push({ inTransaction: tx !== undefined });
          return view.announce(pendingId, tx);
        },
      }),
    });
    const heard: string[] = [];
    a.bus.subscribe({
      kinds: ['delivery'],
      wake: ({ topic }) => {
        if (topic.kind === 'delivery') heard.push(topic.pendingId);
      },
      resync: () => undefined,
    });
    const { pendingId, asked } = await askLive(a);

    const result = await b.service.respond(caller(), pendingId, ANSWERS);
    expect(result).toMatchObject({ ok: true, claimed: true });
    expect(await asked).toMatchObject({ ok: true, outcome: 'answered', pendingId });
    expect(announced).toEqual([{ inTransaction: true }]);
    expect(heard).toEqual([pendingId]);

    // A loser's claim changes nothing, so it announces nothing.
    const again = await b.service.respond(caller(), pendingId, ANSWERS);
    expect(again).toMatchObject({ ok: true, claimed: false });
    expect(announced).toHaveLength(1);
  });

  it('a wait that ended on A moves the claim on once; one replica resumes the agent', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);

    const result = await b.service.respond(caller(), pendingId, ANSWERS);
    expect(result).toMatchObject({ ok: true, claimed: true });
    // A marked the claim detached and, holding no wait, resumed the agent itself.
    const prompts = [...a.runtime.prompts, ...b.runtime.prompts];
    expect(prompts).toHaveLength(1);
    const rows = await messagesByPendingId(a.store, pendingId);
    expect(rows.every((row) => row.metadata.agent_disconnected === true)).toBe(true);
  });

  it('a bundle asked on a replica that stopped is delivered by the responder', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);
    await a.replica.stop();

    const result = await b.service.respond(caller(), pendingId, ANSWERS);
    expect(result).toMatchObject({ ok: true, claimed: true });
    expect(b.runtime.prompts).toHaveLength(1);
    expect(a.runtime.prompts).toEqual([]);
    expect(deliveryOutcomes(b)).toEqual(['resumed']);
  });

  it('a lost announcement is delivered by the poll of the replica holding the wait, within its interval', async () => {
    const budgets = { deliveryMs: 10_000 };
    const a = await node('A', { budgets, pollIntervalMs: 200 });
    const b = await node('B', {
      budgets,
      // Every announcement B makes is lost.
      replicas: (view) => ({ ...view, announce: () => Promise.resolve() }),
    });
    const { pendingId, asked } = await askLive(a);

    const started = performance.now();
    const result = await b.service.respond(caller(), pendingId, ANSWERS);
    // Not at B's budget: A's next poll found the claim its wait was held for.
    expect(performance.now() - started).toBeLessThan(budgets.deliveryMs / 2);
    expect(result).toMatchObject({ ok: true, claimed: true, status: 'answered' });
    expect(deliveryOutcomes(b)).toEqual(['elsewhere']);
    expect(await asked).toMatchObject({ ok: true, outcome: 'answered', pendingId });
  });

  it('a claim of a session whose lease A holds, announced to nobody, is delivered by A’s poll within its interval', async () => {
    const budgets = { deliveryMs: 10_000 };
    const a = await node('A', { budgets, pollIntervalMs: 200 });
    expect(await a.replica.leases.acquire(seeded.session.id)).toBe(true);
    const pendingId = await askedWithoutWaiter(a);
    // Its responder claimed it and stopped before routing it: no announcement, no taker.
    const started = performance.now();
    const claimed = await rejectionClaim(a.store, pendingId);
    expect(claimed).toHaveLength(2);

    await eventually(async () => {
      const rows = await messagesByPendingId(a.store, pendingId);
      return rows.every((row) => row.metadata.response_delivery_pending === undefined);
    });
    expect(performance.now() - started).toBeLessThan(budgets.deliveryMs / 2);
  });

  it('a wait for the decision on B ends when A hands the answer over, not at its timeout', async () => {
    const a = await node('A');
    const b = await node('B');
    const { pendingId, asked } = await askLive(a);
    const started = Date.now();
    const waited = b.service.awaitDecision(person, pendingId, { timeoutMs: WAIT_TIMEOUT_MS });

    expect(await a.service.respond(caller(), pendingId, ANSWERS)).toMatchObject({ ok: true });
    expect(await asked).toMatchObject({ outcome: 'answered' });
    expect(await waited).toMatchObject({ ok: true, outcome: 'decided' });
    expect(Date.now() - started).toBeLessThan(HANDED_OVER_WITHIN_MS);
  });

  it('a person cancels on B a question whose wait runs on A: the wait ends on A, the cancel says who', async () => {
    const a = await node('A');
    const b = await node('B');
    const { pendingId, asked } = await askLive(a);

    expect(await b.service.cancel(caller(), pendingId)).toEqual({ ok: true });
    expect(await asked).toMatchObject({ ok: true, outcome: 'open', reason: 'cancelled' });
    const rows = await messagesByPendingId(a.store, pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
    expect(rows[0]?.metadata.responded_by).toMatchObject({ name: 'member', surface: 'rest' });
    // No wait anywhere now: a second cancel has nothing to end.
    expect(await b.service.cancel(caller(), pendingId)).toMatchObject({ code: 'not_active' });
  });

  /** The session's agent waiting on its question with `wait_for_answer` on `on`, as its asker. */
  function waitAsAsker(on: Node, pendingId: string) {
    const agent: Principal = { kind: 'agent', userId: 'agent-user', sessionId: seeded.session.id };
    return on.service.awaitDecision(agent, pendingId, {
      timeoutMs: WAIT_TIMEOUT_MS,
      asker: { sessionId: seeded.session.id },
    });
  }

  /** An ask on `on` whose wait has ended: the question is open and detached. */
  async function askDetached(on: Node): Promise<string> {
    const asked = await on.service.ask(seeded.session.id, TWO_QUESTIONS, { timeoutMs: 100 });
    if (!asked.ok || asked.outcome !== 'open') throw new Error('the ask did not end open');
    const rows = await messagesByPendingId(on.store, asked.pendingId);
    expect(rows.map((row) => row.metadata.agent_disconnected)).toEqual([true, true]);
    return asked.pendingId;
  }

  /** Its rows name the replica its wait runs on, attached, once that wait began there. */
  async function attachedOn(on: Node, pendingId: string, replica: string) {
    await eventually(async () => {
      const rows = await messagesByPendingId(on.store, pendingId);
      return (
        on.waiters.has(pendingId) &&
        rows.every((row) => row.metadata.asked_on === replica && !row.metadata.agent_disconnected)
      );
    });
  }

  it("the asker's wait for its answer on B, asked on A, is cancelled through A at once", async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askDetached(a);
    const waited = waitAsAsker(b, pendingId);
    await attachedOn(b, pendingId, 'B');

    const started = Date.now();
    expect(await a.service.cancel(caller(), pendingId)).toEqual({ ok: true });
    expect(await waited).toEqual({ ok: true, outcome: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(HANDED_OVER_WITHIN_MS);
  });

  it("the asker's wait for its answer on B, asked on A, is handed an answer given on A", async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askDetached(a);
    const waited = waitAsAsker(b, pendingId);
    await attachedOn(b, pendingId, 'B');

    expect(await a.service.respond(caller(), pendingId, ANSWERS)).toMatchObject({ ok: true });
    expect(await waited).toMatchObject({ ok: true, outcome: 'decided', handedOver: true });
    expect(deliveryOutcomes(a)).toEqual(['elsewhere']);
    // Handed over live on B: no replica resumed the agent with a new turn.
    expect([...a.runtime.prompts, ...b.runtime.prompts]).toEqual([]);
  });

  it('a cancel on B of a question no replica waits on is not active, and changes nothing', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);
    await a.replica.stop();
    expect(await b.service.cancel(caller(), pendingId)).toMatchObject({ code: 'not_active' });
    const rows = await messagesByPendingId(b.store, pendingId);
    expect(rows.map((row) => row.metadata.status ?? 'pending')).toEqual(['pending', 'pending']);
  });

  /** A rejection claimed straight in the store, its delivery taken for `deliveryBy` if given. */
  async function rejectionClaim(store: Store, pendingId: string, deliveryBy?: string) {
    const rows = await messagesByPendingId(store, pendingId);
    return claimBundle(store, {
      pendingId,
      sessionId: seeded.session.id,
      turnId: rows[0]?.turn_id ?? '',
      status: 'rejected',
      responses: new Map(),
      rejectReason: 'no',
      respondedAt: store.clock.timestamp(),
      respondedBy: { user_id: person.userId, name: 'u', surface: 'rest' },
      ...(deliveryBy === undefined ? {} : { deliveryBy }),
    });
  }

  it('a claim made where it will be delivered takes the delivery in the claim itself', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);
    const claimed = await rejectionClaim(b.store, pendingId, 'B');
    expect(claimed.map((row) => row.metadata.delivery_by)).toEqual(['B', 'B']);
    const ids = claimed.map((row) => row.id);
    expect(await takeDelivery(a.store, ids, 'A')).toBe(false);
    expect(await takeDelivery(b.store, ids, 'B')).toBe(false);
    expect(a.service.claimInFlight(claimed, new Set(['B']))).toBe(true);
  });

  it('of two replicas taking one claim, one takes it', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);
    const claimed = await rejectionClaim(a.store, pendingId);
    const ids = claimed.map((row) => row.id);
    const takes = await Promise.all([
      ...Array.from({ length: 5 }, () => takeDelivery(a.store, ids, 'A')),
      ...Array.from({ length: 5 }, () => takeDelivery(b.store, ids, 'B')),
    ]);
    expect(takes.filter(Boolean)).toHaveLength(1);
    // The taker is delivering it: a takeover there leaves it alone, and so does one on the
    // other replica while the taker lives; once the taker is gone, the other restores it.
    const taken = await messagesByPendingId(a.store, pendingId);
    const taker = taken[0]?.metadata.delivery_by === 'A' ? a : b;
    const other = taker === a ? b : a;
    const takerId = taker === a ? 'A' : 'B';
    const none = new Set<string>();
    expect(taker.service.claimInFlight(taken, none)).toBe(true);
    expect(other.service.claimInFlight(taken, new Set([takerId]))).toBe(true);
    expect(other.service.claimInFlight(taken, none)).toBe(false);
  });

  it('a replica that starts while A hands an answer over leaves it to A: one winner, handed over once', async () => {
    const held = heldWaiters();
    const a = await node('A', { waiters: held });
    const b = await node('B');
    const { pendingId, asked } = await askLive(a);
    const first = a.service.respond(caller(), pendingId, ANSWERS);
    await eventually(() => held.reached);
    // The claim names the replica handing it over.
    const claimed = await messagesByPendingId(a.store, pendingId);
    expect(claimed.map((row) => row.metadata.delivery_by)).toEqual(['A', 'A']);

    // C starts beside them (a rolling restart); the session has no lease (no agent runs it).
    const c = await inProcessReplica(database.target, 'C', { leaseMs: LEASE_MS });
    try {
      const sessions = unheardWriter(c.store, c.bus);
      const report = await recoverAtStartUp(
        { store: c.store, sessions },
        silentLogger,
        c.replica.startUpScope,
        await c.replica.liveElsewhere(),
      );
      expect(report).toMatchObject({ claimsRestored: 0, claimsRetired: 0 });
    } finally {
      await c.close();
    }

    held.release();
    expect(await first).toMatchObject({ ok: true, claimed: true, status: 'answered' });
    expect(await asked).toMatchObject({ ok: true, outcome: 'answered', pendingId });
    // Nobody else can win it now.
    const second = await b.service.respond(caller(), pendingId, REJECTION);
    expect(second).toMatchObject({ ok: true, claimed: false, status: 'answered' });
  });

  it('a hand-off whose claim was put back meanwhile gives the agent nothing; a later answer wins', async () => {
    const held = heldWaiters();
    const a = await node('A', { waiters: held });
    const { pendingId, asked } = await askLive(a);
    const first = a.service.respond(caller(), pendingId, ANSWERS);
    await eventually(() => held.reached);

    const rows = await messagesByPendingId(a.store, pendingId);
    const ids = rows.map((row) => row.id);
    expect(await restoreClaim(a.store, ids, 'answered', { detached: true })).toHaveLength(2);

    held.release();
    expect(await first).toMatchObject({ ok: false, code: 'internal' });
    expect(await asked).toMatchObject({ ok: true, outcome: 'open', reason: 'delivery_failed' });
    expect(deliveryOutcomes(a)).toEqual(['restored']);
    const second = await a.service.respond(caller(), pendingId, REJECTION);
    expect(second).toMatchObject({ ok: true, claimed: true, status: 'rejected' });
  });

  it('a rejection whose claim a recovery put back before its clear records nothing; a later answer wins', async () => {
    const race: { pendingId?: string; takenBack: boolean } = { takenBack: false };
    // A recovery (another replica's start) puts the claim back just before the delivery's clear.
    const recoveringFirst = (inner: SessionWriter): SessionWriter => ({
      pendingAction: (sessionId, active) => inner.pendingAction(sessionId, active),
      deleteSessions: (change) => inner.deleteSessions(change),
      async write(sessionId, change, options) {
        const rows = race.pendingId ? await messagesByPendingId(a.store, race.pendingId) : [];
        const claimed = rows.filter((row) => row.metadata.response_delivery_pending === true);
        if (!race.takenBack && claimed.length > 0) {
          const ids = claimed.map((row) => row.id);
          race.takenBack =
            (await restoreClaim(a.store, ids, 'rejected', { detached: true })) !== undefined;
        }
        return inner.write(sessionId, change, options);
      },
    });
    const a = await node('A', { sessions: recoveringFirst });
    const pendingId = await askedWithoutWaiter(a);
    race.pendingId = pendingId;

    const first = await a.service.respond(caller(), pendingId, REJECTION);
    expect(race.takenBack).toBe(true);
    expect(first).toMatchObject({
      ok: false,
      code: 'internal',
      message: 'clarification response could not be delivered',
    });
    expect(deliveryOutcomes(a)).toEqual(['taken_back']);
    const rows = await messagesByPendingId(a.store, pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    const second = await a.service.respond(caller(), pendingId, ANSWERS);
    expect(second).toMatchObject({ ok: true, claimed: true, status: 'answered' });
  });

  it('an external agent’s claim whose taker died is delivered by another replica’s poll', async () => {
    const budgets = { deliveryMs: 400 };
    const held = heldWaiters();
    const a = await node('A', { waiters: held, budgets });
    const b = await node('B', { budgets, pollIntervalMs: 200 });
    // No replica holds an external agent's session, so no takeover would recover it.
    await b.store.db
      .updateTable('task_sessions')
      .set({ agent_profile: EXTERNAL_AGENT_PROFILE })
      .where('id', '=', seeded.session.id)
      .execute();
    const { pendingId } = await askLive(a);
    const first = a.service.respond(caller(), pendingId, ANSWERS);
    await eventually(() => held.reached);
    // A dies mid-hand-off: its agent's connection goes with it.
    await a.replica.stop();

    const waited = await b.service.awaitDecision(person, pendingId, { timeoutMs: WAIT_TIMEOUT_MS });
    expect(waited).toMatchObject({ ok: true, outcome: 'decided' });
    const rows = await messagesByPendingId(b.store, pendingId);
    expect(
      rows.map((row) => [row.metadata.status, row.metadata.response_delivery_pending]),
    ).toEqual([
      ['answered', undefined],
      ['answered', undefined],
    ]);
    // Had A only stalled, its hand-off now finds the claim delivered and gives the agent nothing.
    held.release();
    expect(await first).toMatchObject({ ok: false, code: 'internal' });
  });

  it('an answer on A to a wait held for a session B took over goes to B, which resumes the agent', async () => {
    const on: { node?: Node } = {};
    // A's lease check finds the session lost (B took it while A was paused): its waits end.
    const lost = {
      confirm(sessionId: string) {
        on.node?.service.fenceSession(sessionId);
        return Promise.resolve(false);
      },
    };
    const a = await node('A', { leases: lost });
    on.node = a;
    const b = await node('B');
    expect(await b.replica.leases.acquire(seeded.session.id)).toBe(true);
    const { pendingId, asked } = await askLive(a);

    const result = await a.service.respond(caller(), pendingId, ANSWERS);
    expect(result).toMatchObject({ ok: true, claimed: true });
    expect(await asked).toMatchObject({ ok: false, code: 'not_active' });
    // Only the holder prompts the session's agent.
    await eventually(() => b.runtime.prompts.length === 1);
    expect(a.runtime.prompts).toEqual([]);
  });

  it('a recovery leaves a claim that a replica took after the recovery read it', async () => {
    const a = await node('A');
    const b = await node('B');
    const pendingId = await askedWithoutWaiter(a);
    const claimed = await rejectionClaim(a.store, pendingId);
    const ids = claimed.map((row) => row.id);
    const inner = unheardWriter(a.store);
    // B takes the delivery between the recovery's read and its write.
    const racing: SessionWriter = {
      pendingAction: (sessionId, active) => inner.pendingAction(sessionId, active),
      deleteSessions: (change) => inner.deleteSessions(change),
      async write(sessionId, change, options) {
        expect(await takeDelivery(b.store, ids, 'B')).toBe(true);
        return inner.write(sessionId, change, options);
      },
    };
    const report = await recoverClarifications({ store: a.store, sessions: racing }, silentLogger);
    expect(report).toMatchObject({ claimsRestored: 0, claimsRetired: 0 });
    const rows = await messagesByPendingId(a.store, pendingId);
    expect(rows.map((row) => [row.metadata.status, row.metadata.delivery_by])).toEqual([
      ['rejected', 'B'],
      ['rejected', 'B'],
    ]);
    // Nor does a retire judged on nobody's take clear B's.
    expect(await retireClaim(a.store, ids, null)).toEqual([]);
    expect(await retireClaim(a.store, ids, 'B')).toHaveLength(2);
  });
});
