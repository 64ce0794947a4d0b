/** A failed request's reason, as the page says it: only an unknown refusal keeps the server's words. */
import { describe, expect, it } from 'vitest';
import type { ApiFailure } from '../../web/src/model/api.js';
import { failureReasonOf, refusalReasonOf } from '../../web/src/model/failure-reason.js';

const http = (status: number, code: string, details?: unknown): ApiFailure => ({
  ok: false,
  kind: 'http',
  status,
  code,
  error: 'the server’s English',
  ...(details === undefined ? {} : { details }),
});

describe('failureReasonOf', () => {
  it('never carries the browser’s words for a lost connection', () => {
    expect(failureReasonOf({ ok: false, kind: 'network', error: 'Failed to fetch' })).toEqual({
      kind: 'network',
    });
  });

  it('names the refusals the catalog can say, with their limits', () => {
    expect(failureReasonOf(http(503, 'temporarily_unavailable'))).toEqual({ kind: 'storage' });
    expect(failureReasonOf(http(503, 'unavailable'))).toEqual({ kind: 'shutting_down' });
    expect(failureReasonOf(http(404, 'not_found'))).toEqual({ kind: 'not_found' });
    expect(failureReasonOf(http(403, 'forbidden'))).toEqual({ kind: 'forbidden' });
    expect(failureReasonOf(http(403, 'no_workspace'))).toEqual({ kind: 'no_workspace' });
    expect(failureReasonOf(http(500, 'internal'))).toEqual({ kind: 'internal' });
    expect(failureReasonOf(http(409, 'conflict', { reason: 'token_limit', limit: 50 }))).toEqual({
      kind: 'token_limit',
      limit: 50,
    });
    expect(failureReasonOf(http(429, 'quota_exceeded', { scope: 'user', limit: 4 }))).toEqual({
      kind: 'agents_mine',
      limit: 4,
    });
    expect(failureReasonOf(http(429, 'quota_exceeded', { scope: 'server', limit: 9 }))).toEqual({
      kind: 'agents_server',
      limit: 9,
    });
    expect(failureReasonOf(http(429, 'quota_exceeded'))).toEqual({ kind: 'quota' });
  });

  it('keeps the server’s words only for a refusal it does not know', () => {
    expect(failureReasonOf(http(409, 'conflict'))).toEqual({
      kind: 'other',
      error: 'the server’s English',
    });
  });
});

describe('refusalReasonOf', () => {
  it.each([
    ['forbidden', { kind: 'forbidden' }],
    ['person_required', { kind: 'forbidden' }],
    ['no_workspace', { kind: 'no_workspace' }],
    ['not_found', { kind: 'not_found' }],
    ['quota_exceeded', { kind: 'quota' }],
    ['rate_limited', { kind: 'quota' }],
    ['too_many_open_requests', { kind: 'quota' }],
    ['invalid_request', { kind: 'invalid' }],
    ['invalid_text', { kind: 'invalid' }],
    ['invalid_form_content', { kind: 'invalid' }],
  ])('says a refused answer’s %s as a reason the page can put in its language', (code, reason) => {
    expect(refusalReasonOf(code)).toEqual(reason);
  });

  it('names a code it does not know as the server gave it', () => {
    expect(refusalReasonOf('teapot')).toEqual({ kind: 'other', error: 'teapot' });
  });
});
