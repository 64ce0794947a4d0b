/**
 * The registry's contract with the rest of the server: the ports it is given
 * (clock, IDs, timers, publisher, admission, logger) and the API it offers to
 * the ACP host, the MCP server, the queue and REST. Types only.
 */
import type { Clock } from '../support/index.js';
import type { IdSource } from '../support/index.js';
import type { Timers } from '../support/index.js';
import type { Failure, FormFieldError } from '../wire/index.js';
import type { RequestInput, TurnEndWatch } from './request-input.js';
import type {
  AgentOutcome,
  FollowUpAdmission,
  HumanResponse,
  MachineQueueItem,
  Responder,
  TurnOutcome,
  UserInputView,
} from './types.js';

/** The subset of a pino logger the registry uses. */
export interface UserInputLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface FollowUpAdmissionInput {
  sessionId: string;
  /** Also the admission key: repeats of one follow-up are one message. */
  requestId: string;
  text: string;
  /** The person whose answer this follow-up carries: the message is theirs, sent for them. */
  author: Responder;
}

export interface UserInputPorts {
  clock: Clock;
  ids: IdSource;
  timers: Timers;
  /**
   * After every state change: the request's view with its new revision, and
   * whether its follow-up joined or left the session queue (`queueChanged`)
   * with no session write of the caller's to say so.
   */
  publish(view: UserInputView, change: { queueChanged: boolean }): void;
  /** Optional observer of agent answers; the agent itself waits on `request(...).outcome`. */
  answerAgent?(requestId: string, outcome: AgentOutcome): void;
  /**
   * Admits a follow-up as an ordinary user message keyed by `requestId`,
   * recorded as written by `author`, the person who answered.
   * `accepted`: the message is in the session (now or by an earlier attempt);
   * `busy`: the session is running a turn, try later; `refused`: it never can
   * (session ended or gone). A throw is a failed attempt, retried.
   */
  admitFollowUp(input: FollowUpAdmissionInput): Promise<FollowUpAdmission>;
  /**
   * Keeps a person's decision (what, by whom, where) durably before it takes
   * effect: `decided` is the request as the answer will leave it. The
   * registry holds the request's other events until this settles, then
   * applies the answer; on a throw the answer is refused (`not_recorded`),
   * the agent hears nothing and the request waits on. It must end within a
   * bound of its own. Absent (unit tests), nothing is kept. A person's
   * "Always allow" comes with its `rule`, kept by the same write: a decision
   * row never names a rule that was not kept. A standing rule's answer comes
   * with the rule it `applies`: the write refuses it (`ConsentRuleGone`) unless
   * that rule still stands as it commits, so a rule revoked meanwhile answers
   * nothing; and with the agent's call (`withdrawn`: the person's Stop or the
   * agent's own cancel), which refuses it (`AnswerWithdrawn`)
   * once aborted before the write returns, a row kept all the same being
   * superseded: a rule never answers a call nobody waits on any more. A
   * person's decision is refused (`ResponderGone`) when they no longer belong
   * to the request's workspace as it commits.
   */
  recordDecision?(
    decided: UserInputView,
    rule?: ConsentRuleToKeep,
    applies?: ConsentRuleToKeep,
    withdrawn?: AbortSignal,
  ): Promise<void>;
  /**
   * Keeps a copy of a request about to wait on a person, for recovery to say
   * it ended (a restart loses the registry). The request is opened (seen,
   * answerable) only once this settled, so none can be answered without its
   * copy; a throw is logged and the request opens all the same. It must end
   * within a bound of its own. Absent (unit tests), requests open at once.
   */
  keepOpen?(awaiting: UserInputView): Promise<void>;
  /**
   * Writes in `ended`'s session transcript that it ended unanswered because
   * its agent stopped, for a request no turn's end names (`lostWithAgent`).
   * Runs on its own (never throws, bounded by its store); absent (unit
   * tests), nothing is written.
   */
  noteEnded?(ended: UserInputView): void;
  logger: UserInputLogger;
  /**
   * Durable "Always allow" rules. Given, each consent asks it before it asks
   * a person, and `recordDecision` must be given too: it keeps each "always"
   * in its decision's write. Absent (unit tests), the registry remembers
   * "always" in memory.
   */
  consentRules?: ConsentRulesPort;
  /** How long a request waits for a person (and for a lost call's turn end); the defaults when absent. */
  deadlines?: Partial<UserInputDeadlines>;
  /** Requests one session's agent may hold open at once; `OPEN_USER_INPUTS_PER_AGENT` when absent. */
  openPerAgent?: number;
}

export interface ConsentRuleQuery {
  sessionId: string;
  taskId: string;
  profile: string;
  toolKey: string;
  command: string;
}

/**
 * What `recordDecision` throws for a standing rule's answer whose rule was
 * revoked (or whose person left) before the record committed: an expected
 * outcome of that race, not a storage failure; the request is asked of a
 * person.
 */
export class ConsentRuleGone extends Error {
  readonly code = 'consent_rule_gone';

  constructor() {
    super('the "Always allow" rule was revoked before its answer was recorded');
    this.name = 'ConsentRuleGone';
  }
}

/**
 * What `recordDecision` throws for a person's decision when, as it commits,
 * they no longer belong to the request's workspace (an admin removed or
 * deleted them while it was being recorded): only someone with standing
 * decides, so it is refused as if they had never seen the request.
 */
export class ResponderGone extends Error {
  readonly code = 'responder_gone';

  constructor() {
    super("the person deciding no longer belongs to the request's workspace");
    this.name = 'ResponderGone';
  }
}

/**
 * What `recordDecision` throws for a standing rule's answer whose agent's
 * call was withdrawn (the person stopped the turn) before the record
 * returned: the rule answers nothing and nobody is asked.
 */
export class AnswerWithdrawn extends Error {
  readonly code = 'answer_withdrawn';

  constructor() {
    super("the agent's call was withdrawn before its rule's answer was recorded");
    this.name = 'AnswerWithdrawn';
  }
}

/** Standing rules are read here; a person's "always" is kept by `recordDecision`, with its decision. */
export interface ConsentRulesPort {
  /** The person whose standing rule answers this consent, or null: ask a person. */
  find(query: ConsentRuleQuery): Promise<Responder | null>;
}

/** A person's "always": the profile's tool and command, where `taskId` runs, and who set it. */
export interface ConsentRuleToKeep {
  taskId: string;
  profile: string;
  toolKey: string;
  command: string;
  setBy: Responder;
}

export interface UserInputDeadlines {
  consentMs: number;
  actionMs: number;
  formMs: number;
  /** How long a request whose call's connection closed waits for its turn's end. */
  lostCallMs: number;
}

/**
 * A request opened, or why not: `invalid_request` with its problems in the
 * message (joined by "; "), `shutting_down` once the registry closed,
 * `too_many_open_requests` when its agent already holds as many as it may
 * (nothing was kept, published or told to anyone).
 */
export type RequestResult =
  | { ok: true; id: string; outcome: Promise<AgentOutcome> }
  | Failure<'invalid_request' | 'shutting_down' | 'too_many_open_requests'>;

export type UserInputRespondResult =
  | { ok: true; request: UserInputView }
  | { ok: false; code: 'not_found' | 'already_settled' | 'invalid' }
  /** It ended unanswered because the agent that asked exited. */
  | { ok: false; code: 'agent_exited' }
  /** The decision could not be kept, so it was not given: the request still waits. */
  | { ok: false; code: 'not_recorded' }
  /** A reason was given with an option other than a reject. */
  | { ok: false; code: 'reason_not_allowed' }
  | { ok: false; code: 'invalid_content'; errors: FormFieldError[] };

export type QueueItemResult =
  { ok: true } | { ok: false; code: 'not_found' | 'already_settled' | 'in_flight' | 'not_queued' };

export interface UserInputRegistry {
  request(input: RequestInput): RequestResult;
  /**
   * A person's answer; `responder` is who gave it and where (agents never
   * reach here). It takes effect only once `recordDecision` kept it; answers
   * to one request are judged one after another.
   */
  respond(
    requestId: string,
    response: HumanResponse,
    responder: Responder,
  ): Promise<UserInputRespondResult>;
  get(requestId: string): UserInputView | undefined;
  /** Live requests (awaiting, armed, due), oldest first, optionally only of visible sessions. */
  snapshot(visibleSessionIds?: ReadonlySet<string>): UserInputView[];
  /** What the session's live requests wait for, the most blocking first: consent, form, action. */
  pendingActionOf(sessionId: string): 'consent' | 'form' | 'action' | null;
  /**
   * The session's turn ended: settles its open requests that end with it (an
   * action outlives a normal end). One still opening is not here yet: its
   * `turnEnd` settles it as it opens.
   */
  turnEnded(sessionId: string, outcome: TurnOutcome): void;
  /**
   * Tells of the session's next `turnEnded`: a caller that reads whether a
   * turn runs before it asks takes this first, so a turn that ends between
   * its read and its request's opening is not missed (`turnEndSinceCheck`).
   * Kept until that end, the session's deletion or the registry's close.
   */
  nextTurnEnd(sessionId: string): TurnEndWatch;
  /**
   * The session's waiting requests `turnEnded(sessionId, outcome)` would end
   * unanswered, as they stand now (the turn's end writes their note before
   * the registry hears of it). Changes nothing but this: one whose call's
   * connection closed no longer gets swept by the wait's bound, since its
   * note now says how it ends; and an answer to one is refused from now, as
   * `agent_exited` when the agent exited (`agentExitNamed`), as settled when a
   * person's Stop ended the turn (`stopNamed`).
   */
  endedByTurnEnd(sessionId: string, outcome: 'agent_exited' | 'cancelled'): UserInputView[];
  supersede(requestId: string): boolean;
  /** Settle (`swept`) before the rows go; each returns how many requests it settled. */
  sessionDeleted(sessionId: string): number;
  /**
   * Several replicas: another one took the session over while this one did
   * not run (fencing). Its requests leave memory without publishing anything
   * (their rows and mirror are the other replica's now); a waiting agent
   * call is refused. How many were dropped.
   */
  forgetSession(sessionId: string): number;
  taskDeleted(taskId: string): number;
  reset(): number;
  queuedFollowUps(sessionId: string): MachineQueueItem[];
  /** Queue delete/clear, under the queue lock: the driver can no longer start the item. */
  claimQueued(sessionId: string, requestId: string): QueueItemResult;
  /** Settles a claimed (or still queued) follow-up `rejected`. */
  reject(requestId: string): QueueItemResult;
  /** Puts a claimed item back when its removal could not complete. */
  restoreQueued(requestId: string): QueueItemResult;
  /**
   * Resolves once no admission attempt is in flight: of `sessionId` when
   * given (a turn's end waits for its own follow-ups, not for another
   * session's agent to start), else of any session.
   */
  drain(sessionId?: string): Promise<void>;
  /** Sweeps every live request and stops all timers; later requests are refused. */
  close(): void;
}
