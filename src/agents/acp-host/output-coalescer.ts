/**
 * Joins streamed output into transcript-sized events. Owns one buffer: a run
 * of coalescible pieces (text or thought) of one kind in one turn.
 * Invariants: pieces leave in the order they arrived and nothing is dropped;
 * a buffer is emitted when the kind or turn changes, a standalone piece
 * arrives, `flush()` is called (turn end, exit), or `flushIntervalMs` after
 * its first piece, so a long answer still shows up while it streams.
 */
import type { Timers } from '../../support/index.js';
import type { OutputKind, OutputPiece } from './session-updates.js';

export interface CoalescedOutput {
  turnId: string;
  kind: OutputKind;
  content: string;
  metadata: Record<string, unknown>;
}

export interface OutputCoalescerOptions {
  timers: Timers;
  flushIntervalMs: number;
  emit: (output: CoalescedOutput) => void;
}

interface Buffer {
  turnId: string;
  kind: OutputKind;
  parts: string[];
  timer: { cancel(): void };
}

export class OutputCoalescer {
  private buffer: Buffer | undefined;

  constructor(private readonly options: OutputCoalescerOptions) {}

  push(turnId: string, piece: OutputPiece): void {
    const buffer = this.buffer;
    if (buffer && (buffer.turnId !== turnId || buffer.kind !== piece.kind || !piece.coalesce)) {
      this.flush();
    }
    if (!piece.coalesce) {
      this.options.emit({
        turnId,
        kind: piece.kind,
        content: piece.content,
        metadata: piece.metadata,
      });
      return;
    }
    if (this.buffer) {
      this.buffer.parts.push(piece.content);
      return;
    }
    this.buffer = {
      turnId,
      kind: piece.kind,
      parts: [piece.content],
      timer: this.options.timers.setTimeout(() => {
        this.flush();
      }, this.options.flushIntervalMs),
    };
  }

  /** Emits whatever is buffered now. */
  flush(): void {
    const buffer = this.buffer;
    if (!buffer) return;
    this.buffer = undefined;
    buffer.timer.cancel();
    const content = buffer.parts.join('');
    // Empty chunks carry nothing a person could read; an empty event would only be noise.
    if (content === '') return;
    this.options.emit({ turnId: buffer.turnId, kind: buffer.kind, content, metadata: {} });
  }
}
