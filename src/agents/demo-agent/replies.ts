/**
 * The demo agent's other replies, and how a reply is streamed. Pure.
 */
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { resultPayload, resultText, type ToolResultLike } from './ask-result.js';

export function plainReply(text: string): string {
  return `You said: ${text}`;
}

/** `/recall`: what was said earlier in this conversation, proving a loaded session remembers. */
export function recallReply(earlier: readonly string[]): string {
  if (earlier.length === 0) return 'Nothing was said earlier in this conversation.';
  return `Earlier in this conversation: ${earlier.map((text) => `“${text}”`).join(', ')}.`;
}

export const PERMISSION_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
] as const;

export function permissionReply(response: RequestPermissionResponse): string {
  const outcome = response.outcome;
  if (outcome.outcome === 'cancelled') return 'The permission request was cancelled.';
  const option = PERMISSION_OPTIONS.find((candidate) => candidate.optionId === outcome.optionId);
  const name = option ? ` (${option.name})` : '';
  return `Permission answer: "${outcome.optionId}"${name}.`;
}

export function actionReply(result: ToolResultLike): string {
  const payload = resultPayload(result);
  const text = resultText(result) ?? '';
  if (result.isError === true) return `The action request failed: ${text}`;
  if (typeof payload === 'object' && payload !== null && 'status' in payload) {
    return `Action request: ${JSON.stringify(payload)}`;
  }
  return `Action request: ${text === '' ? 'no details' : text}`;
}

/**
 * Splits a reply into `parts` chunks at word boundaries; joined they give
 * the reply back exactly, so streaming never changes the text.
 */
export function chunkReply(text: string, parts = 2): string[] {
  if (parts <= 1 || text.length < parts) return [text];
  const chunks: string[] = [];
  let rest = text;
  for (let remaining = parts; remaining > 1 && rest.length > 0; remaining -= 1) {
    const target = Math.ceil(rest.length / remaining);
    const space = rest.indexOf(' ', target);
    const cut = space === -1 ? rest.length : space;
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) chunks.push(rest);
  return chunks;
}
