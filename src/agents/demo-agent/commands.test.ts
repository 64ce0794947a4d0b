import { describe, expect, it } from 'vitest';
import { normalizeAsk } from '../../clarification/questions.js';
import { DEMO_DETACH_AFTER_MS } from '../../tunables.js';
import { detachAfterMs, parseCommand, singleQuestion, threeQuestions } from './commands.js';

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

  it('waits the default on /ask-detach unless CLARION_DEMO_DETACH_AFTER_MS says otherwise', () => {
    expect(detachAfterMs({})).toEqual({ ok: true, ms: DEMO_DETACH_AFTER_MS });
    expect(detachAfterMs({ CLARION_DEMO_DETACH_AFTER_MS: '' })).toEqual({
      ok: true,
      ms: DEMO_DETACH_AFTER_MS,
    });
    expect(detachAfterMs({ CLARION_DEMO_DETACH_AFTER_MS: '250' })).toEqual({ ok: true, ms: 250 });
    expect(detachAfterMs({ CLARION_DEMO_DETACH_AFTER_MS: '3600000' })).toEqual({
      ok: true,
      ms: 3_600_000,
    });
  });

  it.each([['0'], ['-5'], ['1.5'], [' 250'], ['2s'], ['3600001'], ['1e3'], ['soon']])(
    'refuses CLARION_DEMO_DETACH_AFTER_MS=%j, naming the variable and the value',
    (raw) => {
      const read = detachAfterMs({ CLARION_DEMO_DETACH_AFTER_MS: raw });
      expect(read.ok).toBe(false);
      expect(!read.ok && read.message).toBe(
        `CLARION_DEMO_DETACH_AFTER_MS must be a whole number of milliseconds from 1 to 3600000, not ${JSON.stringify(raw)}`,
      );
    },
  );
});
