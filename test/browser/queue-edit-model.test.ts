/**
 * The rules of an edit of a queued message under way, in Node
 * (`web/src/model/queue-edit.ts`): a text seen elsewhere waits for the
 * person's choice and never replaces what they typed by itself; their own
 * save's text, or the same words, is nothing to choose between; the choice
 * decides the text and the base the next save names.
 */
import { describe, expect, it } from 'vitest';
import {
  currentTextOf,
  keepTyped,
  observed,
  refusedAsChanged,
  startEdit,
  takeCurrent,
  typed,
} from '../../web/src/model/queue-edit.js';

const opened = () => typed(startEdit({ id: 'q1', text: 'original' }), 'mine');

describe('an edit of a queued message under way', () => {
  it('starts from the text it was opened on', () => {
    expect(startEdit({ id: 'q1', text: 'original' })).toEqual({
      itemId: 'q1',
      base: 'original',
      text: 'original',
    });
  });

  it('stays the same object while the message still reads its base', () => {
    const edit = opened();
    expect(observed(edit, 'original')).toBe(edit);
  });

  it('holds a text saved elsewhere beside what was typed, without replacing it', () => {
    const edit = observed(opened(), 'theirs');
    expect(edit).toEqual({
      itemId: 'q1',
      base: 'original',
      text: 'mine',
      changed: { current: 'theirs', refused: false },
    });
    // Seen again, nothing new: the same object; seen newer, the newer text.
    expect(observed(edit, 'theirs')).toBe(edit);
    expect(observed(edit, 'theirs, again').changed).toEqual({
      current: 'theirs, again',
      refused: false,
    });
  });

  it('says a refused save was refused, and keeps saying so as reads come in', () => {
    const refused = refusedAsChanged(opened(), 'theirs');
    expect(refused.changed).toEqual({ current: 'theirs', refused: true });
    expect(refusedAsChanged(observed(opened(), 'theirs'), 'theirs').changed?.refused).toBe(true);
    expect(observed(refused, 'theirs')).toBe(refused);
    expect(observed(refused, 'theirs, again').changed).toEqual({
      current: 'theirs, again',
      refused: true,
    });
  });

  it('has nothing to choose when the message reads what was typed, or its base again', () => {
    // This tab's own save, read before its reply: no notice, and the next save names it.
    expect(observed(opened(), 'mine')).toEqual({ itemId: 'q1', base: 'mine', text: 'mine' });
    expect(refusedAsChanged(opened(), 'mine')).toEqual({
      itemId: 'q1',
      base: 'mine',
      text: 'mine',
    });
    expect(observed(observed(opened(), 'theirs'), 'original')).toEqual(opened());
  });

  it('takes the new text when the person chooses it', () => {
    expect(takeCurrent(refusedAsChanged(opened(), 'theirs'))).toEqual({
      itemId: 'q1',
      base: 'theirs',
      text: 'theirs',
    });
  });

  it('keeps what was typed when the person chooses it, to be saved over the new text', () => {
    expect(keepTyped(observed(opened(), 'theirs'))).toEqual({
      itemId: 'q1',
      base: 'theirs',
      text: 'mine',
    });
  });

  it('reads the current text a refusal names, and nothing else', () => {
    expect(currentTextOf({ current_text: 'theirs' })).toBe('theirs');
    expect(currentTextOf({ current_text: 3 })).toBeUndefined();
    expect(currentTextOf(undefined)).toBeUndefined();
    expect(currentTextOf('theirs')).toBeUndefined();
  });
});
