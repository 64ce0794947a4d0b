/**
 * `GET /api/v1/sessions/:id/messages` reads a transcript from either end:
 * oldest first as it always did, or `order=newest_first`, its newest page
 * first and `next_cursor` paging back, which is how the web app opens a
 * session longer than it would read at once. A cursor pages only in the
 * order that minted it; any other is a 400 that reads nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/databases.js';
import {
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { seedAdminSession, seedTranscript } from '../support/seed.js';
import { wireCheckedApi } from '../support/wire-checked-api.js';

const TOKEN = 'transcript-order-admin-token-0123456789';
/** More than two pages of the largest page, in runs of three rows that share a time. */
const ROWS = 1_100;

interface Page {
  messages: { id: string; content: string }[];
  next_cursor: string | null;
}

describe.each(DRIVERS)('transcript order on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let path: string;

  beforeAll(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = wireCheckedApi(running.api);
    const sessionId = await seedAdminSession(running.server.store, 'long day');
    await seedTranscript(running.server.store, sessionId, ROWS, { equalRuns: 3 });
    path = `/api/v1/sessions/${sessionId}/messages`;
  }, 120_000);
  afterAll(() => running.dispose());

  async function readAll(query: string): Promise<{ pages: number; contents: string[] }> {
    const contents: string[] = [];
    let cursor: string | null = null;
    for (let pages = 1; pages <= 20; pages++) {
      const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const reply = await admin<Page>('GET', `${path}?${query}${suffix}`);
      expect(reply.status).toBe(200);
      contents.push(...reply.json.messages.map((message) => message.content));
      cursor = reply.json.next_cursor;
      if (cursor === null) return { pages, contents };
    }
    throw new Error('the transcript never ended');
  }

  it('reads the newest page first, then pages back to the first row, each row once', async () => {
    const first = await admin<Page>('GET', `${path}?order=newest_first&limit=200`);
    expect(first.status).toBe(200);
    expect(first.json.messages.map((message) => message.content).slice(0, 2)).toEqual([
      `line ${ROWS - 1}`,
      `line ${ROWS - 2}`,
    ]);
    // 500 rows a page: boundaries at 500 and 1000 fall inside runs of three equal times.
    const all = await readAll('order=newest_first&limit=500');
    expect(all.pages).toBe(3);
    expect(all.contents).toEqual(
      Array.from({ length: ROWS }, (_, index) => `line ${ROWS - 1 - index}`),
    );
  });

  it('still reads oldest first by default, the same rows the other way', async () => {
    const all = await readAll('limit=500');
    expect(all.contents).toEqual(Array.from({ length: ROWS }, (_, index) => `line ${index}`));
    expect((await readAll('order=oldest_first&limit=500')).contents).toEqual(all.contents);
  });

  it('refuses a cursor of the other order, an unknown order and a garbage cursor, with a 400', async () => {
    const newest = await admin<Page>('GET', `${path}?order=newest_first&limit=10`);
    const oldest = await admin<Page>('GET', `${path}?limit=10`);
    const back = encodeURIComponent(newest.json.next_cursor ?? '');
    const forward = encodeURIComponent(oldest.json.next_cursor ?? '');
    const invalidCursor = {
      code: 'invalid_request',
      error: 'invalid cursor',
      details: [{ path: 'cursor', message: 'is not a cursor from this API' }],
    };
    for (const query of [
      `order=newest_first&cursor=${forward}`,
      `cursor=${back}`,
      `order=oldest_first&cursor=${back}`,
      'order=newest_first&cursor=not-a-cursor',
    ]) {
      const reply = await admin('GET', `${path}?${query}`);
      expect({ status: reply.status, json: reply.json }, query).toEqual({
        status: 400,
        json: invalidCursor,
      });
    }
    const unknown = await admin('GET', `${path}?order=newest`);
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'order' }],
    });
    expect((await admin('GET', `${path}?order=newest_first&cursor=${back}`)).status).toBe(200);
    expect((await admin('GET', `${path}?cursor=${forward}`)).status).toBe(200);
  });
});
