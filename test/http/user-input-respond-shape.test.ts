/**
 * `POST /api/v1/user-inputs/:id/respond` refuses a body whose fields do not
 * go together before it looks the request up (the wire's body says which
 * do), with the same 400s it has always given; a body that is one of the
 * shapes reaches the service, which finds no such request here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe('the user-input respond body', () => {
  let h: TurnsHarness;

  beforeAll(async () => {
    h = await turnsHarness('sqlite');
  });
  afterAll(async () => {
    await h.dispose();
  });

  const respond = async (body: unknown) => {
    const reply = await h.request('POST', '/api/v1/user-inputs/no-such-request/respond', body);
    const json: unknown = await reply.json();
    return { status: reply.status, json };
  };

  it.each([
    [
      { option_id: 'allow-once', decision: 'done' },
      'give either option_id or decision',
      '',
      'exactly one of option_id (consent) or decision (action, form)',
    ],
    [
      {},
      'give either option_id or decision',
      '',
      'exactly one of option_id (consent) or decision (action, form)',
    ],
    [
      { decision: 'done', reason: 'why' },
      'a reason goes with decision "skip" or a reject option only',
      'reason',
      'only with decision "skip" or a reject option_id',
    ],
    [
      { decision: 'decline', content: {} },
      'content goes only with decision "accept"',
      'content',
      'only a form accepted with decision "accept" has content',
    ],
  ])('refuses %j with 400 invalid_request: %s', async (body, error, path, message) => {
    expect(await respond(body)).toEqual({
      status: 400,
      json: { error, code: 'invalid_request', details: [{ path, message }] },
    });
  });

  it('words a malformed field as before, with no rule about fields together', async () => {
    expect(await respond({ decision: 'maybe', reason: 'why' })).toMatchObject({
      status: 400,
      json: { error: 'invalid request', code: 'invalid_request', details: [{ path: 'decision' }] },
    });
  });

  it.each([
    { option_id: 'reject-once', reason: 'why' },
    { decision: 'skip', reason: 'why' },
    { decision: 'accept', content: { env: 'dev' } },
  ])('hands %j to the service', async (body) => {
    expect(await respond(body)).toEqual({
      status: 404,
      json: { error: 'request not found', code: 'not_found' },
    });
  });
});
