/** Wire helpers of the hostile suite: reading replies, checking their bodies, running cases in batches, counting. */
import { CODES_OF_STATUS, CONCURRENCY } from './world.js';
import { isPlainObject } from './model.js';

export interface Reply {
  status: number;
  contentType: string;
  text: string;
}

export async function read(response: Response): Promise<Reply> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** Problems with a reply's body: JSON, a string `error`, the status's `code`. */
export function bodyProblems(reply: Reply): string[] {
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    return [`body is not JSON: ${reply.text.slice(0, 120)}`];
  }
  if (!isPlainObject(json)) return ['body is not an object'];
  const problems: string[] = [];
  if (typeof json.error !== 'string') problems.push('no string error');
  const codes = CODES_OF_STATUS[reply.status] ?? [];
  if (typeof json.code !== 'string' || !codes.includes(json.code)) {
    problems.push(`code ${String(json.code)} for status ${reply.status}`);
  }
  if (!reply.contentType.startsWith('application/json')) {
    problems.push(`content-type ${reply.contentType}`);
  }
  return problems;
}

/** The `code` of a JSON reply, if it has one. */
export function codeOf(reply: Reply): unknown {
  try {
    return (JSON.parse(reply.text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

export function preview(value: string | Uint8Array, max = 160): string {
  const text =
    typeof value === 'string' ? value : `bytes:${Buffer.from(value).toString('hex').slice(0, max)}`;
  const shown = JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
  return text.length > max ? `${shown} (${text.length} chars)` : shown;
}

export async function inBatches<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENCY) {
    results.push(...(await Promise.all(items.slice(start, start + CONCURRENCY).map(work))));
  }
  return results;
}

export function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export function sorted(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

// ---------------------------------------------------------------------------
