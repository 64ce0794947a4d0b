import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_CHARS } from '../wire/index.js';
import {
  MAX_CLIENT_FRAME_BYTES,
  MAX_SESSIONS_PER_FRAME,
  parseClientFrame,
  uniqueIds,
} from './protocol.js';

describe('parseClientFrame', () => {
  it.each([
    [{ type: 'subscribe', sessions: ['a', 'b'] }],
    [{ type: 'subscribe', sessions: [] }],
    [{ type: 'subscribe', all: true }],
    [{ type: 'unsubscribe', sessions: ['a'] }],
    [{ type: 'unsubscribe', all: true }],
    [{ type: 'ping' }],
  ])('accepts %j', (frame) => {
    expect(parseClientFrame(JSON.stringify(frame))).toEqual({ ok: true, frame });
  });

  it.each([
    ['binary data', new ArrayBuffer(2), /JSON text/],
    ['bad JSON', '{"type":', /not valid JSON/],
    ['a JSON array', '[]', /unknown frame type/],
    ['an unknown type', '{"type":"publish"}', /unknown frame type/],
    ['a missing type', '{"sessions":[]}', /unknown frame type/],
    ['neither sessions nor all', '{"type":"subscribe"}', /expected/],
    ['all: false', '{"type":"subscribe","all":false}', /expected/],
    ['both sessions and all', '{"type":"subscribe","all":true,"sessions":[]}', /expected/],
    ['a non-string id', '{"type":"subscribe","sessions":[1]}', /expected/],
    ['an empty id', '{"type":"subscribe","sessions":[""]}', /expected/],
    ['an unknown field', '{"type":"unsubscribe","sessions":[],"x":1}', /expected/],
    ['a ping with a field', '{"type":"ping","all":true}', /expected/],
  ])('refuses %s', (_name, data, message) => {
    const parsed = parseClientFrame(data);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });

  it.each(['\u0000', 'a\u0000', '\ud800', 'x\udfff'])(
    'refuses a session id %j as invalid_text, naming where it is',
    (id) => {
      const parsed = parseClientFrame(JSON.stringify({ type: 'subscribe', sessions: ['ok', id] }));
      expect(parsed).toMatchObject({ ok: false, code: 'invalid_text' });
      if (!parsed.ok) expect(parsed.error).toMatch(/^sessions\.1 must/);
    },
  );

  it(`refuses more than ${MAX_SESSIONS_PER_FRAME} ids, naming the bound`, () => {
    const sessions = Array.from({ length: MAX_SESSIONS_PER_FRAME + 1 }, (_, i) => `s${i}`);
    const parsed = parseClientFrame(JSON.stringify({ type: 'subscribe', sessions }));
    expect(parsed).toEqual({
      ok: false,
      error: `at most ${MAX_SESSIONS_PER_FRAME} session ids per frame`,
    });
    const atBound = parseClientFrame(
      JSON.stringify({ type: 'subscribe', sessions: sessions.slice(1) }),
    );
    expect(atBound.ok).toBe(true);
  });

  it(`refuses a session id over ${MAX_SESSION_ID_CHARS} characters, naming the bound`, () => {
    const long = 's'.repeat(MAX_SESSION_ID_CHARS + 1);
    const parsed = parseClientFrame(JSON.stringify({ type: 'subscribe', sessions: ['ok', long] }));
    expect(parsed).toEqual({
      ok: false,
      error: `a session id has at most ${MAX_SESSION_ID_CHARS} characters`,
    });
  });

  it(`refuses frames over ${MAX_CLIENT_FRAME_BYTES} bytes, counted in UTF-8`, () => {
    const padding = 'é'.repeat(MAX_CLIENT_FRAME_BYTES / 2);
    const parsed = parseClientFrame(JSON.stringify({ type: 'subscribe', sessions: [padding] }));
    expect(parsed).toEqual({
      ok: false,
      error: `frame is larger than ${MAX_CLIENT_FRAME_BYTES} bytes`,
    });
  });

  it('deduplicates ids in first-seen order', () => {
    expect(uniqueIds(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});
