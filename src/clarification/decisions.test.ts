import { describe, expect, it } from 'vitest';
import { DecisionBoard } from './decisions.js';

describe('DecisionBoard', () => {
  it('names a listened bundle for its session once read, and for any session before', () => {
    const board = new DecisionBoard();
    const stopA = board.listen('a', () => undefined);
    board.listen('b', () => undefined);
    // Not read yet: a new turn of any session must still look at it.
    expect(board.listenedIn('s1').sort()).toEqual(['a', 'b']);
    board.belongsTo('a', 's1');
    board.belongsTo('b', 's2');
    expect(board.listenedIn('s1')).toEqual(['a']);
    expect(board.listenedIn('s2')).toEqual(['b']);
    stopA();
    expect(board.listenedIn('s1')).toEqual([]);
    // Nobody listens: nothing is remembered for it.
    board.belongsTo('a', 's1');
    expect(board.listenedIn('s1')).toEqual([]);
  });

  it('ends every listener of a bundle once, and forgets its session', () => {
    const board = new DecisionBoard();
    const heard: string[] = [];
    board.listen('a', () => heard.push('first'));
    board.listen('a', () => heard.push('second'));
    board.belongsTo('a', 's1');
    board.ended('a');
    board.ended('a');
    expect(heard).toEqual(['first', 'second']);
    expect(board.listenedIn('s1')).toEqual([]);
  });
});
