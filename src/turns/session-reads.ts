/**
 * What a person reads about sessions besides the bundles: a transcript page
 * and the live consent and action requests. Both are filtered by the same
 * visibility rule as everything else (DESIGN §8): a session the caller may
 * not see is `not_found`, the same as one that does not exist.
 */
import { responderOf, type DecisionSurface, type Principal } from '../auth/index.js';
import {
  canSeeSession,
  transcriptPage,
  type TranscriptCursor,
  type TranscriptPage,
} from '../store/index.js';
import type { HumanResponse, UserInputView } from '../user-input/index.js';
import { failure, formErrorMessage, type Failure } from '../wire/index.js';
import type { TurnsDeps } from './context.js';

export async function sessionTranscript(
  deps: Pick<TurnsDeps, 'store'>,
  principal: Principal,
  sessionId: string,
  options: { after?: TranscriptCursor | undefined; limit: number },
): Promise<{ ok: true; page: TranscriptPage } | Failure<'not_found'>> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) {
    return failure('not_found', 'session not found');
  }
  const page = await transcriptPage(deps.store, sessionId, {
    limit: options.limit,
    ...(options.after ? { after: options.after } : {}),
  });
  return { ok: true, page };
}

/** Keeps the requests of sessions the principal can see; one visibility read per session. */
async function visibleOf(
  deps: Pick<TurnsDeps, 'store'>,
  principal: Principal,
  views: readonly UserInputView[],
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

export function visibleUserInputs(
  deps: Pick<TurnsDeps, 'store' | 'userInputs'>,
  principal: Principal,
): Promise<UserInputView[]> {
  return visibleOf(deps, principal, deps.userInputs.snapshot());
}

export type UserInputResponseResult =
  | { ok: true; request: UserInputView }
  | Failure<
      | 'person_required'
      | 'not_found'
      | 'already_settled'
      | 'invalid_request'
      | 'invalid_form_content'
    >;

/**
 * A person's answer to a consent, action or form request they can see. An agent is
 * refused before anything is looked up: it may not approve its own requests.
 */
export async function respondToUserInput(
  deps: Pick<TurnsDeps, 'store' | 'userInputs'>,
  caller: { principal: Principal; surface: DecisionSurface },
  requestId: string,
  response: HumanResponse,
): Promise<UserInputResponseResult> {
  const responder = responderOf(caller.principal, caller.surface);
  if (!responder) return failure('person_required');
  const notFound = failure('not_found', 'request not found');
  const current = deps.userInputs.get(requestId);
  if (!current || (await visibleOf(deps, caller.principal, [current])).length === 0) {
    return notFound;
  }
  const result = deps.userInputs.respond(current.id, response, responder);
  if (result.ok) return result;
  switch (result.code) {
    case 'not_found':
      return notFound;
    case 'already_settled':
      return failure('already_settled');
    case 'invalid':
      return failure('invalid_request', 'that answer does not fit this request');
    case 'reason_not_allowed':
      return failure('invalid_request', 'a reason goes with a reject option only', [
        { path: 'reason', message: 'only with a reject option' },
      ]);
    case 'invalid_content':
      return failure(
        'invalid_form_content',
        undefined,
        result.errors.map((error) => ({
          path: error.field === '' ? 'content' : `content.${error.field}`,
          message: formErrorMessage(error),
        })),
      );
  }
}
