import { describe, expect, it } from 'vitest';
import { clarionMcpServers } from './mcp-servers.js';

const mcp = { url: 'http://127.0.0.1:7420/mcp', token: 'agent-token' };
const bridge = { command: '/usr/bin/node', args: ['/opt/clarion/dist/node/cli.js', 'mcp-stdio'] };

describe('Clarion MCP server entry', () => {
  it('is HTTP with the bearer token when the agent supports HTTP MCP', () => {
    expect(clarionMcpServers(mcp, { http: true }, bridge)).toEqual([
      {
        type: 'http',
        name: 'clarion',
        url: mcp.url,
        headers: [{ name: 'Authorization', value: 'Bearer agent-token' }],
      },
    ]);
  });

  it.each([[undefined], [{}], [{ http: false, sse: true }]])(
    'is the stdio bridge for capabilities %j',
    (capabilities) => {
      expect(clarionMcpServers(mcp, capabilities, bridge)).toEqual([
        {
          name: 'clarion',
          command: '/usr/bin/node',
          args: ['/opt/clarion/dist/node/cli.js', 'mcp-stdio'],
          env: [
            { name: 'CLARION_MCP_URL', value: mcp.url },
            { name: 'CLARION_TOKEN', value: 'agent-token' },
          ],
        },
      ]);
    },
  );
});
