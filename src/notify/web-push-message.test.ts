import { describe, expect, it } from 'vitest';
import type { Notice } from './channel.js';
import { pushTopic, timeToLiveS, webPushEnvelope } from './web-push-message.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const BOUNDS = { defaultTtlS: 3600, maxTtlS: 86_400 };

const notice: Notice = {
  deliveryId: 'd',
  event: 'asked',
  kind: 'question',
  itemId: 'pending-1',
  sessionId: 's',
  taskId: 't',
  taskTitle: 'Ship it',
  url: 'https://c.example.org/sessions/s',
  createdAt: '2026-03-01T12:00:00.000000000Z',
};

describe('webPushEnvelope', () => {
  it.each([
    ['no deadline', { expiresAt: undefined }, 3600],
    ['a deadline in 90.2 s', { expiresAt: '2026-03-01T12:01:30.200000000Z' }, 91],
    ['a deadline past', { expiresAt: '2026-03-01T11:59:00.000000000Z' }, 0],
    ['a deadline in a week', { expiresAt: '2026-03-08T12:00:00.000000000Z' }, 86_400],
    ['answered, deadline in 10 s', { event: 'answered', expiresAt: '2026-03-01T12:00:10Z' }, 3600],
    ['answered, deadline in 2 h', { event: 'answered', expiresAt: '2026-03-01T14:00:00Z' }, 7200],
  ] as const)('TTL with %s', (_name, overrides, ttl) => {
    expect(timeToLiveS({ ...notice, ...overrides }, NOW, BOUNDS)).toBe(ttl);
  });

  it('says the kind, reminds, and cuts long text to the limits', () => {
    expect(webPushEnvelope(notice, NOW).message.body).toBe('An agent asks you a question.');
    expect(webPushEnvelope({ ...notice, event: 'reminder' }, NOW).message.body).toBe(
      'Still waiting for you: An agent asks you a question.',
    );
    const long = webPushEnvelope(
      { ...notice, taskTitle: '😀'.repeat(200), question: 'x'.repeat(900) },
      NOW,
    );
    expect(long.message.title.length).toBeLessThanOrEqual(120);
    expect(long.message.title.endsWith('😀…')).toBe(true);
    expect(long.message.body).toHaveLength(400);
  });

  it('writes bidi controls out as markers, and never cuts one in half', () => {
    const shown = webPushEnvelope(
      { ...notice, taskTitle: 'invoice\u202Efdp.exe', question: 'Pay 10\u200F.5?' },
      NOW,
    );
    expect(shown.message.title).toBe('invoice⟨U+202E⟩fdp.exe');
    expect(shown.message.body).toBe('Pay 10⟨U+200F⟩.5?');
    // 115 letters, then a marker across the 120-unit cut.
    const long = webPushEnvelope({ ...notice, taskTitle: `${'a'.repeat(115)}\u202Eb` }, NOW);
    expect(long.message.title).toBe(`${'a'.repeat(115)}…`);
  });

  it('names one topic per item within RFC 8030’s 32 base64url characters', () => {
    expect(pushTopic('pending-1')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pushTopic('pending-1')).toBe(pushTopic('pending-1'));
    expect(pushTopic('pending-2')).not.toBe(pushTopic('pending-1'));
    expect(webPushEnvelope({ ...notice, event: 'test' }, NOW)).toMatchObject({
      message: { title: 'Clarion', tag: 'clarion-pending-1' },
      urgency: 'high',
    });
  });
});
