/**
 * The demo agent's MCP connection to Clarion, one per ACP session. Owns the
 * server entry from `session/new` and connects lazily on first use; a failed
 * connect is forgotten so the next prompt tries again.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const CLARION_SERVER_NAME = 'clarion';

export interface ClarionEndpoint {
  url: string;
  headers: Record<string, string>;
}

/** Finds Clarion's HTTP MCP server among those a session was given. */
export function findClarionEndpoint(servers: readonly McpServer[]): ClarionEndpoint | undefined {
  for (const server of servers) {
    if (!('type' in server) || server.type !== 'http' || server.name !== CLARION_SERVER_NAME)
      continue;
    const headers: Record<string, string> = {};
    for (const header of server.headers) headers[header.name] = header.value;
    return { url: server.url, headers };
  }
  return undefined;
}

export class ClarionMcp {
  private connecting: Promise<Client> | undefined;

  constructor(
    private readonly endpoint: ClarionEndpoint,
    private readonly clientInfo: { name: string; version: string },
  ) {}

  client(): Promise<Client> {
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    if (!connecting) return;
    const client = await connecting.catch(() => undefined);
    await client?.close();
  }

  private async connect(): Promise<Client> {
    const client = new Client(this.clientInfo);
    const transport = new StreamableHTTPClientTransport(new URL(this.endpoint.url), {
      requestInit: { headers: this.endpoint.headers },
    });
    await client.connect(transport);
    return client;
  }
}
