/**
 * Issue 17, finding 8: faults told truthfully. A full disk (a genuine
 * `SQLITE_FULL`: the serving connection's `max_page_count` pinned to the
 * database's size, so any write needing a new page fails) is answered 503
 * with `Retry-After` and logged with its cause, never a 500 or "cannot
 * rollback"; everything works again once there is room; an agent's report
 * that could not be written is written again, not dropped.
 */
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/observability/index.js';
import type { Store } from '../../src/store/index.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '../../src/tunables.js';
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../src/wire/index.js';
import {
  TWO_QUESTIONS,
  clarificationHarness,
  eventually,
  type Harness,
} from '../support/clarification-harness.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

const STORAGE_UNAVAILABLE = {
  error: 'storage is temporarily unavailable; retry shortly',
  code: 'temporarily_unavailable',
};

/** Leaves no free page and forbids new ones: the next write that needs a page finds the disk full. */
async function fillDisk(store: Store): Promise<void> {
  await sql`VACUUM`.execute(store.db);
  await sql`PRAGMA max_page_count = 1`.execute(store.db);
}

async function makeRoom(store: Store): Promise<void> {
  await sql`PRAGMA max_page_count = 1000000`.execute(store.db);
}

/** Text that takes several pages of its own (three bytes per code point). */
function pages(codePoints: number): string {
  return '語'.repeat(codePoints);
}

function capture(): { logger: Logger; records: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  return {
    logger,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('a full disk on sqlite', () => {
  let h: Harness | TurnsHarness | undefined;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it('answers a respond 503 with its cause logged, and claims once there is room', async () => {
    const log = capture();
    const harness = await clarificationHarness('sqlite', { logger: log.logger });
    h = harness;
    const call = harness.service.ask(harness.seeded.session.id, TWO_QUESTIONS);
    await eventually(() => harness.waiters.pendingIdsOf(harness.seeded.session.id).length > 0);
    const [pendingId = ''] = harness.waiters.pendingIdsOf(harness.seeded.session.id);
    const answers = {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: pages(MAX_ANSWER_TEXT_CODE_POINTS) },
      ],
    };

    await fillDisk(harness.store);
    const refused = await harness.respond(pendingId, answers);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(await refused.json()).toEqual(STORAGE_UNAVAILABLE);
    const logged = JSON.stringify(log.records());
    expect(logged).toContain('SQLITE_FULL');
    expect(logged).not.toContain('cannot rollback');
    const rows = await harness.rows(pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    expect(harness.waiters.has(pendingId)).toBe(true);

    await makeRoom(harness.store);
    const retry = await harness.respond(pendingId, answers);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ claimed: true, status: 'answered' });
    expect(await call).toMatchObject({ ok: true, outcome: 'answered' });
  });

  it('answers any route 503 with Retry-After instead of a 500, and serves again after', async () => {
    const turns = await turnsHarness('sqlite');
    h = turns;
    const task = { title: 'Write the parser', prompt: pages(10_000) };

    await fillDisk(turns.store);
    const refused = await turns.request('POST', '/api/v1/tasks', task);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
    expect(await refused.json()).toEqual(STORAGE_UNAVAILABLE);

    await makeRoom(turns.store);
    const created = await turns.request('POST', '/api/v1/tasks', task);
    expect(created.status).toBe(201);
  });

  it('writes an agent report again once there is room, rather than dropping it', async () => {
    const turns = await turnsHarness('sqlite');
    h = turns;
    const created = await turns.request('POST', '/api/v1/tasks', { title: 'Report', prompt: 'go' });
    const { session } = (await created.json()) as { session: { id: string } };
    const report = pages(10_000);

    await fillDisk(turns.store);
    turns.host.say(session.id, report);
    // Let a few tries fail on the full disk before there is room again.
    await sleep(500);
    await makeRoom(turns.store);
    await turns.pump.idle();

    const page = (await (
      await turns.request('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)
    ).json()) as { messages: { type: string; content: string }[] };
    expect(page.messages.filter((row) => row.content === report)).toHaveLength(1);
  });
});
