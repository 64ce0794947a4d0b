import { describe, expect, it } from 'vitest';
import { createTaskBody, messageBody, queueEditBody } from './sessions.js';

describe('a person’s message text on the wire', () => {
  const code = '    if x:\n        return 1\n';

  it('is kept exactly as typed: indentation and trailing lines are part of it', () => {
    expect(messageBody.parse({ text: code, admission_key: 'k' }).text).toBe(code);
    expect(queueEditBody.parse({ text: code, base_text: code })).toEqual({
      text: code,
      base_text: code,
    });
    expect(createTaskBody.parse({ title: '  Title  ', prompt: code })).toEqual({
      title: 'Title',
      prompt: code,
    });
  });

  it('is refused when nothing in it shows, or when it is too long', () => {
    for (const text of ['', '  \n ', '\u200b']) {
      expect(messageBody.safeParse({ text, admission_key: 'k' }).success).toBe(false);
    }
    expect(messageBody.safeParse({ text: 'x'.repeat(32_001), admission_key: 'k' }).success).toBe(
      false,
    );
    expect(messageBody.safeParse({ text: 'x'.repeat(32_000), admission_key: 'k' }).success).toBe(
      true,
    );
  });
});
