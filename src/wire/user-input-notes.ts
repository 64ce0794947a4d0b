/**
 * The transcript notes about an agent's consent, action or form request that
 * ended without its agent hearing a person: recovery writes them for one its
 * registry lost (a restart, or on PostgreSQL the death of the replica that
 * held it), and a turn's end for one whose agent's process exited or that a
 * person's Stop ended. Zod-free, so the web app reads the notes'
 * metadata with the same names and words it in the reader's language; the
 * note's `content` is the server's English, for readers without the web app
 * and for a value the web app does not know.
 *
 * - `user_input_ended` (`USER_INPUT_ENDED_TYPE`): the request ended
 *   unanswered.
 * - `user_input_decision_unconfirmed`: a person's decision on it was
 *   recorded, but the agent's turn never finished after it, so nothing says
 *   the agent received it. Never a claim that it did or did not.
 * - `user_input_refused`: the request was never shown, because its agent
 *   already held as many open as it may, or because Clarion cannot show it
 *   (past a form's limits, a kind it does not know); the agent heard so as
 *   an error. Or because it came while no turn ran (`outside_turn`: an MCP
 *   sign-in link while the agent starts), which the agent heard as `cancel`.
 */
import { USER_INPUT_ENDED_TYPE } from './constants.js';

export { USER_INPUT_ENDED_TYPE };

/** The note that a recorded decision may not have reached the agent (author `system`). */
export const USER_INPUT_DECISION_UNCONFIRMED_TYPE = 'user_input_decision_unconfirmed';

/**
 * Why a request ended unheard: its server restarted, its replica died, the
 * agent that asked exited while it waited, or a person stopped the turn that
 * asked it (the Stop's own line says who).
 */
export const USER_INPUT_LOSSES = ['restart', 'replica_gone', 'agent_exited', 'stopped'] as const;
export type UserInputLoss = (typeof USER_INPUT_LOSSES)[number];

export const USER_INPUT_NOTE_KINDS = ['consent', 'action', 'form'] as const;
export type UserInputNoteKind = (typeof USER_INPUT_NOTE_KINDS)[number];

/** Both notes' `metadata`. */
export interface UserInputNote {
  request_id: string;
  kind: UserInputNoteKind;
  /** The request's title as the agent gave it. */
  title: string;
  loss: UserInputLoss;
}

/**
 * The note that an agent's consent, action or form request was never shown
 * to anyone (author `system`), and the agent was told so: its agent already
 * held as many open as it may (`too_many_open_requests`), or Clarion cannot
 * show it (`unshowable`: the first few problems, each cut short; never the
 * request itself, which may be as large as an agent cares to send).
 */
export const USER_INPUT_REFUSED_TYPE = 'user_input_refused';

/** The refusal note's `metadata`. */
export type UserInputRefusedNote =
  | {
      kind: UserInputNoteKind;
      /** The request's title as the agent gave it. */
      title: string;
      code: 'too_many_open_requests';
      /** How many requests an agent may hold open at once. */
      limit: number;
    }
  | {
      kind: UserInputNoteKind;
      title: string;
      code: 'unshowable';
      /** Why, as `path: message` lines: at most `MAX_NOTED_PROBLEMS` of `MAX_NOTED_PROBLEM_CHARS`. */
      problems: string[];
    }
  | {
      kind: UserInputNoteKind;
      title: string;
      /** It came while the agent ran no turn: no turn's end could say when it stopped standing. */
      code: 'outside_turn';
    };

/**
 * The JSON-RPC error code an ACP agent's request is refused with, in the
 * server-error range ACP leaves to implementations; the error's `data.code`
 * names the outcome (`too_many_open_requests`).
 */
export const ACP_REFUSAL_ERROR_CODE = -32050;

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/**
 * The note's metadata when every field is one this build knows; undefined
 * otherwise (an older note without `loss`, a newer server's value), and the
 * reader shows the note's own text.
 */
export function userInputNoteOf(
  metadata: Readonly<Record<string, unknown>>,
): UserInputNote | undefined {
  const { request_id: requestId, kind, title, loss } = metadata;
  if (typeof requestId !== 'string' || typeof title !== 'string') return undefined;
  if (!isOneOf(USER_INPUT_NOTE_KINDS, kind) || !isOneOf(USER_INPUT_LOSSES, loss)) return undefined;
  return { request_id: requestId, kind, title, loss };
}

/** The refusal note's metadata when this build can word it; undefined otherwise. */
export function userInputRefusedNoteOf(
  metadata: Readonly<Record<string, unknown>>,
): UserInputRefusedNote | undefined {
  const { kind, title, code, limit, problems } = metadata;
  if (typeof title !== 'string' || !isOneOf(USER_INPUT_NOTE_KINDS, kind)) return undefined;
  if (code === 'too_many_open_requests' && typeof limit === 'number') {
    return { kind, title, code, limit };
  }
  if (
    code === 'unshowable' &&
    Array.isArray(problems) &&
    problems.every((problem): problem is string => typeof problem === 'string')
  ) {
    return { kind, title, code, problems };
  }
  if (code === 'outside_turn') return { kind, title, code };
  return undefined;
}
