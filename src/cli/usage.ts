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
