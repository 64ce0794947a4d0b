/**
 * A REST client that holds every reply to the wire's contract: a success is
 * parsed with the reply schema its route declares in `ROUTES` (the schema the
 * OpenAPI document shows), a failure with the error body. A reply the
 * document would misdescribe (`null` where a field is optional, a status the
 * route does not list) fails the test that received it.
 */
import { failuresOf } from '../../src/http/openapi.js';
import { errorBody, OUTCOMES, ROUTES, type RouteSpec } from '../../src/wire/index.js';
import type { ApiCall, ApiReply } from './in-process-server.js';

/** The route of the wire's table that serves `method path` (query ignored). */
export function routeOf(method: string, path: string): RouteSpec | undefined {
  const bare = path.split('?')[0] ?? path;
  return ROUTES.find(
    (route) =>
      route.method === method.toLowerCase() &&
      new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(bare),
  );
}

export function wireCheckedApi(api: ApiCall): ApiCall {
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiReply<T>> => {
    const reply = await api<T>(method, path, body);
    const route = routeOf(method, path);
    if (!route) throw new Error(`${method} ${path} is no route of the wire's table`);
    if (reply.status >= 300) {
      const documented = failuresOf(route).map((code) => OUTCOMES[code].status);
      if (!documented.includes(reply.status as (typeof documented)[number])) {
        throw new Error(
          `${method} ${path} answered ${reply.status}, which its route does not list`,
        );
      }
      const { code } = errorBody.parse(reply.json);
      const listed = failuresOf(route).map((failed) => OUTCOMES[failed].wire as string);
      if (!listed.includes(code)) {
        throw new Error(`${method} ${path} answered code ${code}, which its route does not list`);
      }
      return reply;
    }
    const schema = route.replies[reply.status];
    if (schema === undefined) {
      throw new Error(`${method} ${path} answered ${reply.status}, which its route does not list`);
    }
    schema?.parse(reply.json);
    return reply;
  };
}
