/**
 * What `ModelSync` does when the events socket closes, by why it closed: an
 * ordinary drop reconnects; 1008 (the sign-in ended), 4409 (another tab
 * signed the browser in as someone else) and a 401 before
 * reconnecting hand over to `credentialEnded` and never reconnect; 4403 (no
 * workspace left) stops on `no_workspace` until `start()`. And when a
 * snapshot read after subscribing fails: one that may pass closes the socket
 * so the reconnect reads everything again, with backoff. Timers are
 * injected, so every reconnect is one the test fires.
 */
import { describe, expect, it } from 'vitest';
import { Account } from '../../web/src/model/account.js';
import type { ApiClient, ApiResult, Me } from '../../web/src/model/api.js';
import type { PendingBundle, TaskView } from '../../web/src/model/types.js';
import { ReadModel } from '../../web/src/model/read-model.js';
import { HEARTBEAT_IDLE_MS, HEARTBEAT_REPLY_MS } from '../../web/src/model/heartbeat.js';
import { ModelSync, type SocketLike } from '../../web/src/model/sync.js';
import { UserInputModel } from '../../web/src/model/user-inputs.js';
import {
  EVENTS_CLOSE_CREDENTIAL_REVOKED,
  EVENTS_CLOSE_NO_WORKSPACE,
  EVENTS_CLOSE_SESSION_CHANGED,
} from '../../src/wire/constants.js';

class FakeSocket implements SocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: string[] = [];
  /** A dead connection: the browser holds its close back until the handshake times out. */
  dead = false;
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    if (!this.dead) this.onclose?.({ code: 1005 });
  }
  /** The server (or the network) closed it. */
  closedWith(code: number): void {
    this.onclose?.({ code });
  }
}

const ME: Me = { user: { id: 'u1', name: 'alice', is_admin: false }, kind: 'browser' };

function ok<T>(value: T): Promise<ApiResult<T>> {
  return Promise.resolve({ ok: true, status: 200, value });
}

const unauthorized: ApiResult<Me> = {
  ok: false,
  kind: 'http',
  status: 401,
  code: 'unauthorized',
  error: 'sign in',
};

function fakeApi(me: () => Promise<ApiResult<Me>>, reads: Partial<ApiClient> = {}): ApiClient {
  const unused = () => Promise.reject(new Error('unused'));
  return {
    me,
    signOut: unused,
    tasks: () => ok({ tasks: [], next_cursor: null }),
    deleteTask: unused,
    sessions: () => ok({ sessions: [] }),
    cancelTurn: unused,
    deleteSession: unused,
    pending: () => ok({ bundles: [], next_cursor: null }),
    question: unused,
    cancelQuestion: unused,
    messages: () => ok({ messages: [], next_cursor: null }),
    sendMessage: unused,
    queue: () => ok({ items: [] }),
    removeQueued: unused,
    clearQueue: unused,
    reorderQueue: unused,
    editQueued: unused,
    userInputs: () => ok({ requests: [] }),
    respondUserInput: unused,
    decisions: unused,
    ...reads,
  };
}

async function settle(): Promise<void> {
  for (let index = 0; index < 10; index++) await Promise.resolve();
}

function setup(me: () => Promise<ApiResult<Me>> = () => ok(ME), reads: Partial<ApiClient> = {}) {
  const sockets: FakeSocket[] = [];
  const timers: { callback: () => void; ms: number }[] = [];
  const account = new Account();
  account.signedIn(ME);
  const model = new ReadModel();
  const sync = new ModelSync({
    model,
    userInputs: new UserInputModel(),
    api: fakeApi(me, reads),
    openSocket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    setTimer: (callback, ms) => {
      const timer = { callback, ms };
      timers.push(timer);
      return timer;
    },
    clearTimer: (handle) => {
      const index = timers.indexOf(handle as (typeof timers)[number]);
      if (index !== -1) timers.splice(index, 1);
    },
    credentialEnded: () => {
      account.signedOut();
    },
  });
  /** Fires the reconnect timers waiting now. */
  const fireTimers = async () => {
    for (const timer of timers.splice(0)) timer.callback();
    await settle();
  };
  return { sockets, timers, account, model, sync, fireTimers };
}

describe('ModelSync when the events socket closes', () => {
  it('reconnects after an ordinary drop', async () => {
    const { sockets, model, sync, fireTimers, account } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.closedWith(1012);
    expect(model.getState().connection).toBe('offline');
    await fireTimers();
    expect(sockets).toHaveLength(2);
    expect(account.getState().status).toBe('signed_in');
    sync.stop();
  });

  it.each([
    ['1008, the sign-in ended', EVENTS_CLOSE_CREDENTIAL_REVOKED],
    ['4409, the cookie signs in someone else', EVENTS_CLOSE_SESSION_CHANGED],
  ])('on %s: signed out, and no reconnect is ever scheduled', async (_, code) => {
    const { sockets, timers, sync, fireTimers, account } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.closedWith(code);
    expect(account.getState()).toEqual({ status: 'signed_out', ended: true });
    expect(timers).toHaveLength(0);
    await fireTimers();
    expect(sockets).toHaveLength(1);
  });

  it('a socket refused before it opened asks /me; a 401 there signs out instead of retrying', async () => {
    let asked = 0;
    const { sockets, timers, sync, fireTimers, account } = setup(() => {
      asked++;
      return Promise.resolve(unauthorized);
    });
    sync.start();
    // How a browser shows an upgrade refused with 401: an abnormal close, never an open.
    sockets[0]?.closedWith(1006);
    await fireTimers();
    expect(asked).toBe(1);
    expect(account.getState()).toEqual({ status: 'signed_out', ended: true });
    expect(sockets).toHaveLength(1);
    expect(timers).toHaveLength(0);
  });

  it('a socket refused before it opened, with the sign-in still good, reconnects', async () => {
    const { sockets, sync, fireTimers, account } = setup();
    sync.start();
    sockets[0]?.closedWith(1006);
    await fireTimers();
    expect(sockets).toHaveLength(2);
    expect(account.getState().status).toBe('signed_in');
    sync.stop();
  });

  it('a network failure of /me is the outage being waited out: it reconnects', async () => {
    const { sockets, sync, fireTimers } = setup(() =>
      Promise.resolve({ ok: false, kind: 'network', error: 'down' }),
    );
    sync.start();
    sockets[0]?.closedWith(1006);
    await fireTimers();
    expect(sockets).toHaveLength(2);
    sync.stop();
  });

  it('on 4403 it says no_workspace and waits for start() instead of looping', async () => {
    const { sockets, timers, model, sync, fireTimers, account } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.closedWith(EVENTS_CLOSE_NO_WORKSPACE);
    expect(model.getState().connection).toBe('no_workspace');
    expect(timers).toHaveLength(0);
    await fireTimers();
    expect(sockets).toHaveLength(1);
    expect(account.getState().status).toBe('signed_in');
    sync.start();
    expect(sockets).toHaveLength(2);
    sync.stop();
  });
});

describe('Account', () => {
  it('goes signed out once, and a late sign-in check never signs it back in', () => {
    const account = new Account();
    let notified = 0;
    account.subscribe(() => {
      notified++;
    });
    account.signedOut();
    account.signedOut();
    account.signedIn(ME);
    expect(account.getState()).toEqual({ status: 'signed_out', ended: false });
    expect(notified).toBe(1);
  });
});

describe('ModelSync when a snapshot read fails', () => {
  const unavailable = {
    ok: false,
    kind: 'http',
    status: 503,
    code: 'storage_unavailable',
    error: 'try again',
  } as const;
  const BUNDLE = {
    pending_id: 'p1',
    task_id: 't1',
    session_id: 's1',
    created_at: '2026-01-01T00:00:00.000000000Z',
    questions: [],
  } as unknown as PendingBundle;

  function subscribe(socket: FakeSocket | undefined): void {
    socket?.onopen?.({});
    socket?.onmessage?.({ data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }) });
  }

  it('one that may pass closes the socket, and the reconnect reads the snapshots again', async () => {
    const answers: ApiResult<{ bundles: PendingBundle[]; next_cursor: null }>[] = [
      unavailable,
      { ok: false, kind: 'network', error: 'offline' },
      { ok: true, status: 200, value: { bundles: [BUNDLE], next_cursor: null } },
    ];
    const { sockets, timers, model, sync, fireTimers } = setup(undefined, {
      pending: () => Promise.resolve(answers.shift() ?? unavailable),
    });
    sync.start();
    subscribe(sockets[0]);
    await settle();
    expect(model.getState().connection).toBe('offline');
    expect(timers.map((timer) => timer.ms)).toEqual([500]);

    await fireTimers();
    subscribe(sockets[1]);
    await settle();
    // The backoff grows while the reads keep failing: the server is not hammered.
    expect(timers.map((timer) => timer.ms)).toEqual([1_000]);

    await fireTimers();
    subscribe(sockets[2]);
    await settle();
    expect(model.getState().connection).toBe('live');
    expect(Object.keys(model.getState().bundles)).toEqual(['p1']);
    // No reconnect waits: the only timer is the live socket's heartbeat.
    expect(timers.map((timer) => timer.ms)).toEqual([HEARTBEAT_IDLE_MS]);

    // A complete read starts the backoff over.
    sockets[2]?.closedWith(1012);
    expect(timers.map((timer) => timer.ms)).toEqual([500]);
    sync.stop();
  });

  it.each([
    ['the user-input list', { userInputs: () => Promise.resolve(unavailable) }],
    ['a task’s sessions', { sessions: () => Promise.resolve(unavailable) }],
    ['an open transcript', { messages: () => Promise.resolve(unavailable) }],
  ])('%s failing closes the socket too', async (_, reads: Partial<ApiClient>) => {
    const { sockets, model, sync } = setup(undefined, {
      tasks: () =>
        ok({
          tasks: [{ id: 't1', title: 'T' } as unknown as TaskView],
          next_cursor: null,
        }),
      ...reads,
    });
    sync.start();
    sync.openSession('s1');
    subscribe(sockets[0]);
    await settle();
    expect(model.getState().connection).toBe('offline');
    sync.stop();
  });

  it('a refusal reading again cannot mend leaves the socket live', async () => {
    const { sockets, timers, model, sync } = setup(undefined, {
      pending: () => Promise.resolve({ ...unavailable, status: 403, code: 'forbidden' }),
    });
    sync.start();
    subscribe(sockets[0]);
    await settle();
    expect(model.getState().connection).toBe('live');
    expect(timers.map((timer) => timer.ms)).toEqual([HEARTBEAT_IDLE_MS]);
    sync.stop();
  });
});

describe('ModelSync when an event names a task it does not list', () => {
  it.each([
    ['a created session’s state (a task made without a prompt)', 'session.state_changed'],
    ['a first message', 'message.added'],
  ])('reads the task list on %s', async (_, type) => {
    let taskReads = 0;
    const { sockets, model, sync } = setup(undefined, {
      tasks: () => {
        taskReads++;
        return ok({
          tasks:
            taskReads > 1 ? [{ id: 't2', title: 'Made elsewhere' } as unknown as TaskView] : [],
          next_cursor: null,
        });
      },
    });
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await settle();
    expect(taskReads).toBe(1);
    const event = {
      type,
      session_id: 's2',
      task_id: 't2',
      revision: 0,
      pending_action: null,
      ...(type === 'session.state_changed'
        ? { state: 'idle' }
        : {
            message: {
              id: 'm1',
              session_id: 's2',
              role: 'user',
              kind: 'text',
              content: 'hi',
              created_at: '2026-01-01T00:00:00.000000000Z',
            },
          }),
    };
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'event', event }) });
    await settle();
    expect(taskReads).toBe(2);
    expect(model.getState().tasks.t2?.title).toBe('Made elsewhere');
    sync.stop();
  });
});

describe('ModelSync reading the task list while it changes', () => {
  function messageAdded(id: string) {
    return JSON.stringify({
      type: 'event',
      event: {
        type: 'message.added',
        session_id: 's2',
        task_id: 't2',
        revision: 0,
        pending_action: null,
        message: {
          id,
          session_id: 's2',
          role: 'user',
          kind: 'text',
          content: 'hi',
          created_at: '2026-01-01T00:00:00.000000000Z',
        },
      },
    });
  }

  /** A sync past its first subscription whose task list reads wait for the test to answer. */
  async function heldTaskReads() {
    type TaskList = ApiResult<{ tasks: TaskView[]; next_cursor: string | null }>;
    const answers: ((tasks: TaskView[]) => void)[] = [];
    let first = true;
    const world = setup(undefined, {
      tasks: () => {
        if (first) {
          first = false;
          return ok({ tasks: [], next_cursor: null });
        }
        return new Promise<TaskList>((resolve) => {
          answers.push((tasks) => {
            resolve({ ok: true, status: 200, value: { tasks, next_cursor: null } });
          });
        });
      },
    });
    world.sync.start();
    world.sockets[0]?.onopen?.({});
    world.sockets[0]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await settle();
    return { ...world, answers };
  }

  const made = { id: 't2', title: 'Made elsewhere' } as unknown as TaskView;

  it('never lets a list read before a task was made drop it', async () => {
    const { sockets, model, sync, answers } = await heldTaskReads();
    // A read after the person's own change leaves before the task is made elsewhere...
    void sync.refresh();
    await settle();
    // ...and the task's first event comes while that read is still out.
    sockets[0]?.onmessage?.({ data: messageAdded('m1') });
    await settle();
    // The newest read answers first; the one that left before the task answers last.
    let answered = answers.length;
    for (let index = answers.length - 1; index >= 0; index--) {
      answers[index]?.(index === 0 ? [] : [made]);
      await settle();
    }
    // Any read that follows finds the task.
    while (answered < answers.length) {
      answers[answered++]?.([made]);
      await settle();
    }
    expect(model.getState().tasks.t2?.title).toBe('Made elsewhere');
    sync.stop();
  });

  it('reads the list once more for a burst of events, not once per event', async () => {
    const { sockets, model, sync, answers } = await heldTaskReads();
    for (const id of ['m1', 'm2', 'm3', 'm4']) sockets[0]?.onmessage?.({ data: messageAdded(id) });
    await settle();
    answers[0]?.([made]);
    await settle();
    answers[1]?.([made]);
    await settle();
    expect(answers.length).toBeLessThanOrEqual(2);
    expect(model.getState().tasks.t2?.title).toBe('Made elsewhere');
    sync.stop();
  });
});

describe('ModelSync reading many tasks’ sessions', () => {
  it('reads them a few at a time, so a person’s answer never queues behind hundreds', async () => {
    let inFlight = 0;
    let most = 0;
    const read: string[] = [];
    const tasks = Array.from(
      { length: 30 },
      (_, index) => ({ id: `t${String(index)}`, title: 'T' }) as unknown as TaskView,
    );
    const { sockets, sync } = setup(undefined, {
      tasks: () => ok({ tasks, next_cursor: null }),
      sessions: async (taskId) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        read.push(taskId);
        return { ok: true, status: 200, value: { sessions: [] } };
      },
    });
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await eventuallyTrue(() => read.length === tasks.length);
    expect(most).toBeLessThanOrEqual(4);
    expect(new Set(read).size).toBe(tasks.length);
    sync.stop();
  });
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 500 && !check(); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  expect(check()).toBe(true);
}

describe('ModelSync.resync, for a page back from sleep or offline', () => {
  it('closes a socket that still looks open, and the reconnect reads everything again', async () => {
    let pendingReads = 0;
    const { sockets, timers, model, sync, fireTimers } = setup(undefined, {
      pending: () => {
        pendingReads++;
        return ok({ bundles: [], next_cursor: null });
      },
    });
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await settle();
    expect(pendingReads).toBe(1);

    sync.resync();
    expect(model.getState().connection).toBe('offline');
    expect(timers).toHaveLength(1);
    await fireTimers();
    sockets[1]?.onopen?.({});
    sockets[1]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await settle();
    expect(pendingReads).toBe(2);
    expect(model.getState().connection).toBe('live');
    sync.stop();
  });

  it('leaves a dead socket at once instead of waiting for a close that may take a minute', async () => {
    const { sockets, timers, model, sync, fireTimers } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    if (sockets[0]) sockets[0].dead = true;
    sync.resync();
    expect(model.getState().connection).toBe('offline');
    expect(timers.map((timer) => timer.ms)).toEqual([500]);
    await fireTimers();
    expect(sockets).toHaveLength(2);
    sync.stop();
  });

  it('connects at once instead of waiting out a backoff, and does nothing once stopped', () => {
    const { sockets, timers, sync } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.closedWith(1006);
    expect(timers).toHaveLength(1);
    sync.resync();
    expect(sockets).toHaveLength(2);
    sync.stop();
    sync.resync();
    expect(sockets).toHaveLength(2);
  });
});

describe('ModelSync’s heartbeat, for a socket that died without a close', () => {
  const pings = (socket: FakeSocket | undefined) =>
    (socket?.sent ?? []).filter((frame) => frame === '{"type":"ping"}').length;

  async function live() {
    const world = setup();
    world.sync.start();
    world.sockets[0]?.onopen?.({});
    world.sockets[0]?.onmessage?.({
      data: JSON.stringify({ type: 'subscribed', all: true, sessions: [] }),
    });
    await settle();
    expect(world.model.getState().connection).toBe('live');
    return world;
  }

  it('pings a silent socket, and one that leaves it unanswered is left at once and replaced', async () => {
    const { sockets, timers, model, sync, fireTimers } = await live();
    const [first] = sockets;
    if (first === undefined) throw new Error('no socket');
    first.dead = true;
    expect(timers.map((timer) => timer.ms)).toEqual([HEARTBEAT_IDLE_MS]);
    await fireTimers();
    expect(pings(first)).toBe(1);
    expect(model.getState().connection).toBe('live');

    expect(timers.map((timer) => timer.ms)).toEqual([HEARTBEAT_REPLY_MS]);
    await fireTimers();
    // Offline now, not once the dead socket's close comes, which it never does here.
    expect(model.getState().connection).toBe('offline');
    expect(timers.map((timer) => timer.ms)).toEqual([500]);
    await fireTimers();
    expect(sockets).toHaveLength(2);

    // A close the browser reports late changes nothing.
    first.closedWith(1006);
    expect(model.getState().connection).toBe('connecting');
    expect(timers).toHaveLength(0);
    sync.stop();
  });

  it('keeps a socket whose ping is answered, and pings again only after the next silence', async () => {
    const { sockets, timers, model, sync, fireTimers } = await live();
    await fireTimers();
    expect(pings(sockets[0])).toBe(1);
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'pong' }) });
    expect(timers.map((timer) => timer.ms)).toEqual([HEARTBEAT_IDLE_MS]);
    expect(model.getState().connection).toBe('live');
    expect(sockets).toHaveLength(1);
    sync.stop();
    expect(timers).toHaveLength(0);
  });

  it('counts any frame as life: events heard put the next ping off', async () => {
    const { sockets, timers, sync } = await live();
    const event = {
      type: 'event',
      event: {
        type: 'queue.changed',
        session_id: 's1',
        task_id: 't1',
        revision: 1,
        pending_action: null,
      },
    };
    const [before] = timers;
    sockets[0]?.onmessage?.({ data: JSON.stringify(event) });
    expect(timers).toHaveLength(1);
    expect(timers[0]).not.toBe(before);
    expect(pings(sockets[0])).toBe(0);
    sync.stop();
  });
});

describe('ModelSync and the lists no snapshot holds', () => {
  const subscribed = JSON.stringify({ type: 'subscribed', sessions: [], all: true, refused: [] });

  function listening(sync: ModelSync) {
    const heard: string[] = [];
    sync.onConsentRulesChanged(() => heard.push('rules'));
    sync.onPeopleChanged(() => heard.push('people'));
    sync.onAccessChanged(() => heard.push('access'));
    sync.onNotificationsChanged(() => heard.push('notifications'));
    sync.onTokensChanged(() => heard.push('tokens'));
    return heard;
  }

  it('tells each list its own frame, and a list that began after the subscription nothing else', async () => {
    const { sockets, sync } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.onmessage?.({ data: subscribed });
    await settle();
    const heard = listening(sync);
    expect(heard).toEqual([]);
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'consent_rules_changed' }) });
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'people_changed' }) });
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'notifications_changed' }) });
    sockets[0]?.onmessage?.({ data: JSON.stringify({ type: 'tokens_changed' }) });
    expect(heard).toEqual(['rules', 'people', 'notifications', 'tokens']);
    sync.stop();
  });

  it('reads again at the first subscription a list read before it: a change made meanwhile has no frame', async () => {
    const { sockets, sync } = setup();
    // Settings opened by a full load: its tokens are read while the socket still connects.
    let server = ['laptop'];
    let shown: string[] = [];
    const read = () => {
      shown = [...server];
    };
    read();
    sync.onTokensChanged(read);
    sync.start();
    sockets[0]?.onopen?.({});
    // Made in another tab after the read, before this socket's subscription: no frame tells it.
    server = ['laptop', 'ci'];
    sockets[0]?.onmessage?.({ data: subscribed });
    await settle();
    expect(shown).toEqual(['laptop', 'ci']);
    sync.stop();
  });

  it('tells every list after a reconnect: a frame said while it was down is not said again', async () => {
    const { sockets, sync, fireTimers } = setup();
    sync.start();
    sockets[0]?.onopen?.({});
    sockets[0]?.onmessage?.({ data: subscribed });
    await settle();
    const heard = listening(sync);
    sockets[0]?.closedWith(1006);
    await fireTimers();
    sockets[1]?.onopen?.({});
    sockets[1]?.onmessage?.({ data: subscribed });
    await settle();
    expect([...heard].sort()).toEqual(['access', 'notifications', 'people', 'rules', 'tokens']);
    sync.stop();
  });
});
