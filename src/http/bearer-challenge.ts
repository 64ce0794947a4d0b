/**
 * Adds RFC 6750's challenge to every 401 of `/api/v1`, whichever guard
 * refused the request (`wire/challenge.ts` says which challenge). Mounted
 * before the API's access control, so it sees the reply the guard gave.
 */
import type { Env, Hono } from 'hono';
import { bearerChallenge, OUTCOMES } from '../wire/index.js';

export function mountBearerChallenge<E extends Env>(app: Hono<E>, path: string): void {
  app.use(path, async (c, next) => {
    await next();
    if (c.res.status === OUTCOMES.unauthorized.status && !c.res.headers.has('WWW-Authenticate')) {
      c.res.headers.set('WWW-Authenticate', bearerChallenge(c.req.header('authorization')));
    }
  });
}
