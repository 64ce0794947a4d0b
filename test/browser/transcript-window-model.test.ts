/**
 * A long transcript in the read model: opened at its newest page, earlier
 * pages on demand, live events appended, and a reconnect's re-read leaving
 * no hole between what was shown and what is new (the store is the only
 * truth; events after the subscription win over the pages read under it).
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResult } from '../../web/src/model/api.js';
import { ReadModel, sessionPresence } from '../../web/src/model/read-model.js';
import { ModelSync, type SocketLike } from '../../web/src/model/sync.js';
import {
  hasEarlier,
  shownTranscript,
  TRANSCRIPT_PAGE_ROWS,
  TRANSCRIPT_REREAD_PAGES,
  transcriptRead,
} from '../../web/src/model/transcript-window.js';
import {
  CLARIFICATION_TYPE,
  type ClarionEvent,
  type MessageView,
} from '../../web/src/model/types.js';
import { UserInputModel } from '../../web/src/model/user-inputs.js';

const S = 'session-1';

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

/** Row `n` of the transcript; three rows share each timestamp, ordered by ID. */
function row(n: number): MessageView {
  const at = `2026-01-01T00:00:00.${String(Math.floor(n / 3)).padStart(9, '0')}Z`;
  return {
    id: `m-${String(n).padStart(6, '0')}`,
    session_id: S,
    task_id: 't-1',
    turn_id: 'turn-1',
    type: 'message',
    author: 'agent',
    content: `line ${n}`,
    metadata: {},
    requests_input: false,
    created_at: at,
    updated_at: at,
  };
}

/** The server's transcript, read newest first as the web app reads it; a cursor is a row count. */
class Transcript {
  rows: MessageView[] = [];
  reads = 0;
  /** The person is in none of its workspace's members now. */
  hidden = false;
  append(count: number): MessageView[] {
    const added = Array.from({ length: count }, (_, index) => row(this.rows.length + index));
    this.rows.push(...added);
    return added;
  }
  page(cursor?: string): { messages: MessageView[]; next_cursor: string | null } {
    this.reads++;
    const end = cursor === undefined ? this.rows.length : Number(cursor);
    const start = Math.max(0, end - TRANSCRIPT_PAGE_ROWS);
    return {
      messages: this.rows.slice(start, end).reverse(),
      next_cursor: start === 0 ? null : String(start),
    };
  }
}

function ok<T>(value: T): Promise<ApiResult<T>> {
  return Promise.resolve({ ok: true, status: 200, value });
}

/**
 * `held(cursor)`: a page read the test answers later (undefined: at once); the server reads
 * the page when the request arrives, as a real one does.
 */
function setup(
  transcript: Transcript,
  held: (cursor: string | undefined) => Promise<void> | undefined = () => undefined,
) {
  let socket = new FakeSocket();
  const model = new ReadModel();
  const unused = () => Promise.reject(new Error('unused'));
  const api = {
    tasks: () => ok({ tasks: [], next_cursor: null }),
    sessions: () => ok({ sessions: [] }),
    pending: () => ok({ bundles: [], next_cursor: null }),
    userInputs: () => ok({ requests: [] }),
    messages: async (_session: string, cursor?: string) => {
      // Out of the person's sight: the server answers 404, as for a session never theirs.
      const gone = transcript.hidden;
      const page = transcript.page(cursor);
      await held(cursor);
      return gone ? { ok: false, kind: 'http', status: 404 } : ok(page);
    },
    me: unused,
  } as unknown as ApiClient;
  const timers: (() => void)[] = [];
  const sync = new ModelSync({
    model,
    userInputs: new UserInputModel(),
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
  const live = (message: MessageView, revision: number) => {
    socket.frame({
      type: 'event',
      event: {
        type: 'message.added',
        session_id: S,
        task_id: 't-1',
        revision,
        pending_action: null,
        message,
      } as ClarionEvent,
    });
  };
  const frame = (sent: unknown) => {
    socket.frame(sent);
  };
  return { model, sync, subscribe, reconnect, live, frame };
}

async function settle(): Promise<void> {
  for (let index = 0; index < 50; index++) await Promise.resolve();
}

const contents = (model: ReadModel) =>
  shownTranscript(model.getState(), S).map((message) => message.content);

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, index) => `line ${from + index}`);

describe('a long transcript in the read model', () => {
  it('opens at its newest page, loads earlier pages on demand, and appends live rows', async () => {
    const transcript = new Transcript();
    transcript.append(450);
    const { model, sync, subscribe, live } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(contents(model)).toEqual(lines(250, 450));
    expect(hasEarlier(model.getState(), S)).toBe(true);

    const [next] = transcript.append(1);
    if (!next) throw new Error('a row');
    live(next, 1);
    expect(contents(model)).toEqual(lines(250, 451));

    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(50, 451));
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(0, 451));
    expect(hasEarlier(model.getState(), S)).toBe(false);
  });

  it('fills what a reconnect missed between the shown rows and the new ones', async () => {
    const transcript = new Transcript();
    transcript.append(450);
    const { model, sync, subscribe, reconnect } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(50, 450));

    // Three pages' worth arrive while no socket listens.
    transcript.append(3 * TRANSCRIPT_PAGE_ROWS + 7);
    transcript.reads = 0;
    await reconnect();
    const total = transcript.rows.length;
    // Read back just far enough: the new rows and the window's pages again, not the whole
    // transcript; the window takes in the rest of the last page read.
    const reads = Math.ceil((total - 50) / TRANSCRIPT_PAGE_ROWS);
    expect(transcript.reads).toBe(reads);
    const start = Math.max(0, total - reads * TRANSCRIPT_PAGE_ROWS);
    expect(start).toBeLessThanOrEqual(50);
    expect(contents(model)).toEqual(lines(start, total));
    if (start > 0) {
      expect(await sync.loadEarlier(S)).toBe(true);
      expect(contents(model)).toEqual(lines(0, total));
    }
    expect(hasEarlier(model.getState(), S)).toBe(false);
  });

  it('narrows to the newest rows, not a hole, when more arrived than a re-read reads', async () => {
    const transcript = new Transcript();
    transcript.append(300);
    const { model, sync, subscribe, reconnect } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(contents(model)).toEqual(lines(100, 300));

    transcript.append((TRANSCRIPT_REREAD_PAGES + 2) * TRANSCRIPT_PAGE_ROWS);
    transcript.reads = 0;
    await reconnect();
    const total = transcript.rows.length;
    expect(transcript.reads).toBe(TRANSCRIPT_REREAD_PAGES);
    const newest = total - TRANSCRIPT_REREAD_PAGES * TRANSCRIPT_PAGE_ROWS;
    expect(contents(model)).toEqual(lines(newest, total));
    // The rows the page held before are let go, and come back in order when asked for.
    expect(Object.keys(model.getState().sessions[S]?.messages ?? {})).toHaveLength(total - newest);
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(newest - TRANSCRIPT_PAGE_ROWS, total));
  });

  it('shows no row an event brought before the window unless the rows between were read', async () => {
    const transcript = new Transcript();
    transcript.append(10);
    const { model, sync, subscribe, live } = setup(transcript);
    sync.start();
    await subscribe();
    // Heard while the session was not open…
    const [early] = transcript.rows.slice(-1);
    if (!early) throw new Error('a row');
    live(early, 1);
    // …then much more the page did not hear (another tab's subscription, a lost socket).
    transcript.append(500);
    sync.openSession(S);
    await settle();
    expect(contents(model)).toEqual(lines(310, 510));
  });

  it('drops a page of earlier rows read for a window a reconnect replaced', async () => {
    const transcript = new Transcript();
    transcript.append(400);
    const { model, sync, subscribe, reconnect } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    const pending = sync.loadEarlier(S);
    transcript.append((TRANSCRIPT_REREAD_PAGES + 1) * TRANSCRIPT_PAGE_ROWS);
    await reconnect();
    await pending;
    const total = transcript.rows.length;
    expect(contents(model)).toEqual(
      lines(total - TRANSCRIPT_REREAD_PAGES * TRANSCRIPT_PAGE_ROWS, total),
    );
  });
});

describe('earlier pages and a reconnect read at once', () => {
  it('keeps a page loaded while the re-read was out, reading down to it', async () => {
    const transcript = new Transcript();
    transcript.append(450);
    let release: (() => void) | undefined;
    let holding = false;
    const { model, sync, subscribe, reconnect } = setup(transcript, (cursor) =>
      holding && cursor === undefined
        ? new Promise<void>((resolve) => {
            release = resolve;
          })
        : undefined,
    );
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(contents(model)).toEqual(lines(250, 450));

    // Back from a sleep: the re-read's first page is slow, and the reader asks for earlier rows.
    holding = true;
    await reconnect();
    expect(release).toBeDefined();
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(50, 450));
    holding = false;
    release?.();
    await settle();
    // The rows the reader asked for stay, read again under the new subscription.
    expect(contents(model)).toEqual(lines(50, 450));
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toEqual(lines(0, 450));
  });
});

describe('an earlier page read under an earlier subscription', () => {
  it('is dropped though the re-read ended at the same cursor: it may predate a change', async () => {
    const transcript = new Transcript();
    transcript.append(450);
    let release: (() => void) | undefined;
    let holding = false;
    const { model, sync, subscribe, reconnect } = setup(transcript, (cursor) =>
      holding && cursor !== undefined
        ? new Promise<void>((resolve) => {
            release = resolve;
          })
        : undefined,
    );
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();

    // The page before is read, and its answer is slow to come…
    holding = true;
    const pending = sync.loadEarlier(S);
    await settle();
    holding = false;
    // …while row 100 changes with no socket to say so, and the page reconnects. Nothing new
    // arrived, so the re-read ends where the window did, with the same cursor.
    const changed = transcript.rows[100];
    if (!changed) throw new Error('a row');
    transcript.rows[100] = {
      ...changed,
      content: 'line 100, edited',
      updated_at: '2026-01-02T00:00:00.000000000Z',
    };
    await reconnect();
    expect(contents(model)).toEqual(lines(250, 450));
    release?.();
    await pending;
    // The old page would have shown row 100 as it was, and no event would ever correct it.
    expect(contents(model)).not.toContain('line 100');
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(contents(model)).toContain('line 100, edited');
    expect(contents(model)).not.toContain('line 100');
  });
});

describe('a reader far back in a long transcript', () => {
  it('keeps the pages they loaded across a reconnect that brought little', async () => {
    const transcript = new Transcript();
    transcript.append((TRANSCRIPT_REREAD_PAGES + 2) * TRANSCRIPT_PAGE_ROWS + 50);
    const { model, sync, subscribe, reconnect } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    // They read back further than a re-read's bound, one page at a time.
    for (let page = 0; page < TRANSCRIPT_REREAD_PAGES + 1; page++) {
      expect(await sync.loadEarlier(S)).toBe(true);
    }
    const total = transcript.rows.length;
    expect(contents(model)).toEqual(lines(50, total));

    // The phone sleeps a minute; a few rows come meanwhile.
    transcript.append(5);
    await reconnect();
    // What they were reading is still there, read again, with the new rows after it (and the
    // rest of the last page read before it).
    const shown = contents(model);
    expect(shown).toContain('line 50');
    expect(shown.slice(shown.indexOf('line 50'))).toEqual(lines(50, transcript.rows.length));
  });
});

describe('a session whose access went and came back', () => {
  it('is shown once its access is back, though the refusal read before answers last', async () => {
    const transcript = new Transcript();
    transcript.append(10);
    let release: (() => void) | undefined;
    let holding = false;
    const { model, sync, subscribe, frame } = setup(transcript, () =>
      holding
        ? new Promise<void>((resolve) => {
            release = resolve;
          })
        : undefined,
    );
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(sessionPresence(model.getState(), S)).toEqual({ kind: 'shown' });

    // Removed from the workspace: the read that follows is refused, and slow to say so…
    transcript.hidden = true;
    holding = true;
    frame({ type: 'access_changed' });
    await settle();
    expect(release).toBeDefined();
    holding = false;
    // …while an admin adds them back at once: the next read answers first.
    transcript.hidden = false;
    frame({ type: 'access_changed' });
    await settle();
    expect(sessionPresence(model.getState(), S)).toEqual({ kind: 'shown' });
    release?.();
    await settle();
    // The refusal was of an earlier state of their access: it must not hide the session now.
    expect(sessionPresence(model.getState(), S)).toEqual({ kind: 'shown' });
    expect(contents(model)).toEqual(lines(0, 10));
  });
});

describe('the rows of a session nobody has open', () => {
  const held = (model: ReadModel) => Object.keys(model.getState().sessions[S]?.messages ?? {});

  it('are not kept as an agent writes them all day, but for its questions', async () => {
    const transcript = new Transcript();
    const { model, sync, subscribe, live } = setup(transcript);
    sync.start();
    await subscribe();
    // An inbox left open on a phone; an agent writes thousands of rows in a session never opened.
    transcript.append(3 * TRANSCRIPT_PAGE_ROWS).forEach((message, index) => {
      live(message, index + 1);
    });
    const asked: MessageView = {
      ...row(transcript.rows.length),
      id: 'm-question',
      type: CLARIFICATION_TYPE,
      metadata: { pending_id: 'p-1', question_id: 'q1', question: { id: 'q1', prompt: 'Ship?' } },
    };
    live(asked, 3 * TRANSCRIPT_PAGE_ROWS + 1);
    // Who settles its question is read from its rows; nothing else of it is needed until opened.
    expect(held(model)).toEqual(['m-question']);
    expect(model.getState().bundles['p-1']).toBeDefined();
  });

  it('go when the session is closed, and come back read anew when it is opened again', async () => {
    const transcript = new Transcript();
    transcript.append(450);
    const { model, sync, subscribe, live } = setup(transcript);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    expect(await sync.loadEarlier(S)).toBe(true);
    expect(held(model)).toHaveLength(400);

    sync.closeSession(S);
    expect(held(model)).toEqual([]);
    const [next] = transcript.append(1);
    if (!next) throw new Error('a row');
    live(next, 1);
    expect(held(model)).toEqual([]);

    sync.openSession(S);
    await settle();
    expect(contents(model)).toEqual(lines(251, 451));
    expect(hasEarlier(model.getState(), S)).toBe(true);
  });
});

describe('a session opened again', () => {
  it('shows nothing but that it loads until its newest page is read, never only its questions', async () => {
    const transcript = new Transcript();
    transcript.append(150);
    transcript.rows.push({
      ...row(150),
      id: 'm-000150-question',
      type: CLARIFICATION_TYPE,
      content: 'Ship?',
      metadata: { pending_id: 'p-1', question_id: 'q1', question: { id: 'q1', prompt: 'Ship?' } },
    });
    transcript.append(20);
    const hold: { read?: Promise<void> } = {};
    const { model, sync, subscribe } = setup(transcript, () => hold.read);
    sync.start();
    await subscribe();
    sync.openSession(S);
    await settle();
    const page = [...lines(0, 150), 'Ship?', ...lines(151, 171)].slice(-TRANSCRIPT_PAGE_ROWS);
    expect(contents(model)).toEqual(page);

    // Gone elsewhere and back: its question's row was kept, the rest let go.
    sync.closeSession(S);
    let answer: () => void = () => undefined;
    hold.read = new Promise((resolve) => {
      answer = resolve;
    });
    sync.openSession(S);
    await settle();
    expect(transcriptRead(model.getState(), S)).toBe(false);
    expect(contents(model)).toEqual([]);
    answer();
    await settle();
    expect(transcriptRead(model.getState(), S)).toBe(true);
    expect(contents(model)).toEqual(page);
  });

  it('counts as read though its first read found no row before its task was listed', async () => {
    const transcript = new Transcript();
    const { model, sync, subscribe, live } = setup(transcript);
    sync.start();
    await subscribe();
    // Opened at once after New task: the task list is read after the transcript answers.
    sync.openSession(S);
    await settle();
    expect(model.getState().sessions[S]).toBeUndefined();
    expect(transcriptRead(model.getState(), S)).toBe(true);
    const [first] = transcript.append(1);
    if (!first) throw new Error('a row');
    live(first, 1);
    expect(contents(model)).toEqual(lines(0, 1));
  });
});
