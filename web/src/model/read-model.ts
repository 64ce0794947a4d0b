/**
 * The browser's realtime read model: tasks, sessions, transcripts and
 * clarification bundles as last reported by the server. Framework-free; React
 * reads it through `useSyncExternalStore` (`subscribe` + `getState`).
 *
 * It never decides what is pending on its own authority; it only orders what
 * the server said:
 * - a row (message or question) is replaced only by a strictly newer
 *   `updated_at` (RFC 3339, nine fractional digits, so strings compare);
 * - a session's `pending_action` only by a strictly higher `revision` (an
 *   event's, or a session snapshot's), and its `state` only by a state of a
 *   strictly higher revision than the state we hold (events of one change
 *   share a revision, message events first, so a message event must not shut
 *   out the state change that came with it);
 * - snapshot rows carry no version and never override a row an event reported,
 *   so a snapshot read before an answer cannot resurrect the answered question;
 * - a bundle learned before the current subscription and missing from its
 *   pending snapshot was retired while we were away and stays hidden until a
 *   newer version of its rows says otherwise; a pending snapshot requested
 *   under an earlier subscription is dropped, so it cannot retire that way a
 *   bundle it predates (and a later list, unversioned, never revives one);
 * - the person's workspaces changed (`accessChanged`, which starts a new
 *   generation as a subscription does): a bundle still waiting that the next
 *   pending snapshot does not list is one they can no longer see, so it is
 *   forgotten, not retired (nothing says how it ended for anyone else, and a
 *   list read once they are added back brings it back as it is).
 */
import {
  CLARIFICATION_TYPE,
  type ClarionEvent,
  type MessageView,
  type PendingAction,
  type PendingBundle,
  type QuestionOption,
  type RowStatus,
  type SessionState,
  type SessionView,
  type TaskView,
} from './types.js';

/** The lowest possible row version: what a snapshot row without a version counts as. */
const NO_VERSION = '';

export interface BundleQuestion {
  question_id: string;
  title: string;
  prompt: string;
  multi_select: boolean;
  options: QuestionOption[];
  status: RowStatus;
  index: number;
  /** `updated_at` of the row this came from; `''` for snapshot data. */
  version: string;
}

export interface BundleState {
  pending_id: string;
  task_id: string;
  session_id: string;
  turn_id: string | undefined;
  created_at: string;
  context: string;
  /** No agent waits on it now; an agent that waits again (asks again, or waits for it) attaches it. */
  detached: boolean;
  /** `updated_at` of the row that last said whether it is detached; absent when only a list said. */
  detached_version?: string;
  total: number;
  /** By question ID: a Map, since the agent chose the IDs (`question-answers.ts`). */
  questions: ReadonlyMap<string, BundleQuestion>;
  /** The subscription generation that last confirmed this bundle. */
  generation: number;
}

export interface SessionEntry {
  id: string;
  task_id: string;
  agent_profile: string | undefined;
  state: SessionState | undefined;
  /** Highest revision seen (it orders `pending_action`); -1 when unknown. */
  revision: number;
  /** The revision `state` was read at; -1 when unknown. */
  state_revision: number;
  pending_action: PendingAction | undefined;
  latest_turn: { turn_id: string; created_at: string } | undefined;
  created_at: string;
  messages: Record<string, MessageView>;
  messages_loaded: boolean;
}

/**
 * A transcript read from its end: every row from `start` to the newest was
 * read under the current subscription, or came as an event after it.
 */
export interface TranscriptWindow {
  /** The oldest row read whole from there on; `null` when read from the first row. */
  start: { created_at: string; id: string } | null;
  /** The cursor of the page before `start`; `null` when there is none. */
  earlier: string | null;
}

/** `no_workspace`: the server closed the socket because the person is in no workspace (4403). */
export type ConnectionState = 'connecting' | 'live' | 'offline' | 'no_workspace';

export interface ModelState {
  connection: ConnectionState;
  /**
   * Bumped on each (re)subscription and access change; bundles from older
   * generations need a snapshot's confirmation.
   */
  generation: number;
  /** What a snapshot of this generation does with a waiting bundle it does not list. */
  unlisted: UnlistedBundles;
  tasks: Record<string, TaskView>;
  /** A read of the task list has been applied: until then, no task listed is no task known. */
  tasksListed: boolean;
  sessions: Record<string, SessionEntry>;
  /**
   * The part of each open transcript read whole (`transcript-window.ts`),
   * absent until its first read. Apart from `sessions`: a session's first
   * read may find no row and come before its task's sessions are listed.
   */
  windows: Record<string, TranscriptWindow>;
  bundles: Record<string, BundleState>;
  /** Sessions the server says do not exist for this person (deleted, or never theirs). */
  missing: Record<string, true>;
  /**
   * What an event said was deleted: a snapshot read before it never brings it
   * back. A session's entry says how it went: alone, or with its task.
   */
  deleted: { sessions: Record<string, DeletionEvent['type']>; tasks: Record<string, true> };
  /**
   * The pending IDs the page's first applied read of the pending list named;
   * undefined until it is applied. A bundle not in it arrived while the page
   * was open: what the page has seen tells news, not the browser's clock.
   * While a read was cut, one a later read of the same subscription lists and
   * no event brought waited behind the cut, not news: it joins them.
   */
  firstRead: Readonly<Record<string, true>> | undefined;
  /**
   * The last applied pending snapshot stopped before the list's end (the
   * sync reads a bounded number of pages): more wait than the inbox lists.
   */
  pendingMore: boolean;
  /** The subscription generation the last applied pending snapshot was read under. */
  pendingReadGeneration: number | undefined;
}

/**
 * What a pending snapshot does with a waiting bundle of an earlier generation
 * it does not list: `retire` it after a (re)subscription (it ended while
 * nobody listened), `forget` it after an access change (the person can no
 * longer see it).
 */
export type UnlistedBundles = 'retire' | 'forget';

/** The events that say a session is gone: on its own, or with its task. */
export type DeletionEvent = Extract<ClarionEvent, { type: 'session.deleted' | 'task.deleted' }>;

export const TERMINAL_STATES: readonly SessionState[] = ['completed', 'failed', 'cancelled'];

export function isNewer(candidate: string, known: string): boolean {
  return candidate > known;
}

function emptySession(id: string, taskId: string): SessionEntry {
  return {
    id,
    task_id: taskId,
    agent_profile: undefined,
    state: undefined,
    revision: -1,
    state_revision: -1,
    pending_action: undefined,
    latest_turn: undefined,
    created_at: '',
    messages: {},
    messages_loaded: false,
  };
}

const ROW_STATUSES: ReadonlySet<string> = new Set([
  'pending',
  'answered',
  'rejected',
  'expired',
  'cancelled',
]);

function asString(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

/** The question a `clarification_request` row carries, or `undefined` when it is malformed. */
export function questionOfRow(message: MessageView):
  | {
      pendingId: string;
      question: BundleQuestion;
      total: number;
      context: string;
      detached: boolean;
    }
  | undefined {
  if (message.type !== CLARIFICATION_TYPE) return undefined;
  const meta = message.metadata;
  const pendingId = asString(meta.pending_id);
  const raw = meta.question;
  if (pendingId === '' || typeof raw !== 'object' || raw === null) return undefined;
  const question = raw as Record<string, unknown>;
  const options = Array.isArray(question.options)
    ? (question.options as unknown[]).flatMap((value): QuestionOption[] => {
        if (typeof value !== 'object' || value === null) return [];
        const option = value as Record<string, unknown>;
        const id = asString(option.option_id);
        return id === ''
          ? []
          : [
              {
                option_id: id,
                label: asString(option.label),
                description: asString(option.description),
              },
            ];
      })
    : [];
  const status = asString(meta.status, 'pending');
  const questionId = asString(meta.question_id, asString(question.id));
  if (questionId === '') return undefined;
  return {
    pendingId,
    total: typeof meta.question_total === 'number' ? meta.question_total : 1,
    context: asString(meta.context),
    detached: meta.agent_disconnected === true,
    question: {
      question_id: questionId,
      title: asString(question.title),
      prompt: asString(question.prompt, message.content),
      multi_select: question.multi_select === true,
      options,
      status: ROW_STATUSES.has(status) ? (status as RowStatus) : 'pending',
      index: typeof meta.question_index === 'number' ? meta.question_index : 0,
      version: message.updated_at,
    },
  };
}

/** Pure transitions of the model; each returns the same object when nothing changed. */
export const transitions = {
  connection(state: ModelState, connection: ConnectionState): ModelState {
    return state.connection === connection ? state : { ...state, connection };
  },

  /** The transcript read answered 404: nothing of this session can be shown or sent to. */
  sessionMissing(state: ModelState, sessionId: string): ModelState {
    if (state.missing[sessionId]) return state;
    return { ...state, missing: { ...state.missing, [sessionId]: true } };
  },

  subscribed(state: ModelState): ModelState {
    return { ...state, connection: 'live', generation: state.generation + 1, unlisted: 'retire' };
  },

  /** The person's workspaces changed: what the next pending snapshot lists is what they see. */
  accessChanged(state: ModelState): ModelState {
    return { ...state, generation: state.generation + 1, unlisted: 'forget' };
  },

  tasks(state: ModelState, tasks: readonly TaskView[]): ModelState {
    const next: Record<string, TaskView> = {};
    for (const task of tasks) {
      if (state.deleted.tasks[task.id]) continue;
      const known = state.tasks[task.id];
      next[task.id] = known && !isNewer(task.updated_at, known.updated_at) ? known : task;
    }
    return { ...state, tasks: next, tasksListed: true };
  },

  sessions(state: ModelState, sessions: readonly SessionView[]): ModelState {
    let result = state;
    for (const view of sessions) {
      if (state.deleted.sessions[view.id]) continue;
      const known = result.sessions[view.id] ?? emptySession(view.id, view.task_id);
      const newerState = view.revision > known.state_revision;
      // What we hold may predate a reconnect, and the events that would correct it are
      // older than this snapshot: the snapshot's own pending_action replaces it.
      const newer = view.revision > known.revision;
      const entry: SessionEntry = {
        ...known,
        agent_profile: view.agent_profile,
        created_at: view.created_at,
        ...(newerState ? { state: view.state, state_revision: view.revision } : {}),
        ...(newer ? { revision: view.revision, pending_action: view.pending_action } : {}),
      };
      result = { ...result, sessions: { ...result.sessions, [view.id]: entry } };
    }
    return result;
  },

  /**
   * A snapshot of every active bundle the caller can see, requested under
   * subscription `generation` (taken before the first page was asked for).
   * One that outlived its subscription is dropped: it may predate a bundle
   * learned since, and would retire it as missing. A waiting bundle learned
   * before and not listed goes as the generation's `unlisted` says.
   */
  pendingSnapshot(
    state: ModelState,
    bundles: readonly PendingBundle[],
    generation: number,
    complete = true,
  ): ModelState {
    if (generation !== state.generation) return state;
    const nextBundles: Record<string, BundleState> = { ...state.bundles };
    const seen = new Set<string>();
    const live = bundles.filter((bundle) => !state.deleted.sessions[bundle.session_id]);
    for (const bundle of live) {
      seen.add(bundle.pending_id);
      const known = nextBundles[bundle.pending_id];
      const questions = new Map(known?.questions);
      bundle.questions.forEach((question, index) => {
        // Snapshot rows carry no version: they only fill what no event has reported.
        if (questions.has(question.question_id)) return;
        questions.set(question.question_id, {
          question_id: question.question_id,
          title: question.title,
          prompt: question.prompt,
          multi_select: question.multi_select,
          options: question.options,
          status: question.status,
          index,
          version: NO_VERSION,
        });
      });
      nextBundles[bundle.pending_id] = {
        pending_id: bundle.pending_id,
        task_id: bundle.task_id,
        session_id: bundle.session_id,
        turn_id: bundle.turn_id,
        created_at: bundle.created_at,
        context: bundle.context,
        // As for its questions: a row this subscription heard of says it, the list only fills in.
        ...(known?.detached_version !== undefined && known.generation >= state.generation
          ? { detached: known.detached, detached_version: known.detached_version }
          : { detached: bundle.detached }),
        total: bundle.questions.length,
        questions,
        generation: state.generation,
      };
    }
    // Learned before this generation and not active now: retired while we were away,
    // or, after an access change, out of the person's sight.
    // A list cut short says nothing of what it did not reach: nothing is retired or forgotten.
    const forgotten = new Set<string>();
    for (const [id, bundle] of complete ? Object.entries(nextBundles) : []) {
      if (seen.has(id) || bundle.generation >= state.generation) continue;
      if (state.unlisted === 'retire') {
        nextBundles[id] = retireQuestions(bundle, 'expired', maxVersion(bundle));
      } else if ([...bundle.questions.values()].some((question) => question.status === 'pending')) {
        forgotten.add(id);
      }
    }
    let result: ModelState = {
      ...state,
      bundles: Object.fromEntries(Object.entries(nextBundles).filter(([id]) => !forgotten.has(id))),
      firstRead: firstReadAfter(state, live, generation),
      pendingMore: !complete,
      pendingReadGeneration: generation,
    };
    for (const bundle of live) {
      const session =
        result.sessions[bundle.session_id] ?? emptySession(bundle.session_id, bundle.task_id);
      // An active bundle's turn was current when the list was read: a turn this client
      // missed while away must not make the bundle look superseded.
      const latest =
        session.latest_turn && !isNewer(bundle.created_at, session.latest_turn.created_at)
          ? session.latest_turn
          : { turn_id: bundle.turn_id, created_at: bundle.created_at };
      if (result.sessions[bundle.session_id] === session && session.latest_turn === latest)
        continue;
      result = {
        ...result,
        sessions: { ...result.sessions, [bundle.session_id]: { ...session, latest_turn: latest } },
      };
    }
    return result;
  },

  /**
   * A page of a session's transcript, fetched after subscribing. A read that
   * succeeds takes back an earlier 404 (access given back), never a deletion.
   */
  messages(
    state: ModelState,
    sessionId: string,
    messages: readonly MessageView[],
    complete: boolean,
  ): ModelState {
    let result =
      state.missing[sessionId] && !state.deleted.sessions[sessionId]
        ? {
            ...state,
            missing: Object.fromEntries(
              Object.entries(state.missing).filter(([id]) => id !== sessionId),
            ),
          }
        : state;
    for (const message of messages) result = applyMessage(result, message);
    const session = result.sessions[sessionId];
    if (session && complete && !session.messages_loaded) {
      result = {
        ...result,
        sessions: { ...result.sessions, [sessionId]: { ...session, messages_loaded: true } },
      };
    }
    return result;
  },

  event(state: ModelState, event: ClarionEvent): ModelState {
    // Nothing of a deleted session is newer than its deletion.
    if (state.deleted.sessions[event.session_id]) return state;
    let result = state;
    const known =
      result.sessions[event.session_id] ?? emptySession(event.session_id, event.task_id);
    const newer = event.revision > known.revision;
    const newerState =
      event.type === 'session.state_changed' && event.revision > known.state_revision
        ? event.state
        : undefined;
    if (newer || newerState !== undefined) {
      result = {
        ...result,
        sessions: {
          ...result.sessions,
          [event.session_id]: {
            ...known,
            ...(newer ? { revision: event.revision, pending_action: event.pending_action } : {}),
            ...(newerState === undefined
              ? {}
              : { state: newerState, state_revision: event.revision }),
          },
        },
      };
    } else if (!result.sessions[event.session_id]) {
      result = { ...result, sessions: { ...result.sessions, [event.session_id]: known } };
    }
    if (event.type === 'message.added' || event.type === 'message.updated') {
      result = applyMessage(result, event.message);
    }
    return result;
  },

  /**
   * The session is gone (with its task, for `task.deleted`): it, its bundles
   * and, for a task, the task leave every view; an open transcript says it
   * was deleted, and how.
   */
  deleted(state: ModelState, event: DeletionEvent): ModelState {
    const { session_id: sessionId, task_id: taskId } = event;
    const withTask = event.type === 'task.deleted';
    return {
      ...state,
      tasks: withTask
        ? Object.fromEntries(Object.entries(state.tasks).filter(([id]) => id !== taskId))
        : state.tasks,
      sessions: Object.fromEntries(
        Object.entries(state.sessions).filter(([id]) => id !== sessionId),
      ),
      windows: Object.fromEntries(Object.entries(state.windows).filter(([id]) => id !== sessionId)),
      bundles: Object.fromEntries(
        Object.entries(state.bundles).filter(([, bundle]) => bundle.session_id !== sessionId),
      ),
      missing: { ...state.missing, [sessionId]: true },
      deleted: {
        sessions: { ...state.deleted.sessions, [sessionId]: event.type },
        tasks: withTask ? { ...state.deleted.tasks, [taskId]: true } : state.deleted.tasks,
      },
    };
  },

  /**
   * What this client learned from its own respond call: the bundle is settled
   * as of `version` (the response's `responded_at`, or the newest version we
   * know for a 409). Newer server rows still win, e.g. a restore to pending.
   */
  /**
   * A bundle this person can no longer see (its respond call answered 404):
   * dropped, not retired, since nothing says how it ended for anyone else.
   */
  forgetBundle(state: ModelState, pendingId: string): ModelState {
    if (!state.bundles[pendingId]) return state;
    const bundles = Object.fromEntries(
      Object.entries(state.bundles).filter(([id]) => id !== pendingId),
    );
    return { ...state, bundles };
  },

  retireBundle(
    state: ModelState,
    pendingId: string,
    status: RowStatus,
    version?: string,
  ): ModelState {
    const bundle = state.bundles[pendingId];
    if (!bundle) return state;
    const at =
      version !== undefined && isNewer(version, maxVersion(bundle)) ? version : maxVersion(bundle);
    return {
      ...state,
      bundles: { ...state.bundles, [pendingId]: retireQuestions(bundle, status, at) },
    };
  },
};

/**
 * `firstRead` once a pending snapshot of `generation` listing `listed` is
 * applied: the first read's IDs; and after a cut read of this same
 * subscription, the bundles this one lists that the page held no other way.
 * A bundle that came while the page listened came as an event first, so one
 * only a list brings waited behind the cut (its event may, rarely, be a
 * moment behind the list: it is then not told). After a reconnect nothing
 * tells a bundle hidden by the cut from one that came meanwhile: it is news.
 */
function firstReadAfter(
  state: ModelState,
  listed: readonly PendingBundle[],
  generation: number,
): Readonly<Record<string, true>> {
  if (state.firstRead === undefined) {
    return Object.fromEntries(listed.map((bundle) => [bundle.pending_id, true]));
  }
  if (!state.pendingMore || state.pendingReadGeneration !== generation) return state.firstRead;
  const unseen = listed.filter(
    (bundle) => !state.bundles[bundle.pending_id] && !state.firstRead?.[bundle.pending_id],
  );
  if (unseen.length === 0) return state.firstRead;
  return {
    ...state.firstRead,
    ...Object.fromEntries(unseen.map((bundle) => [bundle.pending_id, true])),
  };
}

function maxVersion(bundle: BundleState): string {
  let max = NO_VERSION;
  for (const question of bundle.questions.values()) {
    if (isNewer(question.version, max)) max = question.version;
  }
  return max;
}

function retireQuestions(bundle: BundleState, status: RowStatus, version: string): BundleState {
  const questions = new Map<string, BundleQuestion>();
  for (const [id, question] of bundle.questions) {
    questions.set(
      id,
      question.status === 'pending' && !isNewer(question.version, version)
        ? { ...question, status, version }
        : question,
    );
  }
  return { ...bundle, questions };
}

function applyMessage(state: ModelState, message: MessageView): ModelState {
  if (state.deleted.sessions[message.session_id]) return state;
  const session =
    state.sessions[message.session_id] ?? emptySession(message.session_id, message.task_id);
  const known = session.messages[message.id];
  if (known && !isNewer(message.updated_at, known.updated_at)) return state;
  const latest =
    session.latest_turn && !isNewer(message.created_at, session.latest_turn.created_at)
      ? session.latest_turn
      : { turn_id: message.turn_id, created_at: message.created_at };
  let result: ModelState = {
    ...state,
    sessions: {
      ...state.sessions,
      [message.session_id]: {
        ...session,
        latest_turn: latest,
        messages: { ...session.messages, [message.id]: message },
      },
    },
  };
  const row = questionOfRow(message);
  if (row) {
    const bundle: BundleState = result.bundles[row.pendingId] ?? {
      pending_id: row.pendingId,
      task_id: message.task_id,
      session_id: message.session_id,
      turn_id: message.turn_id,
      created_at: message.created_at,
      context: row.context,
      detached: false,
      total: row.total,
      questions: new Map(),
      generation: state.generation,
    };
    const current = bundle.questions.get(row.question.question_id);
    const questions =
      current && !isNewer(row.question.version, current.version)
        ? bundle.questions
        : new Map(bundle.questions).set(row.question.question_id, row.question);
    result = {
      ...result,
      bundles: {
        ...result.bundles,
        [row.pendingId]: {
          ...bundle,
          turn_id: message.turn_id,
          total: row.total,
          context: row.context || bundle.context,
          // Its rows change together; the newest one read says whether an agent waits on it.
          ...(bundle.detached_version === undefined ||
          !isNewer(bundle.detached_version, message.updated_at)
            ? { detached: row.detached, detached_version: message.updated_at }
            : {}),
          created_at:
            bundle.created_at < message.created_at && bundle.created_at !== ''
              ? bundle.created_at
              : message.created_at,
          questions,
          generation: Math.max(bundle.generation, state.generation),
        },
      },
    };
  }
  return result;
}

export function initialState(): ModelState {
  return {
    connection: 'connecting',
    generation: 0,
    unlisted: 'retire',
    tasks: {},
    tasksListed: false,
    sessions: {},
    windows: {},
    bundles: {},
    missing: {},
    deleted: { sessions: {}, tasks: {} },
    firstRead: undefined,
    pendingMore: false,
    pendingReadGeneration: undefined,
  };
}

/**
 * Whether the page may show a session: `shown`; `deleted` (an event said so,
 * and how); `access_lost` (the server now refuses to this person a session
 * the page held: its transcript read answered 404, or they are in no
 * workspace at all), when nothing in it can be answered or sent any more;
 * `not_found` (never theirs, or gone before this page knew it).
 */
export type SessionPresence =
  | { kind: 'shown' }
  | { kind: 'deleted'; how: DeletionEvent['type'] }
  | { kind: 'access_lost' }
  | { kind: 'not_found' };

export function sessionPresence(state: ModelState, sessionId: string): SessionPresence {
  const how = state.deleted.sessions[sessionId];
  if (how) return { kind: 'deleted', how };
  if (state.connection === 'no_workspace') return { kind: 'access_lost' };
  if (!state.missing[sessionId]) return { kind: 'shown' };
  return state.sessions[sessionId] ? { kind: 'access_lost' } : { kind: 'not_found' };
}

/** Questions in asking order. */
export function orderedQuestions(bundle: BundleState): BundleQuestion[] {
  return [...bundle.questions.values()].sort((a, b) => a.index - b.index);
}

/**
 * Whether a bundle can be answered now, as far as the server has told us:
 * every question arrived and is pending, its session is neither terminal nor
 * known to wait for something else, and no newer turn superseded it.
 */
export function isBundleActive(state: ModelState, bundle: BundleState): boolean {
  const questions = [...bundle.questions.values()];
  if (questions.length < bundle.total) return false;
  if (!questions.every((question) => question.status === 'pending')) return false;
  const session = state.sessions[bundle.session_id];
  if (!session) return true;
  if (session.state !== undefined && TERMINAL_STATES.includes(session.state)) return false;
  if (session.pending_action !== undefined && session.pending_action !== 'clarification')
    return false;
  if (
    bundle.turn_id !== undefined &&
    session.latest_turn &&
    session.latest_turn.turn_id !== bundle.turn_id
  ) {
    return false;
  }
  return true;
}

/**
 * Every active bundle, newest first. A session may have several: an agent
 * that asks in parallel (two tool calls in flight) waits on each, and the
 * server lists each as active until answered or superseded by a newer turn.
 */
export function activeBundles(state: ModelState): BundleState[] {
  return Object.values(state.bundles)
    .filter((bundle) => isBundleActive(state, bundle))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/**
 * The session's bundle the overlay shows: `chosen` while it is active, else
 * the one that has waited longest, as the inbox orders them.
 */
export function activeBundleOfSession(
  state: ModelState,
  sessionId: string,
  chosen?: string,
): BundleState | undefined {
  const own = activeBundles(state).filter((bundle) => bundle.session_id === sessionId);
  return own.find((bundle) => bundle.pending_id === chosen) ?? own.at(-1);
}

export function transcriptOf(state: ModelState, sessionId: string): MessageView[] {
  const session = state.sessions[sessionId];
  if (!session) return [];
  return Object.values(session.messages).sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1,
  );
}

export function sessionsOfTask(state: ModelState, taskId: string): SessionEntry[] {
  return Object.values(state.sessions)
    .filter((session) => session.task_id === taskId)
    .sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
}

type Listener = () => void;

/** Holds the state and notifies subscribers; the only mutable part of the model. */
export class ReadModel {
  private state: ModelState = initialState();
  private readonly listeners = new Set<Listener>();

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getState = (): ModelState => this.state;

  update(change: (state: ModelState) => ModelState): void {
    const next = change(this.state);
    if (next === this.state) return;
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  }
}
