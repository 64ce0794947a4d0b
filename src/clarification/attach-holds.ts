/**
 * Bundles an asker has just marked attached (its ask reused the bundle, or
 * its `wait_for_answer` read it) and whose live wait has not begun yet.
 * Another wait on the bundle that ends meanwhile finds no live waiter, and
 * would detach the rows the new wait is about to hold: it asks here too.
 * Memory only, like the waits themselves; each hold is let go exactly once.
 */
export class AttachHolds {
  private readonly held = new Map<string, number>();

  /** Holds `pendingId` attached; the function returned lets go (again: a no-op). */
  hold(pendingId: string): () => void {
    this.held.set(pendingId, (this.held.get(pendingId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(pendingId) ?? 1) - 1;
      if (left > 0) this.held.set(pendingId, left);
      else this.held.delete(pendingId);
    };
  }

  has(pendingId: string): boolean {
    return this.held.has(pendingId);
  }
}

/** A hold that holds nothing. */
export const NO_HOLD = (): void => undefined;
