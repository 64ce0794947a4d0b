/**
 * Where the user-input registry meets the rest of Clarion: an agent's ACP
 * permission request becomes a consent request, a due follow-up is admitted
 * as a machine-owned message keyed by its request ID, and every request change
 * is published as an event for its session, with the same `pending_action` a
 * session write computes.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import {
  permissionCommand,
  titleIsCommand,
  permissionDetails,
  type PermissionHandler,
} from '../agents/acp-host/index.js';
import type {
  ClarionEvent,
  EventPublisher,
  PendingAction,
  SessionWriter,
  UserInputPending,
} from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  BudgetExhausted,
  EXHAUSTED,
  failpoint,
  pausePoint,
  startBudget,
  systemTimers,
  withinBudget,
  withinFreshBudget,
  type Budget,
  type Timers,
} from '../support/index.js';
import {
  DECISION_RECORD_MAX_MS,
  DECISION_UNKEPT_ATTEMPTS,
  DECISION_UNKEPT_RETRY_MS,
  DECISION_UNKEPT_WAIT_MAX_MS,
  USER_INPUT_COPY_KEEP_MAX_MS,
} from '../tunables.js';
import {
  canSeeSession,
  forgetOpenUserInput,
  getSession,
  isStorageUnavailable,
  keepOpenUserInput,
  messageExists,
  refreshDecidedUserInput,
  type RepoContext,
} from '../store/index.js';
import {
  AnswerWithdrawn,
  ConsentRuleGone,
  ResponderGone,
  type ConsentOption,
  type ConsentOptionKind,
  type ConsentRequestInput,
  type ConsentRuleToKeep,
  type FollowUpAdmission,
  type UserInputPorts,
  type UserInputRegistry,
  type UserInputView,
} from '../user-input/index.js';
import {
  clippedText,
  CONSENT_OPTION_KINDS,
  consentOptionsReadingTheSame,
  isBlankText,
  MAX_CONSENT_DETAIL_CHARS,
  MAX_CONSENT_DETAILS,
  MAX_CONSENT_OPTIONS,
  MAX_USER_INPUT_TITLE_CHARS,
  storableText,
  textProblem,
  type ConsentDetail,
} from '../wire/index.js';
import { admitMachineMessage } from './admission.js';
import { decisionRecordOf, recordDecision, supersedeRefusedDecision } from './decision-record.js';
import type { AgentLaunchDeps, TurnsDeps } from './context.js';
import {
  noteOutsideTurn,
  noteUnshowable,
  problemsOf,
  refusedOverBound,
  UNNOTED_REFUSALS,
  type RefusalDeps,
} from './refused-requests.js';

const EVENT_TYPES = {
  awaiting: 'user_input.requested',
  armed: 'user_input.armed',
  due: 'user_input.armed',
  settled: 'user_input.settled',
} as const satisfies Record<UserInputView['status'], ClarionEvent['type']>;

export interface UserInputPublisherDeps {
  sessions: SessionWriter;
  events: EventPublisher;
  logger: Logger;
  /** Several servers: keeps the view for the other replicas (`user-input-replicas.ts`). */
  mirror?: (view: UserInputView) => Promise<void>;
  /**
   * Keeps a copy of each request while it waits on a person, for recovery to
   * say it ended (`ended-user-inputs.ts`). While the server stops, a request
   * the stop settles keeps its copy: the next start writes that it ended.
   */
  waiting?: { store: RepoContext; stopping: () => boolean };
}

/**
 * The session writer's half of `pending_action` from the registry: this
 * replica's requests, and with several servers (`elsewhere`) the copies other
 * replicas keep for a session whose agent does not run here. A session whose
 * agent runs here has every request in this registry, so it costs no read.
 */
export function userInputPending(deps: {
  registry: () => UserInputRegistry | undefined;
  runsHere: (sessionId: string) => boolean;
  elsewhere?: (tx: RepoContext, sessionId: string) => ReturnType<UserInputPending>;
}): UserInputPending {
  return (sessionId, tx) =>
    deps.registry()?.pendingActionOf(sessionId) ??
    (deps.elsewhere && !deps.runsHere(sessionId) ? deps.elsewhere(tx, sessionId) : null);
}

/**
 * The registry's publish port: a request's change, and a queue change when
 * its follow-up joined or left the queue (the registry says which, once per
 * change: not for each of the follow-up's moves, nor for a removal whose own
 * write already says it). A request's event carries the request's
 * own revision and a `pending_action` that is what a session write would
 * compute (clarification rows first, then the registry), read when the event
 * goes out. A queue change is a session write of its own: `queue.changed`
 * carries the session's next revision like any session event, so a client
 * that drops what is older than the revision it holds keeps it. The registry
 * calls this synchronously, so the reads and writes run behind it; one chain
 * per session keeps that session's events in the order the registry made them.
 */
export function userInputPublisher(deps: UserInputPublisherDeps): UserInputPorts['publish'] {
  const chains = new Map<string, Promise<void>>();

  async function pendingActionOf(sessionId: string): Promise<PendingAction> {
    try {
      return await deps.sessions.pendingAction(sessionId);
    } catch (error) {
      // The store is closing (shutdown) or failing: the change itself still goes out.
      deps.logger.warn(
        { err: error, session_id: sessionId },
        'pending action unknown for a user-input event',
      );
      return null;
    }
  }

  /**
   * The copy follows the request: a waiting view updates it (the first one
   * was kept before anyone could see it: `userInputCopyKeeper`), a decided
   * one moving on (armed, due) updates the decided copy its decision's write
   * made, and a request settled by anything but a person's decision is
   * forgotten (it committed nothing). A person's decision leaves the copy to
   * its own write and to the end of its turn.
   */
  async function keepWaiting(view: UserInputView): Promise<void> {
    const waiting = deps.waiting;
    if (!waiting) return;
    try {
      if (view.status === 'awaiting') await keepOpenUserInput(waiting.store, view);
      else if (view.status !== 'settled') await refreshDecidedUserInput(waiting.store, view);
      else if (view.settled_reason !== 'human' && !waiting.stopping()) {
        await forgetOpenUserInput(waiting.store, view.id);
      }
    } catch (error) {
      // A copy not forgotten makes a restart call a settled request unanswered; one not
      // updated, a restart says nothing of. Either way the request and its event go on.
      deps.logger.warn(
        { err: error, request_id: view.id },
        'a waiting request could not be kept for recovery',
      );
    }
  }

  async function publish(view: UserInputView, queueMoved: boolean): Promise<void> {
    await keepWaiting(view);
    // Before the event: a person who sees it on another replica can then list and answer it.
    if (deps.mirror) await deps.mirror(view);
    const scope = {
      session_id: view.session_id,
      task_id: view.task_id,
      revision: view.revision,
      pending_action: await pendingActionOf(view.session_id),
    };
    deps.events.publish({ ...scope, type: EVENT_TYPES[view.status], request: view });
    if (queueMoved) await queueChanged(view.session_id);
  }

  async function queueChanged(sessionId: string): Promise<void> {
    try {
      await deps.sessions.write(sessionId, (write) => {
        write.queueChanged();
        return Promise.resolve();
      });
    } catch (error) {
      // The store is closing or failing: a queue list open elsewhere is reloaded at the next change.
      deps.logger.warn(
        { err: error, session_id: sessionId },
        'a queue change could not be published',
      );
    }
  }

  return (view, { queueChanged: queueMoved }) => {
    const sessionId = view.session_id;
    // `publish` never rejects, so the chain never stops.
    const next = (chains.get(sessionId) ?? Promise.resolve()).then(() => publish(view, queueMoved));
    chains.set(sessionId, next);
    void next.then(() => {
      if (chains.get(sessionId) === next) chains.delete(sessionId);
    });
  };
}

/**
 * The registry's `keepOpen` port: a request's copy is kept before a person
 * can see it, within `USER_INPUT_COPY_KEEP_MAX_MS` (past it the registry asks
 * without one; a keep that still lands is a copy like any other).
 */
export function userInputCopyKeeper(
  store: RepoContext,
  timers: Timers = systemTimers,
): NonNullable<UserInputPorts['keepOpen']> {
  return async (awaiting) => {
    // A race test holds a request here, still opening, while its turn ends.
    await pausePoint('user_input.before_copy_kept');
    const kept = await withinFreshBudget(USER_INPUT_COPY_KEEP_MAX_MS, store.clock, timers, () =>
      keepOpenUserInput(store, awaiting),
    );
    if (kept === EXHAUSTED) throw new BudgetExhausted();
  };
}

/** How a refused decision's late row is dealt with; the defaults are the tunables. */
export interface DecisionRecorderBound {
  maxMs?: number;
  timers?: Timers;
  /** Hears a refused decision's row that could not be superseded. */
  logger?: Logger;
  unkeptWaitMaxMs?: number;
  unkeptAttempts?: number;
  unkeptRetryMs?: number;
  /** Keeps a person's "always" in the decision's own transaction (`consent-rules.ts`). */
  keepRule?: (tx: RepoContext, rule: ConsentRuleToKeep) => Promise<void>;
  /** Whether the rule a standing answer applies still stands, in its record's transaction. */
  ruleStands?: (tx: RepoContext, rule: ConsentRuleToKeep) => Promise<boolean>;
  /** A decision that kept a person's "always" stands (committed): their open lists read again. */
  ruleKept?: (userId: string) => void;
}

/** Whether the person who decided `decided` still belongs to its session's workspace. */
async function responderStands(tx: RepoContext, decided: UserInputView): Promise<boolean> {
  const by = decided.responded_by;
  if (!by) return true;
  // Only the person's membership is read.
  const person = { kind: 'user', userId: by.user_id, name: '', isAdmin: false } as const;
  return canSeeSession(tx, person, decided.session_id);
}

/**
 * The registry's `recordDecision` port: a person's decision as a row of its
 * session's transcript, written before the decision takes effect and within
 * `DECISION_RECORD_MAX_MS` (a throw refuses the answer). A view no person
 * decided needs no row. A write whose connection was lost after its row was
 * sent may have committed all the same: one read says which, so a decision
 * that was kept is never refused (and then answered again by someone else).
 *
 * The bound is raced, not only handed to the database: at `BEGIN` it becomes
 * the transaction's lock and statement timeouts, which a server that froze or
 * was cut off never applies, so each statement would wait for the store's
 * reply bound (`PG_STATEMENT_REPLY_MAX_MS`) and the read-back for another.
 * Past the bound the answer is refused as unknown: a write that goes on rolls
 * back unless it already reached its `COMMIT`.
 *
 * A refused answer never leaves a decision standing: a write that commits
 * after its refusal publishes nothing here (`publishes`; other replicas
 * relay its logged events, then the supersede's), and once it ended (or
 * after `DECISION_UNKEPT_WAIT_MAX_MS`) its row, if kept, is superseded by a
 * session write of its own (`supersedeRefusedDecision`), tried a few times.
 * A later answer's write supersedes it too, whichever comes first. A restart
 * before either leaves the row standing (the registry's request is gone then).
 * A rule's answer is such a decision too: refused, it was not given. Its
 * write reads its rule again (`ruleStands`): one revoked since the lookup,
 * or whose person left the task's workspace, refuses the answer, and the
 * agent's request is asked of a person. A rule's answer whose agent's call
 * was withdrawn (`withdrawn`) before the write returned is refused too
 * (`AnswerWithdrawn`): rolled back, or superseded if its commit won the race.
 */
export function decisionRecorder(
  sessions: SessionWriter,
  store: RepoContext,
  bound: DecisionRecorderBound = {},
): NonNullable<UserInputPorts['recordDecision']> {
  const { clock } = store;
  const maxMs = bound.maxMs ?? DECISION_RECORD_MAX_MS;
  const timers = bound.timers ?? systemTimers;
  const unkept: UnkeptSupersede = {
    sessions,
    clock,
    timers,
    maxMs,
    logger: bound.logger,
    waitMaxMs: bound.unkeptWaitMaxMs ?? DECISION_UNKEPT_WAIT_MAX_MS,
    attempts: bound.unkeptAttempts ?? DECISION_UNKEPT_ATTEMPTS,
    retryMs: bound.unkeptRetryMs ?? DECISION_UNKEPT_RETRY_MS,
  };
  return async (decided, rule, applies, withdrawn) => {
    const record = decisionRecordOf(decided);
    if (!record) return;
    // A race test holds a decision here, made and not yet written.
    const paused = pausePoint('user_input.before_decision_recorded');
    if (paused) await paused;
    const { keepRule, ruleStands } = bound;
    if (rule && !keepRule) throw new Error('an "always" to keep, and no place to keep it');
    if (applies && !ruleStands) throw new Error("a rule's answer, and no way to read its rule");
    const alsoKeep = async (tx: RepoContext) => {
      // Rolls the row back with it: no "allowed by rule" line after the rule's revoke.
      if (applies && ruleStands && !(await ruleStands(tx, applies))) throw new ConsentRuleGone();
      // A person's decision stands only while they still belong where it was asked.
      if (!applies && !(await responderStands(tx, decided))) throw new ResponderGone();
      // Rolled back too: no "allowed by rule" line for a call the person's Stop withdrew.
      if (withdrawn?.aborted) throw new AnswerWithdrawn();
      if (rule && keepRule) await keepRule(tx, rule);
    };
    const budget = startBudget(maxMs, clock, timers);
    let rowId: string | undefined;
    let refused = false;
    let publish: () => void = () => undefined;
    const written = recordDecision(
      sessions,
      decided,
      record,
      {
        remainingMs: () => budget.remainingMs(),
        signal: budget.signal,
        unconfirmed: (staged) => {
          publish = staged;
        },
        // Committed after its answer was refused: no watcher hears of it as a decision.
        publishes: () => !refused,
      },
      (id) => {
        rowId = id;
      },
      alsoKeep,
    );
    try {
      if ((await withinBudget(budget, written)) === EXHAUSTED) throw new BudgetExhausted();
      // Withdrawn while its commit was on the way: refused like any, its kept row superseded.
      // From here to the agent's answer no other event can run (the registry's code only).
      if (withdrawn?.aborted) throw new AnswerWithdrawn();
      // Kept, and not yet heard by the agent: a crash here is what recovery tells of.
      failpoint('user_input.after_decision_recorded');
    } catch (error) {
      const lost = isStorageUnavailable(error) && error.reason === 'unreachable';
      const kept =
        rowId !== undefined && lost && (await keptWithin(budget, messageExists(store, rowId)));
      if (kept && !withdrawn?.aborted) {
        // Kept after all: watchers hear of its row as of any write's.
        publish();
        if (rule) bound.ruleKept?.(rule.setBy.user_id);
        return;
      }
      // Refused: a row its write keeps must not stand.
      refused = true;
      void supersedeWhenEnded(unkept, decided, written, () => rowId);
      throw error;
    } finally {
      budget.dispose();
    }
    // Committed and standing: the person's open lists of rules read again.
    if (rule) bound.ruleKept?.(rule.setBy.user_id);
  };
}

/** Whether the read says the row was kept, within what is left of the budget; unknown is no. */
async function keptWithin(budget: Budget, read: Promise<boolean>): Promise<boolean> {
  const answered = read.catch(() => false);
  try {
    return (await withinBudget(budget, answered)) === true;
  } catch {
    // The budget ran out before the read: its fate is unknown.
    return false;
  }
}

/** A recorder's writer and bounds, resolved, as a refused decision's supersede uses them. */
interface UnkeptSupersede {
  readonly sessions: SessionWriter;
  readonly clock: RepoContext['clock'];
  readonly timers: Timers;
  readonly maxMs: number;
  readonly logger: Logger | undefined;
  readonly waitMaxMs: number;
  readonly attempts: number;
  readonly retryMs: number;
}

/**
 * Once a refused decision's write ended (or was waited for long enough), its
 * row, if the write appended one, is superseded (`supersedeRefusedDecision`),
 * each try within the decision's bound. Never rejects.
 */
async function supersedeWhenEnded(
  deps: UnkeptSupersede,
  decided: UserInputView,
  written: Promise<void>,
  rowIdOf: () => string | undefined,
): Promise<void> {
  // Settled either way, or waited for long enough: the session's lock still orders the two.
  await withinFreshBudget(deps.waitMaxMs, deps.clock, deps.timers, () => written.then(noop, noop));
  const rowId = rowIdOf();
  // The write never got as far as its row: nothing can have been kept.
  if (rowId === undefined) return;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const superseded = await withinFreshBudget(deps.maxMs, deps.clock, deps.timers, (budget) =>
        supersedeRefusedDecision(deps.sessions, decided, rowId, {
          remainingMs: () => budget.remainingMs(),
          signal: budget.signal,
        }),
      );
      if (superseded === EXHAUSTED) throw new BudgetExhausted();
      return;
    } catch (error) {
      if (attempt >= deps.attempts) {
        // Left to the request's next answer, whose write supersedes it too.
        deps.logger?.error(
          { err: error, request_id: decided.id, message_id: rowId, attempts: attempt },
          'user_input.unkept_decision_not_superseded',
        );
        return;
      }
    }
    await new Promise<void>((resolve) => deps.timers.setTimeout(resolve, deps.retryMs));
  }
}

function noop(): void {}

/** The registry's follow-up port on top of admission. */
export function followUpAdmitter(
  turns: () => TurnsDeps | undefined,
): UserInputPorts['admitFollowUp'] {
  return async ({ sessionId, requestId, text, author }): Promise<FollowUpAdmission> => {
    const deps = turns();
    if (!deps) return 'busy';
    const result = await admitMachineMessage(deps, sessionId, {
      text,
      admissionKey: requestId,
      userId: author.user_id,
      metadata: { user_input_request_id: requestId },
    });
    if (result.ok) return result.outcome === 'sent' ? 'accepted' : 'busy';
    switch (result.code) {
      // No agent may start now (`quota_exceeded`): tried again later, like a busy session.
      // The agent runs but did not take it (`storage_unavailable`: and that is not written
      // yet, so its key is not free): tried again later too.
      case 'session_busy':
      case 'quota_exceeded':
      case 'agent_unavailable':
      case 'storage_unavailable':
        return 'busy';
      // Its agent failed: a person's restart brings it back, and the answer is still owed then
      // (an ordinary error never drops one; the person may remove it from the queue).
      case 'session_failed':
        return ownerGone(result.details) ? 'refused' : 'busy';
      case 'session_refused':
      case 'not_found':
        return 'refused';
    }
  };
}

/**
 * A session failed because its person was deleted, or removed from its
 * workspace: no restart brings its agent back (for a removed person, not
 * until an admin adds them back), so the answer is not owed to it.
 */
function ownerGone(details: unknown): boolean {
  const said = (details as { failure?: { code?: unknown } | null } | undefined)?.failure;
  return said?.code === 'owner_deleted' || said?.code === 'owner_removed';
}

/**
 * A permission request no person could be shown (no option a person can
 * choose): the ACP host logs its message with the session and answers the
 * agent `cancelled`, and the transcript says it was not shown and why, so
 * the refusal is never silent.
 */
export class ConsentNotAsked extends Error {
  readonly code = 'consent_not_asked';

  constructor(readonly problems: string) {
    super(`a permission request could not be shown to a person: ${problems}`);
    this.name = 'ConsentNotAsked';
  }
}

/**
 * Turns `session/request_permission` into a consent request and its outcome
 * back into ACP: a person's choice is `selected`; a timeout or sweep is
 * `cancelled`, which agents read as "not allowed", distinct from a chosen
 * reject. A request over its agent's open-request bound is answered with an
 * error saying so (`refused-requests.ts`); one outside any turn is answered
 * `cancelled`, logged and noted.
 */
export function consentHandler(
  launch: Pick<AgentLaunchDeps, 'store'>,
  registry: () => UserInputRegistry | undefined,
  refusals: RefusalDeps = UNNOTED_REFUSALS,
): PermissionHandler {
  return async (sessionId, request: RequestPermissionRequest, context) => {
    const cancelled: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
    const live = registry();
    const session = await getSession(launch.store, sessionId);
    if (!live || !session) return cancelled;
    const asked = consentOf(request);
    // Outside any turn (the host hands it over already ended): no turn's end could say when it
    // stopped standing, so nobody is asked and no rule answers it.
    if (context.turnId === undefined && context.ended.aborted) {
      await noteOutsideTurn(refusals, { sessionId, kind: 'consent', title: asked.title });
      return cancelled;
    }
    const created = live.request({
      kind: 'consent',
      sessionId,
      taskId: session.task_id,
      profile: session.agent_profile,
      ...asked,
      signal: context.signal,
      turnEnd: context.ended,
    });
    if (!created.ok && created.code === 'invalid_request') {
      // Nobody was asked: the person reads so in the transcript, the agent hears `cancelled`.
      await noteUnshowable(refusals, {
        sessionId,
        turnId: context.turnId,
        kind: 'consent',
        title: asked.title,
        problems: problemsOf(created),
      });
      throw new ConsentNotAsked(created.message ?? 'invalid request');
    }
    if (!created.ok && created.code === 'too_many_open_requests') {
      throw await refusedOverBound(refusals, {
        sessionId,
        turnId: context.turnId,
        kind: 'consent',
        title: asked.title,
        failure: created,
      });
    }
    // The registry is closing with the server (the agent is being stopped too): no person is
    // asked, so it is not allowed.
    if (!created.ok) return cancelled;
    const outcome = await created.outcome;
    return outcome.kind === 'selected'
      ? { outcome: { outcome: 'selected', optionId: outcome.option_id } }
      : cancelled;
  };
}

/** What a consent says when the agent's tool call has no title of its own. */
const UNTITLED = 'Run a tool';

type AgentOption = RequestPermissionRequest['options'][number];

/**
 * An agent's permission request as the registry takes it, shaped so that
 * whatever can be shown reaches a person. Everything is the agent's text, so
 * it is made storable (a NUL would fail the decision's row on PostgreSQL).
 * A long title (Claude's adapter titles a shell call with its whole command)
 * is cut to the limit, its whole text kept among the details. Pure.
 */
function consentOf(
  request: RequestPermissionRequest,
): Pick<
  ConsentRequestInput,
  'toolKey' | 'command' | 'title' | 'toolCallId' | 'details' | 'options'
> {
  const toolCall = request.toolCall;
  const said = storableText(toolCall.title ?? '');
  const whole = isBlankText(said) ? UNTITLED : said;
  const title = clippedText(whole, MAX_USER_INPUT_TITLE_CHARS);
  const details = permissionDetails(toolCall);
  const kind = toolCall.kind ?? '';
  return {
    toolKey: isBlankText(kind) ? whole : storableText(kind),
    // The whole title, never the cut one: an "always" must not cover another command that starts
    // alike, nor (keyed on the kind alone) every other command of its kind.
    command: coveredCommand(whole, permissionCommand(toolCall)),
    title,
    toolCallId: toolCall.toolCallId,
    details: title === whole ? details : withWholeTitle(details, whole),
    options: choosable(request.options),
  };
}

/**
 * What an "always" for this call covers: its whole title, and the command it
 * runs unless the title is that command ("Run a tool", "Terminal", or any
 * title an agent chose), so that a rule never answers another command asked
 * under the same title. A title that is its command (Claude's adapter titles
 * a shell call with it, in backticks) is the key alone, as rules were kept
 * before. One that merely contains it is not: `rm -rf /` is in the title
 * `rm -rf /tmp/scratch`.
 */
function coveredCommand(title: string, runs: string | undefined): string {
  if (runs === undefined || isBlankText(runs) || titleIsCommand(title, runs)) return title;
  return `${title}\n${runs}`;
}

/**
 * A cut title's whole text as the first detail, unless a detail already shows
 * more of it than the title does (the command from the raw input).
 */
function withWholeTitle(details: ConsentDetail[], whole: string): ConsentDetail[] {
  const shown = details.some((detail) => {
    if (detail.type !== 'text') return false;
    const text = detail.text.endsWith('…') ? detail.text.slice(0, -1) : detail.text;
    return text.length >= MAX_USER_INPUT_TITLE_CHARS && whole.includes(text);
  });
  if (shown) return details;
  const text: ConsentDetail = { type: 'text', text: clippedText(whole, MAX_CONSENT_DETAIL_CHARS) };
  return [text, ...details].slice(0, MAX_CONSENT_DETAILS);
}

const OPTION_KINDS: ReadonlySet<string> = new Set(CONSENT_OPTION_KINDS);

function isOptionKind(kind: string): kind is ConsentOptionKind {
  return OPTION_KINDS.has(kind);
}

/**
 * The agent's options a person can choose: an ID that is storable text (a
 * person's answer naming it is refused otherwise), the first of a repeated
 * ID, a kind the registry knows, and the first of options a person reads as
 * one choice (`consentOptionsReadingTheSame`: of one kind, so each does what
 * the other does in Clarion's words; two buttons reading alike would only
 * leave a person guessing which one they pressed). Past the limit the first
 * option of each kind stays, so a person can still refuse, then the rest in
 * the agent's order.
 */
function choosable(options: readonly AgentOption[]): ConsentOption[] {
  const ids = new Set<string>();
  const known: ConsentOption[] = [];
  for (const option of options) {
    const id = option.optionId;
    if (id.trim() === '' || textProblem(id) || ids.has(id) || !isOptionKind(option.kind)) continue;
    ids.add(id);
    known.push({ option_id: id, label: storableText(option.name), kind: option.kind });
  }
  const twins = consentOptionsReadingTheSame(known);
  const usable = known.filter((_, index) => twins[index] === undefined);
  if (usable.length <= MAX_CONSENT_OPTIONS) return usable;
  const kept = new Set<ConsentOption>();
  for (const kind of CONSENT_OPTION_KINDS) {
    const first = usable.find((option) => option.kind === kind);
    if (first) kept.add(first);
  }
  for (const option of usable) {
    if (kept.size >= MAX_CONSENT_OPTIONS) break;
    kept.add(option);
  }
  return usable.filter((option) => kept.has(option));
}
