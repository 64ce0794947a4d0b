/**
 * An agent's ACP request (permission, form, link) that no person was asked.
 * Over its agent's open-request bound: the agent hears why as an error
 * (`AgentRequestRefused`), not the `cancelled` it would read as a cancelled
 * turn; the log names the session; and the session's transcript says the
 * request was never shown (once per turn for each request, however often the
 * agent retries it), so the person learns the agent waits on the ones
 * already open. One Clarion cannot show (`refusedUnshowable`): an error
 * naming the problems, never the `decline` an agent reads as the person's,
 * and a note saying what was not shown and why (the first few problems, cut
 * short: never the request, which may be as large as an agent sends).
 */
import { AgentRequestRefused } from '../agents/acp-host/index.js';
import type { SessionWriter } from '../events/index.js';
import { silentLogger, type Logger } from '../observability/index.js';
import { appendMessage, currentTurn, getSession, turnHasMessage } from '../store/index.js';
import {
  clippedText,
  MAX_NOTED_PROBLEM_CHARS,
  MAX_NOTED_PROBLEMS,
  OUTCOMES,
  type Failure,
  type Issue,
  USER_INPUT_REFUSED_TYPE,
  type UserInputNoteKind,
  type UserInputRefusedNote,
} from '../wire/index.js';

export interface RefusalDeps {
  /** Unset until the turns services are wired: the refusal is then only logged. */
  sessions: () => SessionWriter | undefined;
  logger: Logger;
}

/** For callers that never look at a refusal's log or note: the agent is told all the same. */
export const UNNOTED_REFUSALS: RefusalDeps = { sessions: () => undefined, logger: silentLogger };

export interface RefusedRequest {
  sessionId: string;
  /** The turn the request arrived in, when the host knows it; the session's latest otherwise. */
  turnId: string | undefined;
  kind: UserInputNoteKind;
  title: string;
  /** The registry's `too_many_open_requests`: its message and `{ open, limit }`. */
  failure: Failure;
}

const NOUNS: Record<UserInputNoteKind, string> = {
  consent: 'permission request',
  action: 'request',
  form: 'form',
};

export function refusedNoteText(note: UserInputRefusedNote): string {
  const shown = `The agent's ${NOUNS[note.kind]} "${note.title}" was not shown`;
  if (note.code === 'outside_turn') {
    return `${shown}: it came while the agent was not working on a prompt. The agent was told it was cancelled.`;
  }
  if (note.code === 'unshowable') {
    return (
      `${shown}: Clarion cannot show it to a person (${note.problems.join('; ')}). ` +
      'The agent was told, and nobody was asked.'
    );
  }
  return (
    `${shown}: the agent already waits on ` +
    `${note.limit} open requests, as many as it may. Answer one and it can ask again.`
  );
}

/**
 * Logs and notes `refused`, and returns the error the ACP host answers the
 * agent with. A note that cannot be written is logged: the agent hears why
 * all the same.
 */
export async function refusedOverBound(
  deps: RefusalDeps,
  refused: RefusedRequest,
): Promise<AgentRequestRefused> {
  const { sessionId, failure } = refused;
  const message = failure.message ?? OUTCOMES[failure.code].message;
  const details = detailsOf(failure);
  deps.logger.warn(
    { sessionId, kind: refused.kind, code: failure.code, ...details },
    'an agent request was refused over its open-request bound',
  );
  const limit = typeof details.limit === 'number' ? details.limit : 0;
  await noteRefusal(deps, refused, {
    kind: refused.kind,
    title: refused.title,
    code: 'too_many_open_requests',
    limit,
  });
  return new AgentRequestRefused(OUTCOMES[failure.code].wire, message, details);
}

export interface UnshowableRequest {
  sessionId: string;
  /** The turn the request arrived in, when the host knows it; the session's latest otherwise. */
  turnId: string | undefined;
  kind: UserInputNoteKind;
  /** The agent's title for it: what the person recognises in the note. */
  title: string;
  problems: readonly string[];
}

/**
 * Notes a request Clarion cannot show, and returns the error the ACP host
 * answers the agent with (`unshowableRequest`). A note that cannot be written
 * is logged: the agent hears why all the same.
 */
export async function refusedUnshowable(
  deps: RefusalDeps,
  refused: UnshowableRequest,
): Promise<AgentRequestRefused> {
  await noteUnshowable(deps, refused);
  return unshowableRequest(refused.kind, refused.problems);
}

/** The note alone, for a request whose agent hears of it otherwise; never throws. */
export async function noteUnshowable(deps: RefusalDeps, refused: UnshowableRequest): Promise<void> {
  const problems = refused.problems
    .slice(0, MAX_NOTED_PROBLEMS)
    .map((problem) => clippedText(problem, MAX_NOTED_PROBLEM_CHARS));
  await noteRefusal(deps, refused, {
    kind: refused.kind,
    title: refused.title,
    code: 'unshowable',
    problems,
  });
}

export interface OutsideTurnRequest {
  sessionId: string;
  kind: UserInputNoteKind;
  /** The agent's title for it: what the person recognises in the note. */
  title: string;
}

/**
 * A request that came while its agent ran no turn (an MCP sign-in link
 * while the agent starts): nobody is asked, as no turn's end could say when
 * it stopped standing, and the agent hears `cancel`. Logged, and noted in
 * the session's latest turn when it has one, so it never goes unseen. Never
 * throws.
 */
export async function noteOutsideTurn(
  deps: RefusalDeps,
  outside: OutsideTurnRequest,
): Promise<void> {
  const { sessionId, kind, title } = outside;
  deps.logger.warn({ sessionId, kind, title }, 'an agent request outside a turn was cancelled');
  await noteRefusal(deps, { sessionId, turnId: undefined }, { kind, title, code: 'outside_turn' });
}

function isIssueList(details: NonNullable<Failure['details']>): details is readonly Issue[] {
  return Array.isArray(details);
}

/** A refusal's input issues as `path: message` lines; its message alone when it has none. */
export function problemsOf(failure: { message?: string; details?: Failure['details'] }): string[] {
  const { details } = failure;
  if (details !== undefined && isIssueList(details) && details.length > 0) {
    return details.map((issue) =>
      issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`,
    );
  }
  return [failure.message ?? 'the request is malformed'];
}

function detailsOf(failure: Failure): Readonly<Record<string, unknown>> {
  const { details } = failure;
  return details === undefined || isIssueList(details) ? {} : details;
}

/** Writes the note; one that cannot be written is logged, never thrown. */
async function noteRefusal(
  deps: RefusalDeps,
  refused: { sessionId: string; turnId: string | undefined },
  metadata: UserInputRefusedNote,
): Promise<void> {
  try {
    await writeNote(deps, refused, metadata);
  } catch (error) {
    deps.logger.warn(
      { sessionId: refused.sessionId, err: error },
      'the refusal could not be noted in the transcript',
    );
  }
}

async function writeNote(
  deps: RefusalDeps,
  refused: { sessionId: string; turnId: string | undefined },
  metadata: UserInputRefusedNote,
): Promise<void> {
  const sessions = deps.sessions();
  if (!sessions) return;
  await sessions.write(refused.sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, refused.sessionId);
    const turnId = refused.turnId ?? (await currentTurn(tx, refused.sessionId))?.id;
    if (!session || turnId === undefined) return;
    const content = refusedNoteText(metadata);
    // An agent that retries a refused request is noted once per turn, not once per try.
    if (await turnHasMessage(tx, turnId, USER_INPUT_REFUSED_TYPE, content)) return;
    write.added(
      await appendMessage(tx, {
        sessionId: refused.sessionId,
        taskId: session.task_id,
        turnId,
        authorType: 'system',
        type: USER_INPUT_REFUSED_TYPE,
        content,
        metadata: { ...metadata },
      }),
    );
  });
}

/** How many of an unshowable request's problems its error names (a form may have a thousand choices). */
const NAMED_PROBLEMS = 10;

/**
 * The error an agent hears for a form, question or link Clarion cannot show
 * a person: bad input of the agent's, named, and nobody asked. ACP's
 * `decline` would tell the agent (and Claude Code's model) that the person
 * skipped it.
 */
export function unshowableRequest(
  kind: UserInputNoteKind,
  problems: readonly string[],
): AgentRequestRefused {
  const named = problems.slice(0, NAMED_PROBLEMS);
  const more =
    problems.length > named.length ? ` (and ${problems.length - named.length} more)` : '';
  return new AgentRequestRefused(
    OUTCOMES.invalid_request.wire,
    `Clarion cannot show this ${NOUNS[kind]} to a person, so nobody was asked: ` +
      `${named.join('; ')}${more}`,
    { problems: named },
  );
}
