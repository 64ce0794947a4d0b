import { describe, expect, it } from 'vitest';
import { userInputNoteOf, userInputRefusedNoteOf } from './user-input-notes.js';

describe('userInputNoteOf', () => {
  const note = { request_id: 'req-1', kind: 'consent', title: 'npm publish', loss: 'restart' };

  it('reads a note whose every field this build knows', () => {
    expect(userInputNoteOf(note)).toEqual(note);
    expect(userInputNoteOf({ ...note, kind: 'form', loss: 'replica_gone' })).toMatchObject({
      kind: 'form',
      loss: 'replica_gone',
    });
  });

  it('reads a note that the agent that asked exited', () => {
    expect(userInputNoteOf({ ...note, kind: 'action', loss: 'agent_exited' })).toEqual({
      ...note,
      kind: 'action',
      loss: 'agent_exited',
    });
  });

  it.each([
    ['no cause (a note from before it was kept)', { ...note, loss: undefined }],
    ['a cause it does not know', { ...note, loss: 'moonset' }],
    ['a kind it does not know', { ...note, kind: 'question' }],
    ['no title', { ...note, title: 3 }],
    ['no request', { ...note, request_id: undefined }],
  ])('leaves the server’s words to a note with %s', (_, metadata) => {
    expect(userInputNoteOf(metadata)).toBeUndefined();
  });
});

describe('userInputRefusedNoteOf', () => {
  const note = { kind: 'form', title: 'Pick a plan', code: 'too_many_open_requests', limit: 20 };

  it('reads a refusal note whose every field this build knows', () => {
    expect(userInputRefusedNoteOf(note)).toEqual(note);
  });

  it.each([
    ['a code it does not know', { ...note, code: 'too_late' }],
    ['a kind it does not know', { ...note, kind: 'question' }],
    ['no limit', { ...note, limit: undefined }],
    ['no title', { ...note, title: null }],
    ['an unshowable request without problems', { ...note, code: 'unshowable' }],
    [
      'problems that are not text',
      { kind: 'form', title: 'Pick a plan', code: 'unshowable', problems: [3] },
    ],
  ])('leaves the server’s words to a note with %s', (_, metadata) => {
    expect(userInputRefusedNoteOf(metadata)).toBeUndefined();
  });

  it('reads the note of a request Clarion cannot show, with its problems', () => {
    const unshowable = {
      kind: 'form',
      title: 'Pick a plan',
      code: 'unshowable',
      problems: ['properties: too many fields'],
    };
    expect(userInputRefusedNoteOf(unshowable)).toEqual(unshowable);
  });

  it('reads the note of a request that came outside any turn', () => {
    const outside = { kind: 'action', title: 'Sign in', code: 'outside_turn' };
    expect(userInputRefusedNoteOf(outside)).toEqual(outside);
  });
});
