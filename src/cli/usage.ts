export const USAGE =
  'usage: clarion serve | clarion sign-in-link [--user NAME] | clarion mcp-stdio';
