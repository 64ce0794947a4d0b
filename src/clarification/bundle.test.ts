import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../store/index.js';
import { bundleStatus, readBundle, winnerResponse, type Bundle, type RowStatus } from './bundle.js';
import { decide, type Answer } from './outcome.js';
import type { Question } from './questions.js';

const PENDING_ID = 'pending-0001';
const CREATED = ['2026-01-01T00:00:00.000000001Z', '2026-01-01T00:00:00.000000002Z'];

function question(n: number, multiSelect = false): Question {
  return {
    id: `q${n}`,
    title: `Title ${n}`,
    prompt: `Prompt ${n}?`,
    options: [1, 2, 3].map((m) => ({
      option_id: `q${n}_opt${m}`,
      label: `Label ${n}.${m}`,
      description: `Description ${n}.${m}`,
    })),
    multi_select: multiSelect,
  };
}

/** The stored shape of a question: metadata carries its `Question` as written at ask time. */
function row(
  n: number,
  metadata: Record<string, unknown> = {},
  fields: Partial<MessageRecord> = {},
): MessageRecord {
  const created = CREATED[n - 1] ?? `2026-01-01T00:00:0${n}.000000000Z`;
  return {
    id: `msg-000${n}`,
    task_session_id: 'session-1',
    task_id: 'task-1',
    turn_id: 'turn-1',
    author_type: 'agent',
    type: 'clarification_request',
    content: `Prompt ${n}?`,
    metadata: {
      pending_id: PENDING_ID,
      question_id: `q${n}`,
      question: question(n, n === 2),
      status: 'pending',
      // A claimed answer always stores its response; fixtures follow the store.
      ...(metadata.status === 'answered' && !('response' in metadata)
        ? { response: { question_id: `q${n}`, selected_options: [], custom_text: 'ok' } }
        : {}),
      ...metadata,
    },
    requests_input: false,
    admission_key: null,
    created_at: created,
    updated_at: created,
    ...fields,
  };
}

function read(messages: MessageRecord[]): Bundle {
  const result = readBundle(PENDING_ID, messages);
  if (!result.ok) throw new Error(`expected a bundle, got ${result.reason}`);
  return result.bundle;
}

function malformed(messages: MessageRecord[]): void {
  expect(readBundle(PENDING_ID, messages)).toEqual({ ok: false, reason: 'malformed' });
}

describe('readBundle', () => {
  it('reports an empty row list as missing', () => {
    expect(readBundle(PENDING_ID, [])).toEqual({ ok: false, reason: 'missing' });
  });

  it('reads a well-formed bundle', () => {
    const first = row(1, { context: 'Some context' });
    const bundle = read([first, row(2)]);
    expect(bundle).toEqual({
      pendingId: PENDING_ID,
      sessionId: 'session-1',
      taskId: 'task-1',
      turnId: 'turn-1',
      context: 'Some context',
      createdAt: CREATED[0],
      questions: [question(1), question(2, true)],
      rows: [
        {
          id: 'msg-0001',
          questionId: 'q1',
          status: 'pending',
          detached: false,
          deliveryPending: false,
          response: undefined,
          rejectReason: '',
          respondedAt: CREATED[0],
          createdAt: CREATED[0],
          updatedAt: CREATED[0],
        },
        {
          id: 'msg-0002',
          questionId: 'q2',
          status: 'pending',
          detached: false,
          deliveryPending: false,
          response: undefined,
          rejectReason: '',
          respondedAt: CREATED[1],
          createdAt: CREATED[1],
          updatedAt: CREATED[1],
        },
      ],
    });
  });

  it('keeps questions and rows in row order', () => {
    const bundle = read([row(2), row(1)]);
    expect(bundle.questions.map((q) => q.id)).toEqual(['q2', 'q1']);
    expect(bundle.rows.map((r) => r.id)).toEqual(['msg-0002', 'msg-0001']);
    expect(bundle.createdAt).toBe(CREATED[1]);
  });

  it('defaults a missing context to empty and reads it from the first row only', () => {
    expect(read([row(1)]).context).toBe('');
    expect(read([row(1), row(2, { context: 'late' })]).context).toBe('');
    expect(read([row(1, { context: 42 })]).context).toBe('');
  });

  it('takes the question id from question_id, not from the stored question', () => {
    const bundle = read([
      row(1, { question_id: 'real', question: { ...question(1), id: 'other' } }),
    ]);
    expect(bundle.questions[0]?.id).toBe('real');
    expect(bundle.rows[0]?.questionId).toBe('real');
  });

  it('treats a missing status as pending', () => {
    const bundle = read([row(1, { status: undefined })]);
    expect(bundle.rows[0]?.status).toBe('pending');
  });

  it.each<RowStatus>(['pending', 'answered', 'rejected', 'expired', 'cancelled'])(
    'accepts the status %s',
    (status) => {
      expect(read([row(1, { status })]).rows[0]?.status).toBe(status);
    },
  );

  it.each([
    ['true', true, true],
    ['"true"', 'true', true],
    ['"1"', '1', true],
    ['1', 1, true],
    ['false', false, false],
    ['"false"', 'false', false],
    ['0', 0, false],
    ['"yes"', 'yes', false],
    ['absent', undefined, false],
  ])('reads the flag value %s as %s', (_name, value, expected) => {
    const bundle = read([row(1, { agent_disconnected: value, response_delivery_pending: value })]);
    expect(bundle.rows[0]?.detached).toBe(expected);
    expect(bundle.rows[0]?.deliveryPending).toBe(expected);
  });

  it('reads respondedAt from metadata, falling back to updated_at', () => {
    const bundle = read([
      row(1, { responded_at: '2026-02-02T00:00:00.000000000Z' }),
      row(2, {}, { updated_at: '2026-03-03T00:00:00.000000000Z' }),
    ]);
    expect(bundle.rows.map((r) => r.respondedAt)).toEqual([
      '2026-02-02T00:00:00.000000000Z',
      '2026-03-03T00:00:00.000000000Z',
    ]);
    expect(bundle.rows[1]?.createdAt).toBe(CREATED[1]);
    expect(bundle.rows[1]?.updatedAt).toBe('2026-03-03T00:00:00.000000000Z');
  });

  it('reads a stored response and reject reason', () => {
    const bundle = read([
      row(1, {
        status: 'answered',
        response: { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: 'ok' },
      }),
      row(2, { status: 'rejected', reject_reason: 'not now' }),
    ]);
    expect(bundle.rows[0]?.response).toEqual({
      question_id: 'q1',
      selected_options: ['q1_opt2'],
      custom_text: 'ok',
    });
    expect(bundle.rows[1]?.response).toBeUndefined();
    expect(bundle.rows[1]?.rejectReason).toBe('not now');
  });

  it('reads a partial response leniently', () => {
    const bundle = read([
      row(1, { response: { question_id: 'q1', selected_options: ['a', 3, null, 'b'] } }),
      row(2, { response: { selected_options: ['a'] } }),
    ]);
    expect(bundle.rows[0]?.response).toEqual({
      question_id: 'q1',
      selected_options: ['a', 'b'],
      custom_text: '',
    });
    expect(bundle.rows[1]?.response).toBeUndefined();
  });

  it('reads a stored question leniently where fields are optional', () => {
    const bundle = read([
      row(1, {
        question: {
          prompt: 'P',
          options: [
            { option_id: 'a', label: 'A' },
            { option_id: 'b', label: 'B', description: 7 },
          ],
          multi_select: 'true',
        },
      }),
    ]);
    expect(bundle.questions[0]).toEqual({
      id: 'q1',
      title: '',
      prompt: 'P',
      options: [
        { option_id: 'a', label: 'A', description: '' },
        { option_id: 'b', label: 'B', description: '' },
      ],
      multi_select: false,
    });
  });

  describe('malformed bundles', () => {
    it('refuses a row of another type', () => {
      malformed([row(1), row(2, {}, { type: 'message' })]);
      malformed([row(1, {}, { type: 'message' })]);
    });

    it('refuses rows from another session', () => {
      malformed([row(1), row(2, {}, { task_session_id: 'session-2' })]);
    });

    it('refuses rows from another turn', () => {
      malformed([row(1), row(2, {}, { turn_id: 'turn-2' })]);
    });

    it.each([
      ['missing', undefined],
      ['a number', 1],
      ['null', null],
    ])('refuses a question_id that is %s', (_name, questionId) => {
      malformed([row(1), row(2, { question_id: questionId })]);
    });

    it.each(['unknown', 'PENDING', 'superseded', ''])('refuses the status %j', (status) => {
      malformed([row(1), row(2, { status })]);
    });

    it('refuses duplicate question ids', () => {
      malformed([row(1), row(2, { question_id: 'q1' })]);
    });

    it.each([
      ['missing', undefined],
      ['null', null],
      ['a string', 'Prompt?'],
      ['a number', 5],
    ])('refuses a question that is %s', (_name, value) => {
      malformed([row(1), row(2, { question: value })]);
    });

    it.each([
      ['null', null],
      ['a string', 'A'],
      ['without option_id', { label: 'A', description: 'a' }],
      ['without label', { option_id: 'a', description: 'a' }],
      ['with a numeric label', { option_id: 'a', label: 1 }],
    ])('refuses an option that is %s', (_name, value) => {
      malformed([
        row(1, {
          question: { prompt: 'P', options: [{ option_id: 'b', label: 'B' }, value] },
        }),
      ]);
    });

    it('refuses a question without an options array', () => {
      malformed([row(1, { question: { prompt: 'P' } })]);
    });

    it('refuses an answered row that lost its stored answer', () => {
      malformed([row(1, { status: 'answered', response: 'garbled' })]);
    });

    it('refuses a status that is not text', () => {
      malformed([row(1, { status: 42 })]);
    });
  });
});

const ADA = { user_id: 'user-ada', name: 'Ada', surface: 'web' } as const;

function answeredRow(n: number, answer: Answer, respondedAt = '2026-05-05T00:00:00.000000000Z') {
  return row(n, {
    status: 'answered',
    response: answer,
    responded_at: respondedAt,
    responded_by: ADA,
  });
}

describe('winnerResponse', () => {
  it('is undefined while every row is pending', () => {
    expect(winnerResponse(read([row(1), row(2)]))).toBeUndefined();
  });

  it.each(['expired', 'cancelled'])('is undefined when rows are only %s', (status) => {
    expect(winnerResponse(read([row(1, { status }), row(2, { status })]))).toBeUndefined();
  });

  it('rebuilds exactly the decision the claim stored', () => {
    const questions = [question(1), question(2, true)];
    const result = decide(questions, {
      answers: [
        { question_id: 'q2', selected_options: ['q2_opt3', 'q2_opt1'], custom_text: ' more ' },
        { question_id: 'q1', selected_options: ['q1_opt2'] },
      ],
    });
    if (!result.ok) throw new Error('fixture must be valid');
    const stored = result.decision.answers;
    const bundle = read(stored.map((answer, index) => answeredRow(index + 1, answer)));
    expect(winnerResponse(bundle)).toEqual({
      pending_id: PENDING_ID,
      answers: stored,
      rejected: false,
      reject_reason: '',
      responded_at: '2026-05-05T00:00:00.000000000Z',
      responded_by: ADA,
    });
  });

  it('lists answers in row order', () => {
    const a1: Answer = { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' };
    const a2: Answer = { question_id: 'q2', selected_options: [], custom_text: 'text' };
    const response = winnerResponse(read([answeredRow(2, a2), answeredRow(1, a1)]));
    expect(response?.answers).toEqual([a2, a1]);
  });

  it('is identical for every read of the same rows', () => {
    const a1: Answer = { question_id: 'q1', selected_options: ['q1_opt3'], custom_text: 'x' };
    const a2: Answer = { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' };
    const rows = () => [answeredRow(1, a1), answeredRow(2, a2)];
    expect(winnerResponse(read(rows()))).toEqual(winnerResponse(read(rows())));
  });

  it('gives no answers and the reject reason for a rejected winner', () => {
    const bundle = read([
      row(1, {
        status: 'rejected',
        reject_reason: 'wrong question',
        responded_at: '2026-06-06T00:00:00.000000000Z',
        responded_by: { user_id: 'user-bo', name: 'Bo', surface: 'mcp' },
        // A stray stored response is never surfaced for a rejection.
        response: { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' },
      }),
      row(2, { status: 'rejected', reject_reason: 'wrong question' }),
    ]);
    expect(winnerResponse(bundle)).toEqual({
      pending_id: PENDING_ID,
      answers: [],
      rejected: true,
      reject_reason: 'wrong question',
      responded_at: '2026-06-06T00:00:00.000000000Z',
      responded_by: { user_id: 'user-bo', name: 'Bo', surface: 'mcp' },
    });
  });

  it('gives an empty reject reason when none was stored', () => {
    const response = winnerResponse(read([row(1, { status: 'rejected' })]));
    expect(response?.rejected).toBe(true);
    expect(response?.reject_reason).toBe('');
  });

  it('never reports a reject reason for an answered winner', () => {
    const a1: Answer = { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' };
    const bundle = read([row(1, { status: 'answered', response: a1, reject_reason: 'stale' })]);
    expect(winnerResponse(bundle)?.reject_reason).toBe('');
  });

  it('takes responded_at from the first decided row, falling back to updated_at', () => {
    const a1: Answer = { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' };
    const bundle = read([
      row(
        1,
        { status: 'answered', response: a1 },
        { updated_at: '2026-07-07T00:00:00.000000000Z' },
      ),
    ]);
    expect(winnerResponse(bundle)?.responded_at).toBe('2026-07-07T00:00:00.000000000Z');
  });

  it('skips pending rows when finding the winner', () => {
    const a2: Answer = { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: '' };
    const response = winnerResponse(
      read([row(1), answeredRow(2, a2, '2026-08-08T00:00:00.000000000Z')]),
    );
    expect(response).toEqual({
      pending_id: PENDING_ID,
      answers: [a2],
      rejected: false,
      reject_reason: '',
      responded_at: '2026-08-08T00:00:00.000000000Z',
      responded_by: ADA,
    });
  });

  it.each([
    ['absent', undefined],
    ['not an object', 'Ada'],
    ['an unknown surface', { user_id: 'u', name: 'Ada', surface: 'telepathy' }],
    ['no user', { name: 'Ada', surface: 'web' }],
  ])('reports no responder when the stored one is %s', (_case, stored) => {
    const a1: Answer = { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' };
    const bundle = read([row(1, { status: 'answered', response: a1, responded_by: stored })]);
    expect(winnerResponse(bundle)?.responded_by).toBeNull();
  });

  it('uses the pending id it was read with', () => {
    const result = readBundle('other-id', [row(1, { status: 'rejected' })]);
    if (!result.ok) throw new Error('expected a bundle');
    expect(winnerResponse(result.bundle)?.pending_id).toBe('other-id');
  });
});

describe('bundleStatus', () => {
  it('is pending while every row is pending', () => {
    expect(bundleStatus(read([row(1), row(2)]))).toBe('pending');
  });

  it.each<RowStatus>(['answered', 'rejected', 'expired', 'cancelled'])(
    'is %s when the rows are',
    (status) => {
      expect(bundleStatus(read([row(1, { status }), row(2, { status })]))).toBe(status);
    },
  );

  it('is the first non-pending row status', () => {
    expect(bundleStatus(read([row(1), row(2, { status: 'expired' })]))).toBe('expired');
    expect(
      bundleStatus(read([row(1, { status: 'cancelled' }), row(2, { status: 'answered' })])),
    ).toBe('cancelled');
  });
});
