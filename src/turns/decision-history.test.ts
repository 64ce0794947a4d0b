import { describe, expect, it } from 'vitest';
import type { DecisionRow, MessageRecord } from '../store/index.js';
import { decisionEntryOf } from './decision-history.js';

const ADA = { user_id: 'user-1', name: 'Ada', surface: 'web' } as const;

function row(type: string, metadata: Record<string, unknown>): DecisionRow {
  const message: MessageRecord = {
    id: 'm1',
    task_session_id: 's1',
    task_id: 't1',
    turn_id: 'turn-1',
    author_type: 'user',
    type,
    content: '',
    metadata,
    requests_input: false,
    admission_key: null,
    created_at: '2026-01-01T00:00:00.000000000Z',
    updated_at: '2026-01-01T00:00:09.000000000Z',
  };
  return { message, taskTitle: 'Fix the build', sessionDeleted: false };
}

const question = {
  prompt: 'Which config?',
  options: [
    { option_id: 'a', label: 'Generated' },
    { option_id: 'b', label: 'Hand-written' },
  ],
};

describe('decisionEntryOf', () => {
  it('reads an answered question with its labels, typed text, who and when', () => {
    const entry = decisionEntryOf(
      row('clarification_request', {
        question,
        status: 'answered',
        response: { selected_options: ['b', 'gone'], custom_text: 'small' },
        responded_at: '2026-01-01T00:00:05.000000000Z',
        responded_by: ADA,
      }),
    );
    expect(entry).toEqual({
      message_id: 'm1',
      session_id: 's1',
      task_id: 't1',
      task_title: 'Fix the build',
      session_deleted: false,
      kind: 'question',
      subject: 'Which config?',
      outcome: 'answered',
      detail: 'Hand-written, gone, “small”',
      remembered: false,
      option_kind: null,
      always_rule: null,
      responded_by: ADA,
      decided_at: '2026-01-01T00:00:05.000000000Z',
    });
  });

  it.each([
    ['rejected', 'skipped', 'later'],
    ['cancelled', 'cancelled', ''],
  ])('reads a %s question as %s', (status, outcome, detail) => {
    const entry = decisionEntryOf(
      row('clarification_request', { question, status, reject_reason: 'later', responded_by: ADA }),
    );
    expect(entry).toMatchObject({ outcome, detail, decided_at: '2026-01-01T00:00:09.000000000Z' });
  });

  it('reads consent and action decisions', () => {
    const consent = (optionKind: string, remembered: boolean) =>
      decisionEntryOf(
        row('user_input_decision', {
          kind: 'consent',
          title: 'Delete the cache',
          option_label: 'Always allow',
          option_kind: optionKind,
          remembered,
          responded_by: ADA,
        }),
      );
    expect(consent('allow_always', true)).toMatchObject({
      kind: 'consent',
      outcome: 'allowed',
      detail: 'Always allow',
      remembered: true,
      option_kind: 'allow_always',
      always_rule: 'applied',
    });
    expect(consent('reject_once', false)).toMatchObject({
      outcome: 'rejected',
      option_kind: 'reject_once',
      always_rule: null,
      remembered: false,
    });
    const action = decisionEntryOf(
      row('user_input_decision', {
        kind: 'action',
        title: 'Connect',
        decision: 'skip',
        responded_by: ADA,
      }),
    );
    expect(action).toMatchObject({ kind: 'action', subject: 'Connect', outcome: 'skipped' });
  });

  it('says what a consent choice did and that it set a rule, whatever the agent called it', () => {
    const entry = decisionEntryOf(
      row('user_input_decision', {
        kind: 'consent',
        title: 'Run the tool',
        option_label: 'Reject (do not run)',
        option_kind: 'allow_always',
        remembered: false,
        responded_by: { ...ADA, surface: 'link' },
      }),
    );
    expect(entry).toMatchObject({
      outcome: 'allowed',
      detail: 'Always allow (agent’s label: “Reject (do not run)”)',
      remembered: false,
      option_kind: 'allow_always',
      always_rule: 'set',
    });
  });

  it('reads a sent and a declined form by their decision alone, never their content', () => {
    const form = (decision: string) =>
      decisionEntryOf(
        row('user_input_decision', {
          kind: 'form',
          title: 'Your details',
          decision,
          content: { email: 'ada@example.com' },
          responded_by: ADA,
        }),
      );
    expect(form('accept')).toMatchObject({
      kind: 'form',
      subject: 'Your details',
      outcome: 'sent',
      detail: '',
      remembered: false,
      responded_by: ADA,
    });
    expect(form('decline')).toMatchObject({ kind: 'form', outcome: 'declined', detail: '' });
  });

  it('quotes the person reason of a Reject and of a Skip in the detail', () => {
    const rejected = decisionEntryOf(
      row('user_input_decision', {
        kind: 'consent',
        title: 'Delete the cache',
        option_label: 'Reject',
        option_kind: 'reject_once',
        reason: 'Keep the cache',
        responded_by: ADA,
      }),
    );
    expect(rejected).toMatchObject({
      outcome: 'rejected',
      detail: 'Reject once, “Keep the cache”',
    });
    const skipped = decisionEntryOf(
      row('user_input_decision', {
        kind: 'action',
        title: 'Connect',
        decision: 'skip',
        reason: 'No access yet',
        responded_by: ADA,
      }),
    );
    expect(skipped).toMatchObject({ outcome: 'skipped', detail: '“No access yet”' });
  });

  it.each([
    ['no responder', 'clarification_request', { question, status: 'answered' }],
    ['a pending question', 'clarification_request', { question, responded_by: ADA }],
    [
      'an expired question',
      'clarification_request',
      { question, status: 'expired', responded_by: ADA },
    ],
    [
      'an unknown surface',
      'user_input_decision',
      { kind: 'action', decision: 'done', responded_by: { ...ADA, surface: 'fax' } },
    ],
    ['an action without a decision', 'user_input_decision', { kind: 'action', responded_by: ADA }],
    ['an unknown kind', 'user_input_decision', { kind: 'survey', responded_by: ADA }],
    ['a form without a decision', 'user_input_decision', { kind: 'form', responded_by: ADA }],
  ])('leaves out a row with %s', (_case, type, metadata) => {
    expect(decisionEntryOf(row(type, metadata))).toBeUndefined();
  });
});
