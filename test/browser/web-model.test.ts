/**
 * The web app's framework-free core in Node: the read model's ordering rules
 * (row versions, session revisions, snapshot races), `postClarification`'s
 * outcome mapping and deadline, the late-answer formatter and key, and a
 * busy button's one-at-a-time gate.
 */
import { describe, expect, it } from 'vitest';
import { busyGate } from '../../web/src/model/busy-gate.js';
import {
  admissionKeyFor,
  formatLateAnswer,
  memoryKeyStore,
  releaseAdmissionKey,
} from '../../web/src/model/late-answer.js';
import {
  activeBundleOfSession,
  activeBundles,
  initialState,
  orderedQuestions,
  transitions,
  type ModelState,
} from '../../web/src/model/read-model.js';
import { sessionLabel } from '../../web/src/model/session-label.js';
import { isAnswered } from '../../web/src/model/question-answers.js';
import { parseRespondOk, postClarification, type Timers } from '../../web/src/model/respond.js';
import type {
  ClarionEvent,
  MessageView,
  PendingBundle,
  SessionView,
} from '../../web/src/model/types.js';

const S = 'session-1';
const T = 'task-1';
const P = 'pending-1';

function ts(n: number): string {
  return `2026-01-01T00:00:${String(n).padStart(2, '0')}.000000000Z`;
}

function row(status: string, updated: number, extra: Record<string, unknown> = {}): MessageView {
  return {
    id: 'row-1',
    session_id: S,
    task_id: T,
    turn_id: 'turn-1',
    type: 'clarification_request',
    author: 'agent',
    content: 'Which?',
    metadata: {
      pending_id: P,
      question_id: 'q1',
      question: {
        id: 'q1',
        title: 'T',
        prompt: 'Which?',
        multi_select: false,
        options: [
          { option_id: 'a', label: 'Alpha', description: 'first' },
          { option_id: 'b', label: 'Beta', description: 'second' },
        ],
      },
      question_index: 0,
      question_total: 1,
      context: '',
      status,
      ...extra,
    },
    requests_input: true,
    created_at: ts(1),
    updated_at: ts(updated),
  };
}

function event(
  type: 'message.added' | 'message.updated',
  message: MessageView,
  revision: number,
  pending: ClarionEvent['pending_action'],
): ClarionEvent {
  return { type, message, revision, pending_action: pending, session_id: S, task_id: T };
}

const snapshotBundle: PendingBundle = {
  pending_id: P,
  task_id: T,
  session_id: S,
  turn_id: 'turn-1',
  created_at: ts(1),
  context: '',
  detached: false,
  questions: [
    {
      question_id: 'q1',
      title: 'T',
      prompt: 'Which?',
      multi_select: false,
      status: 'pending',
      options: [{ option_id: 'a', label: 'Alpha', description: 'first' }],
    },
  ],
};

function subscribed(): ModelState {
  return transitions.subscribed(initialState());
}

describe('the read model', () => {
  it('shows a bundle from the pending snapshot', () => {
    const state = transitions.pendingSnapshot(subscribed(), [snapshotBundle], 1);
    expect(activeBundles(state).map((bundle) => bundle.pending_id)).toEqual([P]);
  });

  it('never lets a snapshot that raced an answer resurrect the question', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.updated', row('answered', 5), 7, null));
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    expect(activeBundles(state)).toEqual([]);
  });

  it('never lets an older event resurrect an answered question', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.updated', row('answered', 5), 7, null));
    state = transitions.event(state, event('message.added', row('pending', 3), 5, 'clarification'));
    expect(activeBundles(state)).toEqual([]);
    expect(state.sessions[S]?.revision).toBe(7);
    expect(state.sessions[S]?.pending_action).toBeNull();
  });

  it('shows a newer restore to pending', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.event(state, event('message.updated', row('answered', 5), 5, null));
    expect(activeBundles(state)).toEqual([]);
    state = transitions.event(
      state,
      event('message.updated', row('pending', 6), 6, 'clarification'),
    );
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
  });

  it('hides a bundle once a newer turn starts in its session', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    const next: MessageView = {
      ...row('pending', 9),
      id: 'row-2',
      type: 'message',
      turn_id: 'turn-2',
      metadata: {},
      created_at: ts(9),
    };
    state = transitions.event(state, event('message.added', next, 9, 'clarification'));
    expect(activeBundles(state)).toEqual([]);
  });

  /** Another one-question bundle of the session, asked at `at` in `turn`. */
  function askedAt(at: number, turn = 'turn-1'): MessageView {
    const base = row('pending', at);
    return {
      ...base,
      id: `row-${String(at)}`,
      turn_id: turn,
      created_at: ts(at),
      metadata: { ...base.metadata, pending_id: `pending-${String(at)}` },
    };
  }

  it('lists every bundle an agent waits on at once; the overlay takes the longest waiting unless one is chosen', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.event(state, event('message.added', askedAt(2), 4, 'clarification'));
    expect(activeBundles(state).map((bundle) => bundle.pending_id)).toEqual(['pending-2', P]);
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
    expect(activeBundleOfSession(state, S, 'pending-2')?.pending_id).toBe('pending-2');
    state = transitions.retireBundle(state, 'pending-2', 'answered', ts(5));
    expect(activeBundleOfSession(state, S, 'pending-2')?.pending_id).toBe(P);
  });

  it('lets a newer turn supersede every bundle of the older one, listed or learned by event', () => {
    let state = subscribed();
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    state = transitions.event(state, event('message.added', askedAt(2), 4, 'clarification'));
    state = transitions.event(
      state,
      event('message.added', askedAt(9, 'turn-2'), 9, 'clarification'),
    );
    expect(activeBundles(state).map((bundle) => bundle.pending_id)).toEqual(['pending-9']);
  });

  it('keeps a listed bundle of a turn that started while this client was away', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.subscribed(state);
    const missed = {
      ...snapshotBundle,
      pending_id: 'pending-5',
      turn_id: 'turn-2',
      created_at: ts(5),
    };
    state = transitions.pendingSnapshot(state, [missed], state.generation);
    expect(activeBundles(state).map((bundle) => bundle.pending_id)).toEqual(['pending-5']);
  });

  it('hides bundles of terminal sessions', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.event(state, {
      type: 'session.state_changed',
      state: 'cancelled',
      revision: 4,
      pending_action: 'clarification',
      session_id: S,
      task_id: T,
    });
    expect(activeBundles(state)).toEqual([]);
  });

  it('takes the state change that shares its revision with the messages of the same change', () => {
    let state = subscribed();
    // The server stages one change's events with one revision, message events first.
    state = transitions.event(state, event('message.added', row('pending', 1), 4, 'clarification'));
    state = transitions.event(state, {
      type: 'session.state_changed',
      state: 'waiting_for_input',
      revision: 4,
      pending_action: 'clarification',
      session_id: S,
      task_id: T,
    });
    expect(state.sessions[S]?.state).toBe('waiting_for_input');
    state = transitions.event(state, {
      type: 'session.state_changed',
      state: 'running',
      revision: 4,
      pending_action: null,
      session_id: S,
      task_id: T,
    });
    expect(state.sessions[S]?.state).toBe('waiting_for_input');
  });

  it('takes a session snapshot’s state even when events already raised the revision', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 6, 'clarification'));
    const view = {
      id: S,
      task_id: T,
      agent_profile: 'demo',
      failure: null,
      pending_action: 'clarification' as const,
      created_at: ts(1),
      updated_at: ts(6),
    };
    state = transitions.sessions(state, [{ ...view, state: 'waiting_for_input', revision: 6 }]);
    expect(state.sessions[S]?.state).toBe('waiting_for_input');
    state = transitions.sessions(state, [{ ...view, state: 'running', revision: 5 }]);
    expect(state.sessions[S]?.state).toBe('waiting_for_input');
    expect(state.sessions[S]?.revision).toBe(6);
  });

  it('shows the asker back once its rows say it waits again, and gone once they say it left', () => {
    const detachedAt = (state: ModelState) => activeBundleOfSession(state, S)?.detached;
    const flag = (detached: boolean, updated: number, revision: number) =>
      event(
        'message.updated',
        row('pending', updated, { agent_disconnected: detached }),
        revision,
        'clarification',
      );
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    expect(detachedAt(state)).toBe(false);
    state = transitions.event(state, flag(true, 2, 4));
    expect(detachedAt(state)).toBe(true);
    // `wait_for_answer`, or the same ask again: the agent waits on it again.
    state = transitions.event(state, flag(false, 3, 5));
    expect(detachedAt(state)).toBe(false);
    // A list read before the re-attach does not undo it.
    state = transitions.pendingSnapshot(
      state,
      [{ ...snapshotBundle, detached: true }],
      state.generation,
    );
    expect(detachedAt(state)).toBe(false);
    state = transitions.event(state, flag(true, 4, 6));
    expect(detachedAt(state)).toBe(true);
  });

  it('takes whether a bundle is detached from the list after a reconnect', () => {
    let state = subscribed();
    state = transitions.event(
      state,
      event('message.added', row('pending', 1, { agent_disconnected: true }), 3, 'clarification'),
    );
    state = transitions.subscribed(state);
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    expect(activeBundleOfSession(state, S)?.detached).toBe(false);
  });

  it('retires a bundle learned before a reconnect when the new snapshot lacks it', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.subscribed(state);
    state = transitions.pendingSnapshot(state, [], state.generation);
    expect(activeBundles(state)).toEqual([]);
  });

  it('keeps a bundle learned after the subscription even if the snapshot lacks it', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.pendingSnapshot(state, [], state.generation);
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
  });

  it('retires locally after a response, and a stale pending event does not undo it', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.retireBundle(state, P, 'answered', ts(4));
    expect(activeBundles(state)).toEqual([]);
    state = transitions.event(
      state,
      event('message.updated', row('pending', 2), 2, 'clarification'),
    );
    expect(activeBundles(state)).toEqual([]);
  });

  it('forgets a bundle the person can no longer see, without saying how it ended', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.forgetBundle(state, P);
    expect(activeBundles(state)).toEqual([]);
    expect(state.bundles[P]).toBeUndefined();
    expect(transitions.forgetBundle(state, P)).toBe(state);
  });

  it('keeps how a deleted session went, alone or with its task, for its open view to say', () => {
    const view: SessionView = {
      id: S,
      task_id: T,
      agent_profile: 'demo',
      state: 'idle',
      failure: null,
      revision: 1,
      pending_action: null,
      created_at: ts(1),
      updated_at: ts(1),
    };
    const deletion = (type: 'session.deleted' | 'task.deleted') =>
      transitions.deleted(transitions.sessions(subscribed(), [view]), {
        type,
        session_id: S,
        task_id: T,
        revision: 2,
        pending_action: null,
        workspace_id: 'w',
      });
    const alone = deletion('session.deleted');
    expect(alone.sessions[S]).toBeUndefined();
    expect(alone.deleted.sessions[S]).toBe('session.deleted');
    expect(alone.deleted.tasks[T]).toBeUndefined();
    const withTask = deletion('task.deleted');
    expect(withTask.deleted.sessions[S]).toBe('task.deleted');
    expect(withTask.deleted.tasks[T]).toBe(true);
    // A snapshot read before the deletion never brings it back.
    expect(transitions.sessions(alone, [view]).sessions[S]).toBeUndefined();
  });

  it('drops a pending snapshot requested before a reconnect: a question asked meanwhile stays shown', () => {
    let state = subscribed();
    const requestedUnder = state.generation;
    // Asked while the first list was in flight; then the socket drops and subscribes again.
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.subscribed(state);
    state = transitions.pendingSnapshot(state, [], requestedUnder);
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
  });

  it('never revives from a later list a bundle its own subscription’s list retired', () => {
    let state = subscribed();
    state = transitions.event(state, event('message.added', row('pending', 1), 3, 'clarification'));
    state = transitions.subscribed(state);
    state = transitions.pendingSnapshot(state, [], state.generation);
    // A list of the same subscription read before the retirement (a refresh that raced it).
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    expect(activeBundles(state)).toEqual([]);
  });

  it('takes pending_action from a session snapshot newer than what it holds, and only then', () => {
    const view: SessionView = {
      id: S,
      task_id: T,
      agent_profile: 'demo',
      state: 'idle',
      failure: null,
      revision: 9,
      pending_action: null,
      created_at: ts(1),
      updated_at: ts(9),
    };
    let state = subscribed();
    state = transitions.event(state, {
      type: 'session.state_changed',
      state: 'waiting_for_input',
      revision: 3,
      pending_action: 'consent',
      session_id: S,
      task_id: T,
    });
    // Offline: the consent was answered, the turn ended, and a question was asked in a new one.
    state = transitions.subscribed(state);
    state = transitions.sessions(state, [{ ...view, revision: 2, pending_action: 'action' }]);
    expect(state.sessions[S]?.pending_action).toBe('consent');
    state = transitions.sessions(state, [view]);
    expect(state.sessions[S]?.revision).toBe(9);
    expect(state.sessions[S]?.pending_action).toBeNull();
    expect(sessionLabel(state.sessions[S], undefined)).toBe('idle');
    state = transitions.sessions(state, [
      { ...view, state: 'waiting_for_input', revision: 10, pending_action: 'clarification' },
    ]);
    state = transitions.pendingSnapshot(state, [snapshotBundle], state.generation);
    expect(activeBundleOfSession(state, S)?.pending_id).toBe(P);
    // An event of the snapshot's own revision tells nothing newer.
    state = transitions.event(state, {
      type: 'session.state_changed',
      state: 'waiting_for_input',
      revision: 10,
      pending_action: 'consent',
      session_id: S,
      task_id: T,
    });
    expect(state.sessions[S]?.pending_action).toBe('clarification');
  });

  it('shows a bundle whose questions the agent called __proto__ and constructor', () => {
    const asked = (id: string, index: number) => {
      const base = row('pending', 1);
      return {
        ...base,
        id: `row-${id}`,
        metadata: {
          ...base.metadata,
          question_id: id,
          question: { ...(base.metadata.question as object), id },
          question_index: index,
          question_total: 2,
        },
      };
    };
    // Heard as rows, and listed: either way both questions are the bundle's.
    let heard = subscribed();
    for (const [index, id] of ['__proto__', 'constructor'].entries()) {
      const added = event('message.added', asked(id, index), index + 3, 'clarification');
      heard = transitions.event(heard, added);
    }
    const [question] = snapshotBundle.questions;
    if (!question) throw new Error('a question');
    const listed = transitions.pendingSnapshot(
      subscribed(),
      [
        {
          ...snapshotBundle,
          questions: [
            { ...question, question_id: '__proto__' },
            { ...question, question_id: 'constructor' },
          ],
        },
      ],
      1,
    );
    for (const state of [heard, listed]) {
      const [bundle] = activeBundles(state);
      expect(bundle && orderedQuestions(bundle).map((q) => q.question_id)).toEqual([
        '__proto__',
        'constructor',
      ]);
    }
  });

  it('waits for every question of a bundle before showing it', () => {
    const state = transitions.event(
      subscribed(),
      event('message.added', row('pending', 1, { question_total: 2 }), 3, 'clarification'),
    );
    expect(activeBundles(state)).toEqual([]);
  });
});

function response(status: number, body: unknown): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

const OK = {
  claimed: true,
  status: 'answered',
  response: {
    pending_id: P,
    answers: [{ question_id: 'q1', selected_options: ['a'], custom_text: '' }],
    rejected: false,
    reject_reason: '',
    responded_at: ts(3),
  },
};

function countingTimers() {
  const state = { set: 0, cleared: 0, fire: undefined as (() => void) | undefined };
  const timers: Timers = {
    setTimeout: (callback) => {
      state.set++;
      state.fire = callback;
      return state.set;
    },
    clearTimeout: () => {
      state.cleared++;
    },
  };
  return { state, timers };
}

describe('postClarification', () => {
  it.each([
    [200, OK, 'resolved'],
    [200, { ...OK, claimed: false }, 'resolved'],
    [409, { code: 'not_active' }, 'not_active'],
    [503, { code: 'temporarily_unavailable' }, 'retryable'],
    [500, { code: 'internal' }, 'retryable'],
    [502, 'bad gateway', 'retryable'],
    [200, '{"claimed":', 'retryable'],
    [200, { claimed: true }, 'retryable'],
    [404, { code: 'not_found' }, 'refused'],
    [400, { code: 'invalid_request' }, 'refused'],
  ] as const)('maps %i %j to %s and clears its deadline', async (status, body, kind) => {
    const { state, timers } = countingTimers();
    const outcome = await postClarification(
      P,
      { rejected: true },
      {
        timers,
        fetchImpl: () => Promise.resolve(response(status, body)),
      },
    );
    expect(outcome.kind).toBe(kind);
    expect(state).toMatchObject({ set: 1, cleared: 1 });
  });

  it('treats a network error as retryable', async () => {
    const { state, timers } = countingTimers();
    const outcome = await postClarification(
      P,
      {},
      {
        timers,
        fetchImpl: () => Promise.reject(new TypeError('Failed to fetch')),
      },
    );
    expect(outcome).toEqual({ kind: 'retryable', reason: 'network' });
    expect(state.cleared).toBe(1);
  });

  it('aborts at the deadline and reports a timeout', async () => {
    const { state, timers } = countingTimers();
    let seen: AbortSignal | undefined;
    const pending = postClarification(
      P,
      {},
      {
        timers,
        deadlineMs: 5,
        fetchImpl: (_input, init) =>
          new Promise((_resolve, reject) => {
            seen = init?.signal ?? undefined;
            init?.signal?.addEventListener('abort', () => {
              reject(new DOMException('aborted', 'AbortError'));
            });
          }),
      },
    );
    state.fire?.();
    await expect(pending).resolves.toEqual({ kind: 'retryable', reason: 'timeout' });
    expect(seen?.aborted).toBe(true);
    expect(state.cleared).toBe(1);
  });

  it('refuses a 200 body for another bundle', () => {
    expect(
      parseRespondOk({ ...OK, response: { ...OK.response, pending_id: 'other' } }, P),
    ).toBeUndefined();
    expect(parseRespondOk(OK, P)?.response.answers).toEqual(OK.response.answers);
  });
});

describe('late answers', () => {
  it('formats prompts with the chosen labels and custom text as plain text', () => {
    const text = formatLateAnswer({
      pendingId: P,
      taskId: T,
      sessionId: S,
      questions: [
        {
          question_id: 'q1',
          prompt: 'Which runner?',
          options: [{ option_id: 'h', label: 'Hosted', description: '' }],
        },
        { question_id: 'q2', prompt: 'Anything else?', options: [] },
      ],
      answers: [
        { question_id: 'q1', selected_options: ['h'], custom_text: '' },
        { question_id: 'q2', selected_options: [], custom_text: ' keep it small ' },
      ],
    });
    expect(text).toBe('Which runner?\nHosted\n\nAnything else?\nkeep it small');
  });

  it('keeps one admission key per scope until released', () => {
    const store = memoryKeyStore();
    let n = 0;
    const random = () => `r${String(++n)}`;
    const first = admissionKeyFor(store, `late:${P}`, random);
    expect(admissionKeyFor(store, `late:${P}`, random)).toBe(first);
    releaseAdmissionKey(store, `late:${P}`);
    expect(admissionKeyFor(store, `late:${P}`, random)).not.toBe(first);
    expect(first.length).toBeLessThanOrEqual(128);
  });
});

describe('what a draft counts as an answer', () => {
  const answer = (customText: string, selected: string[] = []) => ({
    question_id: 'q1',
    selected_options: selected,
    custom_text: customText,
  });

  it('follows the server: text a reader would not see is no answer', () => {
    for (const blank of ['', '   ', '\u200b', '\u200c\u200d', '\u2060', '\ufeff', '\u00ad']) {
      expect(isAnswered(answer(blank)), JSON.stringify(blank)).toBe(false);
      expect(isAnswered(answer(blank, ['q1_opt1']))).toBe(true);
    }
    for (const shown of ['ok', 'zero\u200bwidth', '🦀', 'e\u0301']) {
      expect(isAnswered(answer(shown)), JSON.stringify(shown)).toBe(true);
    }
  });
});

describe('a busy button’s gate', () => {
  it('ignores a press while one is in flight, then lets the next through', async () => {
    const seen: boolean[] = [];
    const gate = busyGate((busy) => seen.push(busy));
    let release = (): void => undefined;
    let sent = 0;
    const send = () =>
      new Promise<string>((done) => {
        sent += 1;
        release = () => {
          done(`sent ${sent}`);
        };
      });
    const first = gate.run(send);
    // Pressed again within the same render: nothing re-rendered in between to say it is busy.
    const again = gate.run(send);
    expect(sent).toBe(1);
    await expect(again).resolves.toBeUndefined();
    expect(seen).toEqual([true]);
    release();
    await expect(first).resolves.toBe('sent 1');
    expect(seen).toEqual([true, false]);
    const second = gate.run(send);
    release();
    await expect(second).resolves.toBe('sent 2');
  });

  it('settles when the action throws, so the button is not busy for good', async () => {
    const seen: boolean[] = [];
    const gate = busyGate((busy) => seen.push(busy));
    await expect(gate.run(() => Promise.reject(new Error('lost')))).rejects.toThrow('lost');
    expect(seen).toEqual([true, false]);
    await expect(gate.run(() => Promise.resolve('again'))).resolves.toBe('again');
  });
});
