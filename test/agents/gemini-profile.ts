/**
 * The Gemini CLI agent profile the compatibility suite runs: the pinned CLI
 * (`gemini --acp`) with node, in a home of its own, its model requests sent
 * to a local stand-in, and the key handed over by name (`pass_env`), as the
 * README's profile does.
 */
import { fileURLToPath } from 'node:url';

export const GEMINI_CLI = fileURLToPath(
  new URL('../../node_modules/@google/gemini-cli/bundle/gemini.js', import.meta.url),
);

/** The variable the profile passes, as the README's does. */
export const GEMINI_KEY_VARIABLE = 'GEMINI_API_KEY';

/**
 * The profile, with its home in `home` and its model at `modelUrl` (the
 * stand-in), or left to reach Google itself (which it cannot offline).
 */
export function geminiProfile(home: string, modelUrl: string | undefined) {
  return {
    command: process.execPath,
    args: [GEMINI_CLI, '--acp'],
    env: { HOME: home, ...(modelUrl === undefined ? {} : { GOOGLE_GEMINI_BASE_URL: modelUrl }) },
    pass_env: [GEMINI_KEY_VARIABLE],
  };
}
