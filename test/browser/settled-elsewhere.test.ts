/** Who settled a question the person was still answering: the banner's words depend on it. */
import { describe, expect, it } from 'vitest';
import { initialState, transitions } from '../../web/src/model/read-model.js';
import { responderLabel, settledElsewhere } from '../../web/src/model/settled-elsewhere.js';
import type { MessageView, Responder } from '../../web/src/model/types.js';

const ME = 'user-me';
const web = (user: string): Responder => ({ user_id: user, name: 'Ada', surface: 'web' });

function withRow(status: string, respondedBy?: Responder) {
  const row = {
    id: 'm1',
    session_id: 's1',
    task_id: 't1',
    turn_id: 'turn1',
    author: 'system',
    type: 'clarification_request',
    content: 'How?',
    requests_input: true,
    metadata: {
      pending_id: 'p1',
      question_id: 'q1',
      status,
      question: { id: 'q1', prompt: 'How?', options: [] },
      ...(respondedBy ? { responded_by: respondedBy } : {}),
    },
    created_at: '2026-12-01T10:00:00.000000000Z',
    updated_at: '2026-12-01T10:00:01.000000000Z',
  } as MessageView;
  return transitions.messages(initialState(), 's1', [row], true);
}

describe('settledElsewhere', () => {
  it('tells this person in another tab from this person elsewhere and from someone else', () => {
    expect(settledElsewhere(withRow('answered', web(ME)), 's1', 'p1', ME)).toBe('another_tab');
    expect(settledElsewhere(withRow('rejected', web(ME)), 's1', 'p1', ME)).toBe('another_tab');
    expect(
      settledElsewhere(withRow('answered', { ...web(ME), surface: 'link' }), 's1', 'p1', ME),
    ).toBe('you_elsewhere');
    expect(settledElsewhere(withRow('answered', web('someone')), 's1', 'p1', ME)).toBe(
      'someone_else',
    );
  });

  it('is cautious while it does not know who decided or who is asking', () => {
    expect(settledElsewhere(withRow('answered'), 's1', 'p1', ME)).toBe('someone_else');
    expect(settledElsewhere(withRow('answered', web(ME)), 's1', 'p1', undefined)).toBe(
      'someone_else',
    );
    expect(responderLabel(null, ME)).toBe('someone_else');
  });

  it('names who cancelled, and calls anything else no longer active', () => {
    expect(settledElsewhere(withRow('cancelled', web(ME)), 's1', 'p1', ME)).toBe(
      'cancelled_another_tab',
    );
    expect(
      settledElsewhere(withRow('cancelled', { ...web(ME), surface: 'rest' }), 's1', 'p1', ME),
    ).toBe('cancelled_you_elsewhere');
    expect(settledElsewhere(withRow('cancelled', web('someone')), 's1', 'p1', ME)).toBe(
      'cancelled_someone_else',
    );
    // A row that keeps no canceller never says "you".
    expect(settledElsewhere(withRow('cancelled'), 's1', 'p1', ME)).toBe('cancelled_someone_else');
    expect(settledElsewhere(withRow('expired'), 's1', 'p1', ME)).toBe('expired');
    // Still pending in the rows: the session moved on (a newer turn, the end of the session).
    expect(settledElsewhere(withRow('pending'), 's1', 'p1', ME)).toBe('expired');
    expect(settledElsewhere(initialState(), 's1', 'p1', ME)).toBe('expired');
  });
});
