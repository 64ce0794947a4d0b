/**
 * Fan-out of runtime events to subscribers. Invariant: a listener that
 * throws is logged and skipped; it never breaks the host or other listeners.
 */
import type { Logger } from '../../observability/index.js';
import type { RuntimeEvent } from '../runtime.js';
import { errorText } from './errors.js';

export type RuntimeListener = (event: RuntimeEvent) => void;

export class RuntimeListeners {
  private readonly listeners = new Set<RuntimeListener>();

  constructor(private readonly logger: Logger) {}

  subscribe(listener: RuntimeListener): () => void {
    // Wrapping gives each subscription its own identity, so subscribing the
    // same function twice and unsubscribing once leaves one subscription.
    const entry: RuntimeListener = (event) => {
      listener(event);
    };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(event: RuntimeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(
          { err: errorText(error), event: event.type, sessionId: event.sessionId },
          'runtime event listener threw',
        );
      }
    }
  }
}
