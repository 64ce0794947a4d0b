/**
 * The OpenAPI document is generated from the wire's route table, and the
 * server registers no route the document lacks (nor the reverse): a route
 * added without its contract fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
}

/** Hono's `:name` to OpenAPI's `{name}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `METHOD path` of every endpoint in the registered table; `use` middleware has a `*` path. */
function registeredEndpoints(routes: readonly { method: string; path: string }[]): string[] {
  return [
    ...new Set(
      routes
        .filter((route) => !route.path.includes('*'))
        // `app.all` serves MCP's Streamable HTTP transport; the document lists its POST.
        .map(
          (route) => `${route.method === 'ALL' ? 'POST' : route.method} ${openApiPath(route.path)}`,
        ),
    ),
  ].sort();
}

function documentedEndpoints(document: Document): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
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
      ]),
    );
  });

  it('documents every route the server registers, and nothing it does not', () => {
    const registered = registeredEndpoints(clarion.server.routes);
    expect(registered.length).toBeGreaterThan(30);
    expect(documentedEndpoints(document)).toEqual(registered);
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
    // Reads stay open to an agent's token for its own session.
    const read = document.paths['/api/v1/clarification/{pendingId}']?.get;
    expect(Object.keys(read?.responses ?? {})).not.toContain('403');
  });
});
