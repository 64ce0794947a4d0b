import { describe, expect, it } from 'vitest';
import {
  FRESH_START_METADATA,
  FRESH_START_TEXT,
  QUEUED_AUTHOR_LEFT_NOTE,
  turnCancelledNote,
  turnFailureNote,
  turnNoteOf,
} from './turn-notes.js';

const ADA = { user_id: 'user-ada', name: 'Ada', surface: 'web' } as const;

describe('the server’s lines about how a turn went', () => {
  it('reads back what each line says from its metadata', () => {
    expect(turnNoteOf(FRESH_START_METADATA)).toEqual({ kind: 'fresh_start' });
    expect(turnNoteOf(QUEUED_AUTHOR_LEFT_NOTE.metadata)).toEqual({ kind: 'queued_author_left' });
    expect(turnNoteOf(turnCancelledNote(ADA).metadata)).toEqual({
      kind: 'cancelled',
      byName: 'Ada',
    });
    expect(turnNoteOf(turnCancelledNote(undefined).metadata)).toEqual({
      kind: 'cancelled',
      byName: null,
    });
    expect(turnNoteOf(turnFailureNote('agent_error', 'exit 1').metadata)).toEqual({
      kind: 'agent_error',
      reason: 'exit 1',
    });
    expect(turnNoteOf(turnFailureNote('not_taken', 'busy').metadata)).toEqual({
      kind: 'not_taken',
      reason: 'busy',
    });
  });

  it('keeps the server’s English for every other reader', () => {
    expect(FRESH_START_TEXT).toContain('new conversation');
    expect(turnCancelledNote(ADA).content).toBe('Cancelled by Ada');
    expect(turnCancelledNote(undefined).content).toBe('Cancelled');
    expect(turnFailureNote('agent_error', 'exit 1').content).toBe(
      "The agent's turn failed: exit 1",
    );
    expect(turnFailureNote('not_taken', 'busy\u0000').content).toBe(
      'The agent did not take this message: busy',
    );
  });

  it('keeps who cancelled and where, as a decision’s record does: a name may be two people’s', () => {
    expect(turnCancelledNote(ADA).metadata).toEqual({
      turn_outcome: 'cancelled',
      cancelled_by_name: 'Ada',
      cancelled_by: ADA,
    });
    expect(turnCancelledNote(undefined).metadata).toMatchObject({ cancelled_by: null });
  });

  it.each([
    ['a cancel written before it named its canceller', { turn_outcome: 'cancelled' }],
    ['an interrupted turn (its own note)', { turn_outcome: 'interrupted', loss: 'restart' }],
    ['a failure this build does not know', { turn_failure: 'moonset', reason: 'x' }],
    ['a failure without its reason', { turn_failure: 'agent_error' }],
    ['a canceller that is not a name', { turn_outcome: 'cancelled', cancelled_by_name: 3 }],
    ['nothing', {}],
  ])('leaves the row’s own words to %s', (_, metadata) => {
    expect(turnNoteOf(metadata)).toBeUndefined();
  });
});
