/**
 * `GET /debug/vars` (expvar-like JSON) and `GET /metrics` (Prometheus text):
 * two views of the same registry, so they can never disagree (DESIGN §9).
 * Neither carries an identity: no label is a pending, session or user ID.
 *
 * They still tell a stranger how busy the server is and what it runs, so
 * they answer a peer on this machine (a scraper beside it) or an admin's
 * bearer token; anyone else gets 401, a non-admin token 403. A loopback peer
 * that forwards for someone (`Forwarded`, `X-Forwarded-For`) is a proxy, not
 * the caller, and must present the token too.
 */
import type { Context, Env, Hono } from 'hono';
import { bearerSecret, resolveTokenWithin } from '../auth/index.js';
import { debugVars, processProbe, type ProcessProbe } from '../observability/index.js';
import type { ClarionMetrics } from '../observability/index.js';
import type { RepoContext } from '../store/index.js';
import { errorResponse } from './errors.js';
import { isForwarded, isLoopbackAddress, nodePeerAddress } from './exposure.js';

export interface ObservabilityRoutesDeps {
  readonly metrics: Pick<ClarionMetrics, 'registry'>;
  /** Where an admin's bearer token is looked up. */
  readonly store: RepoContext;
  /** Process figures for `/debug/vars`; tests pass a fixed one. */
  readonly probe?: ProcessProbe;
  /** The connecting peer's address; tests play a remote peer through it over loopback. */
  readonly peerAddress?: (c: Context) => string | undefined;
}

type Verdict = 'allowed' | 'unauthorized' | 'forbidden';

async function verdict(c: Context, deps: ObservabilityRoutesDeps): Promise<Verdict> {
  const bearer = bearerSecret(c.req.header('authorization'));
  if (bearer === undefined) {
    const local = isLoopbackAddress((deps.peerAddress ?? nodePeerAddress)(c));
    return local && !isForwarded(c.req.raw) ? 'allowed' : 'unauthorized';
  }
  // A credential, once presented, decides: a bad one is never rescued by the peer address.
  const principal =
    bearer === null ? undefined : await resolveTokenWithin(deps.store, bearer, 'bearer');
  if (!principal) return 'unauthorized';
  return principal.kind === 'user' && principal.isAdmin ? 'allowed' : 'forbidden';
}

export function registerObservabilityRoutes<E extends Env>(
  app: Hono<E>,
  deps: ObservabilityRoutesDeps,
): void {
  const { registry } = deps.metrics;

  app.get('/debug/vars', async (c) => {
    const allowed = await verdict(c, deps);
    if (allowed !== 'allowed') return errorResponse(c, allowed);
    c.header('cache-control', 'no-store');
    return c.json(await debugVars(registry, deps.probe ?? processProbe));
  });

  app.get('/metrics', async (c) => {
    const allowed = await verdict(c, deps);
    if (allowed !== 'allowed') return errorResponse(c, allowed);
    const body = await registry.metrics();
    return c.body(body, 200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
  });
}
