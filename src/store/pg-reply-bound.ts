/**
 * A bound on how long a pooled PostgreSQL connection waits for a statement's
 * reply. The server's own bounds (lock wait, idle transaction) cannot end a
 * wait whose server froze or whose network was cut while the statement was in
 * flight, and TCP keepalive probes only an idle connection: with a statement
 * unacknowledged, the kernel retransmits for about 15 minutes. Past the bound
 * the statement fails as a storage fault (`unreachable`, a 503) and its
 * connection is dropped, since whatever answers it later would answer the
 * next statement sent on it.
 */
import { PG_STATEMENT_REPLY_MAX_MS } from '../tunables.js';

/** The statement got no reply in time; `faults.ts` reads this message as `unreachable`. */
export class NoReplyError extends Error {
  constructor(ms: number) {
    super(`no reply from PostgreSQL within ${ms} ms; its connection was dropped`);
    this.name = 'NoReplyError';
  }
}

/** The bound the pool's statements wait under now; start-up lengthens it for its schema steps. */
export class ReplyBound {
  #ms: number;

  constructor(ms: number = PG_STATEMENT_REPLY_MAX_MS) {
    this.#ms = ms;
  }

  get ms(): number {
    return this.#ms;
  }

  /** Runs `work` with every statement it sends bounded by `ms` instead. */
  async during<T>(ms: number, work: () => Promise<T>): Promise<T> {
    const before = this.#ms;
    this.#ms = ms;
    try {
      return await work();
    } finally {
      this.#ms = before;
    }
  }

  /** `reply`, or a `NoReplyError` once the bound passes first; `drop` then ends its connection. */
  wait<T>(reply: Promise<T>, drop: () => void): Promise<T> {
    const ms = this.#ms;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        drop();
        reject(new NoReplyError(ms));
      }, ms);
    });
    return Promise.race([reply, late]).finally(() => {
      clearTimeout(timer);
    });
  }
}
