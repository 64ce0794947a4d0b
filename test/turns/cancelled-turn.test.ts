/**
 * A cancelled turn leaves a trace (issue 13): the transcript gets a status
 * row naming the person who cancelled it, on both dialects, with the agent
 * played by the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a cancelled turn on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('writes "Cancelled by <person>" into the turn, once', async () => {
    const created = (await (
      await h.request('POST', '/api/v1/tasks', { title: 'Long job', prompt: 'work for hours' })
    ).json()) as { admission: string; session: { id: string } };
    expect(created.admission).toBe('sent');
    const sessionId = created.session.id;
    const cancel = await h.request('POST', `/api/v1/sessions/${sessionId}/cancel`);
    expect(cancel.status).toBe(202);
    await h.pump.idle();
    const rows = (
      (await (await h.request('GET', `/api/v1/sessions/${sessionId}/messages`)).json()) as {
        messages: { author: string; type: string; content: string }[];
      }
    ).messages;
    expect(rows.map((row) => [row.author, row.type, row.content])).toEqual([
      ['user', 'message', 'work for hours'],
      ['system', 'status', 'Cancelled by member'],
    ]);
  });
});
