import { pino } from 'pino';
// The bridge's own module, not the `agents/mcp` barrel: that one loads the whole MCP server.
import { MCP_URL_ENV, runStdioBridge, TOKEN_ENV } from '../agents/mcp/stdio-bridge.js';

/**
 * Relays an agent's stdio MCP to Clarion's `/mcp`. Standard output is the
 * protocol channel, so logs go to standard error.
 */
export async function mcpStdio(): Promise<number> {
  const url = process.env[MCP_URL_ENV];
  const token = process.env[TOKEN_ENV];
  if (!url || !token) {
    process.stderr.write(`clarion mcp-stdio: set ${MCP_URL_ENV} and ${TOKEN_ENV}\n`);
    return 2;
  }
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const bridge = await runStdioBridge({
    url,
    token,
    stdin: process.stdin,
    stdout: process.stdout,
    logger,
  });
  await bridge.closed;
  return 0;
}
