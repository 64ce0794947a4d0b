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
  type TranscriptOrder,
  type TranscriptPage,
} from '../store/index.js';
import { EXHAUSTED, withinFreshBudget } from '../support/index.js';
import { PRE_CLAIM_BUDGET_MS } from '../tunables.js';
import type { HumanResponse, UserInputRespondResult, UserInputView } from '../user-input/index.js';
import { failure, formErrorMessage, type Failure } from '../wire/index.js';
import type { TurnsDeps } from './context.js';

export async function sessionTranscript(
  deps: Pick<TurnsDeps, 'store'>,
  principal: Principal,
  sessionId: string,
  options: { after?: TranscriptCursor | undefined; limit: number; order: TranscriptOrder },
): Promise<{ ok: true; page: TranscriptPage } | Failure<'not_found'>> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) {
    return failure('not_found', 'session not found');
  }
  const page = await transcriptPage(deps.store, sessionId, {
    limit: options.limit,
    order: options.order,
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

export type UserInputReadDeps = Pick<TurnsDeps, 'store' | 'userInputs' | 'userInputsElsewhere'>;
export type UserInputRespondDeps = UserInputReadDeps & Pick<TurnsDeps, 'timers'>;

/** This replica's live requests, and (several servers) those other live replicas hold. */
export async function visibleUserInputs(
  deps: UserInputReadDeps,
  principal: Principal,
): Promise<UserInputView[]> {
  const own = deps.userInputs.snapshot();
  const others = (await deps.userInputsElsewhere?.list()) ?? [];
  if (others.length === 0) return visibleOf(deps, principal, own);
  const ids = new Set(own.map((view) => view.id));
  const all = [...own, ...others.filter((view) => !ids.has(view.id))];
  // Oldest first, as one registry lists them; the sort is stable for equal times.
  all.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  return visibleOf(deps, principal, all);
}

export type UserInputResponseResult =
  | { ok: true; request: UserInputView }
  | Failure<
      | 'person_required'
      | 'not_found'
      | 'already_settled'
      | 'agent_exited'
      | 'invalid_request'
      | 'invalid_form_content'
      | 'temporarily_unavailable'
      | 'storage_unavailable'
      | 'internal'
    >;

/**
 * A person's answer to a consent, action or form request they can see. An agent is
 * refused before anything is looked up: it may not approve its own requests.
 *
 * Finding the request and reading whether the caller may see it is the
 * answer's pre-claim part, bounded like a question's by one budget that the
 * request's credential lookup already spent from (`waitedMs`): past it, a 503
 * and nothing decided. Recording the decision has its own bound
 * (`decisionRecorder`), and a forwarded answer its own wait.
 */
export async function respondToUserInput(
  deps: UserInputRespondDeps,
  caller: { principal: Principal; surface: DecisionSurface; waitedMs?: number },
  requestId: string,
  response: HumanResponse,
): Promise<UserInputResponseResult> {
  const responder = responderOf(caller.principal, caller.surface);
  if (!responder) return failure('person_required');
  const budgetMs = Math.max(0, PRE_CLAIM_BUDGET_MS - (caller.waitedMs ?? 0));
  const found = await withinFreshBudget(budgetMs, deps.store.clock, deps.timers, () =>
    findVisible(deps, caller.principal, requestId),
  );
  if (found === EXHAUSTED) return failure('temporarily_unavailable');
  if (!found) return failure('not_found', 'request not found');
  if (found.where === 'here') {
    return respondOutcome(await deps.userInputs.respond(found.view.id, response, responder));
  }
  // Held by another replica (several servers): its registry decides, through the store.
  if (found.held.view.status === 'settled') {
    return failure(
      found.held.view.settled_reason === 'agent_exited' ? 'agent_exited' : 'already_settled',
    );
  }
  const forwarded = await deps.userInputsElsewhere?.forward(
    found.held.owner,
    requestId,
    response,
    responder,
  );
  if (!forwarded) return failure('not_found', 'request not found');
  return forwarded.ok ? respondOutcome(forwarded.applied) : forwarded;
}

interface HeldElsewhere {
  readonly view: UserInputView;
  readonly owner: string;
}

/** The request, on this replica or another, if the principal may see its session. */
async function findVisible(
  deps: UserInputReadDeps,
  principal: Principal,
  requestId: string,
): Promise<
  { where: 'here'; view: UserInputView } | { where: 'elsewhere'; held: HeldElsewhere } | undefined
> {
  const visible = async (view: UserInputView) =>
    (await visibleOf(deps, principal, [view])).length > 0;
  const current = deps.userInputs.get(requestId);
  if (current) return (await visible(current)) ? { where: 'here', view: current } : undefined;
  const held = await deps.userInputsElsewhere?.find(requestId);
  return held && (await visible(held.view)) ? { where: 'elsewhere', held } : undefined;
}

/** The registry's answer as the catalogue says it, the same on the owner and elsewhere. */
function respondOutcome(result: UserInputRespondResult): UserInputResponseResult {
  if (result.ok) return result;
  switch (result.code) {
    case 'not_found':
      return failure('not_found', 'request not found');
    case 'already_settled':
      return failure('already_settled');
    case 'agent_exited':
      return failure('agent_exited');
    case 'invalid':
      return failure('invalid_request', 'that answer does not fit this request');
    case 'reason_not_allowed':
      return failure('invalid_request', 'a reason goes with a reject option only', [
        { path: 'reason', message: 'only with a reject option' },
      ]);
    case 'not_recorded':
      return failure(
        'storage_unavailable',
        'your answer could not be recorded, so it was not given; the request still waits, try again',
      );
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
