/**
 * Work that must not interleave per key (a session's agent starts and exits,
 * the answers to one request): each runs after the one before it for the
 * same key, however that one ended, and other keys' work meanwhile. With
 * nothing before it, work starts on the call, so its synchronous part runs
 * before `run` returns.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const tail = this.tails.get(key);
    const next = tail ? tail.then(work, work) : work();
    this.tails.set(key, next);
    const forget = () => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    };
    next.then(forget, forget);
    return next;
  }
}
