/** Timers as an interface, so rules with deadlines can run on a fake clock in tests. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): { cancel(): void };
}

export interface RepeatingTimers extends Timers {
  every(ms: number, callback: () => void): { cancel(): void };
}

export const systemTimers: RepeatingTimers = {
  every(ms, callback) {
    const handle = setInterval(callback, ms);
    handle.unref();
    return {
      cancel: () => {
        clearInterval(handle);
      },
    };
  },
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    // A pending deadline must never keep the process alive on shutdown.
    handle.unref();
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
};

/**
 * Resolves once `ms` passed on `timers`, or at once when `signal` aborts
 * (never rejects): a wait a fake clock drives, which its caller may cut short.
 */
export function pause(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = timers.setTimeout(() => {
      signal?.removeEventListener('abort', cut);
      resolve();
    }, ms);
    function cut(): void {
      timer.cancel();
      resolve();
    }
    signal?.addEventListener('abort', cut, { once: true });
  });
}
