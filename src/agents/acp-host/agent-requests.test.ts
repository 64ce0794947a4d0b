import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../observability/logger.js';
import { askElicitation, type ElicitationHandler } from './agent-requests.js';

describe('askElicitation', () => {
  const request = {
    sessionId: 'agent-session',
    mode: 'url',
    elicitationId: 'oauth-1',
    message: 'Sign in',
    url: 'https://example.com/oauth',
  } as unknown as CreateElicitationRequest;

  it('hands a request outside any turn to its handler, already withdrawn, so it is not dropped unseen', async () => {
    const handler = vi.fn<ElicitationHandler>(() => Promise.resolve({ action: 'cancel' }));
    const reply = await askElicitation(handler, {
      sessionId: 'session-1',
      turn: undefined,
      request,
      requestSignal: new AbortController().signal,
      logger: silentLogger,
    });
    expect(reply).toEqual({ action: 'cancel' });
    expect(handler).toHaveBeenCalledTimes(1);
    const [sessionId, , context] = handler.mock.calls[0] ?? [];
    expect(sessionId).toBe('session-1');
    expect(context?.turnId).toBeUndefined();
    expect(context?.signal.aborted).toBe(true);
    expect(context?.withdrawn.aborted).toBe(true);
    expect(context?.ended.aborted).toBe(true);
  });

  it('answers cancel when no handler takes elicitations', async () => {
    const reply = await askElicitation(undefined, {
      sessionId: 'session-1',
      turn: undefined,
      request,
      requestSignal: new AbortController().signal,
      logger: silentLogger,
    });
    expect(reply).toEqual({ action: 'cancel' });
  });
});
