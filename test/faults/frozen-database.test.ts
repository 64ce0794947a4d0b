/**
 * A PostgreSQL that stops answering (frozen with SIGSTOP, or cut off mid-way:
 * a TCP proxy that passes nothing either way, leaving every connection open)
 * must not hold a request for the store's 30 s statement reply bound. A
 * request's own reads before any service budget have short bounds of their
 * own: its credential lookup the respond's 5 s (`CREDENTIAL_LOOKUP_MAX_MS`),
 * whose time a respond's pre-claim budget then counts (REST, MCP and an
 * answer link's use alike; an external agent's answer_question reads nothing
 * more before its refusal; an answer link's view has the same bound),
 * `/healthz`'s check 2 s (`HEALTH_CHECK_MAX_MS`), a sign-in link's redemption
 * 5 s (`SIGN_IN_REDEEM_MAX_MS`, reading the browser's own session included),
 * a sign-out or a token's revocation the credential lookup's 5 s in all. Each answers 503 with `Retry-After`;
 * `/healthz` still says what the server knows from memory; a redemption that
 * goes on past its bound rolls back, leaving the link unused (a sign-out its
 * session, a revocation its token); and a respond
 * refused this way counts as `unavailable` in `clarification_responses_total`.
 * Generous upper bounds: only "well before the reply bound" (or "well before
 * two budgets in a row") is asserted, never the exact timing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { describe, expect, it, type TestContext } from 'vitest';
import { hashSecret, issueToken } from '../../src/auth/tokens.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { mintAnswerLinks } from '../../src/turns/index.js';
import {
  CREDENTIAL_LOOKUP_MAX_MS,
  HEALTH_CHECK_MAX_MS,
  PG_STATEMENT_REPLY_MAX_MS,
  PRE_CLAIM_BUDGET_MS,
  SIGN_IN_REDEEM_MAX_MS,
} from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { serverConfig } from '../support/in-process-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const ADMIN_TOKEN = 'frozen-database-admin-token-0123456789';
/** Slack over a bound for a loaded machine; still far below the reply bound. */
const SLACK_MS = 3_000;

interface Timed {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
  ms: number;
}

/**
 * What one test started, ended after it. The tests run at once (each waits out real bounds of
 * several seconds, on its own database, proxy and server), so nothing of theirs is shared.
 */
interface Rig {
  database?: TestDatabase;
  proxy?: TcpProxy;
  server?: RunningServer;
  readonly clients: Client[];
  /** The test let the database answer again: its pooled connections are sound and stay. */
  thawed: boolean;
}

async function endRig(rig: Rig): Promise<void> {
  const { proxy, server, database } = rig;
  // Statements cut off fail at once rather than at the reply bound; the stop's own go through
  // once the server has heard the thaw: its dead connections dropped (each fails one
  // statement) and a live one pooled. A stop under a partition is not what these tests are
  // about, and right after a thaw a loaded machine can fail its one retry (CI did).
  if (!rig.thawed) {
    proxy?.resetConnections();
    if (server) {
      await eventually(
        () =>
          server.store.ping().then(
            () => true,
            () => false,
          ),
        20_000,
      );
    }
  }
  await Promise.allSettled(rig.clients.splice(0).map((client) => client.close()));
  await server?.close();
  await proxy?.close();
  await database?.dispose();
}

describe.concurrent('a server whose PostgreSQL stops answering', () => {
  async function serverThroughProxy(
    context: TestContext,
    logger: Logger = silentLogger,
    {
      preparedStatements,
      wakePollIntervalMs,
    }: { preparedStatements?: number; wakePollIntervalMs?: number } = {},
  ): Promise<{ server: RunningServer; proxy: TcpProxy; rig: Rig }> {
    const rig: Rig = { clients: [], thawed: false };
    context.onTestFinished(() => endRig(rig));
    const database = (rig.database = await freshDatabase('postgres', { migrated: true }));
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const direct = new URL(target.url);
    const proxy = (rig.proxy = await startTcpProxy({
      host: direct.hostname,
      port: Number(direct.port),
    }));
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    const config = serverConfig(database, ADMIN_TOKEN, {
      database: { driver: 'postgres', url: proxied.href, preparedStatements },
      replicaId: 'frozen-a',
    });
    const server = (rig.server = await startServer(
      config,
      logger,
      wakePollIntervalMs ? { wakePollIntervalMs } : {},
    ));
    return { server, proxy, rig };
  }

  /** The test database's own address, past the proxy. */
  function directUrl(rig: Rig): string {
    if (rig.database?.target.driver !== 'postgres') throw new Error('postgres only');
    return rig.database.target.url;
  }

  async function pendingIds(running: RunningServer): Promise<string[]> {
    const reply = await fetch(`${running.url}/api/v1/pending`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const body = (await reply.json()) as { bundles: { pending_id: string }[] };
    return body.bundles.map((bundle) => bundle.pending_id);
  }

  /** One request, timed, with what a client reads of its reply. */
  async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
    const started = performance.now();
    const response = await fetch(url, init);
    // A 204 (a sign-out that went through) has no body.
    const text = await response.text();
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
      ms: performance.now() - started,
    };
  }

  /** A 503 as a client reads it, answered within `boundMs` and the machine's slack. */
  function expectUnavailableWithin(reply: Timed, boundMs: number): void {
    expect(reply).toMatchObject({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/) as unknown,
      body: { code: 'temporarily_unavailable' },
    });
    expect(reply.ms).toBeLessThan(boundMs + SLACK_MS);
  }

  /** An SDK client connected to the server's `/mcp` (the admin's token by default); closed after the test. */
  async function mcpClient(rig: Rig, running: RunningServer, token = ADMIN_TOKEN): Promise<Client> {
    const client = new Client({ name: 'frozen-database-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    rig.clients.push(client);
    return client;
  }

  it('answers respond, /me and /healthz with 503 and Retry-After within their bounds', async (context) => {
    const { server, proxy } = await serverThroughProxy(context);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await timed(`${server.url}/api/v1/me`, { headers: auth })).status).toBe(200);
    expect((await timed(`${server.url}/healthz`)).status).toBe(200);

    proxy.blackhole();
    const [respond, me, health] = await Promise.all([
      timed(`${server.url}/api/v1/clarification/${crypto.randomUUID()}/respond`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ answers: [{ question_id: 'q1', selected_options: ['a'] }] }),
      }),
      timed(`${server.url}/api/v1/me`, { headers: auth }),
      timed(`${server.url}/healthz`),
    ]);

    for (const reply of [respond, me]) {
      expectUnavailableWithin(reply, CREDENTIAL_LOOKUP_MAX_MS);
    }
    expect(health).toMatchObject({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/) as unknown,
      body: {
        status: 'unavailable',
        database: 'unreachable',
        replica: { id: 'frozen-a', leases: 'unknown', listener: expect.any(String) as unknown },
      },
    });
    expect(health.ms).toBeLessThan(HEALTH_CHECK_MAX_MS + SLACK_MS);
    expect(CREDENTIAL_LOOKUP_MAX_MS + SLACK_MS).toBeLessThan(PG_STATEMENT_REPLY_MAX_MS);

    // `/metrics` from loopback reads no store; the respond refused before its service counts.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^clarification_responses_total\{[^}]*outcome="unavailable"[^}]*\} 1$/m,
    );
  }, 60_000);

  it('counts an MCP answer_question refused before its tool ran as unavailable', async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const client = await mcpClient(rig, server);
    // The client opens its event stream once connected; let its lookup pass first.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    proxy.blackhole();
    const started = performance.now();
    const call = client.callTool({
      name: 'answer_question',
      arguments: {
        pending_id: crypto.randomUUID(),
        answers: [{ question_id: 'q1', selected_options: ['a'] }],
      },
    });
    // The 503 of the lookup, as the SDK reports it: the status, and the catalogue body.
    await context.expect(call).rejects.toMatchObject({
      code: 503,
      message: expect.stringContaining('temporarily_unavailable') as unknown,
    });
    expect(performance.now() - started).toBeLessThan(CREDENTIAL_LOOKUP_MAX_MS + SLACK_MS);

    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^clarification_responses_total\{[^}]*outcome="unavailable"[^}]*\} 1$/m,
    );
  }, 60_000);

  /**
   * Answers the caller's credential lookup late, but within its own bound, and
   * stops answering as the respond's first read of its own goes out; `respond`
   * sends it. Its whole wait must end within the one budget, and the service's
   * budget be what ran out (its identity read timed out, not the lookup).
   */
  async function lateLookupThenFrozen(
    server: RunningServer,
    proxy: TcpProxy,
    respond: (pendingId: string) => Promise<void>,
  ): Promise<void> {
    const pendingId = crypto.randomUUID();
    const lookupMs = CREDENTIAL_LOOKUP_MAX_MS - 1_000;
    proxy.holdWhenSent(hashSecret(ADMIN_TOKEN));
    proxy.blackholeWhenSent(pendingId);
    const released = setTimeout(() => {
      proxy.release();
    }, lookupMs);
    const started = performance.now();
    await respond(pendingId);
    const ms = performance.now() - started;
    clearTimeout(released);
    // A budget of its own after the lookup's would end past lookupMs + the whole budget.
    expect(ms).toBeGreaterThanOrEqual(lookupMs);
    expect(ms).toBeLessThan(PRE_CLAIM_BUDGET_MS + SLACK_MS);
    expect(lookupMs + PRE_CLAIM_BUDGET_MS).toBeGreaterThan(PRE_CLAIM_BUDGET_MS + SLACK_MS);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^clarification_response_timeout_total\{[^}]*phase="identity"[^}]*\} 1$/m,
    );
  }

  it("bounds a respond's whole wait by its one budget, its credential lookup included", async (context) => {
    const { server, proxy } = await serverThroughProxy(context);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await timed(`${server.url}/api/v1/me`, { headers: auth })).status).toBe(200);

    await lateLookupThenFrozen(server, proxy, async (pendingId) => {
      const respond = await timed(`${server.url}/api/v1/clarification/${pendingId}/respond`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ answers: [{ question_id: 'q1', selected_options: ['a'] }] }),
      });
      expect(respond).toMatchObject({
        status: 503,
        retryAfter: expect.stringMatching(/^\d+$/) as unknown,
        body: { code: 'temporarily_unavailable' },
      });
    });
  }, 60_000);

  it("bounds an MCP answer_question's whole wait the same way", async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const client = await mcpClient(rig, server);
    // The client opens its event stream once connected, with a lookup of its own: let it pass.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    await lateLookupThenFrozen(server, proxy, async (pendingId) => {
      const result = await client.callTool({
        name: 'answer_question',
        arguments: {
          pending_id: pendingId,
          answers: [{ question_id: 'q1', selected_options: ['a'] }],
        },
      });
      expect(result).toMatchObject({
        isError: true,
        structuredContent: { code: 'temporarily_unavailable' },
      });
    });
  }, 60_000);

  /**
   * An external agent's answer_question is refused (only a person decides:
   * it is not even listed to one), and nothing it waits for before that may
   * lie outside the one budget: its
   * credential lookup answers late, within its own bound, and the store stops
   * answering as any read naming its person goes out (finding its external
   * session would be one).
   */
  it("bounds an external agent's answer_question by the one budget, and refuses it", async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const me = await timed(`${server.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const userId = (me.body.user as { id: string }).id;
    const external = await issueToken(server.store, {
      kind: 'external_agent',
      userId,
      name: 'Claude Code',
    });
    const client = await mcpClient(rig, server, external.secret);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const lookupMs = CREDENTIAL_LOOKUP_MAX_MS - 1_000;
    proxy.holdWhenSent(hashSecret(external.secret));
    proxy.blackholeWhenSent(userId);
    const released = setTimeout(() => {
      proxy.release();
    }, lookupMs);
    const started = performance.now();
    const result = await client.callTool({
      name: 'answer_question',
      arguments: {
        pending_id: crypto.randomUUID(),
        answers: [{ question_id: 'q1', selected_options: ['a'] }],
      },
    });
    const ms = performance.now() - started;
    clearTimeout(released);
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result.content)).toContain('Tool answer_question not found');
    expect(ms).toBeGreaterThanOrEqual(lookupMs);
    expect(ms).toBeLessThan(PRE_CLAIM_BUDGET_MS + SLACK_MS);
  }, 60_000);

  /**
   * An answer link is its request's credential: its lookup (the link, its
   * person's access, the item's state) answers late, within its own bound,
   * and the store stops answering as the question's ID goes out: the first
   * time in that lookup (the item's read), the second in the respond's own
   * identity read. Either way the whole use ends within the one budget, a
   * 503 with nothing decided.
   */
  it.for<[string, number]>([
    ["the link's own lookup", 1],
    ["the respond's identity read", 2],
  ])(
    "bounds an answer link's use by the one budget, frozen in %s",
    { timeout: 60_000 },
    async ([, nth], context) => {
      // No poll of the wake bus meanwhile: it reads the waited question too (superseded waits),
      // and the nth statement naming the question must be the use's own.
      const { server, proxy, rig } = await serverThroughProxy(context, silentLogger, {
        wakePollIntervalMs: 10 * 60_000,
      });
      const me = await timed(`${server.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const userId = (me.body.user as { id: string }).id;
      const asker = await mcpClient(rig, server);
      const before = new Set(await pendingIds(server));
      // Its wait ends with the test; the call's own outcome says nothing here.
      asker
        .callTool({
          name: 'ask_user_question',
          arguments: {
            questions: [
              {
                prompt: 'Which parser should we use?',
                title: 'Parser',
                options: [
                  { label: 'Hand-written', description: 'Recursive descent' },
                  { label: 'Generated', description: 'From a grammar file' },
                ],
              },
            ],
          },
        })
        .catch(() => undefined);
      let pendingId: string | undefined;
      while (pendingId === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pendingId = (await pendingIds(server)).find((id) => !before.has(id));
      }
      const [choice] = await mintAnswerLinks(
        { ...server.turns, origin: () => server.url },
        { userId, kind: 'question', itemId: pendingId },
      );
      const secret = new URL(choice?.url ?? server.url).hash.slice(1);
      expect(secret).not.toBe('');

      const lookupMs = CREDENTIAL_LOOKUP_MAX_MS - 1_000;
      proxy.holdWhenSent(hashSecret(secret));
      proxy.blackholeWhenSent(pendingId, nth);
      const released = setTimeout(() => {
        proxy.release();
      }, lookupMs);
      const used = await timed(`${server.url}/api/v1/answer-links/use`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: secret }),
      });
      clearTimeout(released);
      expect(used.ms).toBeGreaterThanOrEqual(lookupMs);
      expectUnavailableWithin(used, PRE_CLAIM_BUDGET_MS);
      // Where it froze: the respond's budget ran out in its identity read only in the second case.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(
          `^clarification_response_timeout_total\\{[^}]*phase="identity"[^}]*\\} ${nth - 1}$`,
          'm',
        ),
      );
    },
  );

  it("answers an answer link's view 503 within the credential lookup's bound", async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const me = await timed(`${server.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const userId = (me.body.user as { id: string }).id;
    const asker = await mcpClient(rig, server);
    // Its wait ends with the test; the call's own outcome says nothing here.
    asker
      .callTool({
        name: 'ask_user_question',
        arguments: {
          questions: [
            {
              prompt: 'Which parser should we use?',
              options: [
                { label: 'Hand-written', description: 'Recursive descent' },
                { label: 'Generated', description: 'From a grammar file' },
              ],
            },
          ],
        },
      })
      .catch(() => undefined);
    let pendingId: string | undefined;
    while (pendingId === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      [pendingId] = await pendingIds(server);
    }
    const [choice] = await mintAnswerLinks(
      { ...server.turns, origin: () => server.url },
      { userId, kind: 'question', itemId: pendingId },
    );
    const secret = new URL(choice?.url ?? server.url).hash.slice(1);
    const view = () =>
      timed(`${server.url}/api/v1/answer-links/view`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: secret }),
      });
    expect((await view()).status).toBe(200);

    // The phone that opened the notice's link is told to retry, not left on a blank page.
    proxy.blackhole();
    const viewed = await view();
    expectUnavailableWithin(viewed, CREDENTIAL_LOOKUP_MAX_MS);
  }, 60_000);

  it('answers a sign-in 503 within its bound, and a redemption that goes on leaves the link unused', async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const minted = await fetch(`${server.url}/api/v1/auth/sign-in-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(minted.status).toBe(201);
    const secret = new URL(((await minted.json()) as { url: string }).url).searchParams.get(
      'token',
    );
    if (secret === null) throw new Error('a sign-in link without its token');
    // The app's redemption: the link's GET only hands its token to the sign-in page.
    const signIn = () =>
      fetch(`${server.url}/api/v1/auth/sign-in`, {
        method: 'POST',
        headers: { origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token: secret }),
      });

    // The redemption's statement waits on its way past the bound, then runs: the database thawed.
    proxy.holdWhenSent(hashSecret(secret));
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        proxy.release();
        resolve();
      }, SIGN_IN_REDEEM_MAX_MS + 1_000),
    );
    const started = performance.now();
    const refused = await signIn();
    const ms = performance.now() - started;
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/) as unknown,
    });
    expect(ms).toBeLessThan(SIGN_IN_REDEEM_MAX_MS + SLACK_MS);
    expect(refused.headers.get('set-cookie')).toBeNull();

    // The late redemption rolled back: the link still works. A redemption that committed would
    // have done so within moments of its release; the wait lets it, so the retry cannot win first.
    await released;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const retried = await signIn();
    expect(retried.status).toBe(200);
    expect(retried.headers.get('set-cookie')).toMatch(/^clarion_session=/);
    rig.thawed = true;
  }, 60_000);

  /** A browser signed in on a fresh link of the admin's: its session cookie's secret. */
  async function browserSession(running: RunningServer): Promise<string> {
    const minted = await fetch(`${running.url}/api/v1/auth/sign-in-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const url = new URL(((await minted.json()) as { url: string }).url);
    const signedIn = await fetch(`${running.url}/api/v1/auth/sign-in`, {
      method: 'POST',
      headers: { origin: running.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: url.searchParams.get('token') }),
    });
    const cookie = /clarion_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1];
    if (cookie === undefined) throw new Error('a sign-in without its cookie');
    return cookie;
  }

  /** A request of the web app's page, with the browser's cookie. */
  const fromPage = (
    running: RunningServer,
    cookie: string,
    {
      headers = {},
      ...init
    }: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {},
  ): RequestInit => ({
    ...init,
    headers: { origin: running.url, cookie: `clarion_session=${cookie}`, ...headers },
  });

  it("bounds a sign-in over a browser's session by one bound, its cookie's read included", async (context) => {
    const { server, proxy } = await serverThroughProxy(context);
    const cookie = await browserSession(server);
    const minted = await fetch(`${server.url}/api/v1/auth/sign-in-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const link = new URL(((await minted.json()) as { url: string }).url).searchParams.get('token');
    if (link === null) throw new Error('a sign-in link without its token');

    // The cookie's read answers late, within any bound of its own; the link's never does.
    const lookupMs = SIGN_IN_REDEEM_MAX_MS - 1_000;
    proxy.holdWhenSent(hashSecret(cookie));
    proxy.blackholeWhenSent(hashSecret(link));
    const released = setTimeout(() => {
      proxy.release();
    }, lookupMs);
    const signIn = await timed(
      `${server.url}/api/v1/auth/sign-in`,
      fromPage(server, cookie, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link }),
      }),
    );
    clearTimeout(released);
    expectUnavailableWithin(signIn, SIGN_IN_REDEEM_MAX_MS);
    expect(lookupMs + SIGN_IN_REDEEM_MAX_MS).toBeGreaterThan(SIGN_IN_REDEEM_MAX_MS + SLACK_MS);
  }, 60_000);

  it.for<[string]>([['sign-out'], ['sign-out-others']])(
    'bounds a %s by the credential bound, its lookup included',
    { timeout: 60_000 },
    async ([route], context) => {
      const { server, proxy } = await serverThroughProxy(context);
      const cookie = await browserSession(server);

      // Its lookup answers late, within its bound; the session's end never does.
      const lookupMs = CREDENTIAL_LOOKUP_MAX_MS - 1_000;
      proxy.holdWhenSent(hashSecret(cookie));
      proxy.blackholeWhenSent(hashSecret(cookie), 2);
      const released = setTimeout(() => {
        proxy.release();
      }, lookupMs);
      const signOut = await timed(
        `${server.url}/api/v1/auth/${route}`,
        fromPage(server, cookie, { method: 'POST' }),
      );
      clearTimeout(released);
      expect(signOut.ms).toBeGreaterThanOrEqual(lookupMs);
      expectUnavailableWithin(signOut, CREDENTIAL_LOOKUP_MAX_MS);
    },
  );

  it('ends no session with a sign-out it answered 503', async (context) => {
    // Unprepared, the statement's text goes out whole, so the proxy can tell the session's end.
    const { server, proxy, rig } = await serverThroughProxy(context, silentLogger, {
      preparedStatements: 0,
    });
    const cookie = await browserSession(server);

    // The end's statement waits past the bound, then runs: the database thawed.
    const thawAfterMs = CREDENTIAL_LOOKUP_MAX_MS + SLACK_MS + 1_000;
    proxy.holdWhenSent('delete from "api_tokens"');
    const thaw = new Promise<void>((resolve) =>
      setTimeout(() => {
        proxy.release();
        resolve();
      }, thawAfterMs),
    );
    const signOut = await timed(
      `${server.url}/api/v1/auth/sign-out`,
      fromPage(server, cookie, { method: 'POST' }),
    );
    expectUnavailableWithin(signOut, CREDENTIAL_LOOKUP_MAX_MS);

    // The late end rolled back: the browser told to retry is still signed in.
    await thaw;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const me = await fetch(`${server.url}/api/v1/me`, fromPage(server, cookie));
    expect(me.status).toBe(200);
    rig.thawed = true;
  }, 60_000);

  it("answers a token's revocation 503 within the credential bound, and a late one revokes nothing", async (context) => {
    const { server, proxy, rig } = await serverThroughProxy(context);
    const minted = await fetch(`${server.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lost phone', kind: 'user' }),
    });
    const { token, secret } = (await minted.json()) as { token: { id: string }; secret: string };

    // The lookup answers; the revocation's statement waits past the bound, then runs: thawed.
    proxy.holdWhenSent(token.id);
    const thaw = new Promise<void>((resolve) =>
      setTimeout(
        () => {
          proxy.release();
          resolve();
        },
        CREDENTIAL_LOOKUP_MAX_MS + SLACK_MS + 1_000,
      ),
    );
    const revoked = await timed(`${server.url}/api/v1/tokens/${token.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expectUnavailableWithin(revoked, CREDENTIAL_LOOKUP_MAX_MS);

    // Told to retry, the person finds the token as it was: the late revocation rolled back.
    await thaw;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const me = await fetch(`${server.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(me.status).toBe(200);
    rig.thawed = true;
  }, 60_000);

  it('hands a sign-in link opened meanwhile to the page, which can say to retry', async (context) => {
    const { server, proxy } = await serverThroughProxy(context);
    const minted = await fetch(`${server.url}/api/v1/auth/sign-in-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const url = new URL(((await minted.json()) as { url: string }).url);
    const secret = url.searchParams.get('token') ?? '';

    // A person taps the link on their phone: a page in their language, not a JSON body.
    proxy.blackhole();
    const started = performance.now();
    const opened = await fetch(`${server.url}${url.pathname}${url.search}`, { redirect: 'manual' });
    expect(performance.now() - started).toBeLessThan(SIGN_IN_REDEEM_MAX_MS + SLACK_MS);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/sign-in#${encodeURIComponent(secret)}`);
  }, 60_000);

  it('tries a step of its stop again when its connection drops as the step goes out', async (context) => {
    // Unprepared, each statement's text goes out whole, so the proxy can tell the stop's own.
    const {
      server: running,
      proxy: line,
      rig,
    } = await serverThroughProxy(context, silentLogger, {
      preparedStatements: 0,
    });
    rig.server = undefined;
    line.resetWhenSent('delete from "api_tokens"');
    line.resetWhenSent('set "stopped_at"');

    await context.expect(running.close()).resolves.toBeUndefined();
    expect(line.resetsDone()).toBe(2);
    const direct = new pg.Client({ connectionString: directUrl(rig) });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ stopped: boolean }>(
        "SELECT stopped_at IS NOT NULL AS stopped FROM replicas WHERE id = 'frozen-a'",
      );
      expect(rows).toEqual([{ stopped: true }]);
    } finally {
      await direct.end();
    }
  }, 60_000);

  it('finishes its stop when its PostgreSQL is gone, and says what it left undone', async (context) => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { server: running, proxy: cut, rig } = await serverThroughProxy(context, logger);
    rig.server = undefined;
    rig.proxy = undefined;

    // Every connection ends and no new one can be made: each statement of the stop fails at once.
    await cut.close();
    await context
      .expect(running.close())
      .rejects.toThrow("the stop left undone: revoking the agents' tokens; giving the leases back");
    // The rest was done all the same: a takeover or the next start revokes the tokens, the
    // leases expire.
    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said).toEqual(
      expect.arrayContaining([
        "revoking the agents' tokens at the stop failed",
        'giving the leases back at the stop failed',
      ]),
    );
    await context
      .expect(running.store.db.selectFrom('replicas').selectAll().execute())
      .rejects.toThrow(/destroyed/);
  }, 60_000);
});
