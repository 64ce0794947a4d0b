/**
 * What the sign-in page does with the server's answer (`web/src/model/sign-in.ts`):
 * a switch is asked by name, never taken; a refusal it cannot read is shown,
 * not guessed into a question.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../web/src/model/api.js';
import { secretOfFragment, signInOutcome } from '../../web/src/model/sign-in.js';
import type { SignInReply } from '../../src/wire/index.js';

const refused = (status: number, code: string, details?: unknown): ApiResult<SignInReply> => ({
  ok: false,
  kind: 'http',
  status,
  code,
  error: `${code} said`,
  details,
});

describe('the sign-in page’s outcome', () => {
  it('signs in, sends a dead link to its page, and asks before a switch', () => {
    expect(
      signInOutcome({ ok: true, status: 200, value: { user: { id: 'u', name: 'Ana' } } }),
    ).toEqual({
      kind: 'signed_in',
    });
    expect(signInOutcome(refused(404, 'link_invalid'))).toEqual({ kind: 'link_invalid' });
    const both = { signed_in_as: { id: 'b', name: 'Bo' }, link_for: { id: 'a', name: 'Ana' } };
    expect(signInOutcome(refused(409, 'signed_in_as_other', both))).toEqual({
      kind: 'ask',
      current: 'Bo',
      other: 'Ana',
    });
  });

  it('retries what nobody decided, and shows a refusal it cannot read as one', () => {
    expect(signInOutcome({ ok: false, kind: 'network', error: 'down' })).toEqual({
      kind: 'unreachable',
    });
    expect(signInOutcome(refused(503, 'temporarily_unavailable'))).toEqual({ kind: 'unreachable' });
    expect(signInOutcome(refused(409, 'signed_in_as_other', { signed_in_as: {} }))).toEqual({
      kind: 'refused',
      failure: refused(409, 'signed_in_as_other', { signed_in_as: {} }),
    });
    expect(signInOutcome(refused(403, 'forbidden'))).toEqual({
      kind: 'refused',
      failure: refused(403, 'forbidden'),
    });
  });

  it('reads the secret from the fragment, and nothing from a broken one', () => {
    expect(secretOfFragment('#clr_abc-_')).toBe('clr_abc-_');
    expect(secretOfFragment('')).toBe('');
    expect(secretOfFragment('#%E0%A4%A')).toBe('');
  });

  it('drops what mail and prose add after a secret, since no secret holds it', () => {
    for (const tail of ['.', ')', '>', '%3E', '%20', '%0A', ').%0D%0A', '.)']) {
      expect(secretOfFragment(`#clr_abc-_${tail}`), tail).toBe('clr_abc-_');
    }
    expect(secretOfFragment('#clr_a.b')).toBe('clr_a.b');
    expect(secretOfFragment('#...')).toBe('');
  });
});
