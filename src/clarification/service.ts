/**
 * Bundle lifecycle around the resolver: asking (create or reuse, then wait
 * live), reading one bundle, operator cancel, detach and expiry. Detached
 * and expired are decided by the store's guards, so repeating either is a
 * no-op that publishes nothing.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import { responderOf, type Principal } from '../auth/index.js';
import type { WakeSubscriber } from '../cluster/index.js';
import {
  activePendingIdByFingerprint,
  appendMessage,
  cancelBundleRows,
  untakenClaims,
  releaseOrphanedDeliveries,
  bundleForPrincipal,
  canSeeSession,
  CLARIFICATION_TYPE,
  currentTurn,
  detachBundleRows,
  detachSessionRows,
  expireSessionRows,
  getSession,
  endWaitWhenNoneOpen,
  pendingIdsOfSession,
  reattachBundleRows,
  rowsStillCurrent,
  startTurn,
  TERMINAL_SESSION_STATES,
  timestampAtMs,
  transitionSession,
  type MessageRecord,
  type RepoContext,
  type SessionState,
} from '../store/index.js';
import type { SessionWrite } from '../events/index.js';
import { bundleStatus, readBundle, winnerResponse, type Bundle, type RowStatus } from './bundle.js';
import type { ClarificationDeps } from './context.js';
import { AttachHolds, NO_HOLD } from './attach-holds.js';
import { collectRetried, collectedByAsker, type Collected } from './collect.js';
import { DecisionBoard } from './decisions.js';
import { deliverAnnounced } from './delivery.js';
import { detachOrphanedAsks } from './orphaned-asks.js';
import { endSupersededWaits, sessionsWaitedOn } from './superseded-waits.js';
import { claimUnderWay } from './recovery.js';
import { askScopeOf, openAsksIn, tooManyOpenAsks } from './open-asks.js';
import type { ClarificationResponse } from './outcome.js';
import { ENDED_BUNDLE_RECHECK_MS, OPEN_ASKS_PER_AGENT } from '../tunables.js';
import { pausePoint } from '../support/index.js';
import { failure, type Failure, type SessionFailureCode } from '../wire/index.js';
import { normalizeAsk, type NormalizedAsk, type Question } from './questions.js';
import {
  listPendingBundles,
  type PendingListOptions,
  type PendingListResult,
} from './pending-list.js';
import { Resolver, type DecisionCaller, type RespondResult } from './resolver.js';
import type { RespondInput } from './outcome.js';
import type { WaitEnd, WaitOutcome } from './waiters.js';

export type AskResult =
  | {
      ok: true;
      pendingId: string;
      outcome: 'answered';
      response: ClarificationResponse;
      questions: Question[];
    }
  | { ok: true; pendingId: string; outcome: 'open'; reason: WaitEnd }
  | Failure<'invalid_request' | 'not_active' | 'too_many_open_requests'>;

type BundleOpening =
  | {
      ok: true;
      pendingId: string;
      /** Lets go of a reused bundle's hold (`AttachHolds`) once its live wait has begun. */
      release: () => void;
    }
  /** A retry of a cut call whose bundle the person decided meanwhile (`collect.ts`). */
  | { ok: true; collected: Collected }
  | Failure<'not_active' | 'too_many_open_requests'>;

const CANNOT_ASK = failure('not_active', 'this session can no longer ask questions');

const NOT_FOUND = failure('not_found', 'clarification request not found');
const FENCED = 'another server took this session over; ask again there';
const NO_LIVE_WAIT =
  'no agent waits on this question now, so there is nothing to cancel: answer or skip it instead';

export interface BundleView {
  pending_id: string;
  task_id: string;
  session_id: string;
  status: RowStatus;
  active: boolean;
  detached: boolean;
  /** A claim whose hand-off is not confirmed yet. */
  delivery_pending: boolean;
  context: string;
  created_at: string;
  questions: (Question & { status: RowStatus })[];
  response: ClarificationResponse | null;
}

const TERMINAL = new Set<SessionState>(TERMINAL_SESSION_STATES);

export interface AskOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The bundle is written (or reused) and its live wait begins: its pending ID. */
  onBundle?: (pendingId: string) => void;
  /** Whether the caller may still have an answer, read before one is handed over (`LiveWaiters`). */
  entitled?: () => Promise<boolean>;
}

/** One bundle as `get` reads it. */
export type BundleRead = { ok: true; view: BundleView } | Failure<'not_found'>;

/**
 * A decision, `waiting` when the wait ended before one (the bundle stays
 * open), or `cancelled` when a person closed it.
 */
export type DecisionWait =
  | {
      ok: true;
      outcome: 'decided';
      response: ClarificationResponse;
      questions: Question[];
      /**
       * Handed to this wait as to an ask's, after a read found its caller
       * entitled (`LiveWaiters`); otherwise read from the store.
       */
      handedOver: boolean;
    }
  | { ok: true; outcome: 'waiting' }
  | { ok: true; outcome: 'cancelled' }
  | Failure<'not_found' | 'not_active'>;

export interface DecisionWaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * The caller asked in this session (its agent, or an external client in
   * its own session): its wait on an open bundle there is the asker's live
   * wait again, as a repeated ask's.
   */
  asker?: { sessionId: string; entitled?: () => Promise<boolean> };
}

const CANCELLED: DecisionWait = { ok: true, outcome: 'cancelled' };

export class ClarificationService {
  readonly resolver: Resolver;
  private readonly deps: ClarificationDeps & { decisions: DecisionBoard };
  /** Asks and responses still running; `close` lets them finish their writes. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborted by `drain`: no wait runs on a server that is stopping. */
  private readonly draining = new AbortController();
  private readonly attachHolds = new AttachHolds();
  /** Aborted by `close`: the checks for superseded waits read nothing more. */
  private readonly closing = new AbortController();

  constructor(deps: ClarificationDeps) {
    this.deps = {
      ...deps,
      decisions: deps.decisions ?? new DecisionBoard(),
      newerTurn: (sessionId) => void this.turnStarted(sessionId),
    };
    this.resolver = new Resolver(this.deps);
  }

  async respond(
    caller: DecisionCaller,
    pendingId: string,
    input: RespondInput,
    callerSignal?: AbortSignal,
  ): Promise<RespondResult> {
    const result = await this.track(this.resolver.respond(caller, pendingId, input, callerSignal));
    this.deps.observer.responded(result);
    return result;
  }

  /**
   * A respond its surface refused before handing it here (its credential
   * lookup got no answer: `storage_unavailable`), counted as `respond` counts
   * its own results, so REST and MCP refusals show up alike.
   */
  refusedEarly(refusal: Failure<'storage_unavailable'>): void {
    this.deps.observer.responded(refusal);
  }

  /**
   * Several replicas: hears every claim announced on the wake bus and
   * delivers those whose route ends here. Its poll routes again the claims
   * nobody took: at once those this replica owns, a live wait here or its
   * session's lease (their announcement was lost, and their responder waits
   * for this replica), the others once the delivery budget has passed (a
   * responder may still be routing them; by then it stopped waiting, or
   * stopped); it gives back an external agent's claims whose taker is gone,
   * and detaches its questions whose live wait ran on a replica that is gone.
   */
  deliveryWakes(): WakeSubscriber {
    const deliver = (pendingId: string, origin: string) =>
      this.track(deliverAnnounced(this.deps, pendingId, origin)).catch((error: unknown) => {
        this.deps.logger.error(
          { err: error, pending_id: pendingId },
          'a claim announced by another replica could not be delivered',
        );
      });
    return {
      kinds: ['delivery'],
      wake({ topic, origin }) {
        if (topic.kind === 'delivery') void deliver(topic.pendingId, origin);
      },
      resync: async () => {
        const { replicas, store, budgets } = this.deps;
        if (!replicas) return;
        const { heartbeatAfter } = replicas.ownerTerms();
        await releaseOrphanedDeliveries(store, heartbeatAfter, EXTERNAL_AGENT_PROFILE);
        const before = timestampAtMs(store.clock.nowMs() - budgets.deliveryMs);
        for (const { pendingId, claimedAt, holder } of await untakenClaims(store)) {
          const mine = this.deps.waiters.has(pendingId) || holder === replicas.id;
          if (mine || claimedAt < before) {
            await deliver(pendingId, replicas.id);
          }
        }
        await detachOrphanedAsks(this.deps, replicas.id, heartbeatAfter);
      },
    };
  }

  /**
   * Several replicas: whether a claim is still being delivered, so a
   * takeover's recovery leaves it alone: `claimUnderWay`, with this replica
   * counted among the live ones. A claim taken by the replica that is gone is
   * not, even while a responder here waits for it: no announcement can move
   * a claim that names its taker, so recovery puts it back (nothing of it was
   * sent), and that responder reads the claim put back.
   */
  claimInFlight(rows: readonly MessageRecord[], live: ReadonlySet<string>): boolean {
    const here = this.deps.replicas?.id;
    return claimUnderWay(rows, here === undefined ? live : new Set([...live, here]));
  }

  /**
   * For a graceful stop, while the server still answers (issue 16): ends
   * every live wait as detached and every `awaitDecision` as still waiting,
   * and later ones at once, so each caller gets its result (open, with the
   * pending ID) before the connections close, rather than a cut call, and
   * collects the answer through any other replica.
   */
  drain(): void {
    this.draining.abort();
    this.deps.waiters.endAll('detached');
  }

  /**
   * For shutdown, before the store closes: ends every live wait as detached
   * (the agents are going down) and waits for running asks and responses, so
   * their detach and delivery writes land rather than meet a closed store.
   */
  async close(): Promise<void> {
    this.closing.abort();
    this.deps.waiters.endAll('detached');
    await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const forget = () => {
      this.inFlight.delete(work);
    };
    work.then(forget, forget);
    return work;
  }

  /**
   * The agent's `ask_user_question`: validates, writes the bundle (or reuses
   * the identical one already waiting in this session), then waits live. A
   * wait that ends without an answer detaches the bundle; it stays open and
   * an answer will resume the agent with a new turn.
   */
  async ask(sessionId: string, raw: unknown, options: AskOptions = {}): Promise<AskResult> {
    return this.track(this.askAndWait(sessionId, raw, options));
  }

  private async askAndWait(
    sessionId: string,
    raw: unknown,
    options: AskOptions,
  ): Promise<AskResult> {
    const normalized = normalizeAsk(raw);
    if (!normalized.ok) return failure('invalid_request', 'invalid questions', normalized.issues);
    const opened = await this.openBundle(sessionId, normalized.value);
    if (!opened.ok) return opened;
    if ('collected' in opened) {
      const { pendingId, response } = opened.collected;
      options.onBundle?.(pendingId);
      return {
        ok: true,
        pendingId,
        outcome: 'answered',
        response,
        questions: normalized.value.questions,
      };
    }
    const created = opened.pendingId;
    let outcome: WaitOutcome;
    try {
      options.onBundle?.(created);
      outcome = await this.waitLive(sessionId, created, options, opened.release);
    } finally {
      opened.release();
    }
    if (outcome.kind === 'answered') {
      return {
        ok: true,
        pendingId: created,
        outcome: 'answered',
        response: outcome.response,
        questions: normalized.value.questions,
      };
    }
    if (outcome.reason === 'fenced') return failure('not_active', FENCED);
    return { ok: true, pendingId: created, outcome: 'open', reason: outcome.reason };
  }

  /**
   * The asker's live wait on its bundle (its ask, or its `wait_for_answer`),
   * the rows already marked attached (`attach`). One that ends without an
   * answer detaches them again, unless another wait on the bundle still runs
   * here; a fenced one writes nothing: the replica that took the session
   * over already detached them. A server draining waits for nothing. Only
   * this bundle detaches: another client sharing the session may still wait
   * on its own question, and the person must still be able to cancel it.
   */
  private async waitLive(
    sessionId: string,
    pendingId: string,
    options: AskOptions,
    attached: () => void,
  ): Promise<WaitOutcome> {
    const waiting: Promise<WaitOutcome> = this.draining.signal.aborted
      ? Promise.resolve({ kind: 'ended', reason: 'detached' })
      : this.deps.waiters.wait(pendingId, sessionId, {
          timeoutMs: options.timeoutMs ?? this.deps.budgets.liveWaitMs,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.entitled ? { entitled: options.entitled } : {}),
        });
    // The waiter is registered: it holds the rows attached from here.
    attached();
    const outcome = await waiting;
    if (outcome.kind === 'ended' && outcome.reason !== 'fenced') {
      if (!this.heldAttached(pendingId)) await this.detachBundle(sessionId, pendingId);
    }
    return outcome;
  }

  /** Another wait here holds the bundle, or is about to (`AttachHolds`). */
  private heldAttached(pendingId: string): boolean {
    return this.deps.waiters.has(pendingId) || this.attachHolds.has(pendingId);
  }

  /**
   * The asker waits on its bundle again, here: its rows read attached (the
   * person sees the asker back and may cancel) and, with several replicas,
   * name this one, so an answer or a cancel on any replica finds the wait.
   * Not while draining: no wait follows. Held attached until that wait
   * begins; the caller lets go with the function returned. `undefined` when
   * no row of it was pending any more: a claim takes the session's lock as
   * this write does, so it committed before (and this sees it) or waits for
   * this write (and its delivery finds the wait). The ask's reuse reads the
   * bundle under that lock too, so only `waitAgain`, which reads before it,
   * can meet a bundle decided meanwhile.
   */
  private async attach(write: SessionWrite, pendingId: string): Promise<(() => void) | undefined> {
    if (this.draining.signal.aborted) return NO_HOLD;
    const release = this.attachHolds.hold(pendingId);
    let attached: readonly MessageRecord[];
    try {
      attached = await reattachBundleRows(write.tx, pendingId, this.deps.replicas?.id);
    } catch (error) {
      release();
      throw error;
    }
    write.updated(...attached);
    if (attached.length > 0) return release;
    // Decided, cancelled or ended since it was read: no delivery will look for a wait here.
    release();
    return undefined;
  }

  /**
   * Why a new external session of `userId` could not ask, if it could not:
   * their external agents already hold as many open bundles as they may.
   * Read under their lock in the transaction that would open the session
   * (`turns/`' `ensureExternalSession`), so a client name whose first ask
   * would be refused makes no task. The ask itself counts again.
   */
  async externalAskRoom(
    ctx: RepoContext,
    userId: string,
  ): Promise<Failure<'too_many_open_requests'> | undefined> {
    const limit = this.deps.openAsksPerAgent ?? OPEN_ASKS_PER_AGENT;
    const scope = { kind: 'person', userId } as const;
    const open = await openAsksIn(ctx, scope);
    return open >= limit ? tooManyOpenAsks(scope, open, limit) : undefined;
  }

  /** Writes the bundle in the session's current turn; undefined when the session cannot ask. */
  async createBundle(sessionId: string, ask: NormalizedAsk): Promise<string | undefined> {
    const opened = await this.openBundle(sessionId, ask);
    if (!opened.ok) return undefined;
    if ('collected' in opened) return opened.collected.pendingId;
    opened.release();
    return opened.pendingId;
  }

  /**
   * Writes the bundle in the session's current turn, or reuses the identical
   * one already open there. A new one is refused when the session's agent
   * already holds `openAsksPerAgent` open (an external agent: its person's
   * external sessions together, `open-asks.ts`): counted in this write, under
   * the session's lock (on PostgreSQL an advisory lock every replica takes;
   * a person's, too, for an external agent), so of two asks racing for the
   * last place the second counts the first. A
   * refused ask writes nothing and so publishes nothing: no row, no event,
   * nothing for a notice to name.
   */
  private openBundle(sessionId: string, ask: NormalizedAsk): Promise<BundleOpening> {
    const replicaId = this.deps.replicas?.id;
    const limit = this.deps.openAsksPerAgent ?? OPEN_ASKS_PER_AGENT;
    // Let go should the write not commit after its reuse took a hold.
    let held = NO_HOLD;
    const opening = this.deps.sessions.write(sessionId, async (write): Promise<BundleOpening> => {
      const { tx } = write;
      const session = await getSession(tx, sessionId);
      if (!session || TERMINAL.has(session.state)) return CANNOT_ASK;
      const existing = await activePendingIdByFingerprint(tx, sessionId, ask.fingerprint);
      if (existing) {
        held = (await this.attach(write, existing)) ?? NO_HOLD;
        return { ok: true, pendingId: existing, release: held };
      }
      const collected = await collectRetried(tx, session, ask.fingerprint);
      if (collected) return { ok: true, collected };
      const scope = await askScopeOf(tx, session);
      const open = await openAsksIn(tx, scope);
      if (open >= limit) return tooManyOpenAsks(scope, open, limit);
      const turn =
        (await currentTurn(tx, sessionId)) ??
        (await startTurn(tx, { sessionId, taskId: session.task_id }));
      const pendingId = tx.ids.next();
      for (const [index, question] of ask.questions.entries()) {
        write.added(
          await appendMessage(tx, {
            sessionId,
            taskId: session.task_id,
            turnId: turn.id,
            authorType: 'agent',
            type: CLARIFICATION_TYPE,
            content: question.prompt,
            requestsInput: index === ask.questions.length - 1,
            metadata: {
              pending_id: pendingId,
              question_id: question.id,
              question,
              question_index: index,
              question_total: ask.questions.length,
              context: ask.context,
              status: 'pending',
              request_fingerprint: ask.fingerprint,
              ...(replicaId ? { asked_on: replicaId } : {}),
            },
          }),
        );
      }
      write.moved(await transitionSession(tx, sessionId, ['idle', 'running'], 'waiting_for_input'));
      return { ok: true, pendingId, release: NO_HOLD };
    });
    opening.catch(() => {
      held();
    });
    return opening;
  }

  /** One page of the inbox: every active bundle the principal can see, oldest first. */
  listPending(principal: Principal, options: PendingListOptions = {}): Promise<PendingListResult> {
    return listPendingBundles(this.deps.store, principal, options);
  }

  /** One bundle as its owner sees it; `not_found` when unknown or not visible. */
  async get(principal: Principal, pendingId: string): Promise<BundleRead> {
    const bundle = await this.visibleBundle(principal, pendingId);
    if (!bundle) return NOT_FOUND;
    const status = bundleStatus(bundle);
    const active = await this.answerable(bundle);
    const view: BundleView = {
      pending_id: bundle.pendingId,
      task_id: bundle.taskId,
      session_id: bundle.sessionId,
      status: active ? 'pending' : status === 'pending' ? 'expired' : status,
      active,
      detached: bundle.rows.some((row) => row.detached),
      delivery_pending: bundle.rows.some((row) => row.deliveryPending),
      context: bundle.context,
      created_at: bundle.createdAt,
      questions: bundle.questions.map((question, index) => ({
        ...question,
        status: bundle.rows[index]?.status ?? 'pending',
      })),
      response: winnerResponse(bundle) ?? null,
    };
    return { ok: true, view };
  }

  /**
   * Waits until the bundle is decided and handed off (`wait_for_answer`).
   * Returns at once when it already is, or was cancelled; `not_active` when
   * it can never be, and, when that happens while it waits, as a new call
   * would once the session's end has settled: `not_found` when its rows went
   * with the session's deletion. The asker's wait on its own open bundle is
   * a live wait, as its repeated ask's would be (`waitAgain`): the person
   * sees it attached, may cancel it, and an answer is handed over to it.
   * Anyone else's reads the store until the bundle is decided.
   */
  async awaitDecision(
    principal: Principal,
    pendingId: string,
    options: DecisionWaitOptions,
  ): Promise<DecisionWait> {
    const { replicas } = this.deps;
    let wake: () => void = () => {};
    const nextLocal = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      });
    let local = nextLocal();
    let over = false;
    // Ends the asker's live wait with the call: its timeout, its caller gone, the drain.
    const callOver = new AbortController();
    // A call, so each read sees what the timer or an abort set meanwhile.
    const isOver = () => over;
    const end = () => {
      over = true;
      callOver.abort();
      wake();
    };
    // Listen before reading, so a decision between the read and the wait is not missed.
    const stop = this.deps.decisions.listen(pendingId, () => {
      wake();
    });
    const timer = this.deps.timers.setTimeout(end, options.timeoutMs);
    options.signal?.addEventListener('abort', end, { once: true });
    if (this.draining.signal.aborted) end();
    this.draining.signal.addEventListener('abort', end, { once: true });
    // Ends the waits on other replicas' wakes this call started.
    const finished = new AbortController();
    try {
      const first = await this.get(principal, pendingId);
      if (!first.ok) return first;
      let view: BundleView = first.view;
      // From here a newer turn of its session ends this wait (`turnStarted`).
      this.deps.decisions.belongsTo(pendingId, view.session_id);
      if (view.status === 'cancelled') return CANCELLED;
      // A claimed bundle is no longer active but may still be handing off: wait for it.
      if (!view.response && !view.active) return failure('not_active');
      while ((!view.response || view.delivery_pending) && !isOver()) {
        let closedWhileLive = false;
        if (view.active && view.session_id === options.asker?.sessionId) {
          // A decision that lands before the live wait is registered finds no waiter to hand
          // to: it wakes `local`, which ends this wait so the read below sees it.
          const decided = new AbortController();
          void local.then(() => {
            decided.abort();
          });
          const live = await this.waitAgain(view.session_id, pendingId, {
            timeoutMs: options.timeoutMs,
            signal: AbortSignal.any([callOver.signal, decided.signal]),
            ...(options.asker.entitled ? { entitled: options.asker.entitled } : {}),
          });
          if (live?.kind === 'answered') {
            const { response } = live;
            return {
              ok: true,
              outcome: 'decided',
              response,
              questions: view.questions,
              handedOver: true,
            };
          }
          if (live?.reason === 'fenced') return failure('not_active', FENCED);
          // Cancelled, superseded, or no longer pending when the wait would have begun (decided
          // on another replica meanwhile): read which. Anything else ended the call's wait.
          closedWhileLive =
            live === undefined || live.reason === 'cancelled' || live.reason === 'superseded';
          if (!closedWhileLive && !decided.signal.aborted) end();
        } else {
          // Several replicas: another one may decide it; any write to its session wakes us too.
          const sessionChanged = replicas?.changed(
            view.session_id,
            options.timeoutMs,
            finished.signal,
          );
          await (sessionChanged ? Promise.race([local, sessionChanged]) : local);
        }
        local = nextLocal();
        const again = await this.get(principal, pendingId);
        // Gone while waited for: its session was deleted.
        if (!again.ok) return again;
        view = again.view;
        if (view.status === 'cancelled') return CANCELLED;
        if (!view.response && (!view.active || closedWhileLive)) {
          // Expired: its session ended, or is being deleted and its rows go next.
          await Promise.race([local, this.pause(ENDED_BUNDLE_RECHECK_MS, finished.signal)]);
          const settled = await this.get(principal, pendingId);
          return settled.ok ? failure('not_active') : settled;
        }
      }
      if (!view.response || view.delivery_pending) return { ok: true, outcome: 'waiting' };
      const { response, questions } = view;
      if (view.session_id === options.asker?.sessionId) {
        await collectedByAsker(this.deps.sessions, view.session_id, pendingId);
      }
      return { ok: true, outcome: 'decided', response, questions, handedOver: false };
    } finally {
      finished.abort();
      stop();
      timer.cancel();
      options.signal?.removeEventListener('abort', end);
      this.draining.signal.removeEventListener('abort', end);
    }
  }

  /**
   * The asker's `wait_for_answer` on its open bundle: attached again, then its
   * live wait. `undefined`, without a wait, when the bundle stopped waiting
   * since the caller read it: an answer given meanwhile on another replica
   * finds no wait to hand to and wakes nothing here, so a live wait would
   * sit out its bound; the caller reads it again instead.
   */
  private async waitAgain(
    sessionId: string,
    pendingId: string,
    options: AskOptions,
  ): Promise<WaitOutcome | undefined> {
    let held = NO_HOLD;
    try {
      // Read, not yet attached: a race test lands a decision on another replica here.
      const reading = pausePoint('wait_for_answer.before_attach');
      if (reading) await reading;
      const attached = await this.deps.sessions.write(sessionId, async (write) => {
        const release = await this.attach(write, pendingId);
        held = release ?? NO_HOLD;
        return release !== undefined;
      });
      if (!attached) return undefined;
      // Read, attached, no waiter yet: a race test lands a decision here.
      const paused = pausePoint('wait_for_answer.before_live_wait');
      if (paused) await paused;
      return await this.waitLive(sessionId, pendingId, options, held);
    } finally {
      held();
    }
  }

  /**
   * A person's cancel of a live request: its rows become `cancelled`, record
   * who cancelled, and the agent's wait ends. An agent cannot cancel.
   */
  async cancel(
    caller: DecisionCaller,
    pendingId: string,
  ): Promise<{ ok: true } | Failure<'person_required' | 'not_found' | 'not_active'>> {
    const responder = responderOf(caller.principal, caller.surface);
    if (!responder) return failure('person_required');
    const bundle = await this.visibleBundle(caller.principal, pendingId);
    if (!bundle) return NOT_FOUND;
    const waitsHere = this.deps.waiters.has(pendingId);
    const waitsElsewhere = !waitsHere && (await this.waitsElsewhere(bundle));
    if (!waitsHere && !waitsElsewhere) {
      // Still answerable (GET says active), but no agent waits to hear "cancelled": say so.
      return (await this.answerable(bundle))
        ? failure('not_active', NO_LIVE_WAIT)
        : failure('not_active');
    }
    // Read, not yet written: a race test removes the person here.
    const paused = pausePoint('cancel.before_write');
    if (paused) await paused;
    const cancelled = await this.deps.sessions.write(bundle.sessionId, async (write) => {
      // A person removed from the workspace since the read above decides nothing there.
      if (!(await canSeeSession(write.tx, caller.principal, bundle.sessionId))) return 'gone';
      const updated = await cancelBundleRows(write.tx, pendingId, responder);
      write.updated(...updated);
      // Told no answer will come, the agent works on; the session waits only on a question still open.
      if (updated.length > 0)
        write.waitEnded(await endWaitWhenNoneOpen(write.tx, bundle.sessionId));
      return updated.length > 0;
    });
    if (cancelled === 'gone') return NOT_FOUND;
    if (!cancelled) return failure('not_active');
    this.deps.waiters.end(pendingId, 'cancelled');
    // Anyone else waiting on it here reads it closed at once.
    this.deps.decisions.ended(pendingId);
    // The replica holding the wait ends it when it hears of the cancel (`deliverAnnounced`).
    if (waitsElsewhere) await this.deps.replicas?.announce(pendingId);
    return { ok: true };
  }

  /** Whether a person may still answer it: a row pending, and its rows still current. */
  private async answerable(bundle: Bundle): Promise<boolean> {
    if (!bundle.rows.some((row) => row.status === 'pending')) return false;
    return rowsStillCurrent(
      this.deps.store,
      bundle.rows.map((row) => row.id),
    );
  }

  /** Several replicas: the bundle's live wait may run on another live replica. */
  private async waitsElsewhere(bundle: Bundle): Promise<boolean> {
    const { replicas } = this.deps;
    const { askedOn } = bundle;
    if (!replicas || askedOn === undefined || askedOn === replicas.id) return false;
    if (bundle.rows.some((row) => row.detached)) return false;
    return (await replicas.owners(bundle.sessionId, askedOn)).askedOnLive;
  }

  /** The agent's live wait ended (turn over, agent gone): bundles stay answerable, detached. */
  async detachSession(sessionId: string): Promise<MessageRecord[]> {
    this.deps.waiters.endSession(sessionId, 'detached');
    return this.detachRows(sessionId);
  }

  /**
   * Fencing (issue 16): another replica took the session over while this one
   * did not run. Its waits here end and write nothing: that replica's
   * recovery already made the bundles detached and answerable there.
   */
  fenceSession(sessionId: string): void {
    this.deps.waiters.endSession(sessionId, 'fenced');
  }

  /**
   * The session ended: its current bundles expire and can no longer be
   * answered; its live waits end, and so do the waits of `awaitDecision` on them.
   * `expiredBy` is the session's failure, kept on the rows as why they ended.
   */
  async expireSession(sessionId: string, expiredBy: SessionFailureCode): Promise<MessageRecord[]> {
    this.deps.waiters.endSession(sessionId, 'cancelled');
    const expired = await this.deps.sessions.write(sessionId, async (write) => {
      const updated = await expireSessionRows(write.tx, sessionId, expiredBy);
      write.updated(...updated);
      return updated;
    });
    const pendingIds = new Set(expired.map((row) => row.metadata.pending_id));
    for (const pendingId of pendingIds) {
      if (typeof pendingId === 'string') this.deps.decisions.ended(pendingId);
    }
    return expired;
  }

  /**
   * In a deletion's transaction, before the session's rows go with it: reads
   * its active bundles, and returns what ends their waits (the agent's live
   * wait, `awaitDecision`'s) once the deletion committed. Nothing ends or
   * expires before: a delete the storage refuses leaves its questions open.
   */
  async deleting(tx: RepoContext, sessionId: string): Promise<() => void> {
    const pendingIds = await pendingIdsOfSession(tx, sessionId);
    return () => {
      this.deps.waiters.endSession(sessionId, 'cancelled');
      for (const pendingId of pendingIds) this.deps.decisions.ended(pendingId);
    };
  }

  /**
   * A newer turn became the session's current one (a message admitted): the
   * waits here on its older open bundles end now (`superseded-waits.ts`).
   * Never throws.
   */
  turnStarted(sessionId: string): Promise<void> {
    return this.endSuperseded([sessionId]);
  }

  /**
   * Several replicas: a newer turn another replica started ends the waits
   * here on the bundles it superseded. Its session's write wakes this
   * replica (a hint: `turnStarted` reads the store); the poll looks at every
   * session waited on here, for a wake that was lost.
   */
  supersededWakes(): WakeSubscriber {
    const here = this.deps.replicas?.id;
    // One look at a time: a slow store makes polls overlap, and each would take connections
    // from requests.
    let looking = false;
    return {
      kinds: ['session'],
      wake: ({ topic, origin }) => {
        // This replica's own new turns call `turnStarted` themselves.
        if (topic.kind !== 'session' || origin === here) return;
        if (!this.waitsOn(topic.sessionId)) return;
        void this.turnStarted(topic.sessionId);
      },
      resync: async () => {
        if (looking) return;
        looking = true;
        try {
          await this.endSuperseded(sessionsWaitedOn(this.deps));
        } finally {
          looking = false;
        }
      },
    };
  }

  private async endSuperseded(sessionIds: readonly string[]): Promise<void> {
    if (this.closing.signal.aborted) return;
    await this.track(endSupersededWaits(this.deps, sessionIds, this.closing.signal));
  }

  /** Whether a wait here may be on one of the session's bundles. */
  private waitsOn(sessionId: string): boolean {
    return (
      this.deps.waiters.pendingIdsOf(sessionId).length > 0 ||
      this.deps.decisions.listenedIn(sessionId).length > 0
    );
  }

  /** Resolves after `ms`, or at once when `signal` aborts. */
  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.deps.timers.setTimeout(done, ms);
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }

  private async detachRows(sessionId: string): Promise<MessageRecord[]> {
    return this.deps.sessions.write(sessionId, async (write) => {
      const updated = await detachSessionRows(write.tx, sessionId);
      write.updated(...updated);
      return updated;
    });
  }

  private async detachBundle(sessionId: string, pendingId: string): Promise<void> {
    await this.deps.sessions.write(sessionId, async (write) => {
      // Read again under the session's lock: a wait may have attached it since.
      if (this.heldAttached(pendingId)) return;
      write.updated(...(await detachBundleRows(write.tx, pendingId)));
    });
  }

  private async visibleBundle(
    principal: Principal,
    pendingId: string,
  ): Promise<Bundle | undefined> {
    const { rows, visible } = await bundleForPrincipal(this.deps.store, principal, pendingId);
    if (!visible) return undefined;
    const read = readBundle(pendingId, rows);
    return read.ok ? read.bundle : undefined;
  }
}
