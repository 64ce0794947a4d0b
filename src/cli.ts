#!/usr/bin/env node
/**
 * `clarion serve` (what `npm start` runs), `clarion sign-in-link [--user NAME]`,
 * `clarion mcp-stdio` and `clarion help`. Each command loads only its own
 * modules: an agent that cannot speak Streamable HTTP starts the stdio bridge
 * with every session, and the bridge needs about a third of what the server
 * loads.
 */
import { HELP, refused } from './cli/usage.js';

async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (rest.length === 0 && ['help', '--help', '-h'].includes(command)) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (command === 'sign-in-link') return (await import('./cli/sign-in-link.js')).signInLink(rest);
  if (rest.length === 0 && command === 'serve') return (await import('./cli/serve.js')).serve();
  if (rest.length === 0 && command === 'mcp-stdio') {
    return (await import('./cli/mcp-stdio.js')).mcpStdio();
  }
  process.stderr.write(refused(argv));
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.exitCode = 1;
    // An install too broken to load the explainer still gets one line, not a stack.
    const explained = await import('./cli/explain.js').then(
      ({ explain }) => explain(error),
      () => (error instanceof Error ? error.message : String(error)),
    );
    process.stderr.write(`clarion: ${explained.replace(/\s+/g, ' ')}\n`);
  },
);
