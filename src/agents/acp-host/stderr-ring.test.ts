import { describe, expect, it } from 'vitest';
import { StderrRing } from './stderr-ring.js';

describe('the stderr ring', () => {
  it('keeps the last lines within both bounds, oldest first', () => {
    const ring = new StderrRing(3, 10);
    for (const line of ['a', 'b', 'c', 'd']) ring.push(line);
    expect(ring.tail()).toEqual(['b', 'c', 'd']);
    ring.push('12345678');
    expect(ring.tail()).toEqual(['c', 'd', '12345678']);
    ring.push('yz');
    expect(ring.tail()).toEqual(['12345678', 'yz']);
    ring.push('x'.repeat(25));
    expect(ring.tail()).toEqual(['x'.repeat(10)]);
  });
});
