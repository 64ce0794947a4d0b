import { describe, expect, it } from 'vitest';
import { MAX_USER_INPUT_TITLE_CHARS } from '../wire/index.js';
import { requestInputProblems, type ConsentRequestInput } from './request-input.js';

const consent = (overrides: Partial<ConsentRequestInput> = {}): ConsentRequestInput => ({
  kind: 'consent',
  sessionId: 'session-1',
  taskId: 'task-1',
  profile: 'demo',
  toolKey: 'execute',
  command: 'Run npm test',
  title: 'Run npm test',
  options: [
    { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
    { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
  ],
  ...overrides,
});

describe('consent request checks', () => {
  it('takes a well-formed consent', () => {
    expect(requestInputProblems(consent())).toEqual([]);
  });

  it('refuses text the store would refuse once a person answers, naming where it is', () => {
    const problems = requestInputProblems(
      consent({
        title: 'rm -rf build\u0000',
        toolKey: 'exe\u0000cute',
        options: [
          { option_id: 'allow\u0000', label: 'Allow\ud800', kind: 'allow_once' },
          { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
        ],
      }),
    );
    expect(problems).toEqual([
      'title must not contain NUL characters',
      'toolKey must not contain NUL characters',
      'options.0.option_id must not contain NUL characters',
      'options.0.label must be well-formed Unicode (no unpaired surrogates)',
    ]);
  });

  it('keeps the title limit: one character over is refused', () => {
    const title = 'x'.repeat(MAX_USER_INPUT_TITLE_CHARS);
    expect(requestInputProblems(consent({ title }))).toEqual([]);
    expect(requestInputProblems(consent({ title: `${title}x` }))).toEqual([
      `title must be text of at most ${MAX_USER_INPUT_TITLE_CHARS} characters`,
    ]);
  });

  it('names options by position, not by the agent’s own text', () => {
    const problems = requestInputProblems(
      consent({
        options: [
          { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
          { option_id: 'allow', label: 'Allow again', kind: 'allow_once' },
          { option_id: ' ', label: 'Blank', kind: 'allow_once' },
        ],
      }),
    );
    expect(problems).toEqual([
      'options.1.option_id is a duplicate',
      'options.2.option_id is required',
    ]);
  });
});

describe('form request checks', () => {
  it('refuses a form with a choice that shows nothing, naming its field and option', () => {
    const problems = requestInputProblems({
      kind: 'form',
      sessionId: 'session-1',
      taskId: 'task-1',
      message: 'Pick a plan',
      // Typed by the caller, yet an agent's: the registry parses it again.
      schema: {
        type: 'object',
        properties: {
          plan: {
            type: 'string',
            oneOf: [
              { const: 'free', title: 'Free' },
              { const: 'team', title: '\u200b' },
            ],
          },
        },
      },
    });
    expect(problems).toEqual([
      'schema.properties.plan.oneOf.1.title: option "team" has a blank title',
    ]);
  });
});

describe('consent options that read the same', () => {
  it('are refused, naming the later one by position', () => {
    const problems = requestInputProblems(
      consent({
        options: [
          { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
          { option_id: 'always', label: 'Allow', kind: 'allow_always' },
          { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
        ],
      }),
    );
    expect(problems).toEqual([
      'options.2 reads the same as options.0: a person could not tell them apart',
    ]);
  });
});
