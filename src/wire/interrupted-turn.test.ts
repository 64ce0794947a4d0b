import { describe, expect, it } from 'vitest';
import {
  TURN_INTERRUPTED_LOSSES,
  TURN_INTERRUPTED_TEXTS,
  turnInterruptedMetadata,
  turnInterruptedNoteKey,
  turnInterruptedNoteOf,
} from './interrupted-turn.js';

describe('turnInterruptedNoteOf', () => {
  it.each(TURN_INTERRUPTED_LOSSES)('reads the note a %s wrote', (loss) => {
    expect(turnInterruptedNoteOf(turnInterruptedMetadata(loss))).toEqual({ loss });
  });

  it.each([
    [
      'a cause it does not know (a newer server’s)',
      { turn_outcome: 'interrupted', loss: 'moonset' },
    ],
    ['no cause', { turn_outcome: 'interrupted' }],
    ['another outcome', { turn_outcome: 'cancelled', loss: 'restart' }],
    ['no outcome', { loss: 'replica_gone' }],
  ])('leaves the server’s words to a note with %s', (_, metadata) => {
    expect(turnInterruptedNoteOf(metadata)).toBeUndefined();
  });
});

describe('the interrupted turn’s note', () => {
  it('has words of its own for each cause, for readers without the web app', () => {
    expect(TURN_INTERRUPTED_TEXTS.replica_gone).not.toBe(TURN_INTERRUPTED_TEXTS.restart);
    for (const loss of TURN_INTERRUPTED_LOSSES) {
      expect(TURN_INTERRUPTED_TEXTS[loss]).toContain('Send the message again');
    }
  });

  it('has one admission key per turn, however often recovery runs', () => {
    expect(turnInterruptedNoteKey('turn-1')).toBe(turnInterruptedNoteKey('turn-1'));
    expect(turnInterruptedNoteKey('turn-1')).not.toBe(turnInterruptedNoteKey('turn-2'));
  });
});
