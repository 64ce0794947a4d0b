/**
 * The browser's read model of user-input requests (DESIGN §7): the consent
 * and action requests the server's registry reported, and what became of
 * them. Framework-free; React reads it through `useSyncExternalStore`.
 *
 * The registry owns these requests in memory; this model only orders what it
 * said. Every view carries the request's own `revision` (1, 2, 3 …), and:
 * - a view replaces the known one only with a strictly higher revision,
 *   whether it came from an event, the snapshot or a respond result, so an
 *   event that raced the snapshot wins, a repeated event changes nothing, and
 *   a stale one never brings a settled request back;
 * - an event for a request not known yet is held as that request's entry, so
 *   the snapshot that follows can neither lose it nor apply it twice;
 * - the snapshot lists live requests only: one learned under an earlier
 *   subscription and missing from the current one's snapshot settled while
 *   nobody listened, so it is retired (it leaves every list) until a newer
 *   revision says otherwise;
 * - a snapshot read under an older subscription is dropped; the newer
 *   subscription fetches its own;
 * - the person's workspaces changed (`accessChanged`, a new generation as a
 *   subscription is): a request still open that the next snapshot does not
 *   list is one they can no longer see, so it is forgotten rather than
 *   retired (a retired one would still show as over where it was seen).
 * Settled entries stay (at most `MAX_SETTLED`) so cards can show the outcome.
 */
import type { UnlistedBundles } from './read-model.js';
import type {
  ActionDecision,
  ConsentOption,
  Responder,
  UserInputAnswer,
  UserInputView,
} from './types.js';

export const MAX_SETTLED = 500;

export interface UserInputEntry {
  view: UserInputView;
  /** The subscription generation that last confirmed this request. */
  generation: number;
  /** Known to be over without knowing how (settled while away, or gone from the server). */
  retired: boolean;
  /**
   * This tab's answer met the request already decided (a 409): its card says
   * who decided first. Kept here, not in the card, since a settled card is
   * mounted afresh in another list.
   */
  lostRace?: true;
  /** The answer this tab sent when it met the 409: its own earlier attempt may be what landed. */
  lostWith?: UserInputAnswer;
}

export interface UserInputsState {
  /** Bumped on each (re)subscription and access change. */
  generation: number;
  /** What a snapshot of this generation does with an open request it does not list. */
  unlisted: UnlistedBundles;
  requests: Record<string, UserInputEntry>;
  /** Settled or retired request IDs, oldest first, for the bound. */
  finished: string[];
  /**
   * The request IDs the page's first applied read of the list named;
   * undefined until it is applied. A request not in it arrived while the page
   * was open.
   */
  firstRead: Readonly<Record<string, true>> | undefined;
}

export function initialUserInputs(): UserInputsState {
  return { generation: 0, unlisted: 'retire', requests: {}, finished: [], firstRead: undefined };
}

function isOver(entry: UserInputEntry): boolean {
  return entry.retired || entry.view.status === 'settled';
}

function put(state: UserInputsState, entry: UserInputEntry): UserInputsState {
  const id = entry.view.id;
  const before = state.requests[id];
  let requests = { ...state.requests, [id]: entry };
  let finished = state.finished;
  if (isOver(entry) && !(before && isOver(before))) {
    finished = [...finished, id];
    if (finished.length > MAX_SETTLED) {
      const dropped = new Set(finished.slice(0, finished.length - MAX_SETTLED));
      finished = finished.slice(-MAX_SETTLED);
      requests = Object.fromEntries(Object.entries(requests).filter(([key]) => !dropped.has(key)));
    }
  } else if (!isOver(entry) && before && isOver(before)) {
    finished = finished.filter((other) => other !== id);
  }
  return { ...state, requests, finished };
}

/** Drops an open request (so never in `finished`) from the model altogether. */
function forget(state: UserInputsState, entry: UserInputEntry): UserInputsState {
  const requests = Object.fromEntries(
    Object.entries(state.requests).filter(([id]) => id !== entry.view.id),
  );
  return { ...state, requests };
}

/** Pure transitions; each returns the same object when nothing changed. */
export const userInputTransitions = {
  subscribed(state: UserInputsState): UserInputsState {
    return { ...state, generation: state.generation + 1, unlisted: 'retire' };
  },

  /** The person's workspaces changed: what the next snapshot lists is what they see. */
  accessChanged(state: UserInputsState): UserInputsState {
    return { ...state, generation: state.generation + 1, unlisted: 'forget' };
  },

  /** A view from an event or a respond result: applied only when newer. */
  view(state: UserInputsState, view: UserInputView): UserInputsState {
    const known = state.requests[view.id];
    if (known && view.revision <= known.view.revision) return state;
    const lost = known?.lostRace
      ? { lostRace: known.lostRace, ...(known.lostWith ? { lostWith: known.lostWith } : {}) }
      : {};
    return put(state, { view, generation: state.generation, retired: false, ...lost });
  },

  /**
   * This tab's answer (`sent`) met the request already decided: someone, a
   * deadline, or this tab's own earlier attempt whose reply was lost.
   */
  lostRace(state: UserInputsState, requestId: string, sent?: UserInputAnswer): UserInputsState {
    const known = state.requests[requestId];
    if (!known || known.lostRace) return state;
    const entry: UserInputEntry = { ...known, lostRace: true, ...(sent ? { lostWith: sent } : {}) };
    return { ...state, requests: { ...state.requests, [requestId]: entry } };
  },

  /**
   * `GET /api/v1/user-inputs`, requested under subscription `generation`
   * (taken before the request was sent). An open request learned before and
   * not listed goes as the generation's `unlisted` says.
   */
  snapshot(
    state: UserInputsState,
    views: readonly UserInputView[],
    generation: number,
  ): UserInputsState {
    if (generation !== state.generation) return state;
    let result = state;
    const listed = new Set<string>();
    for (const view of views) {
      listed.add(view.id);
      const known = result.requests[view.id];
      if (known && view.revision < known.view.revision) {
        // An event already told us more; the snapshot only confirms the request exists.
        if (known.generation !== generation) {
          result = put(result, { ...known, generation });
        }
        continue;
      }
      if (
        known?.generation === generation &&
        !known.retired &&
        view.revision === known.view.revision
      ) {
        continue;
      }
      result = put(result, { view, generation, retired: false });
    }
    for (const entry of Object.values(result.requests)) {
      if (listed.has(entry.view.id) || isOver(entry) || entry.generation >= generation) continue;
      result =
        state.unlisted === 'retire'
          ? put(result, { ...entry, retired: true })
          : forget(result, entry);
    }
    if (result.firstRead === undefined) {
      result = { ...result, firstRead: Object.fromEntries([...listed].map((id) => [id, true])) };
    }
    return result;
  },

  /** The session was deleted: its requests still open leave every list. */
  sessionDeleted(state: UserInputsState, sessionId: string): UserInputsState {
    let result = state;
    for (const entry of Object.values(state.requests)) {
      if (entry.view.session_id !== sessionId || isOver(entry)) continue;
      result = put(result, { ...entry, retired: true });
    }
    return result;
  },

  /** The server no longer knows the request (404 on respond): it leaves every list. */
  retire(state: UserInputsState, requestId: string): UserInputsState {
    const known = state.requests[requestId];
    if (!known || isOver(known)) return state;
    return put(state, { ...known, retired: true });
  },
};

// ---------------------------------------------------------------- selectors

/** Waiting for a person: awaiting and not retired. */
export function isWaiting(entry: UserInputEntry): boolean {
  return !entry.retired && entry.view.status === 'awaiting';
}

function newestFirst(a: UserInputEntry, b: UserInputEntry): number {
  return a.view.created_at === b.view.created_at
    ? a.view.id < b.view.id
      ? 1
      : -1
    : a.view.created_at < b.view.created_at
      ? 1
      : -1;
}

/** Every request that needs a person now, newest first. */
export function waitingRequests(state: UserInputsState): UserInputEntry[] {
  return Object.values(state.requests).filter(isWaiting).sort(newestFirst);
}

/** A session's requests, oldest first, settled ones included. */
export function requestsOfSession(state: UserInputsState, sessionId: string): UserInputEntry[] {
  return Object.values(state.requests)
    .filter((entry) => entry.view.session_id === sessionId)
    .sort((a, b) => newestFirst(b, a));
}

/** The task list's markers: a form to fill in shows as something to do (an action). */
export type WaitingKind = 'consent' | 'action';

/** What each task waits on a person for; consent first, since it blocks the agent. */
export function waitingByTask(state: UserInputsState): Record<string, WaitingKind> {
  const result: Record<string, WaitingKind> = {};
  for (const entry of Object.values(state.requests)) {
    if (!isWaiting(entry)) continue;
    const task = entry.view.task_id;
    if (result[task] !== 'consent')
      result[task] = entry.view.kind === 'consent' ? 'consent' : 'action';
  }
  return result;
}

// ---------------------------------------------------------------- outcomes

/** What a card shows about a request, decided from its view alone. */
export type UserInputOutcome =
  | { kind: 'waiting' }
  /** A person's choice, or an earlier "always" applied without asking (`remembered`). */
  | {
      kind: 'chosen';
      option: ConsentOption;
      allowed: boolean;
      remembered: boolean;
      /** A Reject's reason in the person's words; it follows the agent's turn. */
      reason: string | null;
    }
  /** Nobody answered in time; the agent was refused. */
  | { kind: 'timed_out' }
  /** The agent's turn or call ended first, or the session went away. */
  | { kind: 'swept' }
  /** The agent that asked stopped (its process exited) before anyone answered. */
  | { kind: 'agent_exited' }
  /** The server holding it stopped or restarted before anyone answered. */
  | { kind: 'server_stopped' }
  /** A newer request for the same tool call replaced it. */
  | { kind: 'superseded' }
  /** Done or Skip was pressed; the follow-up waits for the agent's turn to end. */
  | { kind: 'follow_up_pending'; decision: ActionDecision; text: string; queued: boolean }
  | { kind: 'follow_up_sent'; decision: ActionDecision; text: string }
  /** Removed from the queue, or the session could not take it. */
  | { kind: 'follow_up_dropped'; decision: ActionDecision; text: string }
  /** Over, but the browser did not see how. */
  | { kind: 'closed' };

export function outcomeOf(entry: UserInputEntry): UserInputOutcome {
  const { view } = entry;
  if (view.status === 'awaiting') return entry.retired ? { kind: 'closed' } : { kind: 'waiting' };
  if (view.kind === 'action' && view.decision !== null) {
    const followUp = { decision: view.decision, text: view.follow_up_text ?? '' };
    if (view.status !== 'settled') {
      return { kind: 'follow_up_pending', ...followUp, queued: view.queued };
    }
    if (view.settled_reason === 'dispatched') return { kind: 'follow_up_sent', ...followUp };
    return { kind: 'follow_up_dropped', ...followUp };
  }
  if (view.kind === 'consent' && view.selected_option_id !== null) {
    const option = view.options.find(
      (candidate) => candidate.option_id === view.selected_option_id,
    );
    if (option) {
      return {
        kind: 'chosen',
        option,
        allowed: option.kind === 'allow_once' || option.kind === 'allow_always',
        remembered: view.remembered,
        reason: view.reason,
      };
    }
  }
  switch (view.settled_reason) {
    case 'timed_out':
      return { kind: 'timed_out' };
    case 'swept':
      return { kind: 'swept' };
    case 'agent_exited':
      return { kind: 'agent_exited' };
    case 'server_stopped':
      return { kind: 'server_stopped' };
    case 'superseded':
      return { kind: 'superseded' };
    default:
      return { kind: 'closed' };
  }
}

/** A countdown as `m:ss`, or `h:mm:ss` from an hour up; never negative. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0
    ? `${String(hours)}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${String(minutes)}:${seconds}`;
}

/** Only web links open from a card; anything else (javascript:, data:, file:) is shown as text. */
export function safeHttpUrl(url: string | null): string | undefined {
  if (url === null) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

type Listener = () => void;

/** Holds the state and notifies subscribers; the only mutable part of this model. */
export class UserInputModel {
  private state: UserInputsState = initialUserInputs();
  private readonly listeners = new Set<Listener>();

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getState = (): UserInputsState => this.state;

  update(change: (state: UserInputsState) => UserInputsState): void {
    const next = change(this.state);
    if (next === this.state) return;
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Who decided first, when this tab's answer met the request already decided;
 * `null` when it did not, or when the decision is the very answer this tab
 * sent, made by this person: an earlier attempt of this tab landed though
 * its reply was lost, and the card must not call it someone else's.
 */
export function decidedFirst(entry: UserInputEntry, me: string | undefined): Responder | null {
  const { view, lostWith } = entry;
  if (!entry.lostRace || view.responded_by === null) return null;
  const mine = me !== undefined && view.responded_by.user_id === me;
  return mine && lostWith !== undefined && decidedAs(view, lostWith) ? null : view.responded_by;
}

/** Whether `view` settled with the choice `answer` makes (its option, or its decision). */
function decidedAs(view: UserInputView, answer: UserInputAnswer): boolean {
  if ('option_id' in answer)
    return view.kind === 'consent' && view.selected_option_id === answer.option_id;
  return view.kind !== 'consent' && view.decision === answer.decision;
}
