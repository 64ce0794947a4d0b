/**
 * How many of a channel send's DNS lookups run at once. `dns.lookup` is the
 * system's getaddrinfo on one of libuv's pool threads (four unless
 * UV_THREADPOOL_SIZE says otherwise), and a lookup cannot be cancelled: a
 * resolver that does not answer holds its thread until the system gives up,
 * seconds per try, long after the send's own bound aborted it. The same
 * threads read the web app's files, so unbounded sends to names that hang
 * would stall every page load. The gate admits at most `max` lookups; the
 * rest wait their turn in order, and one whose send gave up meanwhile leaves
 * the line and never starts.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

/** What a socket asks of its lookup, passed on to `dns.lookup`. */
export interface LookupHints {
  readonly family?: number;
  readonly hints?: number;
}

/** `dns.lookup` with `all: true`, the one call the gate makes. */
export type ResolveAll = (
  hostname: string,
  hints: LookupHints,
  callback: (error: Error | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: ResolveAll = (hostname, hints, callback) => {
  dnsLookup(hostname, { ...hints, all: true }, callback);
};

export interface LookupGate {
  /** Every address `hostname` has; rejects with the signal's reason if it aborts first. */
  lookup(hostname: string, hints: LookupHints, signal: AbortSignal): Promise<LookupAddress[]>;
  /** Lookups started and not yet answered by the system. */
  readonly running: number;
  /** Lookups waiting for a turn. */
  readonly waiting: number;
}

export function lookupGate(max: number, resolve: ResolveAll = systemResolve): LookupGate {
  let running = 0;
  const line: (() => void)[] = [];

  return {
    get running() {
      return running;
    },
    get waiting() {
      return line.length;
    },
    lookup(hostname, hints, signal) {
      if (signal.aborted) return Promise.reject(signal.reason as Error);
      return new Promise((done, fail) => {
        const answered = (error: Error | null, addresses: LookupAddress[]) => {
          running -= 1;
          line.shift()?.();
          signal.removeEventListener('abort', giveUp);
          if (error) fail(error);
          else done(addresses);
        };
        const start = () => {
          running += 1;
          // The slot is held until the system answers, whoever still listens: the thread is.
          try {
            resolve(hostname, hints, answered);
          } catch (error) {
            answered(error as Error, []);
          }
        };
        const giveUp = () => {
          const waiting = line.indexOf(start);
          if (waiting !== -1) line.splice(waiting, 1);
          fail(signal.reason as Error);
        };
        signal.addEventListener('abort', giveUp, { once: true });
        if (running < max) start();
        else line.push(start);
      });
    },
  };
}
