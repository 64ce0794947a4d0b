/**
 * An agent's form (an ACP `elicitation/create` in form mode, not in the
 * Claude/Codex question convention) as a `form` request of the user-input
 * registry, and its settlement back as the elicitation's answer. The ACP
 * host calls the function `formRequester` returns; it never sees the registry.
 *
 * Invariants: settles exactly once, and always: a person's content or
 * decline, otherwise `cancel` (deadline, turn end, session gone, the agent's
 * call aborted, or no registry yet); it rejects with `AgentRequestRefused`
 * for a form over its agent's open-request bound and for one Clarion cannot
 * show (the registry refuses it, or two of its names read the same once
 * stored), each noted in the transcript (`refused-requests.ts`): a `cancel`
 * would read as a cancelled turn, and nobody would learn of the form. The content handed back has
 * passed `validateFormContent` against the storable schema, and carries the
 * agent's own field names and choice values (`storable-form.ts`).
 */
import { getSession } from '../store/index.js';
import { storableText } from '../wire/index.js';
import {
  formTitle,
  type FormContent,
  type FormSchema,
  type UserInputRegistry,
} from '../user-input/index.js';
import type { AgentLaunchDeps } from './context.js';
import {
  problemsOf,
  refusedOverBound,
  refusedUnshowable,
  UNNOTED_REFUSALS,
  type RefusalDeps,
} from './refused-requests.js';
import { storableForm } from './storable-form.js';

export interface AgentFormInput {
  sessionId: string;
  /** The turn the elicitation arrived in; undefined for one outside any turn. */
  turnId: string | undefined;
  message: string;
  schema: FormSchema;
  /** Aborted when the agent's call goes away: the request is then swept. */
  signal: AbortSignal;
  /** Aborted as its turn ends: a form still opening then is swept as it opens. */
  turnEnd?: AbortSignal;
}

/** What the elicitation is answered with (ACP `CreateElicitationResponse`). */
export type AgentFormResult =
  { action: 'accept'; content: FormContent } | { action: 'decline' } | { action: 'cancel' };

export type RequestForm = (input: AgentFormInput) => Promise<AgentFormResult>;

export function formRequester(
  launch: Pick<AgentLaunchDeps, 'store'>,
  registry: () => UserInputRegistry | undefined,
  refusals: RefusalDeps = UNNOTED_REFUSALS,
): RequestForm {
  return async (input) => {
    const cancel: AgentFormResult = { action: 'cancel' };
    const live = registry();
    const session = await getSession(launch.store, input.sessionId);
    if (!live || !session) return cancel;
    // Its text is written with the decision and mirrored to other replicas: storable, or refused.
    const storable = storableForm(input);
    if (!storable) {
      throw await refusedUnshowable(refusals, {
        sessionId: input.sessionId,
        turnId: input.turnId,
        kind: 'form',
        title: storableText(formTitle(input)),
        problems: ['two of its field names or choices read the same once stored'],
      });
    }
    const created = live.request({
      kind: 'form',
      sessionId: input.sessionId,
      taskId: session.task_id,
      turnId: input.turnId ?? null,
      message: storable.message,
      schema: storable.schema,
      signal: input.signal,
      turnEnd: input.turnEnd,
    });
    if (!created.ok && created.code === 'too_many_open_requests') {
      throw await refusedOverBound(refusals, {
        sessionId: input.sessionId,
        turnId: input.turnId,
        kind: 'form',
        title: formTitle(storable),
        failure: created,
      });
    }
    if (!created.ok && created.code === 'invalid_request') {
      throw await refusedUnshowable(refusals, {
        sessionId: input.sessionId,
        turnId: input.turnId,
        kind: 'form',
        title: formTitle(storable),
        problems: problemsOf(created),
      });
    }
    if (!created.ok) return cancel;
    const outcome = await created.outcome;
    switch (outcome.kind) {
      case 'submitted':
        return { action: 'accept', content: storable.original(outcome.content) };
      case 'declined':
        return { action: 'decline' };
      default:
        return cancel;
    }
  };
}
