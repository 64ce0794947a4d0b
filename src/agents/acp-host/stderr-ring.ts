/**
 * The last lines an agent wrote to stderr, kept so a failure can say why.
 * Bounded by line count and by characters, so a chatty agent costs a few KB.
 */
export class StderrRing {
  private readonly lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxChars: number,
  ) {}

  push(line: string): void {
    const kept = line.length > this.maxChars ? line.slice(0, this.maxChars) : line;
    this.lines.push(kept);
    this.chars += kept.length;
    while (this.lines.length > this.maxLines || this.chars > this.maxChars) {
      this.chars -= this.lines.shift()?.length ?? 0;
    }
  }

  tail(): string[] {
    return [...this.lines];
  }
}
