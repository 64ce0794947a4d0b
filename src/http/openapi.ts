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
  OUTCOMES,
  ROUTES,
  serverFrame,
  type RouteSpec,
} from '../wire/index.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
/** The version of the `/api/v1` contract this document describes (not the server's). */
const API_VERSION = '1.0.0';

/** Failures any principal route can give, besides the ones it lists. */
const COMMON_FAILURES = [
  'unauthorized',
  'payload_too_large',
  'unsupported_media_type',
  'internal',
] as const;

/** An agent's token may only read (DESIGN §6): every other method of a principal route refuses it. */
const AGENT_REFUSAL = ['person_required'] as const;

function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

function responsesOf(route: RouteSpec): ZodOpenApiResponsesObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, schema] of Object.entries(route.replies)) {
    responses[status] = schema
      ? { description: route.summary, content: { 'application/json': { schema } } }
      : {
          description: route.summary,
          ...(route.produces ? { content: { [route.produces]: {} } } : {}),
        };
  }
  const refusesAgents =
    route.access === 'principal' && route.method !== 'get' && route.path.startsWith('/api/v1/');
  const failures =
    route.access === 'principal'
      ? [...route.errors, ...COMMON_FAILURES, ...(refusesAgents ? AGENT_REFUSAL : [])]
      : route.errors;
  for (const code of failures) {
    const { status, message } = OUTCOMES[code];
    const key = String(status);
    if (status === 499 || responses[key]) continue;
    responses[key] = {
      description: message,
      content: { 'application/json': { schema: errorBody } },
    };
  }
  return responses;
}

export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTES) {
    const params = pathParams(route.path);
    const item = (paths[route.path] ??= {});
    item[route.method] = {
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
              required: true,
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
