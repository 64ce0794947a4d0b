/**
 * The credentials of work that outlives its request's check: an MCP tool call
 * that waits (an ask, `wait_for_answer`), an events socket. While such work
 * holds a lease its token is read again: at once when a revocation is
 * announced (`recheck`: a person revoked a token, signed out or was removed,
 * on this replica or, through a wake, on another), and every `intervalMs`
 * for one whose announcement was lost. One read per channel covers every
 * watched token, and a revoked one aborts its leases' `revoked` signal, which
 * ends their waits or closes their sockets. `live()` reads one token now:
 * what an answer's hand-off asks first (`LiveWaiters.deliver`), so no answer
 * reaches a token revoked before it, announced or not.
 *
 * A read that fails ends nothing: a storage fault is no revocation, and the
 * next interval reads again.
 */
import type { Logger } from '../observability/index.js';
import type { Store } from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import { hashSecret, liveTokensAmong, type CredentialChannel } from './tokens.js';

export interface CredentialLease {
  /** Aborts once the token is found revoked (or expired). */
  readonly revoked: AbortSignal;
  /** Whether the token still authenticates, read now; a revoked one also aborts `revoked`. */
  readonly live: () => Promise<boolean>;
  /** The call is over; repeats are no-ops. */
  readonly release: () => void;
}

interface Watched {
  readonly hash: string;
  readonly channel: CredentialChannel;
  revoked: boolean;
  /**
   * Each lease's own signal, aborted when the token is found revoked. One
   * signal shared by every lease of a token would keep each released lease's
   * listeners (a socket long closed) for as long as any other lease held it.
   */
  readonly leases: Set<AbortController>;
}

function revoke(watched: Watched): void {
  watched.revoked = true;
  for (const lease of watched.leases) lease.abort();
}

const CHANNELS: readonly CredentialChannel[] = ['bearer', 'cookie'];

export class CredentialWatch {
  private readonly watched = new Map<string, Watched>();
  private poll: { cancel(): void } | undefined;
  private reading = false;
  /** A recheck asked for while a read ran: that read may predate the revocation. */
  private readAgain = false;

  constructor(
    private readonly deps: {
      store: Store;
      timers: RepeatingTimers;
      intervalMs: number;
      logger: Logger;
    },
  ) {}

  /** Watches `secret` (a token the route accepted on `channel`) until the lease is released. */
  watch(secret: string, channel: CredentialChannel = 'bearer'): CredentialLease {
    const hash = hashSecret(secret);
    const key = `${channel} ${hash}`;
    let entry = this.watched.get(key);
    if (!entry) {
      entry = { hash, channel, revoked: false, leases: new Set() };
      this.watched.set(key, entry);
    }
    const watched = entry;
    const own = new AbortController();
    if (watched.revoked) own.abort();
    watched.leases.add(own);
    this.poll ??= this.deps.timers.every(this.deps.intervalMs, () => void this.readAll());
    return {
      revoked: own.signal,
      live: async () => {
        if (watched.revoked) return false;
        const live = (await liveTokensAmong(this.deps.store, [hash], channel)).has(hash);
        if (!live) revoke(watched);
        return live;
      },
      release: () => {
        if (!watched.leases.delete(own)) return;
        if (watched.leases.size > 0) return;
        if (this.watched.get(key) === watched) this.watched.delete(key);
        if (this.watched.size === 0) this.stopPolling();
      },
    };
  }

  /** Reads every watched token now: a revocation was announced. */
  recheck(): void {
    void this.readAll();
  }

  /** Stops reading; leases still held keep their signals, which no longer abort. */
  close(): void {
    this.watched.clear();
    this.stopPolling();
  }

  private stopPolling(): void {
    this.poll?.cancel();
    this.poll = undefined;
  }

  private async readAll(): Promise<void> {
    // A read is not overtaken by the next; one asked for meanwhile follows it.
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do await this.readOnce();
      while (this.takeReadAgain());
    } finally {
      this.reading = false;
    }
  }

  private takeReadAgain(): boolean {
    const again = this.readAgain;
    this.readAgain = false;
    return again;
  }

  private async readOnce(): Promise<void> {
    if (this.watched.size === 0) return;
    try {
      for (const channel of CHANNELS) {
        const watched = [...this.watched.values()].filter((entry) => entry.channel === channel);
        if (watched.length === 0) continue;
        const live = await liveTokensAmong(
          this.deps.store,
          watched.map((entry) => entry.hash),
          channel,
        );
        for (const entry of watched) if (!live.has(entry.hash)) revoke(entry);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'mcp credential watch: tokens could not be read');
    }
  }
}
