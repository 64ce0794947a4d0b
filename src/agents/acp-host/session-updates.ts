/**
 * Reads one ACP `session/update` notification into a piece of transcript
 * output. Pure; accepts `unknown` because updates come from another process
 * and may be of a kind newer than this SDK knows. Text and thought chunks are
 * marked coalescible; tool calls and plans stand alone.
 */

export type OutputKind = 'text' | 'thought' | 'tool_call' | 'plan';

export interface OutputPiece {
  kind: OutputKind;
  content: string;
  metadata: Record<string, unknown>;
  /** Whether consecutive pieces of this kind join into one event. */
  coalesce: boolean;
}

export type IgnoredUpdateReason = 'malformed' | 'unsupported_update' | 'non_text_content';

export type DescribedUpdate =
  | { ok: true; piece: OutputPiece }
  | { ok: false; reason: IgnoredUpdateReason; updateKind?: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const optionalString = (value: unknown): string | null =>
  typeof value === 'string' ? value : null;

/** Describes the `params` of a `session/update` notification. */
export function describeUpdate(params: unknown): DescribedUpdate {
  if (!isRecord(params) || !isRecord(params.update)) return { ok: false, reason: 'malformed' };
  const update = params.update;
  const updateKind = update.sessionUpdate;
  if (typeof updateKind !== 'string') return { ok: false, reason: 'malformed' };
  switch (updateKind) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const content = update.content;
      if (!isRecord(content)) return { ok: false, reason: 'malformed', updateKind };
      if (content.type !== 'text' || typeof content.text !== 'string') {
        return { ok: false, reason: 'non_text_content', updateKind };
      }
      return {
        ok: true,
        piece: {
          kind: updateKind === 'agent_message_chunk' ? 'text' : 'thought',
          content: content.text,
          metadata: {},
          coalesce: true,
        },
      };
    }
    case 'tool_call':
    case 'tool_call_update': {
      if (typeof update.toolCallId !== 'string')
        return { ok: false, reason: 'malformed', updateKind };
      return {
        ok: true,
        piece: {
          kind: 'tool_call',
          content: optionalString(update.title) ?? '',
          metadata: {
            toolCallId: update.toolCallId,
            status: optionalString(update.status),
            kind: optionalString(update.kind),
          },
          coalesce: false,
        },
      };
    }
    case 'plan': {
      if (!Array.isArray(update.entries)) return { ok: false, reason: 'malformed', updateKind };
      const entries = update.entries.filter(isRecord).map((entry) => ({
        content: optionalString(entry.content) ?? '',
        status: optionalString(entry.status),
        priority: optionalString(entry.priority),
      }));
      return {
        ok: true,
        piece: {
          kind: 'plan',
          content: entries.map((entry) => entry.content).join('\n'),
          metadata: { entries },
          coalesce: false,
        },
      };
    }
    default:
      return { ok: false, reason: 'unsupported_update', updateKind };
  }
}
