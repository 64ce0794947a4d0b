import { describe, expect, it } from 'vitest';
import { StderrLines } from './stderr-lines.js';

const CAP = 4000;

describe('stderr cut into lines', () => {
  it('holds at most the cap of a line that never ends, and gives its clipped start at once', () => {
    const lines = new StderrLines(CAP);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const given = lines.push(Buffer.from('before\n'));
    let mostHeld = 0;
    // 64 MB with no line break, in the reads a pipe hands over.
    for (let read = 0; read < 1024; read += 1) {
      given.push(...lines.push(chunk));
      mostHeld = Math.max(mostHeld, lines.heldChars);
    }
    expect(mostHeld).toBeLessThanOrEqual(CAP);
    expect(given).toEqual(['before', `${'a'.repeat(CAP - 1)}…`]);
    expect(lines.heldChars).toBe(0);

    // The line break ends the dropped rest; the next line is whole.
    expect(lines.push(Buffer.from('aaa\r\nafter\nlast'))).toEqual(['after']);
    expect(lines.end()).toEqual(['last']);
  });

  it('keeps a line of exactly the cap whole', () => {
    const lines = new StderrLines(CAP);
    const full = 'b'.repeat(CAP);
    expect(lines.push(Buffer.from(full.slice(0, 10)))).toEqual([]);
    expect(lines.push(Buffer.from(`${full.slice(10)}\n`))).toEqual([full]);
  });

  it('keeps a character whole when a read splits its bytes', () => {
    const lines = new StderrLines(CAP);
    const bytes = Buffer.from('a語😀b\n');
    const given = [...bytes].flatMap((byte) => lines.push(Buffer.from([byte])));
    expect(given).toEqual(['a語😀b']);
  });

  it('never clips between the halves of a surrogate pair', () => {
    const lines = new StderrLines(6);
    expect(lines.push(Buffer.from('1234😀😀\n'))).toEqual(['1234…']);
  });
});
