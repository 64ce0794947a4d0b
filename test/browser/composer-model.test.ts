/**
 * The composer's framework-free rules in Node: what an admission reply means
 * for the sender (`admission-outcome.ts`), the session's draft
 * (`composer-draft.ts`) and whose a transcript message is (`message-author.ts`).
 */
import { describe, expect, it } from 'vitest';
import { messageOutcomeOf } from '../../web/src/model/admission-outcome.js';
import type { AdmissionOutcome, ApiResult } from '../../web/src/model/api.js';
import {
  clearDraft,
  draftNoteOf,
  draftOf,
  isEmptyMessage,
  keepUnsentFirstInstruction,
  withAddedText,
  afterSent,
} from '../../web/src/model/composer-draft.js';
import { memoryKeyStore } from '../../web/src/model/late-answer.js';
import { authorIdsOf, authorsToRead, userAuthorOf } from '../../web/src/model/message-author.js';
import type { MessageView, UserQueueItem } from '../../web/src/model/types.js';

function sent(content: string): ApiResult<AdmissionOutcome> {
  return {
    ok: true,
    status: 200,
    value: { outcome: 'sent', message: { content } as MessageView },
  };
}

function queued(text: string): ApiResult<AdmissionOutcome> {
  return { ok: true, status: 202, value: { outcome: 'queued', item: { text } as UserQueueItem } };
}

function http(status: number, details?: unknown): ApiResult<AdmissionOutcome> {
  return { ok: false, kind: 'http', status, code: 'x', error: `status ${String(status)}`, details };
}

describe('an admission reply, for the person who sent the text', () => {
  it('is plain sent or queued when the server holds the text just sent', () => {
    expect(messageOutcomeOf(sent('  a\n'), '  a\n')).toEqual({ outcome: 'sent' });
    expect(messageOutcomeOf(queued('b'), 'b')).toEqual({ outcome: 'queued' });
  });

  it('names the earlier text when the key already held another one', () => {
    expect(messageOutcomeOf(sent('deploy'), 'deploy, not prod')).toEqual({
      outcome: 'sent',
      earlier: 'deploy',
    });
    expect(messageOutcomeOf(queued('deploy'), 'deploy, not prod')).toEqual({
      outcome: 'queued',
      earlier: 'deploy',
    });
  });

  it('is "not confirmed" only when the text may have reached the server', () => {
    const uncertain = { outcome: 'failed', reason: 'uncertain' };
    expect(messageOutcomeOf({ ok: false, kind: 'network', error: 'reset' }, 'a')).toEqual(
      uncertain,
    );
    expect(messageOutcomeOf(http(500), 'a')).toEqual(uncertain);
    expect(messageOutcomeOf(http(503), 'a')).toEqual(uncertain);
    expect(messageOutcomeOf(http(409), 'a')).toEqual({ outcome: 'failed', reason: 'refused' });
    expect(messageOutcomeOf(http(404), 'a')).toEqual({ outcome: 'failed', reason: 'not_found' });
  });

  it('gives the server’s reason for a text it refused', () => {
    expect(
      messageOutcomeOf(
        http(400, [{ path: 'text', message: 'must be at most 32000 characters' }]),
        'x',
      ),
    ).toEqual({
      outcome: 'failed',
      reason: 'invalid',
      problem: 'must be at most 32000 characters',
    });
    expect(messageOutcomeOf(http(429), 'x')).toEqual({
      outcome: 'failed',
      reason: 'invalid',
      problem: 'status 429',
    });
  });
});

describe('the composer draft', () => {
  it('keeps, once a message was taken, what was typed while it was on its way', () => {
    expect(afterSent('run it', 'run it')).toBe('');
    expect(afterSent('run it\n\nthen seed', 'run it')).toBe('then seed');
    // The sent text itself changed: only the person can tell what is new, so all of it stays.
    expect(afterSent('run it now', 'run  it')).toBe('run it now');
    expect(afterSent('', 'run it')).toBe('');
  });

  it('holds a first instruction the session did not take, with its note, until sent', () => {
    const store = memoryKeyStore();
    keepUnsentFirstInstruction(store, 's1', '  do it\n');
    expect(draftOf(store, 's1')).toBe('  do it\n');
    expect(draftNoteOf(store, 's1')).toBe('first_unsent');
    expect(draftOf(store, 's2')).toBe('');
    clearDraft(store, 's1');
    expect([draftOf(store, 's1'), draftNoteOf(store, 's1')]).toEqual(['', undefined]);
  });

  it('adds handed-over text after what is typed, never in place of it', () => {
    expect(withAddedText('', 'edit')).toBe('edit');
    expect(withAddedText(' \n', 'edit')).toBe('edit');
    expect(withAddedText('typed\n', 'edit')).toBe('typed\n\nedit');
  });

  it('is empty only when nothing but whitespace is in it', () => {
    expect(isEmptyMessage(' \n\t')).toBe(true);
    expect(isEmptyMessage('    x')).toBe(false);
  });
});

describe('whose a person’s transcript message is', () => {
  const read = { names: new Map([['u-admin', 'Ada']]), reading: false };
  const reading = { ...read, reading: true };

  it('is "you" only for the reader’s own', () => {
    expect(userAuthorOf({ user_id: 'u-bob' }, 'u-bob', read)).toEqual({ kind: 'you' });
    expect(userAuthorOf({ user_id: 'u-admin' }, 'u-bob', read)).toEqual({
      kind: 'named',
      name: 'Ada',
    });
  });

  it('names nobody once a read of the members does not name the sender', () => {
    expect(userAuthorOf({ user_id: 'u-gone' }, 'u-bob', read)).toEqual({ kind: 'someone' });
    expect(userAuthorOf({}, 'u-bob', read)).toEqual({ kind: 'someone' });
  });

  it('claims nobody, not even "Someone", while the reader or the sender is still being read', () => {
    expect(userAuthorOf({ user_id: 'u-bob' }, undefined, read)).toEqual({ kind: 'unknown_yet' });
    expect(userAuthorOf({ user_id: 'u-new' }, 'u-bob', reading)).toEqual({ kind: 'unknown_yet' });
    // A name already read shows at once.
    expect(userAuthorOf({ user_id: 'u-admin' }, 'u-bob', reading)).toEqual({
      kind: 'named',
      name: 'Ada',
    });
  });

  it('owes a read for an author the last read did not name, once', () => {
    const rows = [
      { author: 'user', metadata: { user_id: 'u-admin' } },
      { author: 'agent', metadata: {} },
      { author: 'user', metadata: { user_id: 'u-new' } },
      { author: 'user', metadata: { user_id: 'u-admin' } },
    ];
    expect(authorIdsOf(rows)).toEqual(['u-admin', 'u-new']);
    const names = new Map([['u-admin', 'Ada']]);
    expect(authorsToRead({ names, askedFor: new Set() }, authorIdsOf(rows))).toEqual(['u-new']);
    expect(authorsToRead({ names, askedFor: new Set(['u-new']) }, authorIdsOf(rows))).toEqual([]);
  });
});
