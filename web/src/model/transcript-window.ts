/**
 * A long transcript is read from its end: opening a session reads its newest
 * page, and older pages load only when the person asks for them. Each
 * open session keeps a window (`ModelState.windows`): from its `start` row to the
 * newest, every row was read under the current subscription or came as an
 * event after it, so what is shown has no hole, and `earlier` is the cursor
 * of the page before it.
 *
 * A reconnect (or an access change, or a re-check) reads again from the end
 * down to the window's start, within a bound (`rereadPageBound`): rows
 * that changed or arrived while no event could say so are read again, and
 * the window starts where that read ended. The window's start is taken anew
 * at each page, so earlier pages the person loads meanwhile are read down to
 * rather than let go when the read lands. A read longer than the bound
 * (a day's output while a laptop slept) narrows the window to its newest
 * part rather than leave a hole; the person loads earlier pages again.
 * A read from an earlier subscription is dropped, as a pending snapshot is.
 * Rows before the window (a question's row kept from before the session was
 * opened, an old row an event updated) are not shown: nothing says the rows
 * between them and the window were read. A session no page shows keeps only
 * its question rows (`unwatched`), for who settled them; opened again, it
 * shows nothing until its newest page is read (`transcriptRead`), rather
 * than a transcript that seems to hold only its questions.
 */
import { transcriptOf, transitions, type ModelState, type TranscriptWindow } from './read-model.js';
import { CLARIFICATION_TYPE, type MessageView } from './types.js';

/** Rows a transcript page asks for. */
export const TRANSCRIPT_PAGE_ROWS = 200;

/**
 * Pages a re-read of an open transcript reads at most before it narrows the
 * window, unless the window holds more (`rereadPageBound`).
 */
export const TRANSCRIPT_REREAD_PAGES = 10;

type Position = Pick<MessageView, 'created_at' | 'id'>;

/** Whether `a` comes before `b` in the transcript's order (created_at, then id). */
export function comesBefore(a: Position, b: Position): boolean {
  return a.created_at === b.created_at ? a.id < b.id : a.created_at < b.created_at;
}

/**
 * How far a read from the end must go to cover the session's window: to a
 * row at or before `start`, or to the transcript's first row (`beginning`);
 * `one_page` when nothing was read yet (a session just opened).
 */
export type RereadTarget =
  { kind: 'one_page' } | { kind: 'beginning' } | { kind: 'row'; start: Position };

export function rereadTarget(state: ModelState, sessionId: string): RereadTarget {
  const window = state.windows[sessionId];
  if (!window) return { kind: 'one_page' };
  return window.start === null ? { kind: 'beginning' } : { kind: 'row', start: window.start };
}

/**
 * Pages a re-read reads at most: `TRANSCRIPT_REREAD_PAGES`, or, for a window
 * the person read further back than that, its own pages and one more for
 * what came meanwhile. Bounded by what they asked for, one page at a time;
 * a brief drop must not take away the rows they were reading.
 */
export function rereadPageBound(state: ModelState, sessionId: string): number {
  const held = Math.ceil(shownTranscript(state, sessionId).length / TRANSCRIPT_PAGE_ROWS);
  return Math.max(TRANSCRIPT_REREAD_PAGES, held + 1);
}

/** Whether a read from the end whose oldest row so far is `oldest` has covered `target`. */
export function rereadCovers(target: RereadTarget, oldest: Position | undefined): boolean {
  switch (target.kind) {
    case 'one_page':
      return true;
    case 'beginning':
      return false;
    case 'row':
      return oldest !== undefined && !comesBefore(target.start, oldest);
  }
}

function oldestOf(rows: readonly MessageView[]): Position | undefined {
  let oldest: MessageView | undefined;
  for (const row of rows) if (!oldest || comesBefore(row, oldest)) oldest = row;
  return oldest && { created_at: oldest.created_at, id: oldest.id };
}

function withWindow(
  state: ModelState,
  sessionId: string,
  window: TranscriptWindow,
  prune: boolean,
): ModelState {
  const windows = { ...state.windows, [sessionId]: window };
  const session = state.sessions[sessionId];
  const start = window.start;
  if (!session || !prune || start === null) return { ...state, windows };
  const messages = Object.fromEntries(
    Object.entries(session.messages).filter(([, row]) => !comesBefore(row, start)),
  );
  return {
    ...state,
    windows,
    sessions: { ...state.sessions, [sessionId]: { ...session, messages } },
  };
}

export const transcriptTransitions = {
  /**
   * A session no page shows: its rows are let go, but for its questions'
   * (who settled one is read from them), and its window with them; opening
   * it again reads its newest page. Events bring every row of every session
   * the person may see: kept, they would grow without bound in an inbox left
   * open all day.
   */
  unwatched(state: ModelState, sessionId: string): ModelState {
    const session = state.sessions[sessionId];
    const windowed = state.windows[sessionId] !== undefined;
    const windows = windowed
      ? Object.fromEntries(Object.entries(state.windows).filter(([id]) => id !== sessionId))
      : state.windows;
    if (!session) return windowed ? { ...state, windows } : state;
    const rows = Object.entries(session.messages);
    const kept = rows.filter(([, row]) => row.type === CLARIFICATION_TYPE);
    if (kept.length === rows.length && !windowed) return state;
    return {
      ...state,
      windows,
      sessions: {
        ...state.sessions,
        [sessionId]: { ...session, messages: Object.fromEntries(kept), messages_loaded: false },
      },
    };
  },

  /**
   * A read from the transcript's end, contiguous from its newest row down to
   * its oldest, requested under subscription `generation`; `earlier` is the
   * last page's `next_cursor`. The window becomes what it read, and rows
   * before it are let go.
   */
  read(
    state: ModelState,
    sessionId: string,
    rows: readonly MessageView[],
    earlier: string | null,
    generation: number,
  ): ModelState {
    if (generation !== state.generation) return state;
    const applied = transitions.messages(state, sessionId, rows, true);
    const start = earlier === null ? null : (oldestOf(rows) ?? null);
    return withWindow(applied, sessionId, { start, earlier }, true);
  },

  /**
   * The page before the window, read with its `earlier` cursor `used` under
   * subscription `generation`. One read for a window since replaced (a
   * reconnect narrowed it) is dropped: it would join rows with a hole
   * between. So is one requested under an earlier subscription, even when a
   * re-read ended at the same cursor: a row in it may have changed before the
   * new subscription, with no event to say so.
   */
  earlier(
    state: ModelState,
    sessionId: string,
    rows: readonly MessageView[],
    used: string,
    earlier: string | null,
    generation: number,
  ): ModelState {
    if (generation !== state.generation) return state;
    const window = state.windows[sessionId];
    if (!window || window.earlier !== used) return state;
    const applied = transitions.messages(state, sessionId, rows, true);
    const start = earlier === null ? null : (oldestOf(rows) ?? window.start);
    return withWindow(applied, sessionId, { start, earlier }, false);
  },
};

/**
 * Whether the session's newest page was read: until then the transcript is
 * loading, whatever rows the model holds of it (a question's kept while no
 * page showed it, an event's that came as it was opened).
 */
export function transcriptRead(state: ModelState, sessionId: string): boolean {
  return state.windows[sessionId] !== undefined;
}

/**
 * The rows the transcript shows, oldest first: the window's, and none before
 * the first read, since nothing says what lies between the rows held then.
 */
export function shownTranscript(state: ModelState, sessionId: string): MessageView[] {
  const window = state.windows[sessionId];
  if (window === undefined) return [];
  const rows = transcriptOf(state, sessionId);
  const start = window.start;
  if (start === null) return rows;
  return rows.filter((row) => !comesBefore(row, start));
}

/** Whether older rows than those shown can be loaded. */
export function hasEarlier(state: ModelState, sessionId: string): boolean {
  const earlier = state.windows[sessionId]?.earlier;
  return earlier !== undefined && earlier !== null;
}
