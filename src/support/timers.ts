/** Timers as an interface, so rules with deadlines can run on a fake clock in tests. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): { cancel(): void };
}

export const systemTimers: Timers = {
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
