/** What a phone's bottom sheet covers, in Node: boxes in, the parts to make inert out. */
import { describe, expect, it } from 'vitest';
import { coveredParts, type CoverPart } from '../../web/src/model/sheet-cover.js';

function part(
  node: string,
  top: number,
  bottom: number,
  parts: CoverPart<string>[] = [],
  extra: Partial<CoverPart<string>> = {},
): CoverPart<string> {
  return { node, top, bottom, isSheet: false, mustStay: false, parts: () => parts, ...extra };
}

const SHEET_TOP = 400;

describe('coveredParts', () => {
  it('covers what lies wholly under the sheet or beyond the window, never what lies above', () => {
    const parts = [part('header', 0, 120), part('queue', 450, 700), part('composer', 900, 980)];
    expect(coveredParts(parts, SHEET_TOP)).toEqual(['queue', 'composer']);
  });

  it('judges a part that straddles the edge by its parts, and a leaf by its centre', () => {
    const transcript = part('transcript', 100, 600, [
      part('row-above', 100, 380),
      part('row-straddling-high', 380, 430, [
        part('text-high', 380, 395),
        part('button-low', 395, 430),
      ]),
      part('leaf-mostly-above', 390, 405),
      part('leaf-mostly-below', 395, 420),
      part('row-below', 430, 600),
    ]);
    expect(coveredParts([transcript], SHEET_TOP)).toEqual([
      'button-low',
      'leaf-mostly-below',
      'row-below',
    ]);
  });

  it('never covers the sheet, what holds it, or a live region, only their covered parts', () => {
    const sheet = part('sheet', 400, 844, [part('option', 500, 540)], { isSheet: true });
    const dock = part('dock', 300, 1200, [sheet, part('queue', 600, 800)], { mustStay: true });
    const announcer = part('arrivals', 905, 906, [], { mustStay: true });
    const form = part('composer', 900, 1000, [announcer, part('send', 950, 990)], {
      mustStay: true,
    });
    expect(coveredParts([dock, form], SHEET_TOP)).toEqual(['queue', 'send']);
  });

  it('does not measure the parts of what lies wholly above or below', () => {
    const untouched = (node: string, top: number, bottom: number): CoverPart<string> => ({
      ...part(node, top, bottom),
      parts: () => {
        throw new Error(`${node} was measured`);
      },
    });
    expect(
      coveredParts([untouched('above', 0, 100), untouched('below', 500, 600)], SHEET_TOP),
    ).toEqual(['below']);
  });
});
