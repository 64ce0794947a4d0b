/**
 * An agent holds at most `OPEN_USER_INPUTS_PER_AGENT` consent, action and
 * form requests open at once, on the real server with the SDK's client:
 * calls racing past the bound open exactly as many as it allows, the rest
 * come back as the catalogue's tool error naming how many are open, and a
 * refused request is nowhere (not in the registry, no copy kept for
 * recovery, nothing for a notice to name). A person's answer frees a place.
 *
 * The registry lives in memory and counts in one synchronous call, whatever
 * the store, so this runs on SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { firstAdmin, type Store } from '../../src/store/index.js';
import { OPEN_USER_INPUTS_PER_AGENT } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import {
  bearerApi,
  startInProcessServer,
  type InProcessServer,
} from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'open-user-inputs-admin-token-0123456789';

const action = (n: number) => ({ title: `Step ${n}`, instructions: 'Open the link and sign in' });

async function keptCopies(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('open_user_inputs')
    .select(sql<number | string>`COUNT(*)`.as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('open user-input requests per agent', () => {
  let running: InProcessServer | undefined;
  let agent: Client | undefined;

  afterEach(async () => {
    await agent?.close();
    await running?.dispose();
    agent = undefined;
    running = undefined;
  });

  it('opens exactly the bound of racing requests, refuses the rest, and frees a place on an answer', async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN);
    const { store, turns } = running.server;
    const sessionId = await seedAdminSession(store, 'flood');
    const admin = await firstAdmin(store);
    if (!admin) throw new Error('no admin');
    const token = (await issueToken(store, { kind: 'agent', userId: admin.id, sessionId })).secret;
    agent = new Client({ name: 'open-user-inputs-test', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${running.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const client = agent;
    const call = (n: number) =>
      client.callTool({
        name: 'request_user_action',
        arguments: action(n),
      }) as Promise<CallToolResult>;

    const refused: CallToolResult[] = [];
    const racing = OPEN_USER_INPUTS_PER_AGENT + 5;
    const calls = Array.from({ length: racing }, (_, n) => {
      const result = call(n);
      // The opened ones end when the client closes; only the refusals are read.
      result.then(
        (done) => {
          if (done.isError === true) refused.push(done);
        },
        () => undefined,
      );
      return result;
    });
    await eventually(
      () =>
        turns.userInputs.snapshot().length === OPEN_USER_INPUTS_PER_AGENT && refused.length === 5,
      20_000,
    );
    for (const result of refused) {
      expect(result.structuredContent).toEqual({
        code: 'too_many_open_requests',
        error:
          `${OPEN_USER_INPUTS_PER_AGENT} of your requests (permission, action, form) wait for a ` +
          `person, and an agent may hold at most ${OPEN_USER_INPUTS_PER_AGENT} open at once; ` +
          'nothing was asked. A person must answer one first.',
      });
    }
    await eventually(async () => (await keptCopies(store)) === OPEN_USER_INPUTS_PER_AGENT);
    const more = await call(racing);
    expect(more.structuredContent).toMatchObject({ code: 'too_many_open_requests' });
    expect(turns.userInputs.snapshot()).toHaveLength(OPEN_USER_INPUTS_PER_AGENT);
    expect(await keptCopies(store)).toBe(OPEN_USER_INPUTS_PER_AGENT);

    const api = bearerApi(running.server.url, ADMIN_TOKEN);
    const [first] = turns.userInputs.snapshot();
    const answered = await api('POST', `/api/v1/user-inputs/${first?.id ?? ''}/respond`, {
      decision: 'done',
    });
    expect(answered.status).toBe(200);
    const freed = call(racing + 1);
    await eventually(() =>
      turns.userInputs
        .snapshot()
        .some((request) => request.status === 'awaiting' && request.title === `Step ${racing + 1}`),
    );
    const last = await call(racing + 2);
    expect(last.structuredContent).toMatchObject({ code: 'too_many_open_requests' });

    await client.close();
    await Promise.allSettled([...calls, freed]);
    agent = undefined;
  });
});
