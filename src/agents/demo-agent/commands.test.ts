import { describe, expect, it } from 'vitest';
import { normalizeAsk } from '../../clarification/questions.js';
import { parseCommand, singleQuestion, threeQuestions } from './commands.js';

describe('demo agent commands', () => {
  it.each([
    ['/ask', 'ask'],
    ['  /ask  which one?', 'ask'],
    ['/ASK', 'ask'],
    ['/ask-multi', 'ask_multi'],
    ['/ask-detach now', 'ask_detach'],
    ['/permission', 'permission'],
    ['/action please', 'action'],
  ])('reads %j as %s from its first word', (text, kind) => {
    expect(parseCommand(text).kind).toBe(kind);
  });

  it.each([['hello /ask'], ['/asking'], [''], ['ask'], ['/ask-more']])(
    'treats %j as a plain prompt, kept verbatim',
    (text) => {
      expect(parseCommand(text)).toEqual({ kind: 'plain', text });
    },
  );

  it('uses the words after /ask as the question prompt', () => {
    const command = parseCommand('/ask  Which database?\nPostgres or SQLite');
    expect(command.kind === 'ask' && command.ask.questions[0]?.prompt).toBe(
      'Which database?\nPostgres or SQLite',
    );
  });

  it('asks questions Clarion accepts', () => {
    for (const ask of [singleQuestion(''), singleQuestion('Why?'), threeQuestions()]) {
      expect(normalizeAsk(ask).ok).toBe(true);
    }
    const multi = threeQuestions();
    expect(multi.questions).toHaveLength(3);
    expect(multi.context).not.toBe('');
    expect(singleQuestion('').questions[0]?.options.length).toBeGreaterThanOrEqual(2);
  });
});
