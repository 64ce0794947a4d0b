/**
 * The OpenAPI document is generated from the wire's route table, and the
 * server registers no route the document lacks (nor the reverse): a route
 * added without its contract fails here. Each route's replies are held to it
 * too: a sweep of requests every route can get (a repeated query key, each
 * kind of credential, bodies of every wrong kind) must end in statuses the
 * document lists for that route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import { errorBody, MAX_BODY_BYTES, ROUTES, type RouteSpec } from '../../src/wire/index.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

interface Operation {
  operationId?: string;
  requestBody?: { required?: boolean };
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string } }> }
  >;
}

interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/** Hono's `:name` to OpenAPI's `{name}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** The methods `app.all('/mcp')` serves: MCP's Streamable HTTP transport takes these three. */
const MCP_METHODS = ['POST', 'GET', 'DELETE'];

/** The methods a registered entry serves; `app.use` on one path is an `ALL` entry, no endpoint. */
function methodsOf(route: { method: string; path: string }): string[] {
  if (route.method !== 'ALL') return [route.method];
  return route.path === '/mcp' ? MCP_METHODS : [];
}

/** `METHOD path` of every endpoint in the registered table; `use` middleware has a `*` path. */
function registeredEndpoints(routes: readonly { method: string; path: string }[]): string[] {
  return [
    ...new Set(
      routes
        .filter((route) => !route.path.includes('*'))
        .flatMap((route) =>
          methodsOf(route).map((method) => `${method} ${openApiPath(route.path)}`),
        ),
    ),
  ].sort();
}

/** Documented endpoints; a HEAD is served by its GET's handler (Hono), so it is not listed apart. */
function documentedEndpoints(document: Document): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method !== 'head')
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

function operationOf(document: Document, route: Pick<RouteSpec, 'method' | 'path'>): Operation {
  const operation = document.paths[route.path]?.[route.method];
  if (!operation) throw new Error(`${route.method} ${route.path} is not in the document`);
  return operation;
}

describe('the OpenAPI document', () => {
  let clarion: InProcessServer;
  let document: Document;

  beforeAll(async () => {
    clarion = await startInProcessServer('sqlite', 'openapi-admin-token-0123456789');
    const response = await fetch(`${clarion.server.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
  });
  afterAll(() => clarion.dispose());

  it('is OpenAPI 3.1, served without signing in, with the wire schemas as components', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'RespondBody',
        'RespondReply',
        'Message',
        'Event',
        'Error',
        'Bundle',
        'JsonRpcError',
      ]),
    );
  });

  it('documents every route the server registers, and nothing it does not', () => {
    const registered = registeredEndpoints(clarion.server.routes);
    expect(registered.length).toBeGreaterThan(30);
    expect(documentedEndpoints(document)).toEqual(registered);
    for (const [path, item] of Object.entries(document.paths)) {
      if (item.head) expect(item.get, `HEAD ${path} has its GET`).toBeDefined();
    }
  });

  it('notices a route added without its contract', () => {
    const planted = [...clarion.server.routes, { method: 'GET', path: '/api/v1/undocumented/:id' }];
    expect(registeredEndpoints(planted)).toContain('GET /api/v1/undocumented/{id}');
    expect(documentedEndpoints(document)).not.toEqual(registeredEndpoints(planted));
  });

  it('gives the respond route every row of the outcome table, and the refusal of agents', () => {
    const respond = document.paths['/api/v1/clarification/{pendingId}/respond']?.post;
    expect(Object.keys(respond?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '403', '404', '409', '413', '415', '500', '503'].sort(),
    );
  });

  it('names every operation once, stably, for client generators', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/api/v1/clarification/{pendingId}/respond']?.post?.operationId).toBe(
      'postClarificationByPendingIdRespond',
    );
  });

  it('declares Retry-After on every 429 and 503, and an optional body where none is needed', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of ['429', '503']) {
          const reply = operation.responses[status];
          if (reply)
            expect(reply.headers, `${method} ${path} ${status}`).toHaveProperty('Retry-After');
        }
      }
    }
    expect(document.paths['/api/v1/auth/sign-in-links']?.post?.requestBody?.required).toBe(false);
    expect(document.paths['/api/v1/tokens']?.post?.requestBody?.required).toBe(true);
  });

  it('types a page size as an integer in its range, and a time filter as a date-time', () => {
    const paramsOf = (path: string) =>
      (
        document.paths[path]?.get as unknown as {
          parameters: { name: string; schema: Record<string, unknown> }[];
        }
      ).parameters;
    for (const path of ['/api/v1/pending', '/api/v1/tasks', '/api/v1/decisions']) {
      const limit = paramsOf(path).find((param) => param.name === 'limit');
      expect(limit?.schema, path).toMatchObject({ type: 'integer', minimum: 1 });
      expect(limit?.schema.maximum, path).toBeGreaterThan(1);
    }
    for (const name of ['since', 'until']) {
      const filter = paramsOf('/api/v1/decisions').find((param) => param.name === name);
      expect(filter?.schema).toMatchObject({ type: 'string', format: 'date-time' });
    }
  });

  it('declares the JSON body of every JSON reply', async () => {
    for (const path of ['/api/v1/openapi.json', '/debug/vars']) {
      const reply = document.paths[path]?.get?.responses['200'];
      expect(reply?.content?.['application/json']?.schema, path).toBeDefined();
    }
    // And each holds what it serves, as the wire-checked client would read it.
    const vars = await fetch(`${clarion.server.url}/debug/vars`);
    expect(vars.status).toBe(200);
    const route = ROUTES.find((candidate) => candidate.path === '/debug/vars');
    expect(route?.replies[200]?.safeParse(await vars.json()).success).toBe(true);
    const self = ROUTES.find((candidate) => candidate.path === '/api/v1/openapi.json');
    expect(self?.replies[200]?.safeParse(document).success).toBe(true);
  });

  it('types an error’s details: input issues, or the object its code carries', () => {
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    const error = schemas.Error as { properties: Record<string, { $ref?: string }> };
    expect(error.properties.details?.$ref).toBe('#/components/schemas/ErrorDetails');
    const shapes = (schemas.ErrorDetails?.anyOf ?? schemas.ErrorDetails?.oneOf) as unknown[];
    expect(JSON.stringify(shapes)).toContain('#/components/schemas/Issue');
    for (const id of ['SessionFailedDetails', 'QueueItemChangedDetails', 'SignedInAsOther']) {
      expect(JSON.stringify(shapes), id).toContain(`#/components/schemas/${id}`);
    }
    const body = (details: unknown) =>
      errorBody.safeParse({ error: 'x', code: 'conflict', details }).success;
    expect(body([{ path: 'text', message: 'must not be empty' }])).toBe(true);
    expect(body({ current_text: 'deploy' })).toBe(true);
    expect(body({ reason: 'token_limit', limit: 50 })).toBe(true);
    expect(body(5)).toBe(false);
    expect(body([{ field: 'text' }])).toBe(false);
  });

  it('says a reused admission_key answers with the text it already holds', () => {
    const schemas = document.components.schemas as Record<
      string,
      { properties: Record<string, { description?: string }> }
    >;
    expect(schemas.MessageBody?.properties.admission_key?.description).toMatch(
      /text it holds.*not read/,
    );
  });

  it('names in the events route the event schema its ServerFrame refers to', () => {
    const summary = (document.paths['/api/v1/events']?.get as { summary?: string }).summary ?? '';
    const frame = JSON.stringify(document.components.schemas.ServerFrame);
    const named = [...frame.matchAll(/#\/components\/schemas\/(Event\w*)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const id of new Set(named)) expect(summary).toMatch(new RegExp(`\\b${id}\\b`));
  });

  it('says /mcp refuses in JSON-RPC errors, on each of its methods', () => {
    const mcp = document.paths['/mcp'] ?? {};
    expect(Object.keys(mcp).sort()).toEqual(['delete', 'get', 'post']);
    for (const status of ['400', '404', '406', '413', '415', '429']) {
      expect(mcp.post?.responses[status]?.content?.['application/json']?.schema?.$ref).toBe(
        '#/components/schemas/JsonRpcError',
      );
    }
    // The bearer check is Clarion's own, in the catalogue's body.
    expect(mcp.post?.responses['401']?.content?.['application/json']?.schema?.$ref).toBe(
      '#/components/schemas/Error',
    );
  });

  describe('every status a route answers is one the document lists for it', () => {
    const TEXT = { 'content-type': 'text/plain' };
    const JSON_TYPE = { 'content-type': 'application/json' };
    const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
    let tokens: Record<'admin' | 'externalAgent' | 'sessionAgent' | 'bad', string>;

    beforeAll(async () => {
      const admin = 'openapi-admin-token-0123456789';
      const external = await clarion.api<{ secret: string }>('POST', '/api/v1/tokens', {
        name: 'sweep agent',
        kind: 'agent',
      });
      const created = await clarion.api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
        title: 'sweep',
      });
      const me = await clarion.api<{ user: { id: string } }>('GET', '/api/v1/me');
      const sessionAgent = await issueToken(clarion.server.store, {
        kind: 'agent',
        userId: me.json.user.id,
        sessionId: created.json.session.id,
      });
      tokens = {
        admin,
        externalAgent: external.json.secret,
        sessionAgent: sessionAgent.secret,
        bad: 'clr_no-such-token',
      };
    });

    /** What any client may send any route: each a way to be refused, or accepted. */
    function probes(route: RouteSpec): { label: string; query?: string; init: RequestInit }[] {
      const writes = route.method !== 'get' && route.method !== 'head';
      const auth = (token: string) => ({ authorization: `Bearer ${token}` });
      const mcp = route.path === '/mcp' ? MCP_ACCEPT : {};
      const as = (token: string) => ({ ...auth(token), ...mcp });
      const list: { label: string; query?: string; init: RequestInit }[] = [
        { label: 'no credential', init: { headers: { ...mcp } } },
        { label: 'a bad bearer', init: { headers: as(tokens.bad) } },
        { label: 'the admin', init: { headers: as(tokens.admin) } },
        { label: 'a repeated query key', query: 'x=1&x=2', init: { headers: as(tokens.admin) } },
        { label: 'an unknown query key', query: 'limitt=5', init: { headers: as(tokens.admin) } },
        { label: "an external agent's token", init: { headers: as(tokens.externalAgent) } },
        { label: "a session agent's token", init: { headers: as(tokens.sessionAgent) } },
      ];
      if (!writes) return list;
      const admin = as(tokens.admin);
      return [
        ...list,
        { label: '{}', init: { headers: { ...admin, ...JSON_TYPE }, body: '{}' } },
        { label: 'text/plain', init: { headers: { ...admin, ...TEXT }, body: 'hello' } },
        { label: 'not JSON', init: { headers: { ...admin, ...JSON_TYPE }, body: '{"a":' } },
        {
          label: 'not UTF-8',
          init: { headers: { ...admin, ...JSON_TYPE }, body: new Uint8Array([0x7b, 0xff]) },
        },
        {
          label: 'too large',
          init: { headers: { ...admin, ...JSON_TYPE }, body: ' '.repeat(MAX_BODY_BYTES * 2) },
        },
        {
          label: 'an unknown field',
          init: { headers: { ...admin, ...JSON_TYPE }, body: '{"no_such_field":1}' },
        },
      ];
    }

    it.each(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
      '%s',
      async (_name, route) => {
        const documented = Object.keys(operationOf(document, route).responses);
        const path = route.path.replace(/\{\w+\}/g, 'no-such-id');
        const undocumented: string[] = [];
        for (const probe of probes(route)) {
          const query = probe.query === undefined ? '' : `?${probe.query}`;
          const response = await fetch(`${clarion.server.url}${path}${query}`, {
            ...probe.init,
            method: route.method.toUpperCase(),
            redirect: 'manual',
          });
          await response.body?.cancel();
          if (!documented.includes(String(response.status))) {
            undocumented.push(`${probe.label}: ${response.status}`);
          }
        }
        expect(undocumented, `documented: ${documented.join(', ')}`).toEqual([]);
      },
    );
  });
});
