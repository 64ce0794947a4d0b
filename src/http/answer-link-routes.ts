/**
 * `POST /api/v1/answer-links/view` and `/use`: a notification's single-use
 * answer links. The secret in the body is the credential, so these two routes
 * need no session or token (a phone opening a link may have neither); the
 * Host check and the body guards still apply. Unknown, foreign and malformed
 * secrets all answer the same 404.
 */
import type { Context, Hono } from 'hono';
import type { AnswerLinkResult, AnswerLinkUseDeps } from '../turns/index.js';
import { useAnswerLink, viewAnswerLink } from '../turns/index.js';
import { ANSWER_LINK_USE_PATH, ANSWER_LINK_VIEW_PATH, answerLinkBody } from '../wire/index.js';
import type { AppEnv } from './env.js';
import { failureResponse } from './errors.js';
import { parseJsonBody } from './request-guards.js';

export function registerAnswerLinkRoutes(app: Hono<AppEnv>, deps: AnswerLinkUseDeps): void {
  app.post(ANSWER_LINK_VIEW_PATH, async (c) => {
    const body = await parseJsonBody(c, answerLinkBody);
    if (!body.ok) return body.response;
    return reply(c, await viewAnswerLink(deps, body.value.token));
  });

  app.post(ANSWER_LINK_USE_PATH, async (c) => {
    const body = await parseJsonBody(c, answerLinkBody);
    if (!body.ok) return body.response;
    return reply(c, await useAnswerLink(deps, body.value.token));
  });
}

function reply(c: Context<AppEnv>, result: AnswerLinkResult): Response {
  c.header('Cache-Control', 'no-store');
  return result.ok ? c.json({ link: result.link }) : failureResponse(c, result);
}
