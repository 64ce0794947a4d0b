/**
 * The REST client: one function per route, typed results, no exceptions for
 * HTTP or network failures. The browser authenticates with the HttpOnly
 * cookie, so every request is same-origin with `credentials: 'same-origin'`
 * and state-changing ones carry JSON (the server refuses anything else).
 */
import type {
  BundleView,
  DecisionEntry,
  DecisionListReply,
  MessageView,
  PendingBundle,
  QueueItemView,
  SessionView,
  TaskView,
  UserInputAnswer,
  UserInputView,
  UserQueueItem,
} from './types.js';
import { pageFetch } from './page-fetch.js';
import { TRANSCRIPT_PAGE_ROWS } from './transcript-window.js';

export type ApiFailure =
  | { ok: false; kind: 'http'; status: number; code: string; error: string; details?: unknown }
  | { ok: false; kind: 'network'; error: string };

export type ApiResult<T> = { ok: true; status: number; value: T } | ApiFailure;

export interface Me {
  user: { id: string; name: string; is_admin: boolean };
  kind: string;
}

export type AdmissionOutcome =
  { outcome: 'sent'; message: MessageView } | { outcome: 'queued'; item: UserQueueItem };

/** The decision log's query filters; `since` and `until` are RFC 3339 times. */
export interface DecisionFilter {
  task_id?: string;
  kind?: DecisionEntry['kind'];
  user_id?: string;
  since?: string;
  until?: string;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ApiClient {
  me(): Promise<ApiResult<Me>>;
  /** Ends this browser's session; the server also closes its events sockets (1008). */
  signOut(): Promise<ApiResult<unknown>>;
  tasks(cursor?: string): Promise<ApiResult<{ tasks: TaskView[]; next_cursor: string | null }>>;
  /** The task with every session: their agents are stopped first (503: the storage refused). */
  deleteTask(taskId: string): Promise<ApiResult<{ deleted: true }>>;
  sessions(taskId: string): Promise<ApiResult<{ sessions: SessionView[] }>>;
  /** Asks the agent to end its running turn (202); the turn's end comes as events. */
  cancelTurn(sessionId: string): Promise<ApiResult<{ cancelling: true }>>;
  /** Its agent is stopped first; a 503 (the storage refused) leaves the session, idle. */
  deleteSession(sessionId: string): Promise<ApiResult<{ deleted: true }>>;
  pending(
    cursor?: string,
  ): Promise<ApiResult<{ bundles: PendingBundle[]; next_cursor: string | null }>>;
  /** One question's bundle in any state; `active` says whether a person may still answer it. */
  question(pendingId: string, signal?: AbortSignal): Promise<ApiResult<BundleView>>;
  /** A person's cancel of a live question; 409 `not_active` when no agent waits on it. */
  cancelQuestion(pendingId: string, signal?: AbortSignal): Promise<ApiResult<{ cancelled: true }>>;
  /** A page of the transcript, newest first; `next_cursor` pages back toward its start. */
  messages(
    sessionId: string,
    cursor?: string,
  ): Promise<ApiResult<{ messages: MessageView[]; next_cursor: string | null }>>;
  sendMessage(
    sessionId: string,
    text: string,
    admissionKey: string,
  ): Promise<ApiResult<AdmissionOutcome>>;
  queue(sessionId: string): Promise<ApiResult<{ items: QueueItemView[] }>>;
  removeQueued(sessionId: string, itemId: string): Promise<ApiResult<unknown>>;
  /** People's messages and due follow-ups alike; `removed` lists what went. */
  clearQueue(sessionId: string): Promise<ApiResult<{ removed: QueueItemView[] }>>;
  /** `ids`: every queued person's message exactly once, else 400 `invalid_request`. */
  reorderQueue(
    sessionId: string,
    ids: readonly string[],
  ): Promise<ApiResult<{ items: UserQueueItem[] }>>;
  /**
   * Only a person's own items; follow-ups are not editable. `baseText` is the
   * text the edit was made from: a message that no longer reads so is left as
   * it is (409 `queue_item_changed`, its current text in `details`).
   */
  editQueued(
    sessionId: string,
    itemId: string,
    text: string,
    baseText: string,
  ): Promise<ApiResult<{ item: UserQueueItem }>>;
  /** Live consent and action requests the caller can see. */
  userInputs(): Promise<ApiResult<{ requests: UserInputView[] }>>;
  /** The decision log: who decided what and where, newest first, narrowed by `filter`. */
  decisions(
    cursor?: string,
    filter?: DecisionFilter,
    limit?: number,
  ): Promise<ApiResult<DecisionListReply>>;
  /** `keepalive`: the request outlives the page (it is being hidden or left). */
  respondUserInput(
    requestId: string,
    answer: UserInputAnswer,
    signal?: AbortSignal,
    keepalive?: boolean,
  ): Promise<ApiResult<{ request: UserInputView }>>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How long a request without a signal of its own waits for its whole reply.
 * A phone's connection can die without a word, and a browser may hold a
 * request on it for minutes: every button waiting on one would stay busy.
 */
export const REQUEST_DEADLINE_MS = 40_000;

/**
 * One request, read whole. A caller's `init.signal` bounds it; without one
 * it ends at `deadlineMs` as a network failure (`timed out`), which callers
 * already read as "it may or may not have happened".
 */
export async function request<T>(
  fetchImpl: FetchLike,
  path: string,
  init: RequestInit = {},
  deadlineMs = REQUEST_DEADLINE_MS,
): Promise<ApiResult<T>> {
  const deadline = init.signal ? undefined : new AbortController();
  const timer =
    deadline &&
    globalThis.setTimeout(() => {
      deadline.abort();
    }, deadlineMs);
  let response: Response;
  let body: unknown;
  try {
    response = await fetchImpl(path, {
      credentials: 'same-origin',
      ...init,
      ...(deadline ? { signal: deadline.signal } : {}),
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, kind: 'network', error: deadline?.signal.aborted ? 'timed out' : message };
  } finally {
    globalThis.clearTimeout(timer);
  }
  if (deadline?.signal.aborted) return { ok: false, kind: 'network', error: 'timed out' };
  if (!response.ok) {
    const record = isRecord(body) ? body : {};
    return {
      ok: false,
      kind: 'http',
      status: response.status,
      code: typeof record.code === 'string' ? record.code : 'unknown',
      error: typeof record.error === 'string' ? record.error : response.statusText,
      details: record.details,
    };
  }
  return { ok: true, status: response.status, value: body as T };
}

export function createApiClient(fetchImpl: FetchLike = pageFetch): ApiClient {
  const enc = encodeURIComponent;
  return {
    me: () => request(fetchImpl, '/api/v1/me'),
    signOut: () => request(fetchImpl, '/api/v1/auth/sign-out', { method: 'POST', body: '{}' }),
    tasks: (cursor) =>
      request(fetchImpl, `/api/v1/tasks?limit=500${cursor ? `&cursor=${enc(cursor)}` : ''}`),
    deleteTask: (taskId) =>
      request(fetchImpl, `/api/v1/tasks/${enc(taskId)}`, { method: 'DELETE' }),
    sessions: (taskId) => request(fetchImpl, `/api/v1/tasks/${enc(taskId)}/sessions`),
    cancelTurn: (sessionId) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/cancel`, {
        method: 'POST',
        body: '{}',
      }),
    deleteSession: (sessionId) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}`, { method: 'DELETE' }),
    pending: (cursor) =>
      request(fetchImpl, `/api/v1/pending?limit=100${cursor ? `&cursor=${enc(cursor)}` : ''}`),
    question: (pendingId, signal) =>
      request(fetchImpl, `/api/v1/clarification/${enc(pendingId)}`, signal ? { signal } : {}),
    cancelQuestion: (pendingId, signal) =>
      request(fetchImpl, `/api/v1/clarification/${enc(pendingId)}/cancel`, {
        method: 'POST',
        body: '{}',
        ...(signal ? { signal } : {}),
      }),
    messages: (sessionId, cursor) =>
      request(
        fetchImpl,
        `/api/v1/sessions/${enc(sessionId)}/messages?order=newest_first&limit=${TRANSCRIPT_PAGE_ROWS}${cursor ? `&cursor=${enc(cursor)}` : ''}`,
      ),
    sendMessage: (sessionId, text, admissionKey) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text, admission_key: admissionKey }),
      }),
    queue: (sessionId) => request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/queue`),
    decisions: (cursor, filter = {}, limit = 50) => {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor) query.set('cursor', cursor);
      for (const [key, value] of Object.entries(filter)) {
        if (typeof value === 'string' && value !== '') query.set(key, value);
      }
      return request(fetchImpl, `/api/v1/decisions?${query.toString()}`);
    },
    removeQueued: (sessionId, itemId) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/queue/${enc(itemId)}`, {
        method: 'DELETE',
      }),
    clearQueue: (sessionId) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/queue`, { method: 'DELETE' }),
    reorderQueue: (sessionId, ids) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/queue/order`, {
        method: 'PUT',
        body: JSON.stringify({ ids }),
      }),
    editQueued: (sessionId, itemId, text, baseText) =>
      request(fetchImpl, `/api/v1/sessions/${enc(sessionId)}/queue/${enc(itemId)}`, {
        method: 'PATCH',
        body: JSON.stringify({ text, base_text: baseText }),
      }),
    userInputs: () => request(fetchImpl, '/api/v1/user-inputs'),
    respondUserInput: (requestId, answer, signal, keepalive) =>
      request(fetchImpl, `/api/v1/user-inputs/${enc(requestId)}/respond`, {
        method: 'POST',
        body: JSON.stringify(answer),
        ...(signal ? { signal } : {}),
        ...(keepalive ? { keepalive } : {}),
      }),
  };
}
