/**
 * An agent holds at most `OPEN_ASKS_PER_AGENT` question bundles open at once
 * (issue: 150 asks of one MCP session were all accepted). Over the bound an
 * ask is refused as `too_many_open_requests`, naming how many are open, and
 * leaves nothing behind: no row, no event, so nothing a notice could name.
 * An answer frees a place; a repeated ask of an open bundle is no new one.
 * The count is read under the session's lock, so asks racing for the last
 * places win exactly as many as there are, on SQLite and on PostgreSQL, and
 * there also from two servers on one database.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskResult, ClarificationService } from '../../src/clarification/index.js';
import { getSession, openBundleCount, type Store } from '../../src/store/index.js';
import { OPEN_ASKS_PER_AGENT } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { mcpHarness, type McpHarness } from '../mcp/mcp-harness.js';

/** The `n`th distinct ask: its context differs, so it is never a repeat of another. */
const askNumber = (n: number) => ({ ...TWO_QUESTIONS, context: `Step ${n}` });

/** An ask whose live wait ends at once: its bundle stays open, detached. */
function askOpen(service: ClarificationService, sessionId: string, n: number): Promise<AskResult> {
  return service.ask(sessionId, askNumber(n), { timeoutMs: 1 });
}

async function fill(service: ClarificationService, sessionId: string, count: number) {
  const pendingIds: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const result = await askOpen(service, sessionId, n);
    if (!result.ok) throw new Error(`ask ${n} refused: ${result.code}`);
    pendingIds.push(result.pendingId);
  }
  return pendingIds;
}

async function messageCount(store: Store, sessionId: string): Promise<number> {
  const row = await store.db
    .selectFrom('task_session_messages')
    .select(sql<number | string>`COUNT(*)`.as('count'))
    .where('task_session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe.each(DRIVERS)('open asks per agent on %s', (driver) => {
  let m: McpHarness | undefined;

  afterEach(async () => {
    await m?.dispose();
    m = undefined;
  });

  it('refuses the ask over the bound on MCP, naming how many are open, and keeps nothing', async () => {
    const h = (m = await mcpHarness(driver));
    const sessionId = h.h.seeded.session.id;
    await fill(h.h.service, sessionId, OPEN_ASKS_PER_AGENT);
    const rowsBefore = await messageCount(h.h.store, sessionId);
    const eventsBefore = h.h.events.events.length;
    const revisionBefore = (await getSession(h.h.store, sessionId))?.revision;

    const agent = await h.connect(h.tokens.agent);
    const refused = await h.call(agent, 'ask_user_question', askNumber(OPEN_ASKS_PER_AGENT));
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      code: 'too_many_open_requests',
      error: expect.stringContaining(
        `${OPEN_ASKS_PER_AGENT} of your questions are open, and an agent may hold at most ${OPEN_ASKS_PER_AGENT}`,
      ) as unknown,
    });
    const text = refused.content[0];
    expect(text?.type === 'text' ? text.text : '').toMatch(/a person must answer, skip or cancel/i);

    expect(await messageCount(h.h.store, sessionId)).toBe(rowsBefore);
    expect(h.h.events.events.length).toBe(eventsBefore);
    expect((await getSession(h.h.store, sessionId))?.revision).toBe(revisionBefore);
    expect(await openBundleCount(h.h.store, sessionId)).toBe(OPEN_ASKS_PER_AGENT);
    const listed = await h.h.service.listPending(h.h.principals.member, { limit: 100 });
    expect(listed.ok && listed.page.pending.length).toBe(OPEN_ASKS_PER_AGENT);
  });

  it('takes a repeat of an open ask at the bound, and another agent’s ask', async () => {
    const h = (m = await mcpHarness(driver));
    const sessionId = h.h.seeded.session.id;
    const pendingIds = await fill(h.h.service, sessionId, OPEN_ASKS_PER_AGENT);

    const repeated = await askOpen(h.h.service, sessionId, 3);
    expect(repeated.ok && repeated.pendingId).toBe(pendingIds[3]);
    const elsewhere = await askOpen(h.h.service, h.otherSession.id, OPEN_ASKS_PER_AGENT);
    expect(elsewhere.ok).toBe(true);
  });

  it('frees a place when a person answers or skips a question its agent waits on', async () => {
    const h = (m = await mcpHarness(driver));
    const sessionId = h.h.seeded.session.id;
    await fill(h.h.service, sessionId, OPEN_ASKS_PER_AGENT - 2);
    // Two asks the agent waits on live: an answer to a detached one would start a new turn.
    const live = [OPEN_ASKS_PER_AGENT - 2, OPEN_ASKS_PER_AGENT - 1].map((n) => {
      let pendingId = '';
      const asked = h.h.service.ask(sessionId, askNumber(n), {
        onBundle: (id) => {
          pendingId = id;
        },
      });
      return { asked, pendingId: () => pendingId };
    });
    await eventually(
      async () => (await openBundleCount(h.h.store, sessionId)) === OPEN_ASKS_PER_AGENT,
    );
    const over = await askOpen(h.h.service, sessionId, OPEN_ASKS_PER_AGENT);
    expect(!over.ok && over.code).toBe('too_many_open_requests');

    const [answered, skipped] = live as [(typeof live)[0], (typeof live)[0]];
    expect((await h.h.respond(answered.pendingId(), ANSWERS)).status).toBe(200);
    expect((await answered.asked).ok).toBe(true);
    const afterAnswer = await askOpen(h.h.service, sessionId, OPEN_ASKS_PER_AGENT);
    expect(afterAnswer.ok).toBe(true);
    const full = await askOpen(h.h.service, sessionId, OPEN_ASKS_PER_AGENT + 1);
    expect(!full.ok && full.code).toBe('too_many_open_requests');

    const skip = { rejected: true, reject_reason: 'not now' };
    expect((await h.h.respond(skipped.pendingId(), skip)).status).toBe(200);
    expect((await skipped.asked).ok).toBe(true);
    const afterSkip = await askOpen(h.h.service, sessionId, OPEN_ASKS_PER_AGENT + 1);
    expect(afterSkip.ok).toBe(true);
    expect(await openBundleCount(h.h.store, sessionId)).toBe(OPEN_ASKS_PER_AGENT);
  });

  it('lets exactly as many racing asks in as there are places left', async () => {
    const h = (m = await mcpHarness(driver));
    const sessionId = h.h.seeded.session.id;
    const placesLeft = 3;
    await fill(h.h.service, sessionId, OPEN_ASKS_PER_AGENT - placesLeft);

    // On PostgreSQL half the asks come from a second server on the same database.
    const services = [h.h.service];
    if (driver === 'postgres') services.push(await h.h.secondServer());
    const racing = 12;
    const results = await Promise.all(
      Array.from({ length: racing }, (_, index) =>
        askOpen(services[index % services.length] as ClarificationService, sessionId, 100 + index),
      ),
    );
    const codes = results.map((result) => (result.ok ? 'ok' : result.code));
    expect(codes.filter((code) => code === 'ok')).toHaveLength(placesLeft);
    expect(codes.filter((code) => code === 'too_many_open_requests')).toHaveLength(
      racing - placesLeft,
    );
    expect(await openBundleCount(h.h.store, sessionId)).toBe(OPEN_ASKS_PER_AGENT);
  });
});
