/**
 * An agent's stderr cut into lines as its chunks arrive, holding at most one
 * line's cap of text however much the agent writes without a line break. A
 * line past the cap is given at once, clipped with an ellipsis as Clarion
 * clips any text (`clippedText`), and the rest of it is dropped up to the
 * next line break: an agent that never ends its line costs the cap, not its
 * output. Bytes are decoded as UTF-8 across chunks, so a character a read
 * splits stays whole. A line ends at `\n`; a `\r` before it is dropped.
 */
import { StringDecoder } from 'node:string_decoder';
import { clippedText } from '../../wire/index.js';

export class StderrLines {
  private readonly decoder = new StringDecoder('utf8');
  /** The line under way, never longer than the cap. */
  private pending = '';
  /** The line under way passed the cap: its start was given, the rest is dropped. */
  private cut = false;

  constructor(private readonly maxChars: number) {}

  /** What is held of the line under way, in UTF-16 units: at most the cap. */
  get heldChars(): number {
    return this.pending.length;
  }

  /** The lines `chunk` ends, and the clipped start of one it made too long. */
  push(chunk: Buffer): string[] {
    return this.split(this.decoder.write(chunk));
  }

  /** At the stream's end: the last line, which no line break ended. */
  end(): string[] {
    const lines = this.split(this.decoder.end());
    const last = this.endLine();
    return last === undefined || last === '' ? lines : [...lines, last];
  }

  private split(text: string): string[] {
    const lines: string[] = [];
    for (let from = 0; ;) {
      const to = text.indexOf('\n', from);
      const clipped = this.extend(text, from, to === -1 ? text.length : to);
      if (clipped !== undefined) lines.push(clipped);
      if (to === -1) return lines;
      const ended = this.endLine();
      if (ended !== undefined) lines.push(ended);
      from = to + 1;
    }
  }

  /** At a line break: the line under way, unless its clipped start was given already. */
  private endLine(): string | undefined {
    const line = this.cut ? undefined : this.pending.replace(/\r$/, '');
    this.pending = '';
    this.cut = false;
    return line;
  }

  /** Adds `text[from, to)` to the line under way; its clipped start once it passes the cap. */
  private extend(text: string, from: number, to: number): string | undefined {
    if (this.cut || from === to) return undefined;
    const room = this.maxChars - this.pending.length;
    if (to - from <= room) {
      this.pending += text.slice(from, to);
      return undefined;
    }
    // One unit past the cap is what tells `clippedText` to clip; the rest is never copied.
    const clipped = clippedText(this.pending + text.slice(from, from + room + 1), this.maxChars);
    this.pending = '';
    this.cut = true;
    return clipped;
  }
}
