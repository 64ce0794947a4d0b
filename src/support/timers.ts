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
