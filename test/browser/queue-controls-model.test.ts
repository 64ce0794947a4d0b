/**
 * The queue controls' framework-free rules in Node (`queue-controls.ts`):
 * which order a move sends, which failure a person is told, what a clear's
 * confirmation counts, what a clear did not remove and why, and how a
 * message names its buttons.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../web/src/model/api.js';
import {
  clearFailureOf,
  clearMissesOf,
  clearSummaryOf,
  movedOrder,
  moveFailureOf,
  namePreview,
} from '../../web/src/model/queue-controls.js';
import type { QueueItemView } from '../../web/src/model/types.js';

function user(id: string): QueueItemView {
  return { id, owner: 'user', text: id } as QueueItemView;
}

function followUp(id: string): QueueItemView {
  return { id, owner: 'machine', text: id } as QueueItemView;
}

function refused(status: number, code: string): ApiResult<unknown> {
  return { ok: false, kind: 'http', status, code, error: code };
}

const QUEUE = [user('a'), user('b'), user('c'), followUp('f')];

describe('movedOrder', () => {
  it('swaps a message with its neighbour and names every person’s message once', () => {
    expect(movedOrder(QUEUE, 'b', 'up')).toEqual(['b', 'a', 'c']);
    expect(movedOrder(QUEUE, 'b', 'down')).toEqual(['a', 'c', 'b']);
    expect(movedOrder(QUEUE, 'a', 'down')).toEqual(['b', 'a', 'c']);
    expect(movedOrder(QUEUE, 'c', 'up')).toEqual(['a', 'c', 'b']);
  });

  it('does not move past either end, nor below the follow-ups that always run last', () => {
    expect(movedOrder(QUEUE, 'a', 'up')).toBeUndefined();
    expect(movedOrder(QUEUE, 'c', 'down')).toBeUndefined();
  });

  it('never moves a follow-up or a message no longer listed', () => {
    expect(movedOrder(QUEUE, 'f', 'up')).toBeUndefined();
    expect(movedOrder(QUEUE, 'gone', 'down')).toBeUndefined();
    expect(movedOrder([user('only')], 'only', 'down')).toBeUndefined();
  });

  it('leaves the list it was given as it was', () => {
    const items = [user('a'), user('b')];
    movedOrder(items, 'a', 'down');
    expect(items.map((item) => item.id)).toEqual(['a', 'b']);
  });
});

describe('failures a person is told', () => {
  it('reads an order the server refused as a lost race, and nothing from a success', () => {
    expect(moveFailureOf({ ok: true, status: 200, value: {} })).toBeUndefined();
    expect(moveFailureOf(refused(400, 'invalid_request'))).toBe('raced');
  });

  it('tells a gone session, no answer and any other refusal apart, for moves and clears', () => {
    for (const of of [moveFailureOf, clearFailureOf]) {
      expect(of(refused(404, 'not_found'))).toBe('gone');
      expect(of({ ok: false, kind: 'network', error: 'Failed to fetch' })).toBe('unreachable');
      expect(of(refused(503, 'temporarily_unavailable'))).toBe('failed');
      expect(of(refused(409, 'conflict'))).toBe('failed');
    }
  });

  it('never reads a clear as a lost race: it takes whatever is queued', () => {
    expect(clearFailureOf(refused(400, 'invalid_request'))).toBe('failed');
    expect(clearFailureOf({ ok: true, status: 200, value: { removed: [] } })).toBeUndefined();
  });
});

describe('clearSummaryOf', () => {
  it('counts people’s messages and follow-ups apart', () => {
    expect(clearSummaryOf(QUEUE)).toEqual({ messages: 3, followUps: 1 });
    expect(clearSummaryOf([followUp('f'), followUp('g')])).toEqual({ messages: 0, followUps: 2 });
    expect(clearSummaryOf([])).toEqual({ messages: 0, followUps: 0 });
  });
});

describe('clearMissesOf', () => {
  it('names nothing when the clear removed all the person confirmed', () => {
    expect(clearMissesOf(QUEUE, QUEUE, [])).toEqual([]);
    // A message queued after the confirmation is not the person's to miss.
    expect(clearMissesOf([user('a')], [user('a'), user('b')], [user('c')])).toEqual([]);
  });

  it('says which confirmed item had left the queue first, and which the server kept', () => {
    expect(clearMissesOf(QUEUE, [user('a'), user('b')], [followUp('f')])).toEqual([
      { id: 'c', text: 'c', reason: 'taken' },
      { id: 'f', text: 'f', reason: 'kept' },
    ]);
  });
});

describe('namePreview', () => {
  it('keeps a short message whole, on one line', () => {
    expect(namePreview('  fix the\n\ntests  ')).toBe('fix the tests');
  });

  it('cuts a long one by letters, never inside one', () => {
    const family = '👨‍👩‍👧';
    const preview = namePreview(`${'x'.repeat(58)}${family}${family}tail`);
    expect(preview).toBe(`${'x'.repeat(58)}${family}…`);
  });

  it('shows bidi controls instead of obeying them', () => {
    expect(namePreview('invoice\u202Efdp.exe')).toBe('invoice⟨U+202E⟩fdp.exe');
  });
});
