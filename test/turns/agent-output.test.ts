/**
 * What an agent reports becomes transcript rows: one row per tool call,
 * revised by the agent's later reports of it, and text no database keeps as
 * sent made storable rather than lost, on both dialects.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

interface Row {
  id: string;
  type: string;
  author: string;
  content: string;
  metadata: Record<string, unknown>;
}

describe.each(DRIVERS)('agent output on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    sessionId = (await h.createTask('go')).session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function toolRows(): Promise<Row[]> {
    const page = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
    ).json()) as { messages: Row[] };
    return page.messages.filter((row) => row.type === 'tool_call');
  }

  it('keeps one row per tool call, with its title and its latest status', async () => {
    h.host.reportToolCall(sessionId, 'call-1', 'Read package.json', 'pending');
    h.host.reportToolCall(sessionId, 'call-2', 'Run the tests', 'in_progress');
    h.host.reportToolCall(sessionId, 'call-1', '', 'in_progress');
    h.host.reportToolCall(sessionId, 'call-1', '', 'completed');
    h.host.reportToolCall(sessionId, 'call-2', 'Run the unit tests', 'failed');
    await h.pump.idle();

    const rows = await toolRows();
    expect(rows.map((row) => [row.content, row.metadata.toolCallId, row.metadata.status])).toEqual([
      ['Read package.json', 'call-1', 'completed'],
      ['Run the unit tests', 'call-2', 'failed'],
    ]);
    const updates = h.events.events.filter(
      (event) => event.type === 'message.updated' && event.message.id === rows[0]?.id,
    );
    expect(
      updates.map((event) => event.type === 'message.updated' && event.message.metadata.status),
    ).toEqual(['in_progress', 'completed']);
  });

  it('drops a status for a call never announced, and starts afresh in a later turn', async () => {
    h.host.reportToolCall(sessionId, 'ghost', '', 'completed');
    h.host.reportToolCall(sessionId, 'call-1', 'Read package.json', 'completed');
    h.host.endTurn(sessionId);
    await h.pump.idle();
    await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'again',
      admission_key: 'again-1',
    });
    h.host.reportToolCall(sessionId, 'call-1', 'Read package.json again', 'pending');
    await h.pump.idle();

    expect((await toolRows()).map((row) => [row.content, row.metadata.status])).toEqual([
      ['Read package.json', 'completed'],
      ['Read package.json again', 'pending'],
    ]);
  });

  it('ends with its turn a tool call its agent never reported ended, and keeps the ended ones', async () => {
    h.host.reportToolCall(sessionId, 'call-1', 'Read package.json', 'completed');
    h.host.reportToolCall(sessionId, 'call-2', 'Run the tests', 'in_progress');
    h.host.reportToolCall(sessionId, 'call-3', 'Lint', 'pending');
    h.host.reportToolCall(sessionId, 'call-4', 'Build', 'failed');
    await h.pump.idle();
    const before = h.events.events.length;
    h.host.exit(sessionId);
    await h.pump.idle();

    expect((await toolRows()).map((row) => [row.metadata.toolCallId, row.metadata])).toEqual([
      ['call-1', expect.not.objectContaining({ interrupted: true })],
      ['call-2', expect.objectContaining({ status: 'failed', interrupted: true })],
      ['call-3', expect.objectContaining({ status: 'failed', interrupted: true })],
      ['call-4', expect.not.objectContaining({ interrupted: true })],
    ]);
    // Watchers hear of each, with the turn's end.
    const updated = h.events.events
      .slice(before)
      .flatMap((event) => (event.type === 'message.updated' ? [event.message.metadata] : []));
    expect(updated.map((metadata) => [metadata.toolCallId, metadata.status])).toEqual([
      ['call-2', 'failed'],
      ['call-3', 'failed'],
    ]);
  });

  it('keeps output holding NUL or unpaired surrogates as storable text, on both engines', async () => {
    h.host.say(sessionId, 'binary \u0000 bytes and a lone \ud800 half, 日本語 🦀');
    h.host.reportToolCall(sessionId, 'call-\u0000', 'cat a.bin \u0000\udfff', 'completed');
    await h.pump.idle();

    const page = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
    ).json()) as { messages: Row[] };
    const agent = page.messages.filter((row) => row.author === 'agent');
    expect(agent.map((row) => [row.type, row.content])).toEqual([
      ['message', 'binary  bytes and a lone \ufffd half, 日本語 🦀'],
      ['tool_call', 'cat a.bin \ufffd'],
    ]);
    expect(agent[1]?.metadata.toolCallId).toBe('call-');
  });
});
