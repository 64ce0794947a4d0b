/**
 * Consent, action and form requests across replicas (issue 16, PostgreSQL).
 * A request belongs to the replica whose registry holds it (its owner, where
 * the agent runs). The owner mirrors each view it publishes in the store;
 * any replica lists the live requests of live owners, and an answer given on
 * a replica that is not the owner is left in the store for the owner, which
 * applies it through its registry exactly as a local respond would, writes
 * the outcome on the row and wakes the responder back.
 *
 * A view the owner could not mirror is written again at its next poll, so a
 * request that never changes again is not hidden from the others for good.
 *
 * Bounds: the responder waits `FORWARDED_ANSWER_WAIT_MS` for the outcome,
 * reading it at every wake about the request and every
 * `FORWARDED_ANSWER_RECHECK_MS`; then it takes the answer back (the owner
 * never took it, so nothing changed) and answers 503. An answer whose wake
 * was lost is applied by the owner's poll. The owner takes an answer in the
 * store before it applies it, so it is applied at most once; an answer
 * taken but never confirmed (the owner died applying it) is a 500 after a
 * second `FORWARDED_ANSWER_WAIT_MS`, since it may have reached the agent; an
 * outcome the owner could not write is written again at its next pass.
 */
import type { WakeBus, WakeSubscriber } from '../cluster/index.js';
import type { Logger } from '../observability/index.js';
import {
  dropForwardedAnswer,
  forgetUserInputs,
  forwardedAnswerState,
  forwardUserInputAnswer,
  mirroredAwaitingKinds,
  mirroredUserInput,
  mirroredUserInputs,
  mirrorUserInput,
  pendingForwardedAnswers,
  pruneForwardedAnswers,
  pruneUserInputMirror,
  settleForwardedAnswer,
  takeForwardedAnswer,
  timestampAtMs,
  waitingUserInputsElsewhere,
  withdrawForwardedAnswer,
  type ForwardedAnswer,
  type RepoContext,
  type Store,
} from '../store/index.js';
import type { Timers } from '../support/index.js';
import {
  FORWARDED_ANSWER_KEEP_MS,
  FORWARDED_ANSWER_RECHECK_MS,
  FORWARDED_ANSWER_WAIT_MS,
} from '../tunables.js';
import {
  mostBlocking,
  type HumanResponse,
  type UserInputRegistry,
  type UserInputRespondResult,
  type UserInputView,
} from '../user-input/index.js';
import { failure, type Failure, type Responder } from '../wire/index.js';

/** What the owner's registry said of a forwarded answer, or why there is no word from it. */
export type ForwardedRespondResult =
  | { ok: true; applied: UserInputRespondResult }
  | Failure<'not_found' | 'temporarily_unavailable' | 'internal'>;

/** The other replicas' requests, as `respondToUserInput` and `visibleUserInputs` see them. */
export interface UserInputsElsewhere {
  /** Live requests of other live replicas, oldest first. */
  list(): Promise<UserInputView[]>;
  /** A request another live replica holds (settled ones it still remembers too), and which. */
  find(requestId: string): Promise<{ view: UserInputView; owner: string } | undefined>;
  /** Leaves the answer for `owner` and waits, within a bound, for what its registry said. */
  forward(
    owner: string,
    requestId: string,
    response: HumanResponse,
    responder: Responder,
  ): Promise<ForwardedRespondResult>;
}

export interface UserInputReplicasDeps {
  readonly store: Store;
  readonly bus: WakeBus;
  readonly registry: () => UserInputRegistry | undefined;
  /** A replica is live while its last heartbeat is younger than this. */
  readonly leaseMs: number;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly waitMs?: number;
  readonly recheckMs?: number;
  /** Before applying an answer: a session lost while this replica did not run is fenced first. */
  readonly leases?: { confirm(sessionId: string): Promise<boolean> };
}

export interface UserInputReplicas {
  readonly elsewhere: UserInputsElsewhere;
  /** The publisher's hook: keeps the view the registry just published. */
  readonly mirror: (view: UserInputView) => Promise<void>;
  /** The owner's side: applies answers left for it, at their wake and at every poll. */
  readonly wakes: WakeSubscriber;
  /** The requests other running replicas wait on a person for (what notifications owe). */
  readonly waitingElsewhere: () => Promise<UserInputView[]>;
  /** What the session waits on in other live replicas' registries, read in `tx`. */
  readonly pendingElsewhere: (
    tx: RepoContext,
    sessionId: string,
  ) => Promise<'consent' | 'form' | 'action' | null>;
}

/** Resolves at the next wake about `requestId` (or one since the last), or after `ms`. */
function requestWakes(bus: WakeBus, timers: Timers, requestId: string) {
  let woken = false;
  let notify: (() => void) | undefined;
  const unsubscribe = bus.subscribe({
    kinds: ['registry'],
    wake({ topic }) {
      if (topic.kind !== 'registry' || topic.requestId !== requestId) return;
      woken = true;
      notify?.();
    },
    resync: () => undefined,
  });
  return {
    next(ms: number): Promise<void> {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          timer.cancel();
          notify = undefined;
          woken = false;
          resolve();
        };
        const timer = timers.setTimeout(done, ms);
        notify = done;
      });
    },
    close: unsubscribe,
  };
}

export function userInputReplicas(deps: UserInputReplicasDeps): UserInputReplicas {
  const { store, bus, timers, logger } = deps;
  const me = bus.replicaId;
  const waitMs = deps.waitMs ?? FORWARDED_ANSWER_WAIT_MS;
  const recheckMs = deps.recheckMs ?? FORWARDED_ANSWER_RECHECK_MS;
  const heartbeatAfter = () => timestampAtMs(store.clock.nowMs() - deps.leaseMs);
  const unavailable = failure(
    'temporarily_unavailable',
    'the server holding this request did not answer in time; nothing was recorded',
  );

  /** Requests whose last view could not be mirrored: the poll writes their latest. */
  const unmirrored = new Set<string>();

  async function mirror(view: UserInputView): Promise<void> {
    try {
      await mirrorUserInput(store, { replicaId: me, view });
      unmirrored.delete(view.id);
    } catch (error) {
      // This replica still answers it; the others see it once the poll mirrors it.
      unmirrored.add(view.id);
      logger.warn({ err: error, request_id: view.id }, 'a request could not be mirrored');
    }
  }

  /** Mirrors again what failed: a request that never changes again would stay hidden elsewhere. */
  async function mirrorUnmirrored(registry: UserInputRegistry): Promise<void> {
    for (const id of [...unmirrored]) {
      const view = registry.get(id);
      if (view) await mirror(view);
      else unmirrored.delete(id);
    }
  }

  async function apply(registry: UserInputRegistry, answer: ForwardedAnswer): Promise<void> {
    const sessionId = registry.get(answer.requestId)?.session_id;
    // Fenced, the registry forgot the request: the answer hears not_found, as on its new holder.
    if (sessionId !== undefined) await deps.leases?.confirm(sessionId);
    if (!(await takeForwardedAnswer(store, answer.id))) return;
    let outcome: UserInputRespondResult | { ok: false; code: 'internal' };
    try {
      // The responder's replica checked the person and their sight of the session.
      outcome = await registry.respond(
        answer.requestId,
        answer.answer as HumanResponse,
        answer.responder,
      );
    } catch (error) {
      logger.error({ err: error, request_id: answer.requestId }, 'a forwarded answer failed');
      outcome = { ok: false, code: 'internal' };
    }
    // The responder's next read of the mirror (a link's page, a list) shows the answer.
    if (outcome.ok) await mirror(outcome.request);
    await settle(answer.id, answer.requestId, outcome);
  }

  /**
   * Applied answers whose outcome could not be written: each pass writes them
   * again, so the responder, still waiting, hears what the registry said
   * rather than that the answer may not have been recorded.
   */
  const unsettled = new Map<string, { requestId: string; outcome: unknown }>();

  async function settle(id: string, requestId: string, outcome: unknown): Promise<void> {
    try {
      await store.transaction(async (tx) => {
        await settleForwardedAnswer(tx, id, outcome);
        // With its commit: a responder that missed it reads the outcome at its next poll.
        await bus.send(tx, { kind: 'registry', requestId });
      });
      unsettled.delete(id);
    } catch (error) {
      unsettled.set(id, { requestId, outcome });
      logger.warn(
        { err: error, request_id: requestId },
        'a forwarded answer’s outcome not written',
      );
    }
  }

  // One pass at a time: a pass reads only what the last one left.
  let running: Promise<void> | undefined;
  let again = false;
  /** Whether a wake came during the pass (read through a call: the pass awaits). */
  const rerun = () => again;
  function applyPending(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    const pass = async () => {
      do {
        again = false;
        for (const [id, left] of [...unsettled]) await settle(id, left.requestId, left.outcome);
        const registry = deps.registry();
        if (!registry) return;
        for (const answer of await pendingForwardedAnswers(store, me))
          await apply(registry, answer);
      } while (rerun());
    };
    running = pass().finally(() => {
      running = undefined;
    });
    return running;
  }

  const wakes: WakeSubscriber = {
    kinds: ['registry'],
    wake({ topic, origin }) {
      if (topic.kind !== 'registry' || origin === me) return;
      if (!deps.registry()?.get(topic.requestId)) return;
      applyPending().catch((error: unknown) => {
        logger.warn({ err: error }, 'forwarded answers not applied; the next poll retries');
      });
    },
    async resync() {
      await applyPending();
      const registry = deps.registry();
      if (registry) await mirrorUnmirrored(registry);
      if (registry) await forgetUserInputs(store, me, (id) => registry.get(id) !== undefined);
      await pruneUserInputMirror(store);
      await pruneForwardedAnswers(
        store,
        timestampAtMs(store.clock.nowMs() - FORWARDED_ANSWER_KEEP_MS),
      );
    },
  };

  async function outcomeOf(id: string, requestId: string) {
    const waits = requestWakes(bus, timers, requestId);
    try {
      const deadline = store.clock.nowMs() + waitMs;
      let taken = false;
      for (;;) {
        const state = await forwardedAnswerState(store, id);
        if (state.state === 'settled') {
          await dropForwardedAnswer(store, id);
          return state;
        }
        if (state.state === 'gone') return unavailable;
        taken ||= state.state === 'taken';
        const remainingMs = deadline - store.clock.nowMs();
        // Untaken, it can be taken back: past the bound, or when the owner is gone.
        const ownerGone =
          !taken &&
          !(await mirroredUserInput(store, {
            id: requestId,
            exclude: me,
            heartbeatAfter: heartbeatAfter(),
          }));
        if (
          !taken &&
          (remainingMs <= 0 || ownerGone) &&
          (await withdrawForwardedAnswer(store, id))
        ) {
          return ownerGone ? failure('not_found', 'request not found') : unavailable;
        }
        // Taken, the owner is between applying and writing: a moment more, within a second
        // bound. Past it the answer may have been applied: not "nothing recorded", unconfirmed.
        if (remainingMs <= -waitMs) {
          logger.error({ request_id: requestId }, 'a forwarded answer was taken but not confirmed');
          return failure('internal');
        }
        await waits.next(
          Math.max(1, Math.min(recheckMs, remainingMs > 0 ? remainingMs : recheckMs)),
        );
      }
    } finally {
      waits.close();
    }
  }

  const elsewhere: UserInputsElsewhere = {
    list: () => mirroredUserInputs(store, { exclude: me, heartbeatAfter: heartbeatAfter() }),
    find: (requestId) =>
      mirroredUserInput(store, { id: requestId, exclude: me, heartbeatAfter: heartbeatAfter() }),
    async forward(owner, requestId, response, responder) {
      const id = store.ids.next();
      await store.transaction(async (tx) => {
        await forwardUserInputAnswer(tx, {
          id,
          requestId,
          answer: response,
          responder,
          owner,
          origin: me,
        });
        // With its commit, so the owner never looks before the row is there.
        await bus.send(tx, { kind: 'registry', requestId });
      });
      const result = await outcomeOf(id, requestId);
      if (!('state' in result)) return result;
      const applied = result.outcome as UserInputRespondResult | { ok: false; code: 'internal' };
      return !applied.ok && applied.code === 'internal'
        ? failure('internal')
        : { ok: true, applied };
    },
  };

  return {
    elsewhere,
    wakes,
    mirror,
    waitingElsewhere: () => waitingUserInputsElsewhere(store, me),
    pendingElsewhere: async (tx, sessionId) =>
      mostBlocking(
        await mirroredAwaitingKinds(tx, {
          sessionId,
          exclude: me,
          heartbeatAfter: heartbeatAfter(),
        }),
      ),
  };
}
