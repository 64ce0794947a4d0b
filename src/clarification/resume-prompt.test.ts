import { describe, expect, it } from 'vitest';
import type { Answer } from './outcome.js';
import type { Question } from './questions.js';
import { resumePrompt } from './resume-prompt.js';

const database: Question = {
  id: 'db',
  title: 'Database',
  prompt: 'Which database should the service use?',
  options: [
    { option_id: 'pg', label: 'PostgreSQL 16', description: 'server' },
    { option_id: 'sqlite', label: 'SQLite', description: 'embedded' },
  ],
  multi_select: false,
};

const features: Question = {
  id: 'features',
  title: '',
  prompt: 'Which features ship first?',
  options: [
    { option_id: 'f1', label: 'Search', description: '' },
    { option_id: 'f2', label: 'Export to "CSV"', description: '' },
    { option_id: 'f3', label: 'Sharing', description: '' },
  ],
  multi_select: true,
};

function answer(questionId: string, selected: string[] = [], text = ''): Answer {
  return { question_id: questionId, selected_options: selected, custom_text: text };
}

describe('resumePrompt', () => {
  it('quotes the prompt and the chosen label verbatim', () => {
    expect(resumePrompt([database], [answer('db', ['sqlite'])])).toBe(
      [
        'You previously asked the user, and they have now answered:',
        'Q1: Which database should the service use?',
        'A1: The user selected "SQLite".',
        'Please continue with this information.',
      ].join('\n'),
    );
  });

  it('names options by label, never by id', () => {
    const prompt = resumePrompt([database], [answer('db', ['pg'])]);
    expect(prompt).toContain('"PostgreSQL 16"');
    expect(prompt).not.toMatch(/\bpg\b/);
  });

  it('lists several labels in the order given', () => {
    const prompt = resumePrompt([features], [answer('features', ['f1', 'f2', 'f3'])]);
    expect(prompt).toContain('A1: The user selected "Search", "Export to "CSV"", "Sharing".');
  });

  it('quotes custom text verbatim', () => {
    const text = 'Use "libsql"\nand keep it — simple 😀';
    const prompt = resumePrompt([database], [answer('db', [], text)]);
    expect(prompt).toContain(`A1: The user wrote "${text}".`);
  });

  it('gives both the labels and the custom text when both are present', () => {
    const prompt = resumePrompt([database], [answer('db', ['pg'], 'version 16 or later')]);
    expect(prompt).toContain(
      'A1: The user selected "PostgreSQL 16" and wrote "version 16 or later".',
    );
  });

  it('falls back to (no answer) for a question without an answer', () => {
    const prompt = resumePrompt([database, features], [answer('db', ['pg'])]);
    expect(prompt).toContain('A2: The user (no answer).');
  });

  it('falls back to (no answer) for an empty answer', () => {
    expect(resumePrompt([database], [answer('db')])).toContain('A1: The user (no answer).');
  });

  it('falls back to the option id when the option is unknown', () => {
    expect(resumePrompt([database], [answer('db', ['mysql'])])).toContain(
      'A1: The user selected "mysql".',
    );
  });

  it('follows question order, not answer order', () => {
    const prompt = resumePrompt(
      [database, features],
      [answer('features', ['f3']), answer('db', ['sqlite'])],
    );
    expect(prompt).toBe(
      [
        'You previously asked the user, and they have now answered:',
        'Q1: Which database should the service use?',
        'A1: The user selected "SQLite".',
        'Q2: Which features ship first?',
        'A2: The user selected "Sharing".',
        'Please continue with this information.',
      ].join('\n'),
    );
  });

  it('ignores answers to questions outside the bundle', () => {
    const prompt = resumePrompt([database], [answer('db', ['pg']), answer('other', [], 'x')]);
    expect(prompt).not.toContain('"x"');
    expect(prompt.split('\n')).toHaveLength(4);
  });

  it('quotes a multi-line prompt verbatim', () => {
    const question: Question = { ...database, prompt: 'First line\n  second "line"' };
    expect(resumePrompt([question], [answer('db', ['pg'])])).toContain(
      'Q1: First line\n  second "line"\nA1:',
    );
  });

  it('has only the frame for no questions', () => {
    expect(resumePrompt([], [])).toBe(
      'You previously asked the user, and they have now answered:\nPlease continue with this information.',
    );
  });
});
