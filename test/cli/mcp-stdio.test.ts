/**
 * `clarion mcp-stdio` as an agent runs it: the built command in its own
 * process, spoken to over its standard input and output by the SDK's stdio
 * client, relaying to the real `/mcp` with the agent's token. Misuse exits 2
 * with a line that says what is missing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCommand } from '../support/clarion-process.js';
import { mcpHarness, type McpHarness } from '../mcp/mcp-harness.js';

describe('clarion mcp-stdio', () => {
  let m: McpHarness;
  let client: Client | undefined;

  beforeEach(async () => {
    m = await mcpHarness('sqlite');
  });

  afterEach(async () => {
    await client?.close();
    await m.dispose();
  });

  it("relays an agent's stdio MCP to the server with the agent's token", async () => {
    client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp-stdio'],
        env: {
          PATH: process.env.PATH ?? '',
          CLARION_MCP_URL: m.url.href,
          CLARION_TOKEN: m.tokens.agent,
        },
      }),
    );
    expect(client.getServerVersion()?.name).toBe('clarion');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('ask_user_question');
  });

  it('exits 2 naming the settings it lacks, and on arguments it does not take', async () => {
    await expect(runCommand(['mcp-stdio'], { CLARION_MCP_URL: m.url.href })).resolves.toMatchObject(
      {
        code: 2,
        stderr: 'clarion mcp-stdio: set CLARION_MCP_URL and CLARION_TOKEN\n',
      },
    );
    const extra = await runCommand(['mcp-stdio', '--verbose'], {});
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^clarion mcp-stdio: takes no options \(got "--verbose"\)/);
  });
});
