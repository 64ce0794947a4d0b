/**
 * `/api/v1/user-inputs`: the live consent and action requests a person can
 * see, and their answers. The registry decides; this maps its typed results.
 */
import type { Hono } from 'hono';
import type { Principal } from '../auth/principal.js';
import { canSeeSession, type RepoContext } from '../store/index.js';
import type { UserInputRegistry, UserInputView } from '../user-input/index.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';
import { parseJsonBody } from './request-guards.js';
import { userInputRespondBody } from '../wire/index.js';

export interface UserInputRouteDeps {
  store: RepoContext;
  userInputs: UserInputRegistry;
}

async function visible(
  deps: UserInputRouteDeps,
  principal: Principal,
  views: UserInputView[],
): Promise<UserInputView[]> {
  const allowed = new Map<string, boolean>();
  const result: UserInputView[] = [];
  for (const view of views) {
    let seen = allowed.get(view.session_id);
    if (seen === undefined) {
      seen = await canSeeSession(deps.store, principal, view.session_id);
      allowed.set(view.session_id, seen);
    }
    if (seen) result.push(view);
  }
  return result;
}

export function registerUserInputRoutes(app: Hono<AppEnv>, deps: UserInputRouteDeps): void {
  app.get('/api/v1/user-inputs', async (c) =>
    c.json({ requests: await visible(deps, c.get('principal'), deps.userInputs.snapshot()) }),
  );

  app.post('/api/v1/user-inputs/:id/respond', async (c) => {
    const body = await parseJsonBody(c, userInputRespondBody);
    if (!body.ok) return body.response;
    const { option_id: optionId, decision } = body.value;
    if ((optionId === undefined) === (decision === undefined)) {
      return errorResponse(c, 'invalid_request', 'give either option_id or decision', [
        { path: '', message: 'exactly one of option_id (consent) or decision (action)' },
      ]);
    }
    const current = deps.userInputs.get(c.req.param('id'));
    const notFound = () => errorResponse(c, 'not_found', 'request not found');
    if (!current || (await visible(deps, c.get('principal'), [current])).length === 0) {
      return notFound();
    }
    const result = deps.userInputs.respond(
      current.id,
      optionId !== undefined ? { option_id: optionId } : { decision: decision ?? 'done' },
    );
    if (result.ok) return c.json({ request: result.request });
    switch (result.code) {
      case 'not_found':
        return notFound();
      case 'already_settled':
        return errorResponse(c, 'conflict', 'the request is already settled');
      case 'invalid':
        return errorResponse(c, 'invalid_request', 'that answer does not fit this request');
    }
  });
}
