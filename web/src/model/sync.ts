/**
 * Keeps a `ReadModel` and a `UserInputModel` in step with the server:
 * subscribe to `/api/v1/events` FIRST, and only once the server confirms the
 * subscription fetch the snapshots (tasks, their sessions, pending bundles,
 * user-input requests, open transcripts). Any change after the confirmation
 * arrives as an event, and the models' version rules let those events win over
 * snapshots that raced them. A dropped socket reconnects with backoff and
 * repeats the whole sequence (one that goes silent and leaves a ping
 * unanswered counts as dropped: see `Heartbeat`), except when the server said why it closed:
 * 1008 (`EVENTS_CLOSE_CREDENTIAL_REVOKED`, the sign-in ended) and 4409
 * (`EVENTS_CLOSE_SESSION_CHANGED`, the cookie signs in someone else since
 * another tab signed in) hand over to `credentialEnded` and stop, and 4403
 * (`EVENTS_CLOSE_NO_WORKSPACE`) leaves the connection `no_workspace` until
 * `start()` is called again. A browser
 * never shows an upgrade's 401, so a socket that closed before it opened asks
 * `GET /api/v1/me` before reconnecting, and a 401 there ends the sign-in too.
 *
 * User-input events carry the request's own revision, not the session's, so
 * they go to the user-input model only. `queue.changed` is a session event
 * like the others: the revision it moves makes open queue lists reload.
 * `session.deleted` and `task.deleted` take the session (and the task) out
 * of both models, and out of the transcripts reloaded on a reconnect.
 * `access_changed` (the person's workspaces changed) starts a new generation
 * in both models and reads the snapshots again, as a reconnect does, except
 * that what they no longer list is forgotten, not retired: the person lost
 * sight of it, so it leaves the inbox without a reload. It then tells
 * `onAccessChanged` listeners.
 *
 * `consent_rules_changed`, `notifications_changed`, `tokens_changed` and
 * `people_changed` say only that a list the snapshots do not hold changed
 * (the person's "Always allow" rules; their notification channels and
 * settings; their API tokens; users, workspaces and members on People): they
 * go to the matching `on…Changed` listeners, which read it again. No frame
 * tells of a change made before the subscription was confirmed (while the
 * socket was down, or before it first connected), and a list read before
 * then may predate it: every confirmed subscription, the first included,
 * tells those listeners and `onAccessChanged`'s, as if it had been. Each
 * listener there began listening, and so reading, before the confirmation;
 * one that begins after it reads after it too, and is not told.
 *
 * A snapshot read that fails for a reason that may pass (the network, a 5xx,
 * a 429) would leave the models stale under a socket that says `live`, with
 * nothing to read them again: the socket is closed instead, so the reconnect
 * repeats the whole sequence with backoff, and the backoff starts over only
 * once every snapshot of a subscription has been read.
 */
import {
  EVENTS_CLOSE_CREDENTIAL_REVOKED,
  EVENTS_CLOSE_NO_WORKSPACE,
  EVENTS_CLOSE_SESSION_CHANGED,
} from '../../../src/wire/constants.js';
import type { ApiClient, ApiFailure } from './api.js';
import { Heartbeat } from './heartbeat.js';
import { activeBundleCount, cutPendingRereadDue, type CutPendingRead } from './pending-reread.js';
import { transitions, type ReadModel } from './read-model.js';
import {
  rereadCovers,
  rereadPageBound,
  rereadTarget,
  transcriptTransitions,
} from './transcript-window.js';
import {
  USER_INPUT_EVENT_TYPES,
  type ClarionEvent,
  type MessageView,
  type PendingBundle,
  type ServerFrame,
  type TaskView,
} from './types.js';
import { userInputTransitions, type UserInputModel } from './user-inputs.js';

/** The part of a browser WebSocket this module uses. */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface SyncDeps {
  model: ReadModel;
  userInputs: UserInputModel;
  api: ApiClient;
  openSocket: () => SocketLike;
  /** The sign-in ended (1008, or a 401 before reconnecting); sync has stopped. */
  credentialEnded?: () => void;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * Task session lists read at once. A browser opens about six connections to
 * a server; with one read per task all at once, a person's answer sent
 * meanwhile waited behind hundreds of them.
 */
const SESSION_READ_LANES = 4;

/** Pages of the pending list a snapshot reads at most (100 bundles each). */
export const PENDING_READ_PAGES = 20;

export class ModelSync {
  private socket: SocketLike | undefined;
  /** Whether `socket` opened: one that never did may have been refused for its sign-in. */
  private opened = false;
  private heartbeat: Heartbeat | undefined;
  private retryTimer: unknown;
  private attempts = 0;
  private stopped = false;
  private readonly openSessions = new Set<string>();
  /** The task list read now out, and the one asked for since, which follows it. */
  private tasksRead: Promise<Read> | undefined;
  private tasksReadAgain: Promise<Read> | undefined;
  private readonly accessListeners = new Set<() => void>();
  private readonly rulesListeners = new Set<() => void>();
  private readonly peopleListeners = new Set<() => void>();
  private readonly notificationsListeners = new Set<() => void>();
  private readonly tokensListeners = new Set<() => void>();
  /** Reads of the pending list out now: a cut list is read again only when none is. */
  private pendingReadsOut = 0;
  /** The last pending read stopped at its bound (`pending-reread.ts`); `undefined` once whole. */
  private cutPending: CutPendingRead | undefined;
  private unwatchModel: (() => void) | undefined;
  private readonly deps: Required<SyncDeps>;

  constructor(deps: SyncDeps) {
    this.deps = {
      setTimer: (callback, ms) => globalThis.setTimeout(callback, ms),
      clearTimer: (handle) => {
        globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>);
      },
      credentialEnded: () => undefined,
      ...deps,
    };
  }

  /**
   * Calls `listener` each time the person's memberships change (or may have,
   * unheard: at each confirmed subscription), for views that read what the
   * snapshots do not (a workspace's members); returns the unsubscribe.
   */
  onAccessChanged(listener: () => void): () => void {
    this.accessListeners.add(listener);
    return () => {
      this.accessListeners.delete(listener);
    };
  }

  /** Calls `listener` each time the person's "Always allow" rules change; returns the unsubscribe. */
  onConsentRulesChanged(listener: () => void): () => void {
    return listen(this.rulesListeners, listener);
  }

  /** Calls `listener` each time the person's notification channels or settings change. */
  onNotificationsChanged(listener: () => void): () => void {
    return listen(this.notificationsListeners, listener);
  }

  /** Calls `listener` each time the person's API tokens change. */
  onTokensChanged(listener: () => void): () => void {
    return listen(this.tokensListeners, listener);
  }

  /** Calls `listener` each time users, workspaces or members the person may list change. */
  onPeopleChanged(listener: () => void): () => void {
    return listen(this.peopleListeners, listener);
  }

  start(): void {
    this.stopped = false;
    this.unwatchModel ??= this.deps.model.subscribe(() => {
      this.rereadCutPending();
    });
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.unwatchModel?.();
    this.unwatchModel = undefined;
    if (this.retryTimer !== undefined) this.deps.clearTimer(this.retryTimer);
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    this.socket?.close();
    this.socket = undefined;
  }

  /**
   * Connects again now and reads everything again, for a page that comes
   * back from where its socket may have died without a close: a phone that
   * slept, a laptop that lost its network. A socket that still looks open
   * is closed first; the browser notices a dead one only as fast as TCP
   * does, which can be minutes, and the inbox would be stale meanwhile.
   */
  resync(): void {
    if (this.stopped) return;
    if (this.socket) {
      this.abandon(this.socket);
      return;
    }
    if (this.retryTimer !== undefined) {
      this.deps.clearTimer(this.retryTimer);
      this.retryTimer = undefined;
      this.connect();
    }
  }

  /** Loads a transcript now and again after every reconnect. */
  openSession(sessionId: string): void {
    this.openSessions.add(sessionId);
    void this.read([this.loadMessages(sessionId)]);
  }

  /**
   * Reads an open transcript again: after a respond or cancel this person
   * was refused as unknown (404), it tells whether the whole session is
   * gone for them (a 404 here too) or only that question.
   */
  recheckSession(sessionId: string): void {
    if (this.openSessions.has(sessionId)) void this.read([this.loadMessages(sessionId)]);
  }

  closeSession(sessionId: string): void {
    this.openSessions.delete(sessionId);
    this.deps.model.update((state) => transcriptTransitions.unwatched(state, sessionId));
  }

  /** Re-reads tasks and sessions, e.g. after creating or answering something. */
  async refresh(): Promise<void> {
    await this.read([this.loadTasks(), this.loadPending()]);
  }

  private connect(): void {
    const { model } = this.deps;
    model.update((state) => transitions.connection(state, 'connecting'));
    const socket = this.deps.openSocket();
    this.socket = socket;
    this.opened = false;
    socket.onopen = () => {
      this.opened = true;
      this.heartbeat = new Heartbeat(
        this.deps,
        () => {
          socket.send(JSON.stringify({ type: 'ping' }));
        },
        () => {
          this.abandon(socket);
        },
      );
      socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    };
    socket.onmessage = (event) => {
      this.heartbeat?.heard();
      if (typeof event.data !== 'string') return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(event.data) as ServerFrame;
      } catch {
        return;
      }
      this.receive(frame);
    };
    socket.onclose = (event) => {
      if (this.socket === socket) this.closed(closeCodeOf(event));
    };
    socket.onerror = () => {
      // `onclose` follows and schedules the reconnect.
    };
  }

  /**
   * Leaves a socket that may be dead without waiting for its close: a
   * browser holds a dead connection's close back until its closing
   * handshake times out, which can take a minute.
   */
  private abandon(socket: SocketLike): void {
    if (this.socket !== socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
    socket.close();
    this.closed(undefined);
  }

  private closed(code: number | undefined): void {
    const { model } = this.deps;
    this.socket = undefined;
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    if (code === EVENTS_CLOSE_CREDENTIAL_REVOKED || code === EVENTS_CLOSE_SESSION_CHANGED) {
      this.credentialEnded();
      return;
    }
    if (code === EVENTS_CLOSE_NO_WORKSPACE) {
      model.update((state) => transitions.connection(state, 'no_workspace'));
      return;
    }
    model.update((state) => transitions.connection(state, 'offline'));
    if (!this.stopped) this.scheduleReconnect(!this.opened);
  }

  private receive(frame: ServerFrame): void {
    const { model } = this.deps;
    switch (frame.type) {
      case 'subscribed':
        model.update((state) => transitions.subscribed(state));
        this.deps.userInputs.update((state) => userInputTransitions.subscribed(state));
        void this.snapshots().then((complete) => {
          if (complete) this.attempts = 0;
        });
        // What no snapshot holds may have changed while no socket could say so: a list read
        // before this confirmation (on a page's first load too) is read again.
        tell(this.accessListeners);
        tell(this.rulesListeners);
        tell(this.peopleListeners);
        tell(this.notificationsListeners);
        tell(this.tokensListeners);
        return;
      case 'event':
        this.applyEvent(frame.event);
        return;
      case 'access_changed':
        // Workspaces came or went: what the person sees is read again, and what they lost drops out.
        model.update((state) => transitions.accessChanged(state));
        this.deps.userInputs.update((state) => userInputTransitions.accessChanged(state));
        void this.snapshots();
        tell(this.accessListeners);
        return;
      case 'consent_rules_changed':
        tell(this.rulesListeners);
        return;
      case 'people_changed':
        tell(this.peopleListeners);
        return;
      case 'notifications_changed':
        tell(this.notificationsListeners);
        return;
      case 'tokens_changed':
        tell(this.tokensListeners);
        return;
      case 'unsubscribed':
      case 'pong':
      case 'error':
        return;
    }
  }

  private applyEvent(event: ClarionEvent): void {
    const { model, userInputs } = this.deps;
    if (isUserInputEvent(event)) {
      userInputs.update((state) => userInputTransitions.view(state, event.request));
    } else if (event.type === 'session.deleted' || event.type === 'task.deleted') {
      this.openSessions.delete(event.session_id);
      model.update((state) => transitions.deleted(state, event));
      userInputs.update((state) => userInputTransitions.sessionDeleted(state, event.session_id));
      return;
    } else {
      // A row is kept only while a page shows its session, or is about to (its first read is out).
      const shown = this.openSessions.has(event.session_id);
      model.update((state) => {
        const next = transitions.event(state, event);
        return shown ? next : transcriptTransitions.unwatched(next, event.session_id);
      });
    }
    // A task created elsewhere says so with its first message, request or state (one
    // created without a prompt): its title comes with the task list.
    const news =
      event.type === 'message.added' ||
      event.type === 'session.state_changed' ||
      isUserInputEvent(event);
    if (news && !model.getState().tasks[event.task_id]) {
      void this.read([this.loadTasks()]);
    }
  }

  /** False when a read failed and closed the socket, to read them all again. */
  private snapshots(): Promise<boolean> {
    return this.read([
      this.loadTasks(),
      this.loadPending(),
      this.loadUserInputs(),
      ...[...this.openSessions].map((id) => this.loadMessages(id)),
    ]);
  }

  /**
   * Waits for `reads` (each resolves whether it read its snapshot); when one
   * failed for a reason that may pass, closes the socket it was read under,
   * so the reconnect reads everything again.
   */
  private async read(reads: readonly Promise<Read>[]): Promise<boolean> {
    const socket = this.socket;
    const results = await Promise.all(reads);
    if (!results.includes('retry')) return true;
    if (socket !== undefined && this.socket === socket) socket.close();
    return false;
  }

  private async loadUserInputs(): Promise<Read> {
    const { api, userInputs } = this.deps;
    // Taken before the request: a snapshot that outlived its subscription is dropped.
    const generation = userInputs.getState().generation;
    const result = await api.userInputs();
    if (!result.ok) return failedRead(result);
    userInputs.update((state) =>
      userInputTransitions.snapshot(state, result.value.requests, generation),
    );
    return 'read';
  }

  /**
   * Reads the task list, one read at a time: the list replaces the model's,
   * so a read that left before a task was made must never answer after one
   * that lists it. A read asked for while one is out follows it, shared by
   * everyone who asks meanwhile (a new task's burst of events reads once more,
   * not once per event).
   */
  private loadTasks(): Promise<Read> {
    if (this.tasksRead === undefined) {
      this.tasksRead = this.readTasks().finally(() => {
        this.tasksRead = undefined;
      });
      return this.tasksRead;
    }
    const again = () => {
      this.tasksReadAgain = undefined;
      return this.loadTasks();
    };
    this.tasksReadAgain ??= this.tasksRead.then(again, again);
    return this.tasksReadAgain;
  }

  private async readTasks(): Promise<Read> {
    const { api, model } = this.deps;
    // The list replaces the model's, so every page is read before it is applied.
    const tasks: TaskView[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await api.tasks(cursor);
      if (!result.ok) return failedRead(result);
      tasks.push(...result.value.tasks);
      if (result.value.next_cursor === null) break;
      cursor = result.value.next_cursor;
    }
    model.update((state) => transitions.tasks(state, tasks));
    const reads = await inLanes(tasks, SESSION_READ_LANES, async (task): Promise<Read> => {
      const sessions = await api.sessions(task.id);
      if (!sessions.ok) return failedRead(sessions);
      model.update((state) => transitions.sessions(state, sessions.value.sessions));
      return 'read';
    });
    return reads.includes('retry') ? 'retry' : 'read';
  }

  /**
   * Reads a pending list cut at its bound again once the person answered
   * enough that the inbox shows fewer than it can (`pending-reread.ts`):
   * what the cut hid shows without a reload. One pending read at a time.
   */
  private rereadCutPending(): void {
    if (this.stopped || this.pendingReadsOut > 0) return;
    const from = cutPendingRereadDue(this.deps.model.getState(), this.cutPending);
    if (from === undefined || this.cutPending === undefined) return;
    // Begun from here: another waits for the person to answer more, whatever this one brings.
    this.cutPending = { ...this.cutPending, floor: from };
    void this.read([this.loadPending()]);
  }

  private async loadPending(): Promise<Read> {
    this.pendingReadsOut++;
    try {
      return await this.readPending();
    } finally {
      this.pendingReadsOut--;
    }
  }

  /**
   * A read of `sessionId` under subscription `generation` was refused (404):
   * the session is gone for this person, unless the refusal outlived its
   * subscription, when it may predate access given back since.
   */
  private missingUnder(sessionId: string, generation: number): void {
    const { model } = this.deps;
    if (model.getState().generation !== generation) return;
    model.update((state) => transitions.sessionMissing(state, sessionId));
  }

  private async readPending(): Promise<Read> {
    const { api, model } = this.deps;
    // Taken before the request: a snapshot that outlived its subscription is dropped.
    const generation = model.getState().generation;
    const bundles: PendingBundle[] = [];
    let cursor: string | undefined;
    let complete = false;
    for (let page = 0; page < PENDING_READ_PAGES && !complete; page++) {
      const result = await api.pending(cursor);
      if (!result.ok) return failedRead(result);
      bundles.push(...result.value.bundles);
      complete = result.value.next_cursor === null;
      cursor = result.value.next_cursor ?? undefined;
    }
    // Past the bound the inbox says more wait, and retires nothing the list did not reach.
    model.update((state) => transitions.pendingSnapshot(state, bundles, generation, complete));
    // One that outlived its subscription was dropped: what it found says nothing of the list now.
    if (model.getState().generation !== generation) return 'read';
    this.cutPending = complete
      ? undefined
      : { listed: bundles.length, floor: activeBundleCount(model.getState()) };
    return 'read';
  }

  /**
   * Reads an open transcript from its end down to what its window holds
   * (`transcript-window.ts`): one page for a session just opened.
   */
  private async loadMessages(sessionId: string): Promise<Read> {
    const { api, model } = this.deps;
    // Taken before the request, as the window's: a read that outlived its subscription is dropped.
    const { generation } = model.getState();
    const rows: MessageView[] = [];
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const result = await api.messages(sessionId, cursor);
      if (!result.ok) {
        if (result.kind === 'http' && result.status === 404) {
          this.missingUnder(sessionId, generation);
          return 'read';
        }
        return failedRead(result);
      }
      rows.push(...result.value.messages);
      const earlier = result.value.next_cursor;
      const oldest = result.value.messages.at(-1);
      // The window as it is now: earlier rows the person loaded meanwhile are read down to, not
      // let go when this read is applied.
      const target = rereadTarget(model.getState(), sessionId);
      const bound = rereadPageBound(model.getState(), sessionId);
      if (earlier === null || rereadCovers(target, oldest) || page >= bound) {
        // Closed meanwhile: nothing shows it, and its rows are not kept.
        if (!this.openSessions.has(sessionId)) return 'read';
        model.update((state) =>
          transcriptTransitions.read(state, sessionId, rows, earlier, generation),
        );
        return 'read';
      }
      cursor = earlier;
    }
  }

  /**
   * Loads the page before an open transcript's window, when the person asks
   * for it; false when it could not be read (the person may try again).
   */
  async loadEarlier(sessionId: string): Promise<boolean> {
    const { api, model } = this.deps;
    const { generation } = model.getState();
    const used = model.getState().windows[sessionId]?.earlier;
    if (used === undefined || used === null) return true;
    const result = await api.messages(sessionId, used);
    if (!result.ok) {
      if (result.kind === 'http' && result.status === 404) {
        this.missingUnder(sessionId, generation);
        return true;
      }
      return false;
    }
    if (!this.openSessions.has(sessionId)) return true;
    model.update((state) =>
      transcriptTransitions.earlier(
        state,
        sessionId,
        result.value.messages,
        used,
        result.value.next_cursor,
        generation,
      ),
    );
    return true;
  }

  /** `checkSignIn`: the socket never opened, which is how a browser shows a refused upgrade. */
  private scheduleReconnect(checkSignIn: boolean): void {
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempts);
    this.attempts++;
    this.retryTimer = this.deps.setTimer(() => {
      this.retryTimer = undefined;
      if (this.stopped) return;
      if (!checkSignIn) {
        this.connect();
        return;
      }
      void this.deps.api.me().then((result) => {
        if (this.stopped) return;
        // Only a 401 says the sign-in ended; a network failure is the outage being waited out.
        if (!result.ok && result.kind === 'http' && result.status === 401) this.credentialEnded();
        else this.connect();
      });
    }, delay);
  }

  private credentialEnded(): void {
    this.stop();
    this.deps.model.update((state) => transitions.connection(state, 'offline'));
    this.deps.credentialEnded();
  }
}

/**
 * A snapshot read's end: `read` (applied, or known gone), `retry` (a failure
 * that may pass: the network, a 5xx, a 408 or 429), `refused` (reading again
 * cannot help; an ended sign-in has its own way out).
 */
type Read = 'read' | 'retry' | 'refused';

function failedRead(failure: ApiFailure): Read {
  if (failure.kind === 'network') return 'retry';
  const { status } = failure;
  return status >= 500 || status === 408 || status === 429 ? 'retry' : 'refused';
}

/** `read` over `items`, at most `lanes` at a time; results in the items' order. */
async function inLanes<T, R>(
  items: readonly T[],
  lanes: number,
  read: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await read(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return results;
}

function listen(listeners: Set<() => void>, listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function tell(listeners: Set<() => void>): void {
  for (const listener of [...listeners]) listener();
}

function closeCodeOf(event: unknown): number | undefined {
  if (typeof event !== 'object' || event === null || !('code' in event)) return undefined;
  return typeof event.code === 'number' ? event.code : undefined;
}

function isUserInputEvent(
  event: ClarionEvent,
): event is Extract<ClarionEvent, { request: unknown }> {
  return (USER_INPUT_EVENT_TYPES as readonly string[]).includes(event.type);
}
