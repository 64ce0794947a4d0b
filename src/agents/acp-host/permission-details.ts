/**
 * What a person needs to see to allow a tool call: the command it runs and
 * the changes it makes, read from an ACP `session/request_permission`'s tool
 * call (its `content`, else a `command` in its raw input). Pure. Everything
 * is the agent's text, so each piece is made storable and cut to a limit: a
 * consent card shows enough to decide, never a whole file.
 */
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import {
  MAX_CONSENT_DETAIL_CHARS,
  MAX_CONSENT_DETAILS,
  storableText,
  type ConsentDetail,
} from '../../wire/index.js';

export function permissionDetails(toolCall: ToolCallUpdate): ConsentDetail[] {
  const details: ConsentDetail[] = [];
  for (const item of toolCall.content ?? []) {
    if (item.type === 'diff') {
      details.push({
        type: 'diff',
        path: cut(item.path),
        old_text: item.oldText === null || item.oldText === undefined ? null : cut(item.oldText),
        new_text: cut(item.newText),
      });
    } else if (item.type === 'content' && item.content.type === 'text') {
      details.push({ type: 'text', text: cut(item.content.text) });
    }
    // A terminal is output the agent streams later, not something to decide on.
  }
  const command = commandOf(toolCall.rawInput);
  // What the person allows (and an "Always allow" covers) includes this command: it is shown
  // unless the title or a text says it, not merely contains it.
  if (command !== undefined && !saidBy(toolCall, details, storableText(command))) {
    details.unshift({ type: 'text', text: cut(command) });
  }
  return details
    .filter((detail) => detail.type === 'diff' || detail.text.trim() !== '')
    .slice(0, MAX_CONSENT_DETAILS);
}

/** Whether the title or a text of the tool call is `command` itself. */
function saidBy(toolCall: ToolCallUpdate, details: ConsentDetail[], command: string): boolean {
  const texts = details.flatMap((detail) => (detail.type === 'text' ? [detail.text] : []));
  // Content without any text says nothing, however the title reads: the command is shown.
  if (texts.length === 0) return false;
  const title = storableText(toolCall.title ?? '');
  return titleIsCommand(title, command) || texts.some((text) => text === command);
}

/**
 * Whether `title` is the command itself, bare or as Claude's adapter quotes
 * it (in backticks, its own backticks escaped); one that merely contains it
 * is not: `rm -rf /` is in `rm -rf /tmp/scratch`.
 */
export function titleIsCommand(title: string, command: string): boolean {
  if (title === command) return true;
  if (title.length < 2 || !title.startsWith('`') || !title.endsWith('`')) return false;
  const quoted = title.slice(1, -1);
  return quoted === command || quoted === command.replaceAll('`', '\\`');
}

/**
 * The command a tool call runs, from its raw input, storable and uncut; what
 * an "always" must cover with its title (`consentOf`).
 */
export function permissionCommand(toolCall: ToolCallUpdate): string | undefined {
  const command = commandOf(toolCall.rawInput);
  return command === undefined ? undefined : storableText(command);
}

/** A shell tool's command, as agents put it in the raw input: a string or an argv array. */
function commandOf(rawInput: unknown): string | undefined {
  if (typeof rawInput !== 'object' || rawInput === null) return undefined;
  const command = (rawInput as { command?: unknown }).command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) {
    return command.join(' ');
  }
  return undefined;
}

function cut(text: string): string {
  const chars = Array.from(storableText(text));
  if (chars.length <= MAX_CONSENT_DETAIL_CHARS) return chars.join('');
  return `${chars.slice(0, MAX_CONSENT_DETAIL_CHARS - 1).join('')}…`;
}
