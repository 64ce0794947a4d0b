/**
 * Clarion's MCP tools, registered on one `McpServer` per MCP session. Each
 * tool reads its caller from the call context, calls one clarification
 * service method and maps the typed result to a tool result; no tool decides
 * clarification state itself. Agent tokens reach only their own session:
 * `ask` asks there, `list` is scoped to it, and the resolver's visibility
 * rule refuses every other bundle to `answer` and `wait`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Principal, TokenHolder } from '../../auth/index.js';
import {
  normalizeAsk,
  type AskResult,
  type ClarificationService,
  type RespondResult,
} from '../../clarification/index.js';
import type { Logger } from '../../observability/index.js';
import { canSeeSession, isStorageUnavailable, type Store } from '../../store/index.js';
import { callContext, type BoundCall, type RunningCall, type ToolExtra } from './call-context.js';
import type { CredentialWatch } from '../../auth/index.js';
import { externalTaskTitle } from './external-session.js';
import {
  ensureExternalSession,
  externalAskerOf,
  externalSessionLive,
  findExternalSession,
  type ExternalSessionLookup,
} from '../../turns/index.js';
import type { UserInputRegistry } from '../../user-input/index.js';
import { registerActionTool } from './action-tool.js';
import { checkedTools, invalidArguments } from './checked-tools.js';
import { askWithinBound } from './bounded-ask.js';
import { hasProgressToken, withProgress } from './progress.js';
import {
  askFailure,
  decisionPayload,
  openPayload,
  QUESTION_CLOSED_MESSAGE,
  QUESTION_SUPERSEDED_MESSAGE,
  revokedResult,
  toolFailure,
  toolResult,
  waitingPayload,
} from './results.js';
import {
  failure,
  type Failure,
  answerQuestionInput,
  answerQuestionOutput,
  askQuestionInput,
  askQuestionOutput,
  DEFAULT_WAIT_SECONDS,
  listPendingInput,
  listPendingOutput,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  waitForAnswerInput,
  waitForAnswerOutput,
} from '../../wire/index.js';

export interface McpToolDeps {
  store: Store;
  clarification: ClarificationService;
  /** When given, agents can also ask for an action (`request_user_action`). */
  userInputs?: UserInputRegistry;
  logger: Logger;
  progressIntervalMs: number;
  /** How long a call may wait when its client sends no progress token (`bounded-ask.ts`). */
  callWithoutProgressMs: number;
  /** Ends the calls whose token is revoked while they run. */
  credentials: CredentialWatch;
}

/** What the tools need from the MCP session they run in. */
export interface McpSessionHooks {
  /**
   * Who opened the session; every later request of it is theirs (the route
   * binds a session to its principal), so the tool list can be theirs too.
   */
  readonly openedBy: TokenHolder['kind'];
  /** Ends the response stream of a cancelled call, which the SDK would leave open. */
  closeStream(requestId: RequestId): void;
  /**
   * Counts calls in flight, so a busy session is never evicted as idle, and
   * knows their request IDs, so a second call under one is refused (`route.ts`).
   */
  callStarted(requestId: RequestId): void;
  callEnded(requestId: RequestId): void;
  /**
   * An ask held past its call (`bounded-ask.ts`) until `ended`: its session
   * is never evicted for a new one meanwhile, since closing it would end a
   * wait a person may be about to answer. With `untilTurnEnds` (an agent
   * Clarion runs, still working its turn, may make no call for a long while
   * and then collect the answer) it is not closed as idle either.
   */
  holding(ended: Promise<void>, untilTurnEnds: boolean): void;
  /** Aborts when the MCP session closes. */
  readonly ended: AbortSignal;
}

/** The tool a person answers with: a respond, counted as one even when refused before it runs. */
export const ANSWER_TOOL = 'answer_question';

/**
 * The session an external agent reads as before its first ask opens one:
 * no session has this ID (they are generated), so it holds no question and
 * every read finds what a new session's would.
 */
const UNOPENED_EXTERNAL_SESSION = 'external-session-not-opened';

const ASK_TOOL = 'ask_user_question';

type AskTarget =
  | { ok: true; sessionId: string; external: boolean }
  | Failure<'no_workspace' | 'too_many_external_sessions' | 'too_many_open_requests'>;

/** What a caller no longer entitled to a question's answer hears: as if it never was. */
const QUESTION_NOT_FOUND = failure('not_found', 'clarification request not found');

const WAIT_AGAIN_MESSAGE =
  'No answer yet. The question stays open; call wait_for_answer again with this pending_id.';

const ASK_DESCRIPTION =
  `Ask the person 1-${MAX_QUESTIONS} multiple-choice questions and wait for the answer. Each question has ` +
  `${MIN_OPTIONS}-${MAX_OPTIONS} options {label, description}; the person may also type custom text. Returns ` +
  "status 'answered' with the chosen options' labels per question_id, 'skipped' with a " +
  "reason, 'waiting' with a pending_id to pass to wait_for_answer when the person has not " +
  "answered yet, or 'open' when the wait ended before an answer.";

export function registerClarionTools(
  mcp: McpServer,
  deps: McpToolDeps,
  session: McpSessionHooks,
): void {
  // The tools check their own arguments, so every refusal has the catalogue's shape.
  const server = checkedTools(mcp);
  const { clarification, store, logger } = deps;
  const progress = { intervalMs: deps.progressIntervalMs, logger };
  // The external session is found once per MCP session, then only re-checked.
  let externalSessionId: string | undefined;

  /**
   * The external session of this MCP session's client, if it has one: found
   * once, then only re-checked that it still lives. A read or a refused call
   * opens none (`sessionId` is absent until the client's first ask).
   */
  async function externalSession(userId: string): Promise<ExternalSessionLookup> {
    if (
      externalSessionId !== undefined &&
      (await externalSessionLive(store, externalSessionId, userId))
    ) {
      return { ok: true, sessionId: externalSessionId };
    }
    return findExternalSession(
      store,
      userId,
      externalTaskTitle(mcp.server.getClientVersion()?.name),
    );
  }

  /**
   * Where an ask goes: an agent's own session, else its client's external
   * session, opened by this ask when it has none and its person's external
   * agents have room for another session and another question.
   */
  async function askTarget(holder: TokenHolder): Promise<AskTarget> {
    if (holder.kind === 'agent') return { ok: true, sessionId: holder.sessionId, external: false };
    const known = await externalSession(holder.userId);
    if (known.ok && known.sessionId !== undefined) {
      externalSessionId = known.sessionId;
      return { ok: true, sessionId: known.sessionId, external: true };
    }
    const title = externalTaskTitle(mcp.server.getClientVersion()?.name);
    const found = await ensureExternalSession(store, holder.userId, title, (tx) =>
      clarification.externalAskRoom(tx, holder.userId),
    );
    if (!found.ok) return found;
    externalSessionId = found.sessionId;
    if (found.created)
      logger.info({ sessionId: found.sessionId, title }, 'mcp external session opened');
    return { ok: true, sessionId: found.sessionId, external: true };
  }

  /**
   * The principal a call acts as: an external agent is an agent of its
   * client's external session, so it asks and waits there and never decides.
   * Before its first ask it has none, and reads as an agent of a session
   * that holds nothing.
   */
  async function principalOf(holder: TokenHolder): Promise<Principal | undefined> {
    if (holder.kind !== 'external_agent') return holder;
    const found = await externalSession(holder.userId);
    if (!found.ok) return undefined;
    const sessionId = found.sessionId ?? UNOPENED_EXTERNAL_SESSION;
    return { kind: 'agent', userId: holder.userId, sessionId };
  }

  /**
   * The session this call's questions are asked in, if it has one yet: an
   * agent's own, else its client's external session (found, never opened).
   * Its wait on a question there is the asker's.
   */
  async function askedIn(holder: TokenHolder, principal: Principal): Promise<string | undefined> {
    if (principal.kind === 'agent') return principal.sessionId;
    const found = await externalSession(holder.userId);
    return found.ok ? found.sessionId : undefined;
  }

  /**
   * Whether the caller may still be handed an answer from `sessionId`: its
   * token is live and, unless it is the agent Clarion runs there, its person
   * still belongs to the session's workspace. A person removed from it since
   * they asked may no longer see what is said there, nor may their agent.
   */
  function entitledIn(
    holder: TokenHolder,
    sessionId: string,
    live: () => Promise<boolean>,
  ): () => Promise<boolean> {
    if (holder.kind === 'agent') return live;
    // Only the person's membership is read.
    const person = { kind: 'user', userId: holder.userId, name: '', isAdmin: false } as const;
    return async () => (await live()) && (await canSeeSession(store, person, sessionId));
  }

  /**
   * An external agent's `not_found` when another client of the same person
   * asked the question (questions belong to the person and the client's
   * name): its message names that client, which is the person's own.
   * Undefined otherwise, so unknown and another person's read alike.
   */
  async function askedByAnotherClient(userId: string, pendingId: string) {
    const asker = await externalAskerOf(store, userId, pendingId);
    const own = externalTaskTitle(mcp.server.getClientVersion()?.name);
    if (asker === undefined || asker === own) return undefined;
    return failure(
      'not_found',
      `clarification request not found for this client: your MCP client "${asker}" asked it, ` +
        'and only a client of that name collects its answer (the person can still answer it in Clarion)',
    );
  }

  /**
   * Runs a tool body for an authenticated caller (its arguments were checked
   * before: `checked-tools.ts`); a cancelled call's stream is closed after.
   * The route checked the token once; while the body runs it is watched, and
   * the call's signals (`signal`, `withdrawn`) abort when it is revoked (the
   * waiting tools then answer `unauthorized`).
   */
  async function authenticated(
    extra: ToolExtra,
    body: (caller: RunningCall) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const caller = callContext(extra);
    if (!caller) return toolFailure(failure('unauthorized'));
    session.callStarted(extra.requestId);
    const credential = deps.credentials.watch(caller.token);
    try {
      const signal = AbortSignal.any([caller.signal, credential.revoked]);
      const withdrawn = AbortSignal.any([caller.withdrawn, credential.revoked]);
      return await body({ ...caller, signal, withdrawn, credential });
    } catch (error) {
      if (isStorageUnavailable(error)) {
        logger.error(
          { err: error, requestId: extra.requestId },
          'mcp tool call: storage unavailable',
        );
        return toolFailure(failure('storage_unavailable'));
      }
      // Unknown causes are internal, never a client fault, and their text stays in the log.
      logger.error({ err: error, requestId: extra.requestId }, 'mcp tool call failed');
      return toolFailure(failure('internal'));
    } finally {
      credential.release();
      session.callEnded(extra.requestId);
      if (extra.signal.aborted) session.closeStream(extra.requestId);
    }
  }

  /** A body that acts as a principal: an external agent is bound to its external session first. */
  function bound(body: (caller: BoundCall) => Promise<CallToolResult>) {
    return async (caller: RunningCall): Promise<CallToolResult> => {
      const principal = await principalOf(caller.holder);
      if (!principal) return toolFailure(failure('no_workspace'));
      return body({ ...caller, principal });
    };
  }

  /**
   * A body that decides: it acts as its holder, read from nothing. Only a
   * person's session lists it; should an agent reach it anyway, an
   * external agent is an agent whatever its session, and the resolver
   * refuses an agent before any read, so finding that session first (as
   * `bound` does) would only make it wait on the store outside the
   * respond's one budget.
   */
  function deciding(body: (caller: BoundCall) => Promise<CallToolResult>) {
    return (caller: RunningCall): Promise<CallToolResult> => {
      const { holder } = caller;
      const principal: Principal =
        holder.kind === 'external_agent'
          ? {
              kind: 'agent',
              userId: holder.userId,
              sessionId: externalSessionId ?? UNOPENED_EXTERNAL_SESSION,
            }
          : holder;
      return body({ ...caller, principal });
    };
  }

  // Only an agent inside a Clarion session can ask for an action; nobody else is offered it.
  if (deps.userInputs && session.openedBy === 'agent') {
    const actions = {
      store,
      userInputs: deps.userInputs,
      progress,
      callWithoutProgressMs: deps.callWithoutProgressMs,
    };
    registerActionTool(server, actions, (extra, body) => authenticated(extra, bound(body)));
  }

  server.registerTool(
    ASK_TOOL,
    {
      title: 'Ask the person',
      description: ASK_DESCRIPTION,
      inputSchema: askQuestionInput,
      outputSchema: askQuestionOutput,
    },
    (args, extra) =>
      authenticated(extra, async ({ holder, token, signal, credential }) => {
        // Checked before the external session is found: a bad ask creates no task.
        const checked = normalizeAsk(args);
        if (!checked.ok) {
          return toolFailure(invalidArguments(ASK_TOOL, checked.issues));
        }
        const target = await askTarget(holder);
        if (!target.ok) return askFailure(target);
        let result: AskResult;
        if (hasProgressToken(extra)) {
          result = await withProgress(extra, progress, (announce) =>
            clarification.ask(target.sessionId, args, {
              signal,
              entitled: entitledIn(holder, target.sessionId, credential.live),
              onBundle: announce,
            }),
          );
        } else {
          const bounded = await askWithinBound(
            (options) => clarification.ask(target.sessionId, args, options),
            {
              boundMs: deps.callWithoutProgressMs,
              callSignal: signal,
              sessionEnded: session.ended,
              // The held ask outlives this call, and so must the watch on its token.
              credential: deps.credentials.watch(token),
              entitled: (live) => entitledIn(holder, target.sessionId, live),
              logger,
            },
          );
          if (bounded.kind === 'waiting') {
            // An agent Clarion runs works its turn on; its held ask ends with that turn, bounded.
            session.holding(bounded.ended, holder.kind === 'agent');
            return credential.revoked.aborted
              ? revokedResult()
              : toolResult(waitingPayload(bounded.pendingId));
          }
          result = bounded.result;
        }
        // An answer was handed over only after a read found the token live (`LiveWaiters`).
        if (result.ok && result.outcome === 'answered') {
          return toolResult(decisionPayload(result.response, result.questions));
        }
        if (credential.revoked.aborted) return revokedResult();
        if (!result.ok) return askFailure(result);
        if (result.reason === 'cancelled') {
          return toolFailure(failure('not_active', QUESTION_CLOSED_MESSAGE));
        }
        if (result.reason === 'superseded') {
          return toolFailure(failure('not_active', QUESTION_SUPERSEDED_MESSAGE));
        }
        // Its person was removed from the session's workspace: as wait_for_answer tells it, not open.
        if (result.reason === 'revoked') return toolFailure(QUESTION_NOT_FOUND);
        return toolResult(openPayload(result.pendingId, target.external));
      }),
  );

  server.registerTool(
    'wait_for_answer',
    {
      title: 'Wait for an answer',
      description:
        'Wait until the person answers questions asked earlier (by pending_id). Returns the ' +
        "same result as ask_user_question; 'open' when the wait ends first. While you wait on " +
        'your own question, the person sees you waiting again and may close it.',
      inputSchema: waitForAnswerInput,
      outputSchema: waitForAnswerOutput,
    },
    (args, extra) =>
      authenticated(
        extra,
        bound(async ({ holder, principal, signal, credential }) => {
          const askedMs = (args.timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000;
          // A client that cannot be kept waiting is told to call again, before it gives up.
          const timeoutMs = hasProgressToken(extra)
            ? askedMs
            : Math.min(askedMs, deps.callWithoutProgressMs);
          const asked = await askedIn(holder, principal);
          // On its own question the caller waits as its ask did: handed the answer once its token reads live.
          const asker =
            asked === undefined
              ? {}
              : {
                  asker: { sessionId: asked, entitled: entitledIn(holder, asked, credential.live) },
                };
          const result = await withProgress(extra, progress, () =>
            clarification.awaitDecision(principal, args.pending_id, {
              timeoutMs,
              signal,
              ...asker,
            }),
          );
          // An answer read from the store, not handed over, is given only to a caller entitled to it.
          if (result.ok && result.outcome === 'decided') {
            const entitled =
              principal.kind === 'agent'
                ? entitledIn(holder, principal.sessionId, credential.live)
                : credential.live;
            if (result.handedOver || (await entitled())) {
              return toolResult(decisionPayload(result.response, result.questions));
            }
            if (!credential.revoked.aborted) return toolFailure(QUESTION_NOT_FOUND);
          }
          if (credential.revoked.aborted) return revokedResult();
          if (!result.ok && result.code === 'not_found' && holder.kind === 'external_agent') {
            const elsewhere = await askedByAnotherClient(holder.userId, args.pending_id);
            return toolFailure(elsewhere ?? result);
          }
          if (!result.ok) return toolFailure(result);
          if (result.outcome === 'cancelled') {
            return toolFailure(failure('not_active', QUESTION_CLOSED_MESSAGE));
          }
          return toolResult({
            status: 'open',
            pending_id: args.pending_id,
            message: WAIT_AGAIN_MESSAGE,
          });
        }),
      ),
  );

  server.registerTool(
    'list_pending_questions',
    {
      title: 'List open questions',
      description:
        'Every open question bundle you can see, oldest first, with its questions and ' +
        'option IDs. Pass next_cursor back as cursor for the next page.',
      inputSchema: listPendingInput,
      outputSchema: listPendingOutput,
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      authenticated(
        extra,
        bound(async ({ principal }) => {
          const result = await clarification.listPending(principal, args);
          return result.ok ? toolResult(result.page) : toolFailure(result);
        }),
      ),
  );

  // Only a person decides: an agent is not offered the tool (the resolver refuses it anyway).
  if (session.openedBy === 'user') {
    server.registerTool(
      ANSWER_TOOL,
      {
        title: 'Answer open questions',
        description:
          'Answer a bundle by pending_id: one answer per question with option IDs from ' +
          'list_pending_questions and/or custom_text; or rejected: true to skip it.',
        inputSchema: answerQuestionInput,
        outputSchema: answerQuestionOutput,
      },
      (args, extra) =>
        authenticated(
          extra,
          deciding(async ({ principal, signal, credentialLookupMs }) => {
            const { pending_id: pendingId, ...input } = args;
            // The lookup's wait counts against the respond's budget: one budget for the whole request.
            const caller = { principal, surface: 'mcp', waitedMs: credentialLookupMs } as const;
            const result = await clarification.respond(caller, pendingId, input, signal);
            return respondResult(result);
          }),
        ),
    );
  }
}

/** The resolver's outcome as a tool result; the same cases as REST's table (DESIGN §5.1). */
export function respondResult(result: RespondResult): CallToolResult {
  if (!result.ok) return toolFailure(result);
  return toolResult({ claimed: result.claimed, status: result.status, response: result.response });
}
