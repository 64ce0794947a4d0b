/**
 * The web app's user-input read model in Node: snapshot and events ordered
 * by the request's revision, events held for requests not known yet, stale
 * events and stale snapshots ignored, settled requests leaving the lists;
 * the subscribe-then-snapshot wiring in `ModelSync` (an access change
 * forgets what the lists no longer name); what a card shows for
 * each outcome; and how `postUserInputAnswer` maps the server's answers.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResult } from '../../web/src/model/api.js';
import { activeBundleOfSession, ReadModel } from '../../web/src/model/read-model.js';
import type { Timers } from '../../web/src/model/respond.js';
import { ModelSync, type SocketLike } from '../../web/src/model/sync.js';
import type {
  ActionView,
  ClarionEvent,
  ConsentView,
  FormView,
  PendingBundle,
  UserInputView,
} from '../../web/src/model/types.js';
import { postUserInputAnswer } from '../../web/src/model/user-input-respond.js';
import {
  decidedFirst,
  formatRemaining,
  initialUserInputs,
  outcomeOf,
  requestsOfSession,
  safeHttpUrl,
  UserInputModel,
  userInputTransitions as ui,
  waitingByTask,
  waitingRequests,
  type UserInputsState,
} from '../../web/src/model/user-inputs.js';

const S = 'session-1';
const T = 'task-1';

function consent(revision: number, extra: Partial<ConsentView> = {}): ConsentView {
  return {
    id: 'consent-1',
    kind: 'consent',
    session_id: S,
    task_id: T,
    status: 'awaiting',
    revision,
    created_at: '2026-01-01T00:00:01.000Z',
    deadline_at: '2026-01-01T00:05:01.000Z',
    settled_reason: null,
    responded_by: null,
    title: 'Delete the build cache',
    tool_key: 'delete',
    details: [],
    options: [
      { option_id: 'allow-once', label: 'Allow once', kind: 'allow_once' },
      { option_id: 'allow-always', label: 'Always allow', kind: 'allow_always' },
      { option_id: 'reject-once', label: 'Reject', kind: 'reject_once' },
    ],
    selected_option_id: null,
    remembered: false,
    reason: null,
    ...extra,
  };
}

function settledConsent(revision: number, extra: Partial<ConsentView> = {}): ConsentView {
  return consent(revision, {
    status: 'settled',
    deadline_at: null,
    settled_reason: 'human',
    ...extra,
  });
}

function action(revision: number, extra: Partial<ActionView> = {}): ActionView {
  return {
    id: 'action-1',
    kind: 'action',
    session_id: S,
    task_id: 'task-2',
    status: 'awaiting',
    revision,
    created_at: '2026-01-01T00:00:02.000Z',
    deadline_at: '2026-01-01T00:30:02.000Z',
    settled_reason: null,
    responded_by: null,
    title: 'Connect the staging database',
    instructions: 'Open the link.',
    url: 'https://example.com/connect',
    decision: null,
    reason: null,
    follow_up_text: null,
    queued: false,
    follow_up_attempts: 0,
    ...extra,
  };
}

function armed(revision: number, extra: Partial<ActionView> = {}): ActionView {
  return action(revision, {
    status: 'armed',
    deadline_at: null,
    decision: 'done',
    follow_up_text: 'Continue. I have completed: Connect the staging database',
    ...extra,
  });
}

function live(): UserInputsState {
  return ui.subscribed(initialUserInputs());
}

function waitingIds(state: UserInputsState): string[] {
  return waitingRequests(state).map((entry) => entry.view.id);
}

describe('the user-input read model', () => {
  it('shows the snapshot, newest first, and a settled request leaves the list', () => {
    let state = ui.snapshot(live(), [consent(1), action(1)], 1);
    expect(waitingIds(state)).toEqual(['action-1', 'consent-1']);
    state = ui.view(state, settledConsent(2, { selected_option_id: 'allow-once' }));
    expect(waitingIds(state)).toEqual(['action-1']);
    // Still known for its card, with the outcome.
    expect(requestsOfSession(state, S).map((entry) => entry.view.status)).toEqual([
      'settled',
      'awaiting',
    ]);
  });

  it('lets an event that raced the snapshot win when its revision is higher', () => {
    let state = ui.view(live(), settledConsent(2, { selected_option_id: 'reject-once' }));
    state = ui.snapshot(state, [consent(1)], state.generation);
    expect(waitingIds(state)).toEqual([]);
    expect(state.requests['consent-1']?.view.revision).toBe(2);
  });

  it('takes a snapshot that is newer than the event it raced', () => {
    let state = ui.view(live(), action(1));
    state = ui.snapshot(state, [armed(2)], state.generation);
    expect(state.requests['action-1']?.view.status).toBe('armed');
    expect(waitingIds(state)).toEqual([]);
  });

  it('never lets a stale event resurrect a settled request', () => {
    let state = ui.view(live(), settledConsent(3, { settled_reason: 'timed_out' }));
    const before = state;
    state = ui.view(state, consent(1));
    state = ui.view(state, consent(2));
    expect(state).toBe(before);
    expect(waitingIds(state)).toEqual([]);
  });

  it('remembers that this tab’s answer lost the race, whichever arrives first', () => {
    // The 409 before the settled event, and after it: the card is told either way.
    let state = ui.view(live(), consent(1));
    state = ui.lostRace(state, 'consent-1');
    state = ui.view(state, settledConsent(2, { selected_option_id: 'allow-once' }));
    expect(state.requests['consent-1']?.lostRace).toBe(true);
    let later = ui.view(live(), settledConsent(2, { selected_option_id: 'allow-once' }));
    later = ui.lostRace(later, 'consent-1');
    expect(later.requests['consent-1']?.lostRace).toBe(true);
    expect(ui.lostRace(later, 'consent-1')).toBe(later);
    expect(ui.lostRace(later, 'unknown')).toBe(later);
  });

  it('does not call this tab’s own landed answer someone else’s when its reply was lost', () => {
    // The first attempt landed, its reply did not; the resend met a 409.
    const ada = { user_id: 'user-1', name: 'Ada', surface: 'web' } as const;
    const settled = settledConsent(2, { selected_option_id: 'allow-once', responded_by: ada });
    const sent = { option_id: 'allow-once' };
    for (const lostFirst of [true, false]) {
      let state = ui.view(live(), lostFirst ? consent(1) : settled);
      state = ui.lostRace(state, 'consent-1', sent);
      state = ui.view(state, settled);
      const entry = state.requests['consent-1'];
      if (!entry) throw new Error('the request is known');
      expect(decidedFirst(entry, 'user-1')).toBeNull();
      // Someone else, or another choice of the same person (another tab): told who decided.
      expect(decidedFirst(entry, 'user-2')).toEqual(ada);
      const otherChoice = ui.lostRace(ui.view(live(), settled), 'consent-1', {
        option_id: 'reject-once',
      }).requests['consent-1'];
      expect(otherChoice && decidedFirst(otherChoice, 'user-1')).toEqual(ada);
    }
    const action = ui.lostRace(
      ui.view(live(), {
        ...settledConsent(2),
        kind: 'action',
        decision: 'done',
        responded_by: ada,
      } as unknown as UserInputView),
      'consent-1',
      { decision: 'done' },
    ).requests['consent-1'];
    expect(action && decidedFirst(action, 'user-1')).toBeNull();
  });

  it('applies a repeated event once: the second changes nothing', () => {
    // After the page's first read, which is itself a change (`firstRead`).
    const once = ui.view(ui.snapshot(live(), [], 1), consent(1));
    expect(ui.view(once, consent(1))).toBe(once);
    expect(ui.snapshot(once, [consent(1)], once.generation)).toBe(once);
  });

  it('holds an event for a request it does not know yet and keeps it through the snapshot', () => {
    // `armed` arrives before the request was ever seen (the snapshot is still in flight).
    let state = ui.view(live(), armed(2));
    expect(state.requests['action-1']?.view.status).toBe('armed');
    // The snapshot was read before the answer: the held event stays.
    state = ui.snapshot(state, [action(1)], state.generation);
    expect(state.requests['action-1']?.view.status).toBe('armed');
    // A snapshot read after the request was created but missing it (settled since): kept too.
    const other = ui.snapshot(ui.view(live(), consent(1)), [], 1);
    expect(waitingIds(other)).toEqual(['consent-1']);
  });

  it('retires a request that settled while the socket was down, until a newer revision', () => {
    let state = ui.snapshot(live(), [consent(1), action(1)], 1);
    state = ui.subscribed(state); // reconnected: generation 2
    state = ui.snapshot(state, [action(1)], 2);
    expect(waitingIds(state)).toEqual(['action-1']);
    expect(state.requests['consent-1']?.retired).toBe(true);
    expect(outcomeOf(state.requests['consent-1'] ?? fail())).toEqual({ kind: 'closed' });
    state = ui.view(state, settledConsent(2, { settled_reason: 'swept' }));
    expect(state.requests['consent-1']?.retired).toBe(false);
    expect(outcomeOf(state.requests['consent-1'] ?? fail())).toEqual({ kind: 'swept' });
  });

  it('drops a snapshot read under an older subscription', () => {
    const first = live();
    const reconnected = ui.subscribed(first);
    expect(ui.snapshot(reconnected, [consent(1)], first.generation)).toBe(reconnected);
  });

  it('retires a request the server no longer knows', () => {
    const state = ui.retire(ui.view(live(), consent(1)), 'consent-1');
    expect(waitingIds(state)).toEqual([]);
    expect(ui.retire(state, 'consent-1')).toBe(state);
  });

  it('keeps a bounded number of settled requests', () => {
    let state = live();
    for (let index = 0; index < 510; index++) {
      state = ui.view(state, settledConsent(2, { id: `c-${String(index)}` }));
    }
    expect(Object.keys(state.requests)).toHaveLength(500);
    expect(state.requests['c-0']).toBeUndefined();
    expect(state.requests['c-509']).toBeDefined();
  });

  it('marks each task by what it waits for, consent before action', () => {
    let state = ui.view(live(), action(1, { task_id: T, id: 'a' }));
    expect(waitingByTask(state)).toEqual({ [T]: 'action' });
    state = ui.view(state, consent(1));
    expect(waitingByTask(state)).toEqual({ [T]: 'consent' });
  });
});

describe('what a card shows', () => {
  const entry = (view: UserInputView, retired = false) => ({ view, generation: 1, retired });

  it('tells a person’s reject apart from a timeout, a sweep and a replacement', () => {
    expect(outcomeOf(entry(consent(1)))).toEqual({ kind: 'waiting' });
    expect(outcomeOf(entry(settledConsent(2, { selected_option_id: 'reject-once' })))).toEqual(
      expect.objectContaining({ kind: 'chosen', allowed: false, remembered: false }),
    );
    expect(outcomeOf(entry(settledConsent(2, { selected_option_id: 'allow-once' })))).toEqual(
      expect.objectContaining({ kind: 'chosen', allowed: true }),
    );
    expect(
      outcomeOf(entry(settledConsent(1, { selected_option_id: 'allow-always', remembered: true }))),
    ).toEqual(expect.objectContaining({ kind: 'chosen', allowed: true, remembered: true }));
    for (const reason of ['timed_out', 'swept', 'superseded', 'server_stopped'] as const) {
      expect(outcomeOf(entry(settledConsent(2, { settled_reason: reason })))).toEqual({
        kind: reason,
      });
    }
  });

  it('follows an action’s follow-up from armed to sent or dropped', () => {
    const text = 'Continue. I have completed: Connect the staging database';
    expect(outcomeOf(entry(armed(2)))).toEqual({
      kind: 'follow_up_pending',
      decision: 'done',
      text,
      queued: false,
    });
    expect(outcomeOf(entry(armed(4, { status: 'due', queued: true })))).toEqual(
      expect.objectContaining({ kind: 'follow_up_pending', queued: true }),
    );
    expect(outcomeOf(entry(armed(5, { status: 'settled', settled_reason: 'dispatched' })))).toEqual(
      { kind: 'follow_up_sent', decision: 'done', text },
    );
    expect(outcomeOf(entry(armed(5, { status: 'settled', settled_reason: 'rejected' })))).toEqual({
      kind: 'follow_up_dropped',
      decision: 'done',
      text,
    });
    expect(outcomeOf(entry(action(2, { status: 'settled', settled_reason: 'timed_out' })))).toEqual(
      { kind: 'timed_out' },
    );
  });

  it('links only http and https URLs', () => {
    expect(safeHttpUrl('https://example.com/connect')).toBe('https://example.com/connect');
    expect(safeHttpUrl('http://localhost:8080/x')).toBe('http://localhost:8080/x');
    expect(safeHttpUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeHttpUrl('data:text/html,hi')).toBeUndefined();
    expect(safeHttpUrl('not a url')).toBeUndefined();
    expect(safeHttpUrl(null)).toBeUndefined();
  });

  it('counts down as m:ss, and h:mm:ss from an hour', () => {
    expect(formatRemaining(299_001)).toBe('5:00');
    expect(formatRemaining(61_000)).toBe('1:01');
    expect(formatRemaining(3_600_000 + 5_000)).toBe('1:00:05');
    expect(formatRemaining(-5)).toBe('0:00');
  });
});

// ---------------------------------------------------------------- the wiring in ModelSync

class FakeSocket implements SocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: string[] = [];
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.onclose?.({});
  }
  frame(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function ok<T>(value: T): Promise<ApiResult<T>> {
  return Promise.resolve({ ok: true, status: 200, value });
}

type Snapshot = Promise<ApiResult<{ requests: UserInputView[] }>>;

function fakeApi(snapshot: () => Snapshot): ApiClient {
  return {
    me: () => Promise.reject(new Error('unused')),
    signOut: () => Promise.reject(new Error('unused')),
    tasks: () => ok({ tasks: [], next_cursor: null }),
    deleteTask: () => Promise.reject(new Error('unused')),
    sessions: () => ok({ sessions: [] }),
    cancelTurn: () => Promise.reject(new Error('unused')),
    deleteSession: () => Promise.reject(new Error('unused')),
    pending: () => ok({ bundles: [], next_cursor: null }),
    question: () => Promise.reject(new Error('unused')),
    cancelQuestion: () => Promise.reject(new Error('unused')),
    messages: () => ok({ messages: [], next_cursor: null }),
    sendMessage: () => Promise.reject(new Error('unused')),
    queue: () => ok({ items: [] }),
    removeQueued: () => Promise.reject(new Error('unused')),
    clearQueue: () => Promise.reject(new Error('unused')),
    reorderQueue: () => Promise.reject(new Error('unused')),
    editQueued: () => Promise.reject(new Error('unused')),
    userInputs: snapshot,
    respondUserInput: () => Promise.reject(new Error('unused')),
    decisions: () => Promise.reject(new Error('unused')),
  };
}

function userInputEvent(
  type: 'user_input.requested' | 'user_input.armed' | 'user_input.settled',
  request: UserInputView,
): ClarionEvent {
  return {
    type,
    request,
    session_id: request.session_id,
    task_id: request.task_id,
    revision: request.revision,
    pending_action: request.status === 'awaiting' ? request.kind : null,
  };
}

async function settle(): Promise<void> {
  for (let index = 0; index < 10; index++) await Promise.resolve();
}

describe('ModelSync with user inputs', () => {
  function setup(
    snapshot: () => Snapshot = () => ok({ requests: [] }),
    api: Partial<ApiClient> = {},
  ) {
    const socket = new FakeSocket();
    const model = new ReadModel();
    const userInputs = new UserInputModel();
    const sync = new ModelSync({
      model,
      userInputs,
      api: { ...fakeApi(snapshot), ...api },
      openSocket: () => socket,
      setTimer: () => undefined,
      clearTimer: () => undefined,
    });
    return { socket, model, userInputs, sync };
  }

  it('subscribes first and fetches the snapshot only once the subscription is confirmed', async () => {
    let fetched = 0;
    const { socket, sync } = setup(() => {
      fetched++;
      return ok({ requests: [] });
    });
    sync.start();
    socket.onopen?.({});
    expect(JSON.parse(socket.sent[0] ?? '{}')).toEqual({ type: 'subscribe', all: true });
    await settle();
    expect(fetched).toBe(0);
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(fetched).toBe(1);
    sync.stop();
  });

  it('neither loses nor applies twice an event that arrives between subscribe and snapshot', async () => {
    const snapshot = deferred<ApiResult<{ requests: UserInputView[] }>>();
    const { socket, userInputs, sync } = setup(() => snapshot.promise);
    let notified = 0;
    userInputs.subscribe(() => {
      notified++;
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    // The request is created and answered while the snapshot is in flight.
    socket.frame({ type: 'event', event: userInputEvent('user_input.requested', action(1)) });
    socket.frame({ type: 'event', event: userInputEvent('user_input.armed', armed(2)) });
    socket.frame({ type: 'event', event: userInputEvent('user_input.armed', armed(2)) });
    const afterEvents = notified;
    expect(afterEvents).toBe(3); // subscribed, requested, armed; the repeat changed nothing
    // The snapshot was read on the server before the answer.
    snapshot.resolve({ ok: true, status: 200, value: { requests: [action(1)] } });
    await settle();
    // Once, for the first read's record of what already waited; the request is not reapplied.
    expect(notified).toBe(afterEvents + 1);
    const state = userInputs.getState();
    expect(state.firstRead).toEqual({ 'action-1': true });
    expect(Object.keys(state.requests)).toEqual(['action-1']);
    expect(state.requests['action-1']?.view.status).toBe('armed');
    sync.stop();
  });

  it('drops a deleted task, its session and open requests; nothing older brings them back', async () => {
    const task = {
      id: T,
      workspace_id: 'w',
      title: 'Parser',
      created_by: null,
      created_at: 'a',
      updated_at: 'a',
    };
    // The task list as read before the delete, whenever it is read.
    const { socket, model, userInputs, sync } = setup(undefined, {
      tasks: () => ok({ tasks: [task], next_cursor: null }),
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    const state = (revision: number): ClarionEvent => ({
      type: 'session.state_changed',
      state: 'waiting_for_input',
      session_id: S,
      task_id: T,
      revision,
      pending_action: 'action',
    });
    socket.frame({ type: 'event', event: state(3) });
    socket.frame({ type: 'event', event: userInputEvent('user_input.requested', action(1)) });
    expect(model.getState().tasks[T]).toBeDefined();
    expect(waitingRequests(userInputs.getState())).toHaveLength(1);

    socket.frame({
      type: 'event',
      event: {
        type: 'task.deleted',
        session_id: S,
        task_id: T,
        workspace_id: 'w',
        revision: 4,
        pending_action: null,
      },
    });
    expect(model.getState().tasks[T]).toBeUndefined();
    expect(model.getState().sessions[S]).toBeUndefined();
    expect(model.getState().missing[S]).toBe(true);
    expect(waitingRequests(userInputs.getState())).toEqual([]);

    // An event relayed late, and the stale task list again.
    socket.frame({ type: 'event', event: state(2) });
    await sync.refresh();
    expect(model.getState().sessions[S]).toBeUndefined();
    expect(model.getState().tasks[T]).toBeUndefined();
    sync.stop();
  });

  it('reads the lists again when the person’s workspaces change', async () => {
    const task = {
      id: T,
      workspace_id: 'w',
      title: 'Parser',
      created_by: null,
      created_at: 'a',
      updated_at: 'a',
    };
    let tasks = [task];
    const { socket, model, sync } = setup(undefined, {
      tasks: () => ok({ tasks, next_cursor: null }),
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(model.getState().tasks[T]).toBeDefined();

    // Removed from the task's workspace: the task list no longer has it.
    tasks = [];
    socket.frame({ type: 'access_changed', ended: [], all: true });
    await settle();
    expect(model.getState().tasks[T]).toBeUndefined();
    sync.stop();
  });

  it('tells views that read memberships themselves when the person’s workspaces change', () => {
    const { socket, sync } = setup();
    const heard: string[] = [];
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    // Listening from after the subscription: only a change of access tells it.
    const stop = sync.onAccessChanged(() => heard.push('people page'));
    socket.frame({ type: 'event', event: userInputEvent('user_input.requested', action(1)) });
    expect(heard).toEqual([]);
    socket.frame({ type: 'access_changed', ended: [], all: true });
    expect(heard).toEqual(['people page']);
    stop();
    socket.frame({ type: 'access_changed', ended: [], all: true });
    expect(heard).toEqual(['people page']);
    sync.stop();
  });

  it('reads every page of the task list before it replaces the model’s', async () => {
    const task = (id: string) => ({
      id,
      workspace_id: 'w',
      title: id,
      created_by: null,
      created_at: 'a',
      updated_at: 'a',
    });
    const asked: (string | undefined)[] = [];
    const { socket, model, sync } = setup(undefined, {
      tasks: (cursor) => {
        asked.push(cursor);
        return cursor === undefined
          ? ok({ tasks: [task('t1')], next_cursor: 'after-t1' })
          : ok({ tasks: [task('t2')], next_cursor: null });
      },
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(asked).toEqual([undefined, 'after-t1']);
    expect(Object.keys(model.getState().tasks).sort()).toEqual(['t1', 't2']);
    sync.stop();
  });

  it('keeps user-input revisions out of session revisions; queue.changed moves the session revision', () => {
    const { socket, model, sync } = setup();
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    socket.frame({
      type: 'event',
      event: {
        type: 'session.state_changed',
        state: 'running',
        session_id: S,
        task_id: T,
        revision: 40,
        pending_action: null,
      },
    });
    socket.frame({
      type: 'event',
      event: userInputEvent('user_input.settled', settledConsent(41)),
    });
    expect(model.getState().sessions[S]?.revision).toBe(40);
    expect(model.getState().sessions[S]?.pending_action).toBeNull();
    socket.frame({
      type: 'event',
      event: {
        type: 'queue.changed',
        session_id: S,
        task_id: T,
        revision: 41,
        pending_action: 'action',
      },
    });
    // The queue list reloads on the revision it moved, as on any session change.
    expect(model.getState().sessions[S]?.revision).toBe(41);
    expect(model.getState().sessions[S]?.pending_action).toBe('action');
    sync.stop();
  });
});

describe('ModelSync with pending bundles', () => {
  type Pending = ApiResult<{ bundles: PendingBundle[]; next_cursor: string | null }>;
  const bundle: PendingBundle = {
    pending_id: 'pending-b',
    task_id: T,
    session_id: S,
    turn_id: 'turn-1',
    created_at: '2026-01-01T00:00:01.000000000Z',
    context: '',
    detached: false,
    questions: [
      {
        question_id: 'q1',
        title: 'T',
        prompt: 'Which?',
        multi_select: false,
        status: 'pending',
        options: [{ option_id: 'a', label: 'Alpha', description: '' }],
      },
    ],
  };
  const asked: ClarionEvent = {
    type: 'message.added',
    session_id: S,
    task_id: T,
    revision: 3,
    pending_action: 'clarification',
    message: {
      id: 'row-b',
      session_id: S,
      task_id: T,
      turn_id: 'turn-1',
      type: 'clarification_request',
      author: 'agent',
      content: 'Which?',
      metadata: {
        pending_id: 'pending-b',
        question_id: 'q1',
        question: { id: 'q1', title: 'T', prompt: 'Which?', options: [] },
        question_index: 0,
        question_total: 1,
        status: 'pending',
      },
      requests_input: true,
      created_at: '2026-01-01T00:00:01.000000000Z',
      updated_at: '2026-01-01T00:00:01.000000000Z',
    },
  };

  it('drops a pending list that outlived its subscription: a question asked meanwhile stays shown', async () => {
    const socket = new FakeSocket();
    const model = new ReadModel();
    const lists = [deferred<Pending>(), deferred<Pending>()];
    let requested = 0;
    let reconnect: (() => void) | undefined;
    const sync = new ModelSync({
      model,
      userInputs: new UserInputModel(),
      api: {
        ...fakeApi(() => ok({ requests: [] })),
        pending: () => lists[requested++]?.promise ?? Promise.reject(new Error('unexpected')),
      },
      openSocket: () => socket,
      setTimer: (callback) => {
        reconnect = callback;
      },
      clearTimer: () => undefined,
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    // Question B arrives by event while list 1 is in flight; then the socket drops.
    socket.frame({ type: 'event', event: asked });
    socket.close();
    reconnect?.();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(requested).toBe(2);
    // List 1, read before B was asked, answers late; list 2 lists B.
    lists[0]?.resolve({ ok: true, status: 200, value: { bundles: [], next_cursor: null } });
    await settle();
    lists[1]?.resolve({ ok: true, status: 200, value: { bundles: [bundle], next_cursor: null } });
    await settle();
    expect(activeBundleOfSession(model.getState(), S)?.pending_id).toBe('pending-b');
    sync.stop();
  });

  it('forgets what waits in a workspace the person lost, and shows it again once given back', async () => {
    const socket = new FakeSocket();
    const model = new ReadModel();
    const userInputs = new UserInputModel();
    let seen = true;
    const sync = new ModelSync({
      model,
      userInputs,
      api: {
        ...fakeApi(() => ok({ requests: seen ? [consent(1)] : [] })),
        pending: () => ok({ bundles: seen ? [bundle] : [], next_cursor: null }),
      },
      openSocket: () => socket,
      setTimer: () => undefined,
      clearTimer: () => undefined,
    });
    sync.start();
    socket.onopen?.({});
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(activeBundleOfSession(model.getState(), S)?.pending_id).toBe('pending-b');
    expect(waitingIds(userInputs.getState())).toEqual(['consent-1']);

    // Removed from its workspace, the socket still open: both lists leave them out.
    seen = false;
    socket.frame({ type: 'access_changed', ended: [], all: true });
    await settle();
    // Gone from every list, not ended: nothing says how they end for anyone else.
    expect(model.getState().bundles['pending-b']).toBeUndefined();
    expect(userInputs.getState().requests['consent-1']).toBeUndefined();
    expect(userInputs.getState().finished).toEqual([]);

    seen = true;
    socket.frame({ type: 'access_changed', ended: [], all: true });
    await settle();
    expect(activeBundleOfSession(model.getState(), S)?.pending_id).toBe('pending-b');
    expect(waitingIds(userInputs.getState())).toEqual(['consent-1']);

    // A reconnect that finds them gone still retires them: they ended while nobody listened.
    seen = false;
    socket.frame({ type: 'subscribed', sessions: [], all: true, refused: [] });
    await settle();
    expect(model.getState().bundles['pending-b']?.questions.get('q1')?.status).toBe('expired');
    expect(userInputs.getState().requests['consent-1']?.retired).toBe(true);
    sync.stop();
  });
});

// ---------------------------------------------------------------- respond

describe('postUserInputAnswer', () => {
  function answering(result: ApiResult<{ request: UserInputView }> | Error) {
    return {
      respondUserInput: () =>
        result instanceof Error ? Promise.reject(result) : Promise.resolve(result),
    };
  }
  const http = (status: number, code: string): ApiResult<{ request: UserInputView }> => ({
    ok: false,
    kind: 'http',
    status,
    code,
    error: code,
  });

  it('maps the server’s answers to what the card does next', async () => {
    const view = settledConsent(2, { selected_option_id: 'allow-once' });
    await expect(
      postUserInputAnswer(answering({ ok: true, status: 200, value: { request: view } }), view.id, {
        option_id: 'allow-once',
      }),
    ).resolves.toEqual({ kind: 'answered', request: view });
    // A form's reply is its view too: a sent form is answered, not an error to retry.
    const form: FormView = {
      id: 'form-1',
      kind: 'form',
      session_id: S,
      task_id: T,
      status: 'settled',
      revision: 2,
      created_at: '2026-01-01T00:00:03.000Z',
      deadline_at: null,
      settled_reason: 'human',
      responded_by: { user_id: 'user-1', name: 'Ada', surface: 'web' },
      title: 'Deploy settings',
      message: 'Which region?',
      schema: { type: 'object', properties: {} },
      decision: 'decline',
      content: null,
    };
    await expect(
      postUserInputAnswer(answering({ ok: true, status: 200, value: { request: form } }), form.id, {
        decision: 'decline',
      }),
    ).resolves.toEqual({ kind: 'answered', request: form });
    const cases: [ApiResult<{ request: UserInputView }>, string][] = [
      [http(409, 'conflict'), 'already_settled'],
      [http(404, 'not_found'), 'gone'],
      [http(503, 'unavailable'), 'retryable'],
      [http(500, 'internal'), 'retryable'],
      [{ ok: false, kind: 'network', error: 'offline' }, 'retryable'],
      [http(400, 'invalid_request'), 'refused'],
      // A 200 without the request's view is not trusted.
      [{ ok: true, status: 200, value: { request: action(1) } }, 'retryable'],
    ];
    for (const [result, kind] of cases) {
      const outcome = await postUserInputAnswer(answering(result), 'consent-1', {
        option_id: 'allow-once',
      });
      expect(outcome.kind, JSON.stringify(result)).toBe(kind);
    }
  });

  it('aborts an attempt at the client deadline and clears its timer on every path', async () => {
    const scheduled: { callback: () => void; cleared: boolean }[] = [];
    const timers: Timers = {
      setTimeout: (callback) => {
        const handle = { callback, cleared: false };
        scheduled.push(handle);
        return handle;
      },
      clearTimeout: (handle) => {
        (handle as { cleared: boolean }).cleared = true;
      },
    };
    let seen: AbortSignal | undefined;
    const api = {
      respondUserInput: (_id: string, _answer: unknown, signal?: AbortSignal) => {
        seen = signal;
        return new Promise<ApiResult<{ request: UserInputView }>>((resolve) => {
          signal?.addEventListener('abort', () => {
            resolve({ ok: false, kind: 'network', error: 'aborted' });
          });
        });
      },
    };
    const attempt = postUserInputAnswer(api, 'action-1', { decision: 'done' }, { timers });
    expect(seen?.aborted).toBe(false);
    scheduled[0]?.callback();
    await expect(attempt).resolves.toEqual({ kind: 'retryable' });
    expect(scheduled[0]?.cleared).toBe(true);
  });
});

function fail(): never {
  throw new Error('missing entry');
}
