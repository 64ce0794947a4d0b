/** A tool call's chip says what happened, read from the rows it asked for, not the bare status. */
import { describe, expect, it } from 'vitest';
import type { BundleState } from '../../web/src/model/read-model.js';
import { toolCallLabel } from '../../web/src/model/tool-call-label.js';
import type { MessageView } from '../../web/src/model/types.js';

let rows = 0;
function row(type: string, metadata: Record<string, unknown>, turn = 't1'): MessageView {
  rows++;
  const at = `2026-12-01T10:00:${String(rows).padStart(2, '0')}.000000000Z`;
  return {
    id: `m${String(rows)}`,
    session_id: 's',
    task_id: 'k',
    turn_id: turn,
    author: type === 'clarification_request' ? 'system' : 'agent',
    type,
    content: type === 'tool_call' ? 'Asking you a question' : 'How?',
    metadata,
    created_at: at,
    updated_at: at,
  } as MessageView;
}

const call = (status: string, turn = 't1') => row('tool_call', { toolCallId: 'c', status }, turn);
/** A call its turn's end closed, as `endOpenToolCalls` writes it. */
const cutOff = () => row('tool_call', { toolCallId: 'c', status: 'failed', interrupted: true });
const question = (status: string, detached: boolean) =>
  row('clarification_request', {
    pending_id: 'p1',
    question_id: 'q1',
    status,
    agent_disconnected: detached,
    question: { id: 'q1', prompt: 'How?', options: [] },
  });
const decision = (kind: string, decision?: string) =>
  row('user_input_decision', { kind, ...(decision ? { decision } : {}), title: 'Connect' });
const none: Record<string, BundleState> = {};

describe('toolCallLabel', () => {
  it('reads a detached question’s failed ask as waiting, then by its outcome', () => {
    expect(toolCallLabel([call('failed'), question('pending', true)], 0, none)).toBe(
      'waiting_detached',
    );
    expect(toolCallLabel([call('failed'), question('answered', true)], 0, none)).toBe(
      'answered_later',
    );
    expect(toolCallLabel([call('failed'), question('rejected', true)], 0, none)).toBe('skipped');
    expect(toolCallLabel([call('failed'), question('expired', true)], 0, none)).toBe('failed');
  });

  it('reads a call its turn’s end cut off as stopped, and one its agent failed as failed', () => {
    expect(toolCallLabel([cutOff()], 0, none)).toBe('stopped');
    expect(toolCallLabel([call('failed')], 0, none)).toBe('failed');
    expect(toolCallLabel([cutOff(), question('expired', true)], 0, none)).toBe('stopped');
    expect(toolCallLabel([cutOff(), question('pending', false)], 0, none)).toBe('stopped');
    // A question its cut-off ask left waiting still resumes the agent when answered.
    expect(toolCallLabel([cutOff(), question('pending', true)], 0, none)).toBe('waiting_detached');
    expect(toolCallLabel([cutOff(), question('answered', true)], 0, none)).toBe('answered_later');
  });

  it('keeps the agent’s status when the question did not detach or the call did not fail', () => {
    expect(toolCallLabel([call('failed'), question('pending', false)], 0, none)).toBe('failed');
    expect(toolCallLabel([call('in_progress'), question('pending', false)], 0, none)).toBe(
      'in_progress',
    );
    expect(toolCallLabel([call('completed'), question('answered', true)], 0, none)).toBe(
      'completed',
    );
  });

  it('says Cancelled for an ask whose question was cancelled, attached or not', () => {
    expect(toolCallLabel([call('failed'), question('cancelled', false)], 0, none)).toBe(
      'cancelled',
    );
    expect(toolCallLabel([call('failed'), question('cancelled', true)], 0, none)).toBe('cancelled');
    // The page's bundle may know it before the row does.
    const cancelled = {
      p1: {
        detached: false,
        questions: new Map([['q1', { question_id: 'q1', status: 'cancelled' }]]),
      },
    } as unknown as Record<string, BundleState>;
    expect(toolCallLabel([call('failed'), question('pending', false)], 0, cancelled)).toBe(
      'cancelled',
    );
    // A call its turn's end cut off was stopped, whatever became of its question.
    expect(toolCallLabel([cutOff(), question('cancelled', false)], 0, none)).toBe('stopped');
  });

  it('learns detachment from the bundle when the row does not say it', () => {
    const bundles = { p1: { detached: true, questions: new Map() } as unknown as BundleState };
    expect(toolCallLabel([call('failed'), question('pending', false)], 0, bundles)).toBe(
      'waiting_detached',
    );
  });

  it('reads the question’s status as the page’s bundle has it, as the question’s own line does', () => {
    // The server derives "expired" for a detached question the conversation moved on from;
    // its row still says pending. The chip must not say the agent will resume.
    const asked = question('pending', true);
    const bundleWith = (status: string) =>
      ({
        detached: true,
        questions: new Map([['q1', { question_id: 'q1', status }]]),
      }) as unknown as BundleState;
    expect(toolCallLabel([call('failed'), asked], 0, { p1: bundleWith('expired') })).toBe('failed');
    expect(toolCallLabel([call('failed'), asked], 0, { p1: bundleWith('answered') })).toBe(
      'answered_later',
    );
    expect(toolCallLabel([call('failed'), asked], 0, { p1: bundleWith('pending') })).toBe(
      'waiting_detached',
    );
  });

  it('says Skipped for a completed call whose action the person skipped', () => {
    expect(toolCallLabel([call('completed'), decision('action', 'skip')], 0, none)).toBe('skipped');
    expect(toolCallLabel([call('completed'), decision('action', 'done')], 0, none)).toBe(
      'completed',
    );
    expect(toolCallLabel([call('completed'), decision('consent')], 0, none)).toBe('completed');
  });

  it('ties a call only to rows of its own turn, before the turn’s next call', () => {
    expect(
      toolCallLabel([call('failed'), call('failed'), question('pending', true)], 0, none),
    ).toBe('failed');
    expect(
      toolCallLabel(
        [call('failed'), row('tool_call', {}, 't2'), question('pending', true)],
        0,
        none,
      ),
    ).toBe('waiting_detached');
    expect(toolCallLabel([call('completed', 't2'), decision('action', 'skip')], 0, none)).toBe(
      'completed',
    );
    expect(toolCallLabel([call('bogus')], 0, none)).toBeNull();
  });

  it('says Skipped for a completed call followed by a skipped action request, before the next call', () => {
    const first = call('completed');
    const second = call('completed');
    const between = new Date(Date.parse(first.created_at) + 500).toISOString();
    const later = new Date(Date.parse(second.created_at) + 500).toISOString();
    expect(toolCallLabel([first, second], 0, none, [between])).toBe('skipped');
    expect(toolCallLabel([first, second], 1, none, [between])).toBe('completed');
    expect(toolCallLabel([first, second], 1, none, [later])).toBe('skipped');
    expect(toolCallLabel([call('failed')], 0, none, [later])).toBe('failed');
  });
});
