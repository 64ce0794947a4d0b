/**
 * One action at a time behind a button: a press while the last one is in
 * flight is ignored, and the button reads busy until that one settles,
 * whether it resolved or threw. Framework-free so Node can test it;
 * `useBusyAction` hands it to React. The guard is a flag set at once, not
 * the rendered `busy`: two presses within one render both read the state
 * from before the first, and each would send.
 */
export interface BusyGate {
  /** Runs `action` unless one is in flight: its result, or `undefined` for a press ignored. */
  run: <T>(action: () => Promise<T>) => Promise<T | undefined>;
}

export function busyGate(onBusy: (busy: boolean) => void): BusyGate {
  let inFlight = false;
  return {
    run: async <T>(action: () => Promise<T>): Promise<T | undefined> => {
      if (inFlight) return undefined;
      inFlight = true;
      onBusy(true);
      try {
        return await action();
      } finally {
        inFlight = false;
        onBusy(false);
      }
    },
  };
}
