/**
 * A session's composer draft in the key store: what the person typed and has
 * not sent, kept across reloads. Text that did not reach the session lands
 * here so it is never lost: the first instruction of a task whose agent did
 * not start (with a note saying so), or an edit of a queued message that left
 * the queue before it was saved (added after what is already typed).
 */
import { MAX_MESSAGE_CHARS } from '../../../src/wire/limits.js';
import { codePoints, isBlankText } from '../../../src/wire/text.js';
import type { KeyStore } from './late-answer.js';

/** Why the draft holds text the person already tried to send. */
export type DraftNote = 'first_unsent';

const textKey = (sessionId: string) => `clarion.draft.${sessionId}`;
const noteKey = (sessionId: string) => `clarion.draft-note.${sessionId}`;

export function draftOf(store: KeyStore, sessionId: string): string {
  return store.getItem(textKey(sessionId)) ?? '';
}

export function keepDraft(store: KeyStore, sessionId: string, text: string): void {
  store.setItem(textKey(sessionId), text);
}

/** After a send the server took: no text, no note. */
export function clearDraft(store: KeyStore, sessionId: string): void {
  store.removeItem(textKey(sessionId));
  store.removeItem(noteKey(sessionId));
}

export function draftNoteOf(store: KeyStore, sessionId: string): DraftNote | undefined {
  return store.getItem(noteKey(sessionId)) === 'first_unsent' ? 'first_unsent' : undefined;
}

/** A new task's first instruction the session did not take: the session's composer holds it. */
export function keepUnsentFirstInstruction(store: KeyStore, sessionId: string, text: string): void {
  store.setItem(textKey(sessionId), text);
  store.setItem(noteKey(sessionId), 'first_unsent');
}

/** `current` with `added` after it, a blank line between, so neither replaces the other. */
export function withAddedText(current: string, added: string): string {
  if (current.trim() === '') return added;
  return `${current.replace(/\n+$/u, '')}\n\n${added}`;
}

/**
 * What the composer holds once `sent` was taken, if the person typed on
 * while it was on its way (`current`): nothing if they did not, what they
 * added after it, or, if they changed the sent text itself, all of it, since
 * only they can tell what of it is new.
 */
export function afterSent(current: string, sent: string): string {
  if (current === sent) return '';
  return current.startsWith(sent) ? current.slice(sent.length).replace(/^\s+/u, '') : current;
}

/** Only text with nothing but whitespace is empty; anything else is sent exactly as typed. */
export function isEmptyMessage(text: string): boolean {
  return text.trim() === '';
}

/**
 * What the server would refuse in a message that is not empty: more than
 * `MAX_MESSAGE_CHARS` code points, or only invisible characters (a zero-width
 * space). Caught here, so the person reads why in the page's language rather
 * than the server's English refusal.
 */
export type MessageProblem = 'too_long' | 'blank';

export function messageProblem(text: string): MessageProblem | undefined {
  if (codePoints(text) > MAX_MESSAGE_CHARS) return 'too_long';
  if (isBlankText(text)) return 'blank';
  return undefined;
}
