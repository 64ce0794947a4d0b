/**
 * `/api/v1/user-inputs`: the live consent, action and form requests a person
 * can see, and their answers. The registry decides (a form's content is
 * checked against its own schema there); this maps its typed results.
 */
import type { Hono } from 'hono';
import type { TurnsDeps } from '../turns/index.js';
import { respondToUserInput, visibleUserInputs } from '../turns/index.js';
import { userInputRespondBody, type FormContent, type UserInputAnswer } from '../wire/index.js';
import { decisionCaller } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody, storableParams } from './request-guards.js';

export type UserInputRouteDeps = Pick<TurnsDeps, 'store' | 'userInputs' | 'userInputsElsewhere'>;

export function registerUserInputRoutes(app: Hono<AppEnv>, deps: UserInputRouteDeps): void {
  app.get('/api/v1/user-inputs', async (c) =>
    c.json({ requests: await visibleUserInputs(deps, c.get('principal')) }),
  );

  app.use('/api/v1/user-inputs/:id/*', storableParams('request not found'));
  app.post('/api/v1/user-inputs/:id/respond', async (c) => {
    const body = await parseJsonBody(c, userInputRespondBody);
    if (!body.ok) return body.response;
    const { option_id: optionId, decision, reason, content } = body.value;
    if ((optionId === undefined) === (decision === undefined)) {
      return errorResponse(c, 'invalid_request', 'give either option_id or decision', [
        {
          path: '',
          message: 'exactly one of option_id (consent) or decision (action, form)',
        },
      ]);
    }
    // A consent's option may carry one too; the registry refuses it on any but a reject.
    if (reason !== undefined && decision !== undefined && decision !== 'skip') {
      return errorResponse(
        c,
        'invalid_request',
        'a reason goes with decision "skip" or a reject option only',
        [{ path: 'reason', message: 'only with decision "skip" or a reject option_id' }],
      );
    }
    if (content !== undefined && decision !== 'accept') {
      return errorResponse(c, 'invalid_request', 'content goes only with decision "accept"', [
        { path: 'content', message: 'only a form accepted with decision "accept" has content' },
      ]);
    }
    const words = reason?.trim() ?? '';
    let answer: UserInputAnswer;
    if (optionId !== undefined) {
      answer = words === '' ? { option_id: optionId } : { option_id: optionId, reason: words };
    }
    // A form may have no fields: accepting it sends empty content. The registry
    // checks the content against the form's schema before anything changes.
    else if (decision === 'accept') answer = { decision, content: (content ?? {}) as FormContent };
    else if (decision === 'skip' && words !== '') answer = { decision, reason: words };
    else answer = { decision: decision ?? 'done' };
    const result = await respondToUserInput(deps, decisionCaller(c), c.req.param('id'), answer);
    return result.ok ? c.json({ request: result.request }) : failureResponse(c, result);
  });
}
