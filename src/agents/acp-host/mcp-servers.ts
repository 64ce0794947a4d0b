/**
 * Which MCP server entry Clarion hands an agent in `session/new` or
 * `session/load`: HTTP with the session's bearer token when the agent
 * advertises `mcpCapabilities.http`, otherwise a stdio bridge command that
 * reaches the same endpoint (every ACP agent must support stdio MCP).
 */
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';

export const CLARION_MCP_SERVER_NAME = 'clarion';

export interface StdioBridge {
  readonly command: string;
  readonly args: readonly string[];
}

export function clarionMcpServers(
  mcp: { readonly url: string; readonly token: string },
  capabilities: McpCapabilities | undefined,
  bridge: StdioBridge,
): McpServer[] {
  if (capabilities?.http === true) {
    return [
      {
        type: 'http',
        name: CLARION_MCP_SERVER_NAME,
        url: mcp.url,
        headers: [{ name: 'Authorization', value: `Bearer ${mcp.token}` }],
      },
    ];
  }
  return [
    {
      name: CLARION_MCP_SERVER_NAME,
      command: bridge.command,
      args: [...bridge.args],
      env: [
        { name: 'CLARION_MCP_URL', value: mcp.url },
        { name: 'CLARION_TOKEN', value: mcp.token },
      ],
    },
  ];
}
