/**
 * Two tabs edit one queued message (the tday report's defect 5). Each edit
 * names the text it was made from; the second, made from the text the first
 * replaced, is refused as `queue_item_changed` with the current text, changes
 * nothing and tells no one of a change. An edit that names no base is refused
 * as a bad request, since it could only overwrite blind. On both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClarionEvent } from '../../src/events/index.js';
import { listQueue } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a stale edit of a queued message on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let itemId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    // The first message keeps the agent busy, so the next one waits in the queue.
    sessionId = (await h.createTask('first')).session.id;
    const sent = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'original one',
      admission_key: 'k-1',
    });
    expect(sent.status).toBe(202);
    itemId = ((await sent.json()) as { item: { id: string } }).item.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  const edit = (body: unknown) =>
    h.request('PATCH', `/api/v1/sessions/${sessionId}/queue/${itemId}`, body);

  const stored = async () => (await listQueue(h.store, sessionId)).map((item) => item.content);

  function queueChanges(since: number): ClarionEvent[] {
    return h.events.events
      .slice(since)
      .filter((event) => event.session_id === sessionId && event.type === 'queue.changed');
  }

  it('refuses the second tab’s edit made from the text the first replaced; the first stands', async () => {
    const first = await edit({ text: 'tab ONE version', base_text: 'original one' });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ item: { id: itemId, text: 'tab ONE version' } });

    const before = h.events.events.length;
    const second = await edit({ text: 'tab TWO version', base_text: 'original one' });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: 'the queued message changed since this edit began; nothing was saved',
      code: 'queue_item_changed',
      details: { current_text: 'tab ONE version' },
    });
    expect(await stored()).toEqual(['tab ONE version']);
    expect(queueChanges(before)).toEqual([]);

    // Made from what the message reads now (the person chose to keep their text), it saves.
    const again = await edit({ text: 'tab TWO version', base_text: 'tab ONE version' });
    expect(again.status).toBe(200);
    expect(await stored()).toEqual(['tab TWO version']);
  });

  it('compares the base exactly: a text differing only in case or a trailing space is stale', async () => {
    for (const base of ['Original one', 'original one ']) {
      const refused = await edit({ text: 'changed', base_text: base });
      expect(refused.status).toBe(409);
    }
    expect(await stored()).toEqual(['original one']);
  });

  it('refuses an edit that names no base, and one of a message no longer queued', async () => {
    const blind = await edit({ text: 'blind' });
    expect(blind.status).toBe(400);
    expect(await blind.json()).toMatchObject({ code: 'invalid_request' });
    expect(await stored()).toEqual(['original one']);

    expect(
      (await h.request('DELETE', `/api/v1/sessions/${sessionId}/queue/${itemId}`)).status,
    ).toBe(200);
    const gone = await edit({ text: 'late', base_text: 'original one' });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ code: 'not_found' });
  });
});
