/**
 * `GET /api/v1/openapi.json`: an OpenAPI 3.1 document generated from the
 * wire's route table and schemas (zod-openapi renders zod's own JSON Schema),
 * so client generators and API explorers work against exactly what the
 * server parses and replies. Built once per process; public, since it
 * describes the API and holds nothing of anyone's data.
 */
import type { Env, Hono } from 'hono';
import {
  createDocument,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { z } from 'zod';
import { SESSION_COOKIE } from './auth.js';
import {
  clarionEvent,
  clientFrame,
  errorBody,
  jsonRpcErrorReply,
  OUTCOMES,
  ROUTES,
  serverFrame,
  type OutcomeCode,
  type RouteSpec,
} from '../wire/index.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
/** The version of the `/api/v1` contract this document describes (not the server's). */
const API_VERSION = '1.0.0';

/**
 * Failures every `/api/v1` route behind the API's access control can give,
 * besides the ones it lists: a repeated query key or a body where none is
 * read (400), a bad credential (401; an answer link's routes check a bearer
 * only when one is sent), an external agent's token or a cookie from another
 * origin (403), a page's cookie that signs in someone else since (409
 * `session_changed`), the body guards (413, 415), and faults (500, 503).
 */
const API_FAILURES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'session_changed',
  'payload_too_large',
  'unsupported_media_type',
  'storage_unavailable',
  'internal',
] as const;

/** An agent's token may only read (DESIGN §6): every other method of an API route refuses it. */
const AGENT_REFUSAL = ['person_required'] as const;

/** Every route but `/healthz` answers only to the host names Clarion serves (`exposure.ts`). */
const HOST_REFUSAL = ['foreign_host'] as const;

/** Anything a route did not map, on any route (`handleUnexpectedErrors`). */
const FAULTS = ['internal'] as const;

/** Seconds, as the `Retry-After` header of every 429 and 503 carries them. */
const RETRY_AFTER = z.object({
  'Retry-After': z.int().min(0).describe('Seconds to wait before trying again'),
});

/** Whether the API's access control and body guards see the route's requests (`mountApiAccess`). */
function behindApiAccess(route: RouteSpec): boolean {
  // The document itself is registered ahead of them: it holds nothing of anyone's.
  return route.path.startsWith('/api/v1/') && route.path !== OPENAPI_PATH;
}

/** Every catalogue code a route's request can end in, its own and the ones around it. */
export function failuresOf(route: RouteSpec): readonly OutcomeCode[] {
  const api = behindApiAccess(route);
  return [
    ...route.errors,
    ...(api ? API_FAILURES : []),
    ...(api && route.method !== 'get' && route.method !== 'head' ? AGENT_REFUSAL : []),
    ...(route.path === '/healthz' ? [] : HOST_REFUSAL),
    ...FAULTS,
  ];
}

function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

/**
 * A stable name for client generators: the method, then each path segment
 * past `/api/v1` in camel case, a parameter as `By<Name>`
 * (`POST /api/v1/clarification/{pendingId}/respond` is
 * `postClarificationByPendingIdRespond`).
 */
export function operationIdOf(route: Pick<RouteSpec, 'method' | 'path'>): string {
  const words = route.path
    .replace(/^\/api\/v1\//, '/')
    .split(/[/._-]/)
    .filter((word) => word !== '')
    .map((word) => {
      const param = /^\{(\w+)\}$/.exec(word)?.[1];
      const name = param === undefined ? word : `By${upperFirst(param)}`;
      return upperFirst(name);
    });
  return `${route.method}${words.join('')}`;
}

function upperFirst(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function responsesOf(route: RouteSpec): ZodOpenApiResponsesObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, schema] of Object.entries(route.replies)) {
    responses[status] = schema
      ? { description: route.summary, content: { 'application/json': { schema } } }
      : {
          description: route.summary,
          ...(route.produces && status === '200' ? { content: { [route.produces]: {} } } : {}),
        };
  }
  for (const [status, description] of Object.entries(route.protocolErrors ?? {})) {
    responses[status] = {
      description,
      content: { 'application/json': { schema: jsonRpcErrorReply } },
    };
  }
  // Each error status lists every code the route can answer with it, so a client can branch on them.
  const byStatus = new Map<string, string[]>();
  for (const code of failuresOf(route)) {
    const { status, wire, message } = OUTCOMES[code];
    const key = String(status);
    if (status === 499 || route.protocolErrors?.[Number(key)] !== undefined) continue;
    const lines = byStatus.get(key) ?? [];
    const line = `\`${wire}\`: ${message}`;
    if (!lines.includes(line)) lines.push(line);
    byStatus.set(key, lines);
  }
  for (const [key, lines] of byStatus) {
    responses[key] ??= {
      description: lines.join('; '),
      content: { 'application/json': { schema: errorBody } },
    };
  }
  for (const [status, response] of Object.entries(responses)) {
    if (status === '429' || status === '503') response.headers = RETRY_AFTER;
  }
  return responses;
}

export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTES) {
    const params = pathParams(route.path);
    const item = (paths[route.path] ??= {});
    item[route.method] = {
      operationId: operationIdOf(route),
      summary: route.summary,
      ...(route.access === 'public' ? { security: [] } : {}),
      ...(params || route.query
        ? {
            requestParams: {
              ...(params ? { path: params } : {}),
              ...(route.query ? { query: route.query } : {}),
            },
          }
        : {}),
      ...(route.body
        ? {
            requestBody: {
              required: route.bodyOptional !== true,
              content: { 'application/json': { schema: route.body } },
            },
          }
        : {}),
      responses: responsesOf(route),
    };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Clarion',
      version: API_VERSION,
      description:
        'A self-hosted inbox where AI coding agents ask people questions and get the answer back.',
    },
    components: {
      // The WebSocket's frames: no route body names them, so they are listed here.
      schemas: { Event: clarionEvent, ClientFrame: clientFrame, ServerFrame: serverFrame },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  });
}

export function registerOpenApiRoute<E extends Env>(app: Hono<E>): void {
  let document: ReturnType<typeof createDocument> | undefined;
  app.get(OPENAPI_PATH, (c) => c.json((document ??= buildOpenApiDocument())));
}
