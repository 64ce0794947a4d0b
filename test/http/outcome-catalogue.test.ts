/**
 * The outcome catalogue is the only map from a service's failure to the wire,
 * on both surfaces: every code gets the catalogue's status and body on REST
 * and the same code and message as an MCP tool error.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toolFailure } from '../../src/agents/mcp/results.js';
import { failureResponse } from '../../src/http/errors.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '../../src/tunables.js';
import { failure, OUTCOME_CODES, OUTCOMES, type OutcomeCode } from '../../src/wire/index.js';

async function rest(code: OutcomeCode, message?: string, details?: unknown) {
  const app = new Hono();
  app.get('/', (c) =>
    failureResponse(c, failure(code, message, details as Parameters<typeof failure>[2])),
  );
  const response = await app.request('/');
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : (JSON.parse(text) as object),
    retryAfter: response.headers.get('retry-after'),
  };
}

describe('the outcome catalogue', () => {
  it.each(OUTCOME_CODES)('maps %s to its status and wire code on REST', async (code) => {
    const entry = OUTCOMES[code];
    const reply = await rest(code);
    expect(reply.status).toBe(entry.status);
    if (entry.status === 499) {
      expect(reply.body).toBeUndefined();
    } else {
      expect(reply.body).toEqual({ error: entry.message, code: entry.wire });
    }
    // Every 503 is worth retrying and says when, and so does a quota; no other status does.
    const entryRetryAfterS: number | undefined =
      'retryAfterS' in entry ? entry.retryAfterS : undefined;
    const expected =
      entryRetryAfterS ?? (entry.status === 503 ? SERVICE_UNAVAILABLE_RETRY_AFTER_S : undefined);
    expect(reply.retryAfter).toBe(expected === undefined ? null : String(expected));
  });

  it.each(OUTCOME_CODES)('maps %s to the same code as an MCP tool error', (code) => {
    const entry = OUTCOMES[code];
    const result = toolFailure(failure(code));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: 'mcpMessage' in entry ? entry.mcpMessage : entry.message,
      code: entry.wire,
    });
  });

  it('keeps a subject message and issue details on both surfaces', async () => {
    const issues = [{ path: 'answers.0', message: 'unknown option' }];
    expect(await rest('invalid_request', 'invalid clarification response', issues)).toEqual({
      status: 400,
      body: { error: 'invalid clarification response', code: 'invalid_request', details: issues },
      retryAfter: null,
    });
    expect(
      toolFailure(failure('invalid_request', 'invalid clarification response', issues))
        .structuredContent,
    ).toEqual({ error: 'invalid clarification response', code: 'invalid_request', issues });
  });

  it('gives the respond table of DESIGN §5.1 its statuses and bodies', () => {
    expect(OUTCOMES.invalid_request.status).toBe(400);
    expect(OUTCOMES.not_found.status).toBe(404);
    expect(OUTCOMES.not_active).toMatchObject({
      status: 409,
      wire: 'not_active',
      message: 'clarification request is no longer active',
    });
    expect(OUTCOMES.temporarily_unavailable).toMatchObject({
      status: 503,
      wire: 'temporarily_unavailable',
      message: 'clarification response is temporarily unavailable',
    });
    expect(OUTCOMES.internal).toMatchObject({ status: 500, wire: 'internal' });
  });
});
