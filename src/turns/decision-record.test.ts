import { describe, expect, it } from 'vitest';
import type { ActionView, ConsentView } from '../wire/index.js';
import { decisionRecordOf } from './decision-record.js';

const ADA = { user_id: 'user-1', name: 'Ada', surface: 'web' } as const;

const consent: ConsentView = {
  id: 'req-1',
  kind: 'consent',
  session_id: 's1',
  task_id: 't1',
  status: 'settled',
  revision: 2,
  created_at: '2026-01-01T00:00:00.000Z',
  deadline_at: null,
  settled_reason: 'human',
  responded_by: ADA,
  title: 'Delete the build cache',
  tool_key: 'delete',
  details: [],
  options: [
    { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
    { option_id: 'always', label: 'Always allow', kind: 'allow_always' },
  ],
  selected_option_id: 'always',
  remembered: false,
  reason: null,
};

const action: ActionView = {
  ...consent,
  kind: 'action',
  instructions: 'Open the link',
  url: null,
  decision: 'skip',
  follow_up_text: 'skipped',
  queued: false,
  follow_up_attempts: 0,
};

describe('decisionRecordOf', () => {
  it('keeps the chosen option, who chose it, and the rule it set', () => {
    expect(decisionRecordOf(consent)).toEqual({
      content: 'Ada chose "Always allow" and set an "Always allow" rule: Delete the build cache',
      metadata: {
        user_input_request_id: 'req-1',
        kind: 'consent',
        title: 'Delete the build cache',
        responded_by: ADA,
        option_id: 'always',
        option_label: 'Always allow',
        option_kind: 'allow_always',
        remembered: false,
        always_rule: 'set',
      },
    });
  });

  it('says what the option did in Clarion’s words, whatever the agent called it', () => {
    const liar: ConsentView = {
      ...consent,
      options: [
        { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
        { option_id: 'always', label: 'Reject (do not run)', kind: 'allow_always' },
      ],
    };
    expect(decisionRecordOf(liar)).toMatchObject({
      content:
        'Ada chose "Always allow" (agent\'s label: "Reject (do not run)") and set an "Always allow" rule: Delete the build cache',
      metadata: {
        option_label: 'Reject (do not run)',
        option_kind: 'allow_always',
        always_rule: 'set',
      },
    });
    expect(decisionRecordOf({ ...liar, selected_option_id: 'once' })).toMatchObject({
      content: 'Ada chose "Allow once": Delete the build cache',
      metadata: { option_kind: 'allow_once' },
    });
    expect(decisionRecordOf({ ...liar, selected_option_id: 'once' })?.metadata).not.toHaveProperty(
      'always_rule',
    );
  });

  it('says when an earlier "always" answered, naming the person who set it', () => {
    const remembered = decisionRecordOf({ ...consent, remembered: true });
    expect(remembered?.content).toBe(
      'Ada chose "Always allow" (remembered "always"): Delete the build cache',
    );
    expect(remembered?.metadata).toMatchObject({ remembered: true, always_rule: 'applied' });
  });

  it('keeps a Reject with its reason, from the moment it is answered (armed)', () => {
    const rejected: ConsentView = {
      ...consent,
      status: 'armed',
      settled_reason: null,
      options: [{ option_id: 'no', label: 'Reject', kind: 'reject_once' }],
      selected_option_id: 'no',
      reason: 'Use the staging bucket',
    };
    expect(decisionRecordOf(rejected)).toEqual({
      content: 'Ada chose "Reject once": Delete the build cache. Reason: Use the staging bucket',
      metadata: expect.objectContaining({
        option_kind: 'reject_once',
        reason: 'Use the staging bucket',
      }) as unknown,
    });
    // Its follow-up settles it later; the row is not written a second time.
    expect(decisionRecordOf({ ...rejected, status: 'settled', settled_reason: 'dispatched' })).toBe(
      undefined,
    );
  });

  it('keeps a Skip reason', () => {
    expect(decisionRecordOf({ ...action, reason: 'No access yet' })).toMatchObject({
      content: 'Ada marked "Delete the build cache" skipped. Reason: No access yet',
      metadata: { decision: 'skip', reason: 'No access yet' },
    });
  });

  it('keeps an action decision', () => {
    expect(decisionRecordOf(action)?.metadata).toMatchObject({ kind: 'action', decision: 'skip' });
  });

  it.each([
    ['armed (the turn still runs)', 'armed'],
    ['due (its follow-up is going out)', 'due'],
  ] as const)('keeps an action once a person answered it: %s', (_case, status) => {
    const decided = { ...action, status, settled_reason: null, decision: 'done' } as const;
    expect(decisionRecordOf(decided)?.content).toBe('Ada marked "Delete the build cache" done');
  });

  it.each([
    ['awaiting', { ...action, status: 'awaiting', settled_reason: null, decision: null }],
    // Its row was written when the person answered; the follow-up settles it, not a person.
    ['settled by its follow-up', { ...action, settled_reason: 'dispatched' }],
  ] as const)('writes nothing for an action %s', (_case, view) => {
    expect(decisionRecordOf(view as ActionView)).toBeUndefined();
  });

  it.each([
    ['still awaiting', { ...consent, status: 'awaiting', settled_reason: null }],
    ['timed out', { ...consent, settled_reason: 'timed_out', responded_by: null }],
    ['no person named', { ...consent, responded_by: null }],
    ['an option the request does not have', { ...consent, selected_option_id: 'gone' }],
  ] as const)('writes nothing for a view %s', (_case, view) => {
    expect(decisionRecordOf(view as ConsentView)).toBeUndefined();
  });
});
