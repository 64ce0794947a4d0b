/**
 * An events socket ends with its credential: revoking the token it opened
 * with closes it (1008) at once, on the replica that revoked it and, through
 * the `credentials` wake, on another. The periodic read of watched tokens is
 * stretched to ten minutes, so only the announcement can close the socket
 * within the test. Whole servers in this process: one on SQLite, two
 * replicas on one PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/server.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { bearerApi } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'events-revocation-admin-0123456789';
const RECHECK_MS = 10 * 60 * 1000;
const CLOSES_WITHIN_MS = 10_000;

describe('an events socket whose token is revoked', { timeout: 60_000 }, () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN, { credentialRecheckMs: RECHECK_MS });
  const serve = (replicaId: string) => replicas.serve(replicaId);

  afterEach(() => replicas.dispose());

  async function personalToken(server: RunningServer): Promise<{ id: string; secret: string }> {
    const minted = await bearerApi(server.url, ADMIN_TOKEN)<{
      token: { id: string };
      secret: string;
    }>('POST', '/api/v1/tokens', { name: 'my phone', kind: 'user' });
    expect(minted.status).toBe(201);
    return { id: minted.json.token.id, secret: minted.json.secret };
  }

  /** A subscribed socket and the close it will see. */
  async function subscribed(server: RunningServer, secret: string) {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/events`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    replicas.keep(socket);
    const closed = new Promise<number>((resolve) => {
      socket.on('close', (code) => {
        resolve(code);
      });
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        resolve();
      });
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    return { closed };
  }

  async function revoke(server: RunningServer, tokenId: string): Promise<void> {
    const response = await fetch(`${server.url}/api/v1/tokens/${tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(204);
  }

  async function closesRevoked(closed: Promise<number>): Promise<void> {
    const code = await Promise.race([
      closed,
      new Promise<'still open'>((resolve) =>
        setTimeout(() => {
          resolve('still open');
        }, CLOSES_WITHIN_MS),
      ),
    ]);
    expect(code).toBe(1008);
  }

  it('closes on the replica that revoked it (SQLite)', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const token = await personalToken(server);
    const { closed } = await subscribed(server, token.secret);

    await revoke(server, token.id);
    await closesRevoked(closed);
  });

  it('closes on another replica, through the wake (PostgreSQL)', async () => {
    await replicas.open('postgres', { migrated: true });
    const a = await serve('events-a');
    const b = await serve('events-b');
    const token = await personalToken(a);
    const { closed } = await subscribed(a, token.secret);

    await revoke(b, token.id);
    await closesRevoked(closed);
  });

  it('stays open for a token still live', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const kept = await personalToken(server);
    const other = await personalToken(server);
    const { closed } = await subscribed(server, kept.secret);

    await revoke(server, other.id);
    const code = await Promise.race([
      closed,
      new Promise<'open'>((resolve) =>
        setTimeout(() => {
          resolve('open');
        }, 1_000),
      ),
    ]);
    expect(code).toBe('open');
  });
});
