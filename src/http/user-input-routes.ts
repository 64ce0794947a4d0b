/**
 * `/api/v1/user-inputs`: the live consent, action and form requests a person
 * can see, and their answers. The wire's body says which answer fields go
 * together; the registry decides whether an answer fits its request (a form's
 * content is checked against its own schema there); this maps its typed results.
 */
import type { Hono } from 'hono';
import type { TurnsDeps } from '../turns/index.js';
import { respondToUserInput, visibleUserInputs } from '../turns/index.js';
import { unpagedListQuery, userInputAnswerOf, userInputRespondBody } from '../wire/index.js';
import { decisionCaller } from './auth.js';
import type { AppEnv } from './env.js';
import { failureResponse } from './errors.js';
import { parseJsonBody, parseQuery, storableParams } from './request-guards.js';

export type UserInputRouteDeps = Pick<
  TurnsDeps,
  'store' | 'userInputs' | 'userInputsElsewhere' | 'timers'
>;

export function registerUserInputRoutes(app: Hono<AppEnv>, deps: UserInputRouteDeps): void {
  app.get('/api/v1/user-inputs', async (c) => {
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json({ requests: await visibleUserInputs(deps, c.get('principal')) });
  });

  app.use('/api/v1/user-inputs/:id/*', storableParams('request not found'));
  app.post('/api/v1/user-inputs/:id/respond', async (c) => {
    const body = await parseJsonBody(c, userInputRespondBody);
    if (!body.ok) return body.response;
    const answer = userInputAnswerOf(body.value);
    const caller = { ...decisionCaller(c), waitedMs: c.get('credentialLookupMs') };
    const result = await respondToUserInput(deps, caller, c.req.param('id'), answer);
    return result.ok ? c.json({ request: result.request }) : failureResponse(c, result);
  });
}
