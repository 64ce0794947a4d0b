/**
 * What an agent-facing caller (ACP host, MCP tool) hands the registry to open
 * a request, and the pure checks it must pass. Callers parse wire input with
 * their own schemas; this guards the registry's invariants (options exist, are
 * unique and read differently to a person, a URL shown to a person is
 * http(s), a consent's text is storable).
 */
import type {
  ConsentDetail,
  ConsentOption,
  ConsentOptionKind,
  FormSchema,
  TurnOutcome,
} from './types.js';

import {
  consentOptionsReadingTheSame,
  formSchema,
  MAX_ACTION_INSTRUCTIONS_CHARS as MAX_INSTRUCTIONS_CHARS,
  MAX_CONSENT_OPTIONS,
  MAX_FORM_MESSAGE_CHARS,
  MAX_URL_CHARS,
  MAX_USER_INPUT_TITLE_CHARS as MAX_TITLE_CHARS,
  textProblem,
} from '../wire/index.js';

interface RequestInputBase {
  sessionId: string;
  taskId: string;
  /** The agent withdrew its call: an awaiting request is then swept. */
  signal?: AbortSignal;
  /**
   * The connection carrying the agent's call closed, which a killed agent's
   * does before its exit is seen: the request waits for the turn that asked
   * to end (`agent_exited` if it exited, else swept), at most
   * `LOST_CALL_TURN_END_WAIT_MS`, then is swept.
   */
  connectionLost?: AbortSignal;
  /**
   * `connectionLost` is the agent process's own (ACP's pipes), which closes
   * only once the agent is gone. After the request's turn ended, no turn's
   * end is left to say so: it then ends `agent_exited` at once, and its
   * session's transcript says so (`noteEnded`), as for a request its own
   * turn's end named.
   */
  lostWithAgent?: boolean;
  /**
   * Aborted once the turn that asked ended, for a request that ends with it
   * (a consent, a form of a turn). That end settles the requests open then
   * (`turnEnded`); one still opening (its rule read, its copy kept) is
   * settled as it opens instead, `swept`, so none outlives its turn.
   */
  turnEnd?: AbortSignal;
}

export interface ConsentRequestInput extends RequestInputBase {
  kind: 'consent';
  /** The agent profile; with `toolKey` and `command` it is what "allow always" remembers. */
  profile: string;
  /** The tool call's kind, else its whole title: what the card names as the tool. */
  toolKey: string;
  /** The tool call's whole title (a shell call's command), uncut: what the person was shown. */
  command: string;
  title: string;
  toolCallId?: string | null;
  options: readonly ConsentOption[];
  /** What the tool call will do (its command, its diffs), for the person to read. */
  details?: readonly ConsentDetail[];
}

export interface ActionRequestInput extends RequestInputBase {
  kind: 'action';
  title: string;
  instructions: string;
  url?: string | null;
  /** Default true: see `ActionRequest.followUp`. */
  followUp?: boolean;
  /** See `ActionRequest.outsideTurn`. */
  outsideTurn?: boolean;
  /**
   * The registry's `nextTurnEnd`, taken before the caller read that a turn
   * runs (`outsideTurn` false). When that turn ended before the request
   * opened, its end missed the request: the request opens as that end would
   * have left it, so it never waits on a later turn's end.
   */
  turnEndSinceCheck?: TurnEndWatch;
}

/** The session's next turn end as the registry hears of it: its outcome once it came. */
export interface TurnEndWatch {
  readonly outcome: TurnOutcome | undefined;
}

export interface FormRequestInput extends RequestInputBase {
  kind: 'form';
  /** What the agent says it needs; the card's title is the schema's title or its first line. */
  message: string;
  schema: FormSchema;
  /** The turn that asked; null or absent for a form outside any turn. */
  turnId?: string | null;
}

export type RequestInput = ConsentRequestInput | ActionRequestInput | FormRequestInput;

/** A form's card title: its schema's title, else the message's first line, cut to the limit. */
export function formTitle(input: Pick<FormRequestInput, 'message' | 'schema'>): string {
  const title = input.schema.title?.trim() || input.message.trim().split('\n')[0]?.trim() || '';
  // By code point, so the cut never leaves half a surrogate pair.
  return Array.from(title).slice(0, MAX_TITLE_CHARS).join('');
}

const OPTION_KINDS: ReadonlySet<ConsentOptionKind> = new Set([
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
]);

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/**
 * A consent's or action's text is written to the store when a person answers
 * (the decision's row) and, with several servers, when it opens (the other
 * replicas' copy). PostgreSQL refuses a NUL there, long after the agent began
 * waiting: such text is refused here instead.
 */
function unstorable(what: string, value: unknown): string[] {
  const problem = typeof value === 'string' ? textProblem(value) : undefined;
  return problem === undefined ? [] : [`${what} ${problem}`];
}

function problemsOfConsent(input: ConsentRequestInput): string[] {
  const problems: string[] = [];
  if (!nonEmpty(input.profile)) problems.push('profile is required');
  if (!nonEmpty(input.toolKey)) problems.push('toolKey is required');
  if (!nonEmpty(input.command)) problems.push('command is required');
  problems.push(
    ...unstorable('title', input.title),
    ...unstorable('toolKey', input.toolKey),
    ...unstorable('command', input.command),
  );
  if (input.options.length === 0) problems.push('at least one option is required');
  if (input.options.length > MAX_CONSENT_OPTIONS) {
    problems.push(`${input.options.length} options, more than ${MAX_CONSENT_OPTIONS}`);
  }
  const seen = new Set<string>();
  input.options.forEach((option, index) => {
    const where = `options.${index}`;
    if (!nonEmpty(option.option_id)) problems.push(`${where}.option_id is required`);
    else if (seen.has(option.option_id)) problems.push(`${where}.option_id is a duplicate`);
    seen.add(option.option_id);
    problems.push(
      ...unstorable(`${where}.option_id`, option.option_id),
      ...unstorable(`${where}.label`, option.label),
    );
    if (!OPTION_KINDS.has(option.kind)) problems.push(`${where}.kind is unknown`);
  });
  consentOptionsReadingTheSame(input.options).forEach((first, index) => {
    if (first === undefined) return;
    problems.push(
      `options.${index} reads the same as options.${first}: a person could not tell them apart`,
    );
  });
  return problems;
}

function problemsOfAction(input: ActionRequestInput): string[] {
  const problems: string[] = [];
  if (!nonEmpty(input.title)) problems.push('title is required');
  if (typeof input.instructions !== 'string') problems.push('instructions must be text');
  else if (input.instructions.length > MAX_INSTRUCTIONS_CHARS)
    problems.push('instructions are too long');
  if (input.url !== undefined && input.url !== null && !isSafeUrl(input.url)) {
    problems.push('url must be an http(s) URL');
  }
  // Kept as given (the link a person opens), so its text must be storable as a consent's is.
  problems.push(
    ...unstorable('title', input.title),
    ...unstorable('instructions', input.instructions),
    ...unstorable('url', input.url),
  );
  return problems;
}

function problemsOfForm(input: FormRequestInput): string[] {
  const problems: string[] = [];
  if (!nonEmpty(input.message)) problems.push('message is required');
  else if (input.message.length > MAX_FORM_MESSAGE_CHARS) problems.push('message is too long');
  // The caller's schema is typed, but it came from an agent: parse it again.
  const parsed = formSchema.safeParse(input.schema);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`schema.${issue.path.join('.')}: ${issue.message}`);
    }
  }
  return problems;
}

/** Only http(s) links are shown to a person; `javascript:` and friends are refused. */
export function isSafeUrl(value: string): boolean {
  if (value.length > MAX_URL_CHARS) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Empty when the input may open a request; otherwise human-readable problems. */
export function requestInputProblems(input: RequestInput): string[] {
  const problems: string[] = [];
  if (!nonEmpty(input.sessionId)) problems.push('sessionId is required');
  if (!nonEmpty(input.taskId)) problems.push('taskId is required');
  if (input.kind === 'form') return problems.concat(problemsOfForm(input));
  if (typeof input.title !== 'string' || input.title.length > MAX_TITLE_CHARS) {
    problems.push(`title must be text of at most ${MAX_TITLE_CHARS} characters`);
  }
  return problems.concat(
    input.kind === 'consent' ? problemsOfConsent(input) : problemsOfAction(input),
  );
}
