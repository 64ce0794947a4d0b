/**
 * What the demo agent does for a prompt: decided by the prompt's first word
 * alone, so a person (or a test) can drive every flow by typing it. Pure.
 */
import type { AskInput } from '../../clarification/index.js';
import { DEMO_DETACH_AFTER_MS } from '../../tunables.js';

export type DemoCommand =
  | { kind: 'ask'; ask: AskInput }
  | { kind: 'ask_multi'; ask: AskInput }
  | { kind: 'ask_detach'; ask: AskInput }
  | { kind: 'permission' }
  | { kind: 'action'; rest: string }
  | { kind: 'recall' }
  | { kind: 'plain'; text: string };

/**
 * A test hook, set through the demo profile's `env`: how long `/ask-detach`
 * waits before it gives up its own call, instead of `DEMO_DETACH_AFTER_MS`,
 * so a test that only waits for the detach need not wait 2 s.
 */
export const DETACH_AFTER_VARIABLE = 'CLARION_DEMO_DETACH_AFTER_MS';
const DETACH_AFTER_MAX_MS = 60 * 60 * 1000;

/** `/ask-detach`'s wait as the environment sets it; unset or empty, the default. */
export function detachAfterMs(
  env: NodeJS.ProcessEnv,
): { ok: true; ms: number } | { ok: false; message: string } {
  const raw = env[DETACH_AFTER_VARIABLE];
  if (raw === undefined || raw === '') return { ok: true, ms: DEMO_DETACH_AFTER_MS };
  const ms = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (ms >= 1 && ms <= DETACH_AFTER_MAX_MS) return { ok: true, ms };
  return {
    ok: false,
    message: `${DETACH_AFTER_VARIABLE} must be a whole number of milliseconds from 1 to ${String(DETACH_AFTER_MAX_MS)}, not ${JSON.stringify(raw)}`,
  };
}

export function parseCommand(text: string): DemoCommand {
  const trimmed = text.trim();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const word = match?.[1]?.toLowerCase() ?? '';
  const rest = match?.[2]?.trim() ?? '';
  switch (word) {
    case '/ask':
      return { kind: 'ask', ask: singleQuestion(rest) };
    case '/ask-multi':
      return { kind: 'ask_multi', ask: threeQuestions() };
    case '/ask-detach':
      return { kind: 'ask_detach', ask: singleQuestion(rest) };
    case '/permission':
      return { kind: 'permission' };
    case '/action':
      return { kind: 'action', rest };
    case '/recall':
      return { kind: 'recall' };
    default:
      return { kind: 'plain', text };
  }
}

/** One question; words after the command, when given, become its prompt. */
export function singleQuestion(prompt: string): AskInput {
  return {
    questions: [
      {
        id: 'q1',
        title: 'Config file',
        prompt: prompt === '' ? 'How should I create the configuration file?' : prompt,
        options: [
          {
            id: 'generated',
            label: 'Generated',
            description: 'Generate it from the defaults in the code.',
          },
          {
            id: 'hand_written',
            label: 'Hand-written',
            description: 'Write a small file by hand with only the settings we change.',
          },
          {
            id: 'skip',
            label: 'No file',
            description: 'Use environment variables only.',
          },
        ],
      },
    ],
  };
}

export function threeQuestions(): AskInput {
  return {
    context: 'I am setting up the continuous integration pipeline for this repository.',
    questions: [
      {
        id: 'q1',
        title: 'Runner',
        prompt: 'Which CI runner should the pipeline use?',
        options: [
          { id: 'hosted', label: 'Hosted', description: 'The provider’s hosted runners.' },
          { id: 'self_hosted', label: 'Self-hosted', description: 'Our own build machines.' },
        ],
      },
      {
        id: 'q2',
        title: 'Checks',
        prompt: 'Which checks should run on every pull request?',
        multi_select: true,
        options: [
          { id: 'lint', label: 'Lint', description: 'ESLint and Prettier.' },
          { id: 'tests', label: 'Tests', description: 'The unit and integration tests.' },
          { id: 'build', label: 'Build', description: 'A production build.' },
        ],
      },
      {
        id: 'q3',
        title: 'Node',
        prompt: 'Which Node.js versions should the pipeline test?',
        options: [
          { id: 'node20', label: 'Node 20', description: 'The oldest supported version.' },
          { id: 'node22', label: 'Node 22', description: 'The current LTS.' },
          { id: 'both', label: 'Both', description: 'A matrix over 20 and 22.' },
        ],
      },
    ],
  };
}
