/**
 * An agent that asks while none of its turns runs (between prompts, or its
 * ask's write landing just after its turn ended): the session waits for
 * input while the question is open, and once it is answered or cancelled
 * it is idle again, as it was, not `running` with no turn to end it (which
 * would queue every message the person sends, for good). Both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeTurn, getSession, setSessionState } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

describe.each(DRIVERS)('an ask between turns on %s', (driver) => {
  let m: McpHarness;

  beforeEach(async () => {
    m = await mcpHarness(driver, { progressIntervalMs: 40 });
    // The agent's turn ended; its process (and token) live on until it is stopped as idle.
    await completeTurn(m.h.store, m.h.seeded.turn.id);
    await setSessionState(m.h.store, m.h.seeded.session.id, 'idle');
  });

  afterEach(async () => {
    await m.dispose();
  });

  const sessionState = async () => (await getSession(m.h.store, m.h.seeded.session.id))?.state;

  async function askLive() {
    const agent = await m.connect(m.tokens.agent);
    const call = m.call(agent, 'ask_user_question', TWO_QUESTIONS, {
      onprogress: () => undefined,
      timeout: 20_000,
    });
    await eventually(() => m.h.waiters.pendingIdsOf(m.h.seeded.session.id).length > 0);
    const [pendingId] = m.h.waiters.pendingIdsOf(m.h.seeded.session.id);
    if (pendingId === undefined) throw new Error('no question held');
    expect(await sessionState()).toBe('waiting_for_input');
    return { call, pendingId };
  }

  it('is idle again once the person answers', async () => {
    const { call, pendingId } = await askLive();
    expect((await m.respond(pendingId, ANSWERS, m.tokens.member)).status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered' });
    expect(await sessionState()).toBe('idle');
  });

  it('is idle again once the person cancels the question', async () => {
    const { call, pendingId } = await askLive();
    const cancelled = await m.h.service.cancel(
      { principal: m.h.principals.member, surface: 'rest' },
      pendingId,
    );
    expect(cancelled).toEqual({ ok: true });
    await call;
    expect(await sessionState()).toBe('idle');
  });
});
