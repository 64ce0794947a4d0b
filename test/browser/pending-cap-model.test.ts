/**
 * The inbox reads the pending list within a bound (`PENDING_READ_PAGES`
 * pages). A list longer than that used to be cut silently, and worse: every
 * waiting bundle the page knew that the cut-off list did not reach was
 * retired as expired on the next reconnect, though a person could still
 * answer it. A list cut short now retires nothing and says more wait, and
 * once the person answered enough that the inbox shows fewer than one read
 * can, it reads the list again (one read at a time, and none more until they
 * answer more), so what the cut hid shows without a reload.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResult } from '../../web/src/model/api.js';
import { arrivals } from '../../web/src/model/arrivals.js';
import { activeBundles, ReadModel, transitions } from '../../web/src/model/read-model.js';
import { ModelSync, PENDING_READ_PAGES, type SocketLike } from '../../web/src/model/sync.js';
import { triageItems } from '../../web/src/model/triage.js';
import { CLARIFICATION_TYPE, type PendingBundle } from '../../web/src/model/types.js';
import { UserInputModel } from '../../web/src/model/user-inputs.js';

const PAGE = 100;

class FakeSocket implements SocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(): void {
    // The server's replies are the test's to send.
  }
  close(): void {
    this.onclose?.({});
  }
  frame(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

function bundle(n: number): PendingBundle {
  return {
    pending_id: `p-${String(n).padStart(5, '0')}`,
    task_id: 't-1',
    session_id: `s-${String(n)}`,
    turn_id: `turn-${String(n)}`,
    created_at: `2026-01-01T00:00:00.${String(n).padStart(9, '0')}Z`,
    context: '',
    detached: false,
    questions: [
      {
        question_id: 'q1',
        title: '',
        prompt: `question ${String(n)}`,
        multi_select: false,
        status: 'pending',
        options: [],
      },
    ],
  };
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => from + index);
}

function ok<T>(value: T): Promise<ApiResult<T>> {
  return Promise.resolve({ ok: true, status: 200, value });
}

async function settle(): Promise<void> {
  for (let index = 0; index < 200; index++) await Promise.resolve();
}

/** `listed()`: the numbers of the bundles the server lists, in its order. */
/** `held()`: a page's answer the test gives later (undefined: at once); read when asked. */
function setup(
  listed: () => number[],
  refused: () => boolean = () => false,
  held: () => Promise<void> | undefined = () => undefined,
) {
  let socket = new FakeSocket();
  const model = new ReadModel();
  const timers: (() => void)[] = [];
  const reads = { pages: 0 };
  const api = {
    tasks: () => ok({ tasks: [], next_cursor: null }),
    sessions: () => ok({ sessions: [] }),
    userInputs: () => ok({ requests: [] }),
    pending: (cursor?: string) => {
      reads.pages++;
      if (refused()) return Promise.resolve({ ok: false, kind: 'http', status: 403 });
      const all = listed();
      const start = cursor === undefined ? 0 : Number(cursor);
      const end = Math.min(all.length, start + PAGE);
      const bundles = all.slice(start, end).map(bundle);
      const answer = ok({ bundles, next_cursor: end < all.length ? String(end) : null });
      const later = held();
      return later === undefined ? answer : later.then(() => answer);
    },
  } as unknown as ApiClient;
  const userInputs = new UserInputModel();
  const sync = new ModelSync({
    model,
    userInputs,
    api,
    openSocket: () => (socket = new FakeSocket()),
    setTimer: (callback) => timers.push(callback),
    clearTimer: () => undefined,
  });
  const subscribe = async () => {
    socket.onopen?.({});
    socket.frame({ type: 'subscribed' });
    await settle();
  };
  const reconnect = async () => {
    socket.close();
    timers.shift()?.();
    await subscribe();
  };
  /** What the arrivals live region would tell now, as `ArrivalAnnouncer` asks it. */
  const news = (told: ReadonlySet<string> = new Set()) => {
    const state = model.getState();
    const firstReads = { bundles: state.firstRead, requests: userInputs.getState().firstRead };
    return arrivals(triageItems(state, userInputs.getState()), firstReads, told).map(
      (item) => item.key,
    );
  };
  const frame = (sent: unknown) => {
    socket.frame(sent);
  };
  return { model, sync, subscribe, reconnect, reads, news, frame };
}

describe('a pending list longer than the inbox reads', () => {
  it('retires nothing the list did not reach, and says more wait', async () => {
    const known = range(10_000, 50);
    let waiting = known;
    const { model, sync, subscribe, reconnect } = setup(() => waiting);
    sync.start();
    await subscribe();
    expect(activeBundles(model.getState())).toHaveLength(50);
    expect(model.getState().pendingMore).toBe(false);

    // Listed ahead of the 50 the page knows, more than it reads; all 50 still wait.
    waiting = [...range(0, PENDING_READ_PAGES * PAGE), ...known];
    await reconnect();
    const state = model.getState();
    expect(state.pendingMore).toBe(true);
    expect(
      Object.values(state.bundles).every(
        (known) => known.questions.get('q1')?.status === 'pending',
      ),
    ).toBe(true);
    expect(activeBundles(state)).toHaveLength(PENDING_READ_PAGES * PAGE + known.length);
  });

  it('retires what a whole list no longer names, and the note goes', async () => {
    let waiting = range(0, PENDING_READ_PAGES * PAGE + 1);
    const { model, sync, subscribe, reconnect } = setup(() => waiting);
    sync.start();
    await subscribe();
    expect(model.getState().pendingMore).toBe(true);
    waiting = range(0, 10);
    await reconnect();
    const state = model.getState();
    expect(state.pendingMore).toBe(false);
    expect(activeBundles(state)).toHaveLength(10);
  });

  it('reads the list again once the person answered some, and shows what it hid', async () => {
    let waiting = range(0, PENDING_READ_PAGES * PAGE + 50);
    const { model, sync, subscribe, reads } = setup(() => waiting);
    sync.start();
    await subscribe();
    expect(activeBundles(model.getState())).toHaveLength(PENDING_READ_PAGES * PAGE);
    expect(reads.pages).toBe(PENDING_READ_PAGES);

    // The person answers three, as the app records its respond calls.
    const answered = [0, 1, 2];
    waiting = waiting.filter((n) => !answered.includes(n));
    for (const n of answered) {
      model.update((state) => transitions.retireBundle(state, bundle(n).pending_id, 'answered'));
    }
    await settle();
    // One read again, however many answers came while it was out.
    expect(reads.pages).toBe(2 * PENDING_READ_PAGES);
    const ids = activeBundles(model.getState()).map((shown) => shown.pending_id);
    expect(ids).toHaveLength(PENDING_READ_PAGES * PAGE);
    expect(ids).toEqual(expect.arrayContaining(range(2_000, 3).map((n) => bundle(n).pending_id)));
    expect(model.getState().pendingMore).toBe(true);

    // Then the person answers all but 40: the list, read once more, is whole, and the note goes.
    const kept = new Set(waiting.slice(0, 40).map((n) => bundle(n).pending_id));
    waiting = waiting.slice(0, 40);
    for (const id of ids.filter((shown) => !kept.has(shown))) {
      model.update((state) => transitions.retireBundle(state, id, 'answered'));
    }
    await settle();
    expect(reads.pages).toBe(2 * PENDING_READ_PAGES + 1);
    expect(model.getState().pendingMore).toBe(false);
    expect(activeBundles(model.getState())).toHaveLength(40);
  });

  it('reads again no more until more are answered, when a read brings nothing', async () => {
    const waiting = range(0, PENDING_READ_PAGES * PAGE + 50);
    let refusing = false;
    const { model, sync, subscribe, reads } = setup(
      () => waiting,
      () => refusing,
    );
    sync.start();
    await subscribe();
    expect(reads.pages).toBe(PENDING_READ_PAGES);

    refusing = true;
    model.update((state) => transitions.retireBundle(state, bundle(0).pending_id, 'answered'));
    await settle();
    expect(reads.pages).toBe(PENDING_READ_PAGES + 1);
    // Other changes to the model ask for nothing more: no loop on a list that cannot be read.
    model.update((state) => transitions.forgetBundle(state, 'p-unknown'));
    model.update((state) => ({ ...state }));
    await settle();
    expect(reads.pages).toBe(PENDING_READ_PAGES + 1);

    // Another answer: one more try, which reads it now.
    refusing = false;
    model.update((state) => transitions.retireBundle(state, bundle(1).pending_id, 'answered'));
    await settle();
    expect(reads.pages).toBe(2 * PENDING_READ_PAGES + 1);
  });

  it('tells none of what the cut hid as news when a re-read shows it', async () => {
    let waiting = range(0, PENDING_READ_PAGES * PAGE + 3);
    const { model, sync, subscribe, news, frame } = setup(() => waiting);
    sync.start();
    await subscribe();
    // Titled, as the task list says: the announcer waits for a title.
    model.update((state) =>
      transitions.tasks(state, [
        {
          id: 't-1',
          workspace_id: 'w-1',
          title: 'All day',
          created_by: null,
          created_at: '2026-01-01T00:00:00.000000000Z',
          updated_at: '2026-01-01T00:00:00.000000000Z',
        },
      ]),
    );
    expect(model.getState().pendingMore).toBe(true);
    expect(news()).toEqual([]);

    // The person answers three: the list is read again and shows the three the cut hid, which
    // waited before the page opened. Nothing arrived, so nothing is said to have.
    waiting = waiting.slice(3);
    for (const n of [0, 1, 2]) {
      model.update((state) => transitions.retireBundle(state, bundle(n).pending_id, 'answered'));
    }
    await settle();
    const ids = activeBundles(model.getState()).map((shown) => shown.pending_id);
    expect(ids).toEqual(expect.arrayContaining(range(2_000, 3).map((n) => bundle(n).pending_id)));
    expect(news()).toEqual([]);

    // A question asked now comes as an event, and is news.
    const at = '2026-01-02T00:00:00.000000000Z';
    frame({
      type: 'event',
      event: {
        type: 'message.added',
        session_id: 's-new',
        task_id: 't-1',
        revision: 1,
        pending_action: 'clarification',
        message: {
          id: 'row-new',
          session_id: 's-new',
          task_id: 't-1',
          turn_id: 'turn-new',
          type: CLARIFICATION_TYPE,
          author: 'agent',
          content: 'new question',
          metadata: {
            pending_id: 'p-new',
            question_id: 'q1',
            question: { id: 'q1', prompt: 'new question', options: [] },
            status: 'pending',
          },
          requests_input: true,
          created_at: at,
          updated_at: at,
        },
      },
    });
    expect(news()).toEqual(['p-new']);
  });

  it('keeps reading a cut list again after a read from before a reconnect answers last', async () => {
    let waiting = range(0, 50);
    let release: (() => void) | undefined;
    let holding = true;
    const { model, sync, subscribe, reconnect, reads } = setup(
      () => waiting,
      () => false,
      () =>
        holding
          ? new Promise<void>((resolve) => {
              release = resolve;
            })
          : undefined,
    );
    sync.start();
    // The page's first read of the list, whole then, is slow to answer…
    await subscribe();
    expect(release).toBeDefined();
    holding = false;
    // …and the socket drops and comes back meanwhile, with more waiting than a read can show.
    waiting = range(0, PENDING_READ_PAGES * PAGE + 3);
    await reconnect();
    expect(model.getState().pendingMore).toBe(true);
    release?.();
    await settle();
    // The old read is dropped as the list: it must not say the list is whole either.
    expect(model.getState().pendingMore).toBe(true);

    const before = reads.pages;
    waiting = waiting.slice(3);
    for (const n of [0, 1, 2]) {
      model.update((state) => transitions.retireBundle(state, bundle(n).pending_id, 'answered'));
    }
    await settle();
    expect(reads.pages).toBe(before + PENDING_READ_PAGES);
    const ids = activeBundles(model.getState()).map((shown) => shown.pending_id);
    expect(ids).toEqual(expect.arrayContaining(range(2_000, 3).map((n) => bundle(n).pending_id)));
  });
});
