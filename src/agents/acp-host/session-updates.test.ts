import { describe, expect, it } from 'vitest';
import { describeUpdate } from './session-updates.js';

const params = (update: unknown) => ({ sessionId: 'a1', update });

describe('session updates', () => {
  it('reads message and thought chunks as coalescible text', () => {
    expect(
      describeUpdate(
        params({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }),
      ),
    ).toEqual({ ok: true, piece: { kind: 'text', content: 'hi', metadata: {}, coalesce: true } });
    expect(
      describeUpdate(
        params({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } }),
      ),
    ).toEqual({
      ok: true,
      piece: { kind: 'thought', content: 'hm', metadata: {}, coalesce: true },
    });
  });

  it('reads tool calls and their updates with id, status and kind', () => {
    expect(
      describeUpdate(
        params({
          sessionUpdate: 'tool_call',
          toolCallId: 'c1',
          title: 'Run tests',
          kind: 'execute',
          status: 'pending',
        }),
      ),
    ).toEqual({
      ok: true,
      piece: {
        kind: 'tool_call',
        content: 'Run tests',
        metadata: { toolCallId: 'c1', status: 'pending', kind: 'execute' },
        coalesce: false,
      },
    });
    expect(
      describeUpdate(
        params({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed' }),
      ),
    ).toEqual({
      ok: true,
      piece: {
        kind: 'tool_call',
        content: '',
        metadata: { toolCallId: 'c1', status: 'completed', kind: null },
        coalesce: false,
      },
    });
  });

  it('reads a plan as one line per entry', () => {
    const described = describeUpdate(
      params({
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read', status: 'completed', priority: 'high' },
          { content: 'Write', status: 'pending', priority: 'low' },
        ],
      }),
    );
    expect(described).toMatchObject({
      ok: true,
      piece: { kind: 'plan', content: 'Read\nWrite', coalesce: false },
    });
  });

  it('ignores unknown, malformed and non-text updates with a reason', () => {
    expect(describeUpdate(params({ sessionUpdate: 'usage_update', used: 1 }))).toEqual({
      ok: false,
      reason: 'unsupported_update',
      updateKind: 'usage_update',
    });
    expect(describeUpdate(params({ sessionUpdate: 'something_new' }))).toMatchObject({ ok: false });
    expect(describeUpdate(null)).toEqual({ ok: false, reason: 'malformed' });
    expect(describeUpdate(params({ content: 'x' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(describeUpdate(params({ sessionUpdate: 'tool_call', title: 'no id' }))).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(
      describeUpdate(
        params({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'image', data: '', mimeType: 'x' },
        }),
      ),
    ).toMatchObject({ ok: false, reason: 'non_text_content' });
  });
});
