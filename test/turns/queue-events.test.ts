/**
 * Every change to a session's queue tells its watchers, in the session write
 * that made it: `queue.changed` at that write's revision, which a client that
 * drops older revisions keeps. A read or a refused change says nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClarionEvent } from '../../src/events/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('queue changes on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    sessionId = (await h.createTask('first')).session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** The session's events published while `change` ran. */
  async function eventsOf(change: () => Promise<unknown>): Promise<ClarionEvent[]> {
    const before = h.events.events.length;
    await change();
    return h.events.events.slice(before).filter((event) => event.session_id === sessionId);
  }

  /** One `queue.changed` among `events`, at the highest revision they carry. */
  function expectQueueChanged(events: readonly ClarionEvent[]): void {
    const changes = events.filter((event) => event.type === 'queue.changed');
    expect(changes).toHaveLength(1);
    const highest = Math.max(...events.map((event) => event.revision));
    expect(changes[0]?.revision).toBe(highest);
  }

  async function queue(text: string, key: string): Promise<string> {
    const sent = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text,
      admission_key: key,
    });
    expect(sent.status).toBe(202);
    return ((await sent.json()) as { item: { id: string } }).item.id;
  }

  it('says a message queued behind a busy session', async () => {
    const events = await eventsOf(() => queue('second', 'k-2'));
    expectQueueChanged(events);
    // A repeat of the same admission queues nothing new, so it says nothing.
    expect(await eventsOf(() => queue('second', 'k-2'))).toEqual([]);
  });

  it('says an edit, a reorder and a delete of a queued message, and nothing for a read', async () => {
    const a = await queue('a', 'k-a');
    const b = await queue('b', 'k-b');

    expectQueueChanged(
      await eventsOf(async () => {
        const edited = await h.request('PATCH', `/api/v1/sessions/${sessionId}/queue/${a}`, {
          text: 'A',
          base_text: 'a',
        });
        expect(edited.status).toBe(200);
      }),
    );
    expectQueueChanged(
      await eventsOf(async () => {
        const order = await h.request('PUT', `/api/v1/sessions/${sessionId}/queue/order`, {
          ids: [b, a],
        });
        expect(order.status).toBe(200);
      }),
    );
    expectQueueChanged(
      await eventsOf(async () => {
        const removed = await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue/${b}`);
        expect(removed.status).toBe(200);
      }),
    );

    const unchanged = await eventsOf(async () => {
      expect((await h.request('GET', `/api/v1/sessions/${sessionId}/queue`)).status).toBe(200);
      const gone = await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue/${b}`);
      expect(gone.status).toBe(404);
      const partial = await h.request('PUT', `/api/v1/sessions/${sessionId}/queue/order`, {
        ids: [],
      });
      expect(partial.status).toBe(400);
    });
    expect(unchanged).toEqual([]);
  });

  it('says a cleared queue, and nothing when there was nothing to clear', async () => {
    await queue('a', 'k-a');
    expectQueueChanged(
      await eventsOf(async () => {
        expect((await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue`)).status).toBe(200);
      }),
    );
    const again = await eventsOf(() => h.request('DELETE', `/api/v1/sessions/${sessionId}/queue`));
    expect(again).toEqual([]);
  });

  it('says the driver took the next queued message, in the write that started its turn', async () => {
    await queue('second', 'k-2');
    const events = await eventsOf(async () => {
      h.host.endTurn(sessionId);
      await h.pump.idle();
    });
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    expectQueueChanged(events);
    const started = events.find(
      (event) => event.type === 'message.added' && event.message.content === 'second',
    );
    const taken = events.find((event) => event.type === 'queue.changed');
    expect(taken?.revision).toBe(started?.revision);
  });

  it('says a message queued to start a stopped agent with the move to starting, and its take', async () => {
    sessionId = (await h.createTask()).session.id;
    const events = await eventsOf(async () => {
      const sent = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'wake up',
        admission_key: 'k-wake',
      });
      expect(sent.status).toBeLessThan(300);
      await h.settled();
    });
    expect(h.host.prompts.map((prompt) => prompt.text)).toContain('wake up');
    const starting = events.find(
      (event) => event.type === 'session.state_changed' && event.state === 'starting',
    );
    const changes = events.filter((event) => event.type === 'queue.changed');
    const started = events.find(
      (event) => event.type === 'message.added' && event.message.content === 'wake up',
    );
    expect(changes.map((event) => event.revision)).toEqual([starting?.revision, started?.revision]);
  });
});
