/**
 * Where an agent's own question channel, ACP elicitation, meets Clarion's
 * (DESIGN §6). A form in the adapters' question convention is asked exactly
 * as the session's agent would ask `ask_user_question` (same service, so the
 * same inbox, budgets, races, restart recovery and late-answer rules) and
 * waits live; a URL elicitation becomes an `action` request that the agent's
 * `elicitation/complete` settles; any other flat form becomes a `form`
 * request. The agent hears `accept` with content, `decline` for a skip, and
 * `cancel` whenever its wait ended without a person's answer (turn cancelled,
 * turn or session over, a person's cancel, the live wait's bound); an answer
 * that comes after that is a late answer and resumes the agent in a new turn.
 * A form (of questions or not) or link over its agent's open-request bound,
 * or one Clarion cannot show a person, is answered with an error saying so,
 * and the person reads in the transcript that it was not shown
 * (`refused-requests.ts`): only a person's skip is a `decline`. One that
 * comes while no turn runs (an MCP sign-in link while the agent starts) is
 * answered `cancel`, logged, and noted in the session's latest turn.
 */
import type { CreateElicitationResponse } from '@agentclientprotocol/sdk';
import {
  CANCEL,
  classifyElicitation,
  DECLINE,
  questionsReply,
  type ElicitationKind,
  type ElicitationCompleteHandler,
  type ElicitationHandler,
} from '../agents/acp-host/index.js';
import type { ClarificationService } from '../clarification/index.js';
import type { Logger } from '../observability/index.js';
import { getSession, type Store } from '../store/index.js';
import type { UserInputRegistry } from '../user-input/index.js';
import {
  clippedText,
  formSchema,
  MAX_ACTION_INSTRUCTIONS_CHARS,
  MAX_USER_INPUT_TITLE_CHARS,
  storableText,
} from '../wire/index.js';
import type { RequestForm } from './form-requests.js';
import {
  noteOutsideTurn,
  problemsOf,
  refusedOverBound,
  refusedUnshowable,
  type RefusalDeps,
} from './refused-requests.js';

/** How many of a refused form's problems its log line names (a form may have a thousand choices). */
const LOGGED_FORM_PROBLEMS = 10;

export interface ElicitationBridgeDeps {
  store: Store;
  clarification: () => ClarificationService | undefined;
  registry: () => UserInputRegistry | undefined;
  /** The `form` user-input kind (`form-requests.ts`). */
  requestForm: RequestForm;
  /** Where a link over its agent's open-request bound is logged and noted. */
  refusals: RefusalDeps;
  logger: Logger;
}

export interface ElicitationHandlers {
  onElicitation: ElicitationHandler;
  onElicitationComplete: ElicitationCompleteHandler;
}

interface OpenUrl {
  readonly requestId: string;
  completed: boolean;
}

export function elicitationHandlers(deps: ElicitationBridgeDeps): ElicitationHandlers {
  const { logger } = deps;
  /** URL elicitations waiting for a person, by session and elicitation ID. */
  const openUrls = new Map<string, OpenUrl>();
  const urlKey = (sessionId: string, elicitationId: string) => `${sessionId}\n${elicitationId}`;

  const onElicitation: ElicitationHandler = async (sessionId, request, context) => {
    const { turnId, signal, withdrawn, ended } = context;
    const kind = classifyElicitation(request);
    if (turnId === undefined) {
      await noteOutsideTurn(deps.refusals, { sessionId, ...notedAs(kind, request.message) });
      return CANCEL;
    }
    if (signal.aborted) return CANCEL;
    switch (kind.kind) {
      case 'questions': {
        const clarification = deps.clarification();
        if (!clarification) return CANCEL;
        const result = await clarification.ask(sessionId, kind.ask, { signal });
        if (!result.ok && result.code === 'too_many_open_requests') {
          throw await refusedOverBound(deps.refusals, {
            sessionId,
            turnId,
            kind: 'form',
            title: titleOf(request.message, 'Questions'),
            failure: result,
          });
        }
        if (!result.ok) {
          logger.warn(
            { sessionId, code: result.code, details: result.details },
            'an agent question form could not be asked',
          );
          // A form Clarion cannot show is refused; a session that can no longer ask is over.
          if (result.code === 'invalid_request') {
            throw await refusedUnshowable(deps.refusals, {
              sessionId,
              turnId,
              kind: 'form',
              title: titleOf(request.message, 'Questions'),
              problems: problemsOf(result),
            });
          }
          return CANCEL;
        }
        if (result.outcome === 'answered') return questionsReply(kind.fields, result.response);
        return CANCEL;
      }
      // A form or a link waits for the turn's end, not the connection's, to say why it ended.
      case 'url':
        return askToOpen(sessionId, kind, { withdrawn, connectionLost: signal });
      case 'form': {
        // The registry takes only what the web app can render and check: a form beyond that is refused.
        const schema = formSchema.safeParse({ type: 'object', ...kind.schema });
        if (!schema.success) {
          const problems = schema.error.issues.map(
            (issue) => `${issue.path.join('.')}: ${issue.message}`,
          );
          logger.info(
            {
              sessionId,
              issues: problems.length,
              problems: problems.slice(0, LOGGED_FORM_PROBLEMS),
            },
            'an agent form was refused',
          );
          throw await refusedUnshowable(deps.refusals, {
            sessionId,
            turnId,
            kind: 'form',
            title: titleOf(kind.message, 'Form'),
            problems,
          });
        }
        return deps.requestForm({
          sessionId,
          turnId,
          message: kind.message,
          schema: schema.data,
          signal: withdrawn,
          turnEnd: ended,
        });
      }
      case 'unsupported':
        logger.info({ sessionId, reason: kind.reason }, 'an agent elicitation was refused');
        throw await refusedUnshowable(deps.refusals, {
          sessionId,
          turnId,
          kind: 'form',
          title: titleOf(request.message, 'Form'),
          problems: [kind.reason],
        });
    }
  };

  async function askToOpen(
    sessionId: string,
    elicitation: { message: string; url: string; elicitationId: string },
    call: { withdrawn: AbortSignal; connectionLost: AbortSignal },
  ): Promise<CreateElicitationResponse> {
    const registry = deps.registry();
    // Taken while the host still runs the turn that asked: an end from here on is not missed.
    const turnEnd = registry?.nextTurnEnd(sessionId);
    const session = await getSession(deps.store, sessionId);
    if (!registry || !session) return CANCEL;
    // The agent's text titles the decision's transcript row, which PostgreSQL refuses with a NUL.
    const message = storableText(elicitation.message).trim();
    const actionTitle = titleOf(message, 'Open a link');
    const created = registry.request({
      kind: 'action',
      sessionId,
      taskId: session.task_id,
      title: actionTitle,
      instructions: clippedText(message, MAX_ACTION_INSTRUCTIONS_CHARS),
      url: elicitation.url,
      followUp: false,
      ...(turnEnd ? { turnEndSinceCheck: turnEnd } : {}),
      signal: call.withdrawn,
      // A link outlives a normal end of its turn, but not its agent: once the connection that
      // would hear the answer closed, the registry ends it as it ends an MCP action's. That
      // connection is the agent process's pipes: closed, the agent is gone.
      connectionLost: call.connectionLost,
      lostWithAgent: true,
    });
    if (!created.ok && created.code === 'too_many_open_requests') {
      throw await refusedOverBound(deps.refusals, {
        sessionId,
        turnId: undefined,
        kind: 'action',
        title: actionTitle,
        failure: created,
      });
    }
    if (!created.ok) {
      logger.warn(
        { sessionId, code: created.code, problems: created.message },
        'an agent URL elicitation was refused',
      );
      if (created.code === 'invalid_request') {
        throw await refusedUnshowable(deps.refusals, {
          sessionId,
          turnId: undefined,
          kind: 'action',
          title: actionTitle,
          problems: problemsOf(created),
        });
      }
      return CANCEL;
    }
    const key = urlKey(sessionId, elicitation.elicitationId);
    const open: OpenUrl = { requestId: created.id, completed: false };
    openUrls.set(key, open);
    try {
      const outcome = await created.outcome;
      if (outcome.kind === 'decided') return outcome.decision === 'done' ? ACCEPT : DECLINE;
      // The agent said it is done before the person did: that is the answer.
      return open.completed ? ACCEPT : CANCEL;
    } finally {
      if (openUrls.get(key) === open) openUrls.delete(key);
    }
  }

  const onElicitationComplete: ElicitationCompleteHandler = (sessionId, notification) => {
    const open = openUrls.get(urlKey(sessionId, notification.elicitationId));
    if (!open) {
      logger.debug({ sessionId, elicitationId: notification.elicitationId }, 'completion unknown');
      return;
    }
    open.completed = true;
    deps.registry()?.supersede(open.requestId);
  };

  return { onElicitation, onElicitationComplete };
}

/**
 * A request's title from its agent's message: the first line, else
 * `fallback`. Cut whole characters only: half an emoji is text PostgreSQL's
 * JSON refuses, so the decision's row could never be kept.
 */
/** What a request's note calls it: a link is an action, any other kind a form. Pure. */
function notedAs(
  kind: ElicitationKind,
  message: string,
): { kind: 'action' | 'form'; title: string } {
  const text = storableText(message);
  return kind.kind === 'url'
    ? { kind: 'action', title: titleOf(text, 'Open a link') }
    : { kind: 'form', title: titleOf(text, kind.kind === 'questions' ? 'Questions' : 'Form') };
}

function titleOf(message: string, fallback: string): string {
  return clippedText(message.trim().split('\n')[0] ?? '', MAX_USER_INPUT_TITLE_CHARS) || fallback;
}

const ACCEPT: CreateElicitationResponse = { action: 'accept' };
