/**
 * The confirm page's two calls. The link's secret is the credential, sent in
 * the body: the page works without a session cookie (a phone opening a link
 * from a notification may have none).
 */
import type { AnswerLinkReply } from '../../../src/wire/index.js';
import { ANSWER_LINK_USE_PATH, ANSWER_LINK_VIEW_PATH } from '../../../src/wire/constants.js';
import { request, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

/** What the link would decide, and where its item stands; changes nothing. */
export function viewAnswerLink(
  token: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<AnswerLinkReply>> {
  return request(fetchImpl, ANSWER_LINK_VIEW_PATH, {
    method: 'POST',
    body: JSON.stringify({ token }),
  });
}

/** Decides the link's choice once; a later call shows the winner. */
export function answerWithLink(
  token: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<AnswerLinkReply>> {
  return request(fetchImpl, ANSWER_LINK_USE_PATH, {
    method: 'POST',
    body: JSON.stringify({ token }),
  });
}
