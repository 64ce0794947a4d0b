/**
 * What a state-changing `/api/v1` request must look like before a route sees
 * it: a body of at most `maxBodyBytes` (413 `payload_too_large`) that is JSON
 * (415 `unsupported_media_type`). Requiring JSON also keeps plain HTML forms
 * from other sites out, since a form cannot send `application/json`.
 * `parseJsonBody` then decodes it as strict UTF-8 and refuses any string in
 * it that is not storable text (400 `invalid_text`: broken bytes are refused,
 * never read as U+FFFD), and validates against a strict zod object: unknown
 * fields are refused, and every issue is listed in a 400 `invalid_request`
 * (worded by the schema when a rule about its fields together refused it).
 * Any `/api/v1` request naming one query key twice is a 400 too, and so is
 * a body other than `{}` sent to a route of the wire's table that reads none.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { declaredLength, readBodyAtMost } from '../support/index.js';
import { errorResponse } from './errors.js';
import {
  decodeUtf8,
  inputIssues,
  isJsonMediaType,
  MAX_BODY_BYTES,
  ROUTES,
  textIssues,
  textProblem,
} from '../wire/index.js';

const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isStateChanging(method: string): boolean {
  return STATE_CHANGING_METHODS.has(method.toUpperCase());
}

export interface RequestGuardOptions {
  readonly maxBodyBytes?: number;
}

export function createRequestGuards(options: RequestGuardOptions = {}): MiddlewareHandler {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  return async (c, next) => {
    const repeated = repeatedQueryKey(c);
    if (repeated !== undefined) {
      return errorResponse(
        c,
        'invalid_request',
        `query parameter "${repeated}" is given more than once`,
        [{ path: repeated, message: 'given more than once' }],
      );
    }
    if (!isStateChanging(c.req.method)) {
      await next();
      return;
    }
    const size = await measureBody(c, maxBodyBytes);
    if (size === 'too_large') return errorResponse(c, 'payload_too_large');
    if (size === 'malformed') return errorResponse(c, 'invalid_request', 'invalid Content-Length');
    if (size > 0 && !isJsonMediaType(c.req.header('content-type'))) {
      return errorResponse(c, 'unsupported_media_type');
    }
    if (size > 0 && takesNoBody(c.req.method, c.req.path) && !isEmptyObject(await c.req.text())) {
      return errorResponse(c, 'invalid_request', NO_BODY, [
        { path: '', message: 'must be empty or {}' },
      ]);
    }
    await next();
    return;
  };
}

const NO_BODY = 'this route takes no body: send none, or {}';

/**
 * The state-changing `/api/v1` routes of the wire's table that read no body.
 * A body sent to one is a client's mistake (meant for another route, or
 * broken), so it is refused before the route acts rather than ignored; an
 * empty object stays welcome, since clients (the web app among them) send `{}`.
 */
const BODYLESS_ROUTES = ROUTES.filter(
  (route) => !route.body && isStateChanging(route.method) && route.path.startsWith('/api/v1/'),
).map((route) => ({
  method: route.method.toUpperCase(),
  path: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

function takesNoBody(method: string, path: string): boolean {
  return BODYLESS_ROUTES.some((route) => route.method === method && route.path.test(path));
}

/** `{}`, with any whitespace JSON allows; text that is not JSON is no empty object. */
function isEmptyObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).length === 0
    );
  } catch {
    return false;
  }
}

/**
 * The first query key given more than once. Every route reads one value per
 * key, so `?kind=question&kind=consent` would silently mean the first.
 */
function repeatedQueryKey(c: Context): string | undefined {
  const url = c.req.url;
  const start = url.indexOf('?');
  // Most requests (every respond) carry no query: no parse for them.
  if (start < 0) return undefined;
  const seen = new Set<string>();
  for (const key of new URLSearchParams(url.slice(start)).keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/**
 * The body's size in bytes, reading at most `limit + 1` of them. A declared
 * length is trusted (the HTTP parser holds the sender to it); otherwise the
 * body is buffered here, and the request gets the buffer back for the route.
 */
async function measureBody(c: Context, limit: number): Promise<number | 'too_large' | 'malformed'> {
  const raw = c.req.raw;
  const length = declaredLength(raw.headers);
  if (length === 'malformed') return 'malformed';
  if (length !== undefined) return length > limit ? 'too_large' : length;
  if (!raw.body) return 0;
  const bytes = await readBodyAtMost(raw.body as ReadableStream<Uint8Array>, limit);
  if (bytes === 'too_large') return 'too_large';
  c.req.raw = new Request(raw, { body: bytes });
  return bytes.byteLength;
}

/**
 * Answers 404 with `message` when a path parameter of the route holds text no
 * record ID can: a NUL (`%00`), which PostgreSQL refuses as a query parameter
 * (a 500). Such an ID is as unknown as any other, so it gets the route's
 * not-found reply without a query.
 */
export function storableParams(message: string): MiddlewareHandler {
  return async (c, next) => {
    const params: Record<string, string> = c.req.param();
    if (Object.values(params).some((value) => textProblem(value) !== undefined)) {
      return errorResponse(c, 'not_found', message);
    }
    await next();
    return;
  };
}

/**
 * The reply's message a schema's refinement gave with its issue
 * (`params.summary`: a rule about the body's fields together); otherwise the
 * catalogue's.
 */
function summaryOf(issues: readonly z.core.$ZodIssue[]): string | undefined {
  for (const issue of issues) {
    const summary: unknown = issue.code === 'custom' ? issue.params?.summary : undefined;
    if (typeof summary === 'string') return summary;
  }
  return undefined;
}

/**
 * A zod object built with `z.strictObject` (or `.strict()`); nested objects
 * should be strict too. A discriminated union of such objects is as strict.
 */
export type StrictObjectSchema = z.ZodObject<z.core.$ZodLooseShape, z.core.$strict>;

/**
 * Reads a route's query string with its strict wire schema (`list-queries.ts`):
 * a key the route does not read, or a value its schema refuses, is a 400
 * `invalid_request` whose message names the first such key.
 */
export function parseQuery<S extends z.ZodType<unknown, Record<string, string>>>(
  c: Context,
  schema: S,
): BodyResult<z.output<S>> {
  const parsed = schema.safeParse(c.req.query());
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = inputIssues(parsed.error.issues).map((issue) =>
    issue.message === 'unknown field' ? { ...issue, message: 'unknown query parameter' } : issue,
  );
  const [first] = issues;
  const message =
    first === undefined
      ? undefined
      : first.message === 'unknown query parameter'
        ? `unknown query parameter "${first.path}"`
        : `invalid query parameter "${first.path}"`;
  return { ok: false, response: errorResponse(c, 'invalid_request', message, issues) };
}

export type BodyResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: Response };

/**
 * Reads and validates a JSON body. Routes return `response` as it is when
 * `ok` is false. Checks the media type itself, so a route stays safe even
 * where the guard middleware is not mounted.
 */
export async function parseJsonBody<
  S extends StrictObjectSchema | z.ZodDiscriminatedUnion<readonly StrictObjectSchema[]>,
>(c: Context, schema: S): Promise<BodyResult<z.output<S>>> {
  if (!isJsonMediaType(c.req.header('content-type'))) {
    return { ok: false, response: errorResponse(c, 'unsupported_media_type') };
  }
  const text = decodeUtf8(await c.req.arrayBuffer());
  if (text === undefined) {
    return {
      ok: false,
      response: errorResponse(c, 'invalid_text', 'request body is not valid UTF-8', [
        { path: '', message: 'must be UTF-8' },
      ]),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'unreadable';
    return {
      ok: false,
      response: errorResponse(c, 'invalid_request', 'request body is not valid JSON', [
        { path: '', message: reason },
      ]),
    };
  }
  // Before the shape: text no database keeps as sent is refused wherever it is.
  const badText = textIssues(value);
  if (badText.length > 0) {
    return { ok: false, response: errorResponse(c, 'invalid_text', undefined, badText) };
  }
  const parsed = (schema as unknown as z.ZodType<z.output<S>>).safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      response: errorResponse(
        c,
        'invalid_request',
        summaryOf(parsed.error.issues),
        inputIssues(parsed.error.issues),
      ),
    };
  }
  return { ok: true, value: parsed.data };
}
