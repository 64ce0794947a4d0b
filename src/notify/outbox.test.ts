import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ClockTimers, fakeClock } from '../../test/support/fakes.js';
import type { ChannelSender, ChannelTarget, Notice, SendResult } from './channel.js';
import { attemptOnce } from './outbox.js';

const TARGET: ChannelTarget = { id: 't1', kind: 'webhook', config: {}, reach: 'public' };
const NOTICE: Notice = {
  deliveryId: 'd1',
  event: 'asked',
  kind: 'question',
  itemId: 'p1',
  sessionId: 's1',
  taskId: 'k1',
  taskTitle: 'Task',
  url: 'http://127.0.0.1/inbox',
  createdAt: '2026-01-01T00:00:00.000Z',
};

function clockTimers() {
  return Object.assign(new ClockTimers(fakeClock()), { every: () => ({ cancel() {} }) });
}

/** A sender that answers only when its attempt is aborted, and keeps the signal it was given. */
function hangingSender() {
  const signals: AbortSignal[] = [];
  const sender: ChannelSender = {
    kind: 'webhook',
    send: (_target, _notice, signal) => {
      signals.push(signal);
      return new Promise<SendResult>(() => {});
    },
  };
  return { sender, signals };
}

/**
 * The signals Node keeps on `signal` for each `AbortSignal.any` it took part
 * in; released only when `signal` aborts or is collected.
 */
function dependantsOf(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find(
    (symbol) => symbol.description === 'kDependantSignals',
  );
  const set = key ? (signal as unknown as Record<symbol, Set<unknown>>)[key] : undefined;
  return set?.size ?? 0;
}

describe('attemptOnce', () => {
  it('ends an attempt the server stops, aborting what the sender holds', async () => {
    const { sender, signals } = hangingSender();
    const stop = new AbortController();
    const result = attemptOnce(sender, TARGET, NOTICE, clockTimers(), 5_000, stop.signal);
    stop.abort();
    await expect(result).resolves.toMatchObject({ ok: false, error: 'server shutting down' });
    expect(signals[0]?.aborted).toBe(true);
  });

  it('ends an attempt at its bound even when the sender ignores its signal', async () => {
    const { sender, signals } = hangingSender();
    const timers = clockTimers();
    const result = attemptOnce(sender, TARGET, NOTICE, timers, 5_000, new AbortController().signal);
    timers.advance(5_000);
    await expect(result).resolves.toMatchObject({ ok: false, error: 'timed out', retryable: true });
    expect(signals[0]?.aborted).toBe(true);
  });

  it('judges a sender that throws before its first await as a retryable failure', async () => {
    // ntfy's sender parses its stored topic URL synchronously; one stored before validation may throw.
    const sender: ChannelSender = {
      kind: 'ntfy',
      send: () => {
        throw new URIError('URI malformed');
      },
    };
    await expect(
      attemptOnce(sender, TARGET, NOTICE, clockTimers(), 5_000, new AbortController().signal),
    ).resolves.toEqual({
      ok: false,
      status: null,
      error: 'URI malformed',
      code: 'send_failed',
      retryable: true,
    });
  });

  it('leaves the worker’s stop signal holding nothing once its attempts settle', async () => {
    // The probe sees what `AbortSignal.any` leaves behind on this Node.
    const probe = new AbortController();
    AbortSignal.any([new AbortController().signal, probe.signal]);
    expect(dependantsOf(probe.signal)).toBe(1);

    const stop = new AbortController();
    const sender: ChannelSender = {
      kind: 'webhook',
      send: () => Promise.resolve({ ok: true, status: 200 }),
    };
    for (let i = 0; i < 1_000; i++) {
      await expect(
        attemptOnce(sender, TARGET, NOTICE, clockTimers(), 5_000, stop.signal),
      ).resolves.toEqual({ ok: true, status: 200 });
    }
    expect(dependantsOf(stop.signal)).toBe(0);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});
