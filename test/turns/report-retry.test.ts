/**
 * An agent's report the storage cannot take now (a genuine full disk on
 * SQLite, as in `test/faults/storage-faults.test.ts`) is written again after
 * growing pauses on the turns' timers, so a fake clock drives them: nothing
 * is tried again until the clock reaches the pause, the report lands once
 * there is room, and it is given up only once `AGENT_EVENT_RETRY_LIMIT_MS`
 * passed on that clock.
 */
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendMessage,
  currentTurn,
  isStorageUnavailable,
  type Store,
} from '../../src/store/index.js';
import { writeRetrying } from '../../src/turns/durable-write.js';
import { AGENT_EVENT_RETRY_BASE_MS, AGENT_EVENT_RETRY_LIMIT_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { ClockTimers, fakeClock } from '../support/fakes.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';
import { retryLog } from '../support/recorders.js';

/** Leaves no free page and forbids new ones: the next write that needs a page finds the disk full. */
async function fillDisk(store: Store): Promise<void> {
  await sql`VACUUM`.execute(store.db);
  await sql`PRAGMA max_page_count = 1`.execute(store.db);
}

async function makeRoom(store: Store): Promise<void> {
  await sql`PRAGMA max_page_count = 1000000`.execute(store.db);
}

describe('an agent report the storage cannot take, on sqlite', () => {
  let h: TurnsHarness;
  let timers: ClockTimers;
  const report = '語'.repeat(10_000);

  beforeEach(async () => {
    timers = new ClockTimers(fakeClock());
    h = await turnsHarness('sqlite', { timers });
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Writes the report as the agent's output, retrying on the harness's fake clock. */
  async function writeReport(logger: Logger) {
    const { session } = await h.createTask('go');
    await fillDisk(h.store);
    const written = writeRetrying({ sessions: h.sessions, logger, timers }, session.id, (write) =>
      (async () => {
        const turn = await currentTurn(write.tx, session.id);
        if (!turn) throw new Error('no turn');
        write.added(
          await appendMessage(write.tx, {
            sessionId: session.id,
            taskId: turn.task_id,
            turnId: turn.id,
            authorType: 'agent',
            type: 'message',
            content: report,
          }),
        );
      })(),
    );
    return { sessionId: session.id, written };
  }

  it('tries again only when the injected timers reach the pause, and lands once', async () => {
    const log = retryLog();
    const { sessionId, written } = await writeReport(log.logger);
    await eventually(() => log.pauses().length === 1);
    expect(log.pauses()).toEqual([AGENT_EVENT_RETRY_BASE_MS]);

    // Real time passing does not end the pause: only the fake clock does.
    await sleep(AGENT_EVENT_RETRY_BASE_MS * 5);
    timers.advance(AGENT_EVENT_RETRY_BASE_MS - 1);
    await sleep(50);
    expect(log.pauses()).toHaveLength(1);
    timers.advance(1);
    await eventually(() => log.pauses().length === 2);
    expect(log.pauses()[1]).toBe(AGENT_EVENT_RETRY_BASE_MS * 2);

    await makeRoom(h.store);
    timers.advance(AGENT_EVENT_RETRY_BASE_MS * 2);
    await written;
    const rows = await h.store.db
      .selectFrom('task_session_messages')
      .select('id')
      .where('task_session_id', '=', sessionId)
      .where('content', '=', report)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('gives up once the limit passed on the fake clock, not before', async () => {
    const log = retryLog();
    const { written } = await writeReport(log.logger);
    let outcome: unknown = 'pending';
    void written.then(
      () => (outcome = 'written'),
      (error: unknown) => (outcome = error),
    );
    await eventually(() => log.pauses().length === 1);
    let elapsed = 0;
    for (;;) {
      const tries = log.pauses().length;
      const pauseMs = log.pauses()[tries - 1] ?? 0;
      if (elapsed + pauseMs >= AGENT_EVENT_RETRY_LIMIT_MS) break;
      timers.advance(pauseMs);
      elapsed += pauseMs;
      await eventually(() => log.pauses().length > tries);
    }
    // Short of the limit by one millisecond: the pause under way still waits.
    const tries = log.pauses().length;
    timers.advance(AGENT_EVENT_RETRY_LIMIT_MS - 1 - elapsed);
    await sleep(50);
    expect(outcome).toBe('pending');
    timers.advance(1);
    await eventually(() => outcome !== 'pending');
    expect(isStorageUnavailable(outcome)).toBe(true);
    // The limit cut the pause short for one last try, whose failure was thrown, not retried.
    expect(log.pauses()).toHaveLength(tries);
  });
});
