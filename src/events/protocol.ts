/**
 * The `/api/v1/events` wire protocol: JSON text frames in both directions.
 * Parsing client frames is a pure function so every malformed shape is tested
 * without a socket; a malformed frame is answered with an error frame and
 * never closes the connection.
 */
import type { z } from 'zod';
import {
  clientFrame,
  MAX_CLIENT_FRAME_BYTES,
  textIssues,
  type ClientFrame,
} from '../wire/index.js';

export type { ClientFrame, ServerFrame } from '../wire/index.js';
export { MAX_CLIENT_FRAME_BYTES, MAX_SESSIONS_PER_FRAME } from '../wire/index.js';

export type ParsedFrame =
  { ok: true; frame: ClientFrame } | { ok: false; error: string; code?: 'invalid_text' };

/** Parses one received frame; `data` is a string for text frames, anything else for binary. */
export function parseClientFrame(data: unknown): ParsedFrame {
  if (typeof data !== 'string') return { ok: false, error: 'frames must be JSON text' };
  if (Buffer.byteLength(data, 'utf8') > MAX_CLIENT_FRAME_BYTES) {
    return { ok: false, error: `frame is larger than ${MAX_CLIENT_FRAME_BYTES} bytes` };
  }
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  // A session ID holding NUL would reach PostgreSQL as a query parameter; no ID can.
  const [badText] = textIssues(json);
  if (badText) {
    const where = badText.path === '' ? 'frame' : badText.path;
    return { ok: false, error: `${where} ${badText.message}`, code: 'invalid_text' };
  }
  const type = isRecord(json) ? json.type : undefined;
  if (type !== 'subscribe' && type !== 'unsubscribe' && type !== 'ping') {
    return {
      ok: false,
      error: 'unknown frame type; expected "subscribe", "unsubscribe" or "ping"',
    };
  }
  const parsed = clientFrame.safeParse(json);
  if (!parsed.success) return { ok: false, error: describe(parsed.error) };
  return { ok: true, frame: parsed.data };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: z.ZodError): string {
  const tooMany = findTooManyIds(error.issues);
  if (tooMany) return tooMany;
  return `expected {"type":"…","sessions":[ids]}, {"type":"…","all":true} or {"type":"ping"}`;
}

/**
 * Zod reports a union failure as nested issues; a size bound (of the list,
 * or of one ID) is the one worth naming.
 */
function findTooManyIds(issues: readonly z.core.$ZodIssue[]): string | undefined {
  for (const issue of issues) {
    if (issue.code === 'too_big') return issue.message;
    if (issue.code === 'invalid_union') {
      for (const branch of issue.errors) {
        const found = findTooManyIds(branch);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** Removes duplicates, keeping first-seen order so the reply mirrors the request. */
export function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
