/**
 * `cancelQuestion`: how the server's answers to a cancel map to what the
 * question's view does next, a 409 told apart by the bundle's own `active`
 * (never by the error's words), and the one client deadline both requests share.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../web/src/model/api.js';
import { cancelQuestion } from '../../web/src/model/question-cancel.js';
import type { Timers } from '../../web/src/model/respond.js';
import type { BundleView } from '../../web/src/model/types.js';

type Cancelled = ApiResult<{ cancelled: true }>;
type Read = ApiResult<BundleView>;

const http = (status: number, code: string, error = code) =>
  ({ ok: false, kind: 'http', status, code, error }) as const;

const CANCELLED: Cancelled = { ok: true, status: 200, value: { cancelled: true } };
const NOT_ACTIVE = http(409, 'not_active', 'clarification request is no longer active');

function bundle(active: boolean): Read {
  return { ok: true, status: 200, value: { active } as BundleView };
}

function server(cancel: Cancelled, read?: Read) {
  const reads: string[] = [];
  return {
    reads,
    api: {
      cancelQuestion: () => Promise.resolve(cancel),
      question: (pendingId: string) => {
        reads.push(pendingId);
        return read ? Promise.resolve(read) : Promise.reject(new Error('not read'));
      },
    },
  };
}

describe('cancelQuestion', () => {
  it('maps the server’s answers to what the question’s view does next', async () => {
    const cases: [Cancelled, Read | undefined, string][] = [
      [CANCELLED, undefined, 'cancelled'],
      // Still answerable: nobody waits, so it is answered or skipped instead.
      [NOT_ACTIVE, bundle(true), 'not_waiting'],
      [NOT_ACTIVE, bundle(false), 'closed'],
      [NOT_ACTIVE, http(404, 'not_found'), 'unavailable'],
      // The refusal stands; without the bundle the events tell what it became.
      [NOT_ACTIVE, { ok: false, kind: 'network', error: 'offline' }, 'closed'],
      [http(404, 'not_found'), undefined, 'unavailable'],
      [http(503, 'temporarily_unavailable'), undefined, 'retryable'],
      [http(500, 'internal'), undefined, 'retryable'],
      [{ ok: false, kind: 'network', error: 'offline' }, undefined, 'retryable'],
      [http(403, 'person_required'), undefined, 'refused'],
    ];
    for (const [cancel, read, kind] of cases) {
      const { api, reads } = server(cancel, read);
      const outcome = await cancelQuestion(api, 'p1');
      expect(outcome.kind, JSON.stringify([cancel, read])).toBe(kind);
      // The bundle is read only to tell the two kinds of 409 apart.
      expect(reads).toEqual(read ? ['p1'] : []);
    }
    const { api } = server(http(403, 'person_required'));
    await expect(cancelQuestion(api, 'p1')).resolves.toEqual({
      kind: 'refused',
      status: 403,
      code: 'person_required',
    });
  });

  it('aborts both requests at one client deadline and clears its timer on every path', async () => {
    const scheduled: { callback: () => void; cleared: boolean; ms: number }[] = [];
    const timers: Timers = {
      setTimeout: (callback, ms) => {
        const handle = { callback, cleared: false, ms };
        scheduled.push(handle);
        return handle;
      },
      clearTimeout: (handle) => {
        (handle as { cleared: boolean }).cleared = true;
      },
    };
    const signals: (AbortSignal | undefined)[] = [];
    const api = {
      cancelQuestion: (_id: string, signal?: AbortSignal) => {
        signals.push(signal);
        return Promise.resolve<Cancelled>(NOT_ACTIVE);
      },
      question: (_id: string, signal?: AbortSignal) => {
        signals.push(signal);
        return new Promise<Read>((resolve) => {
          signal?.addEventListener('abort', () => {
            resolve({ ok: false, kind: 'network', error: 'aborted' });
          });
        });
      },
    };
    const attempt = cancelQuestion(api, 'p1', { deadlineMs: 1_234, timers });
    await Promise.resolve();
    await Promise.resolve();
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]?.ms).toBe(1_234);
    expect(signals).toHaveLength(2);
    expect(signals[0]).toBe(signals[1]);
    expect(signals[1]?.aborted).toBe(false);
    scheduled[0]?.callback();
    await expect(attempt).resolves.toEqual({ kind: 'closed' });
    expect(scheduled[0]?.cleared).toBe(true);
  });
});
