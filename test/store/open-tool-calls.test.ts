/**
 * Ending a turn's open tool calls, on SQLite and on a real PostgreSQL: only
 * the calls its agent never reported ended (`completed` or `failed`) are
 * marked failed and interrupted, and the read that finds them selects only
 * those, so a turn whose calls all ended reads no row at all.
 */
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendMessage,
  endOpenToolCalls,
  openStore,
  startTurn,
  transcriptPage,
  type Metadata,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';
import { seedSession, type Seeded } from '../support/seed.js';

describe.each(DRIVERS)('ending the open tool calls of a turn on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  /** The rows the database returned while `counting`. */
  const returned = { counting: false, rows: 0 };
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      if (returned.counting) returned.rows += args.result.rows.length;
      return Promise.resolve(args.result);
    },
  };

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, {
      clock: fakeClock(),
      ids: sequentialIds(),
      plugins: [counter],
    });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  function toolCall(seeded: Seeded, turnId: string, toolCallId: string, status?: string) {
    const metadata: Metadata = { toolCallId, title: `call ${toolCallId}` };
    if (status !== undefined) metadata.status = status;
    return appendMessage(store, {
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      turnId,
      authorType: 'agent',
      type: 'tool_call',
      content: `running ${toolCallId}`,
      metadata,
    });
  }

  async function rowsReturnedBy(work: () => Promise<unknown>): Promise<number> {
    returned.rows = 0;
    returned.counting = true;
    try {
      await work();
      return returned.rows;
    } finally {
      returned.counting = false;
    }
  }

  it('ends only the calls never reported ended, and reads nothing when every call ended', async () => {
    const seeded = await seedSession(store);
    const { turn } = seeded;
    const pending = await toolCall(seeded, turn.id, 'pending', 'pending');
    const completed = await toolCall(seeded, turn.id, 'completed', 'completed');
    const inProgress = await toolCall(seeded, turn.id, 'in-progress', 'in_progress');
    const failed = await toolCall(seeded, turn.id, 'failed', 'failed');
    const unsaid = await toolCall(seeded, turn.id, 'unsaid');
    const said = await appendMessage(store, {
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      turnId: turn.id,
      authorType: 'agent',
      type: 'message',
      content: 'not a tool call',
    });
    const later = await startTurn(store, { sessionId: seeded.session.id, taskId: seeded.task.id });
    const elsewhere = await toolCall(seeded, later.id, 'elsewhere', 'in_progress');

    const ended = await endOpenToolCalls(store, turn.id);

    expect(ended.map((row) => row.id)).toEqual([pending.id, inProgress.id, unsaid.id]);
    for (const [row, before] of [
      [ended[0], pending],
      [ended[1], inProgress],
      [ended[2], unsaid],
    ] as const) {
      expect(row?.content).toBe(before.content);
      expect(row?.metadata).toEqual({ ...before.metadata, status: 'failed', interrupted: true });
    }
    const { messages } = await transcriptPage(store, seeded.session.id, { limit: 20 });
    // The ended calls, the non-call row and the other turn's open call stay as they were.
    expect(messages).toEqual(
      [pending, completed, inProgress, failed, unsaid, said, elsewhere].map(
        (row) => ended.find((one) => one.id === row.id) ?? row,
      ),
    );

    // Now every call of the turn ended: nothing is read, nothing revised.
    expect(await rowsReturnedBy(() => endOpenToolCalls(store, turn.id))).toBe(0);
    expect(await endOpenToolCalls(store, turn.id)).toEqual([]);
    expect((await transcriptPage(store, seeded.session.id, { limit: 20 })).messages).toEqual(
      messages,
    );
  });
});
