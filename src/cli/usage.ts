export const USAGE =
  'usage: clarion serve | clarion sign-in-link [--user NAME] | clarion mcp-stdio | clarion help';

/** What `clarion help` prints: the commands, and where their settings are told. */
export const HELP = `${USAGE}

  serve           run the server (the default; what \`npm start\` runs)
  sign-in-link    print a one-time sign-in link for the first admin, or --user NAME,
                  against the same CLARION_DATA_DIR or DATABASE_URL as the server
  mcp-stdio       bridge an agent that speaks MCP over stdio to a running server
                  (needs CLARION_MCP_URL and CLARION_TOKEN)
  help            this text

Settings come from the environment (CLARION_PORT, CLARION_HOST, CLARION_DATA_DIR,
DATABASE_URL, CLARION_PUBLIC_ORIGIN, …): the README's "Configuration" section
names each, with its default.`;

const COMMANDS: readonly string[] = ['serve', 'sign-in-link', 'mcp-stdio', 'help'];

/**
 * What is wrong with a command line the commands refused, as one line before
 * the usage: an operator who typed `clarion serve --port 8080` learns that
 * settings are not flags, not only how a command line looks.
 */
export function refusal(argv: readonly string[]): string {
  const [command = 'serve', ...rest] = argv;
  if (!COMMANDS.includes(command)) return `clarion: unknown command ${JSON.stringify(command)}`;
  const [first = ''] = rest;
  if (command === 'sign-in-link') {
    return `clarion sign-in-link: takes only --user NAME (got ${JSON.stringify(rest.join(' '))})`;
  }
  if (first.startsWith('-')) {
    // The bridge reads the server's address and a token, none of the server's own settings.
    const example =
      command === 'mcp-stdio'
        ? 'CLARION_MCP_URL=http://127.0.0.1:7420/mcp and CLARION_TOKEN'
        : 'CLARION_PORT=8080';
    return (
      `clarion ${command}: takes no options (got ${JSON.stringify(first)}); settings come ` +
      `from the environment, such as ${example} (the README's "Configuration" ` +
      'section names each)'
    );
  }
  return `clarion ${command}: takes no arguments (got ${JSON.stringify(first)})`;
}

/** The refusal and the usage, for standard error. */
export function refused(argv: readonly string[]): string {
  return `${refusal(argv)}\n${USAGE}\n`;
}
