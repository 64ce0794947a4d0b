/**
 * A revocation through the API is announced, not waited for: the MCP calls
 * still running with the token read it at once, on the replica that revoked
 * it and, through a wake, on the others. The periodic read of running calls'
 * tokens is stretched to ten minutes here, so only the announcement can end
 * a wait within the test. Whole servers in this process on one database:
 * one on SQLite, two replicas on PostgreSQL. A revoked call ends as
 * `unauthorized` whatever it waited for, an action request included.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken, revokeIssuedToken } from '../../src/auth/index.js';
import type { RunningServer } from '../../src/server.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { bearerApi, type ApiCall } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'revocation-announced-admin-0123456789';
const RECHECK_MS = 10 * 60 * 1000;
/** Far under the stretched periodic read: only an announcement ends the wait this soon. */
const ENDS_WITHIN_MS = 10_000;

describe('a revocation through the API ends running MCP calls at once', { timeout: 60_000 }, () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN);
  const clients: Client[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await replicas.dispose();
  });

  async function serve(
    replicaId: string,
    recheck: 'stretched' | 'as shipped' = 'stretched',
  ): Promise<{ server: RunningServer; api: ApiCall }> {
    const server = await replicas.serve(
      replicaId,
      recheck === 'stretched' ? { credentialRecheckMs: RECHECK_MS } : {},
    );
    return { server, api: bearerApi(server.url, ADMIN_TOKEN) };
  }

  /**
   * A call of `tool` held open by `secret`'s client on `server`, once the
   * person sees what it waits for (`waiting` reads the admin's view of it).
   */
  async function held(
    server: RunningServer,
    secret: string,
    call: { tool: string; args: Record<string, unknown>; waiting: string; listed: string },
  ): Promise<{ asking: Promise<CallToolResult> }> {
    const client = new Client({ name: 'revoked-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    clients.push(client);
    const asking = client.callTool(
      { name: call.tool, arguments: call.args },
      CallToolResultSchema,
      { onprogress: () => undefined, resetTimeoutOnProgress: true, timeout: 5 * 60 * 1000 },
    ) as Promise<CallToolResult>;
    const admin = bearerApi(server.url, ADMIN_TOKEN);
    await eventually(async () => {
      const { json } = await admin<Record<string, unknown[]>>('GET', call.waiting);
      return (json[call.listed]?.length ?? 0) > 0;
    }, 15_000);
    return { asking };
  }

  const heldAsk = (server: RunningServer, secret: string) =>
    held(server, secret, {
      tool: 'ask_user_question',
      args: TWO_QUESTIONS,
      waiting: '/api/v1/pending',
      listed: 'bundles',
    });

  /** `closedToo`: the call's question closes as well, and whichever news arrives first ends it. */
  async function endsRevoked(asking: Promise<CallToolResult>, closedToo = false): Promise<void> {
    const since = Date.now();
    const result = await Promise.race([
      asking,
      new Promise<'still waiting'>((resolve) =>
        setTimeout(() => {
          resolve('still waiting');
        }, ENDS_WITHIN_MS),
      ),
    ]);
    expect(result).not.toBe('still waiting');
    const codes = closedToo ? ['unauthorized', 'not_active'] : ['unauthorized'];
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { code: expect.toBeOneOf(codes) as unknown },
    });
    expect(Date.now() - since).toBeLessThan(ENDS_WITHIN_MS);
  }

  /** A DELETE as the admin; its 204 has no body for `ApiCall` to read. */
  async function remove(server: RunningServer, path: string): Promise<number> {
    const response = await fetch(`${server.url}${path}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return response.status;
  }

  async function personalToken(api: ApiCall): Promise<{ id: string; secret: string }> {
    const minted = await api<{ token: { id: string }; secret: string }>('POST', '/api/v1/tokens', {
      name: 'my agent',
      kind: 'agent',
    });
    expect(minted).toMatchObject({ status: 201 });
    return { id: minted.json.token.id, secret: minted.json.secret };
  }

  it('on the replica that revoked it (SQLite)', async () => {
    await replicas.open('sqlite');
    const { server, api } = await serve('only');
    const token = await personalToken(api);
    const { asking } = await heldAsk(server, token.secret);

    expect(await remove(server, `/api/v1/tokens/${token.id}`)).toBe(204);
    await endsRevoked(asking);
  });

  it('ends an action request with unauthorized, not as expired (SQLite)', async () => {
    await replicas.open('sqlite');
    // An agent's token ends with its process, unannounced: the watch's own read finds it.
    const { server, api } = await serve('only', 'as shipped');
    // Only an agent inside a Clarion session is offered the action tool.
    const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'Bank export',
    });
    expect(created.status).toBe(201);
    const me = await api<{ user: { id: string } }>('GET', '/api/v1/me');
    const issued = await issueToken(server.store, {
      kind: 'agent',
      userId: me.json.user.id,
      sessionId: created.json.session.id,
    });
    const { asking } = await held(server, issued.secret, {
      tool: 'request_user_action',
      args: { title: 'Connect the bank', instructions: 'Sign in and allow read access.' },
      waiting: '/api/v1/user-inputs',
      listed: 'requests',
    });

    expect(await revokeIssuedToken(server.store, issued.record.id)).toBe(true);
    await endsRevoked(asking);
  });

  it('on another replica, through the wake (PostgreSQL)', async () => {
    await replicas.open('postgres', { migrated: true });
    const a = await serve('revoke-a');
    const b = await serve('revoke-b');
    const token = await personalToken(a.api);
    const { asking } = await heldAsk(a.server, token.secret);

    expect(await remove(b.server, `/api/v1/tokens/${token.id}`)).toBe(204);
    await endsRevoked(asking);
  });

  it('when an admin removes the person, on another replica (PostgreSQL)', async () => {
    await replicas.open('postgres', { migrated: true });
    const a = await serve('remove-a');
    const b = await serve('remove-b');
    const created = await a.api<{ user: { id: string } }>('POST', '/api/v1/users', {
      name: 'Leaving colleague',
    });
    expect(created.status).toBe(201);
    const userId = created.json.user.id;
    const workspaces = await a.api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const [home] = workspaces.json.workspaces;
    if (!home) throw new Error('no workspace');
    const joined = await a.api('POST', `/api/v1/workspaces/${home.id}/members`, {
      user_id: userId,
    });
    expect(joined.status).toBe(201);
    const { secret } = await issueToken(a.server.store, {
      kind: 'external_agent',
      userId,
      name: 'their agent',
    });
    const { asking } = await heldAsk(a.server, secret);

    expect(await remove(b.server, `/api/v1/users/${userId}`)).toBe(204);
    // Removing the person deletes the session their agent asked in: on A, the wake that says
    // so (its question closed) may come before the one that says the token was revoked.
    await endsRevoked(asking, true);
  });
});
