/**
 * `/api/v1/user-inputs`: the live consent and action requests a person can
 * see, and their answers. The registry decides; this maps its typed results.
 */
import type { Hono } from 'hono';
import type { TurnsDeps } from '../turns/index.js';
import { respondToUserInput, visibleUserInputs } from '../turns/index.js';
import { userInputRespondBody } from '../wire/index.js';
import { decisionCaller } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody } from './request-guards.js';

export type UserInputRouteDeps = Pick<TurnsDeps, 'store' | 'userInputs'>;

export function registerUserInputRoutes(app: Hono<AppEnv>, deps: UserInputRouteDeps): void {
  app.get('/api/v1/user-inputs', async (c) =>
    c.json({ requests: await visibleUserInputs(deps, c.get('principal')) }),
  );

  app.post('/api/v1/user-inputs/:id/respond', async (c) => {
    const body = await parseJsonBody(c, userInputRespondBody);
    if (!body.ok) return body.response;
    const { option_id: optionId, decision, reason } = body.value;
    if ((optionId === undefined) === (decision === undefined)) {
      return errorResponse(c, 'invalid_request', 'give either option_id or decision', [
        { path: '', message: 'exactly one of option_id (consent) or decision (action)' },
      ]);
    }
    if (reason !== undefined && decision !== 'skip') {
      return errorResponse(c, 'invalid_request', 'a reason goes with decision "skip" only', [
        { path: 'reason', message: 'only with decision "skip"' },
      ]);
    }
    const words = reason?.trim() ?? '';
    const result = await respondToUserInput(
      deps,
      decisionCaller(c),
      c.req.param('id'),
      optionId !== undefined
        ? { option_id: optionId }
        : decision === 'skip' && words !== ''
          ? { decision, reason: words }
          : { decision: decision ?? 'done' },
    );
    return result.ok ? c.json({ request: result.request }) : failureResponse(c, result);
  });
}
