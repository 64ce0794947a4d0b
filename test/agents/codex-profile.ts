/**
 * The Codex agent profile the compatibility suite runs: the pinned ACP
 * adapter's npm launcher (which starts the native binary as its child,
 * holding the same pipes) with node, in a Codex home of its own whose
 * `config.toml` sends OpenAI's requests to a local stand-in, and the key
 * handed over by name (`pass_env`), as the README's profile does. A fresh
 * home holds no key of Codex's own: Clarion must authenticate it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODEX_ACP = fileURLToPath(
  new URL('../../node_modules/@zed-industries/codex-acp/bin/codex-acp.js', import.meta.url),
);

/** The variable the profile passes, as the README's does. */
export const CODEX_KEY_VARIABLE = 'OPENAI_API_KEY';

/**
 * The profile, with its home in `home`; `modelUrl` is the stand-in's
 * Responses API base (`…/v1`), or undefined for a Codex left to reach
 * OpenAI itself (which it cannot offline).
 */
export function codexProfile(home: string, modelUrl: string | undefined) {
  if (modelUrl !== undefined) {
    // OpenAI's own provider, only elsewhere: it opens no session before ACP's `authenticate`.
    writeFileSync(
      join(home, 'config.toml'),
      ['model = "gpt-5"', `openai_base_url = "${modelUrl}"`, ''].join('\n'),
    );
  }
  return {
    command: process.execPath,
    args: [CODEX_ACP],
    env: { HOME: home, CODEX_HOME: home },
    pass_env: [CODEX_KEY_VARIABLE],
  };
}
