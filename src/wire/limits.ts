/**
 * Every size and count limit of Clarion's wire contract, written once. Server
 * schemas, MCP tool schemas and the web app read these; nothing restates a
 * number. Plain constants, no zod, so the browser can import them for free.
 */

// ---------------------------------------------------------------- asking (DESIGN §5)
export const MAX_QUESTIONS = 4;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 6;
export const MAX_QUESTION_TITLE_CHARS = 80;
export const MAX_PROMPT_CHARS = 4000;
export const MAX_OPTION_LABEL_CHARS = 200;
export const MAX_OPTION_DESCRIPTION_CHARS = 1000;
export const MAX_CONTEXT_CHARS = 8000;
/** Question and option IDs: 1–64 of letters, digits, `_ . -`. */
export const MAX_ID_CHARS = 64;

// ---------------------------------------------------------------- responding (DESIGN §5.1)
/** Custom text and reject reasons, in Unicode code points (not UTF-16 units). */
export const MAX_ANSWER_TEXT_CODE_POINTS = 2000;
/** Pending IDs are UUIDs Clarion mints; anything longer is unknown without a lookup. */
export const MAX_PENDING_ID_CHARS = 128;

// ---------------------------------------------------------------- listing
export const DEFAULT_PENDING_PAGE = 50;
export const MAX_PENDING_PAGE = 200;
export const MAX_CURSOR_CHARS = 512;
export const DEFAULT_TRANSCRIPT_PAGE = 100;
export const MAX_TRANSCRIPT_PAGE = 500;
export const DEFAULT_DECISION_PAGE = 50;
export const MAX_DECISION_PAGE = 200;
export const DEFAULT_TASK_PAGE = 100;
export const MAX_TASK_PAGE = 500;

// ---------------------------------------------------------------- tasks, sessions, messages
export const MAX_TASK_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 32_000;
export const MAX_ADMISSION_KEY_CHARS = 128;
export const MAX_RECORD_ID_CHARS = 128;
export const MAX_PROFILE_NAME_CHARS = 64;
/** A task's working directory for its agents (PATH_MAX on Linux). */
export const MAX_CWD_CHARS = 4096;
export const MAX_QUEUE_ORDER_IDS = 1000;

// ---------------------------------------------------------------- accounts
export const MAX_ACCOUNT_NAME_CHARS = 200;
export const MAX_TOKEN_NAME_CHARS = 100;
/** Tokens one person may hold at once, so a script's loop cannot fill the table. */
export const MAX_TOKENS_PER_USER = 50;

// ---------------------------------------------------------------- notifications
export const MAX_CHANNEL_NAME_CHARS = 100;
export const MAX_CHANNELS_PER_USER = 20;
/** A webhook's signing secret, and an ntfy access token. */
export const MIN_CHANNEL_SECRET_CHARS = 16;
export const MAX_CHANNEL_SECRET_CHARS = 256;
/** Web Push subscription keys (base64url of a P-256 point and a 16-byte secret, with slack). */
export const MAX_PUSH_KEY_CHARS = 256;
/** A reminder later than a day helps nobody; 0 turns reminders off. */
export const MAX_REMINDER_DELAY_S = 86_400;
/** An answer link's secret as it appears in the link. */
export const MAX_ANSWER_LINK_TOKEN_CHARS = 256;
/** A sign-in link's secret; longer ones are not Clarion's (`clr_` and 43 characters are). */
export const MAX_SIGN_IN_TOKEN_CHARS = 512;

// ---------------------------------------------------------------- Web Push messages (issue 14)
/**
 * Largest plaintext of one push message: push services take 4096 bytes of
 * body, less the aes128gcm header (86), the tag (16) and the padding
 * delimiter (1) of RFC 8291's single record.
 */
export const MAX_WEB_PUSH_PLAINTEXT_BYTES = 3993;
/** A notification's title and body are cut to these, so a message always fits. */
export const MAX_WEB_PUSH_TITLE_CHARS = 120;
export const MAX_WEB_PUSH_BODY_CHARS = 400;

// ---------------------------------------------------------------- user-input requests (DESIGN §7)
export const MAX_CONSENT_OPTIONS = 16;
export const MAX_CONSENT_OPTION_ID_CHARS = 200;
/** What a consent shows of its tool call (a command, a diff): enough to decide, never a whole file. */
export const MAX_CONSENT_DETAILS = 4;
export const MAX_CONSENT_DETAIL_CHARS = 4_000;
export const MAX_USER_INPUT_TITLE_CHARS = 500;
export const MAX_ACTION_TITLE_CHARS = 200;
export const MAX_ACTION_INSTRUCTIONS_CHARS = 8000;
export const MAX_URL_CHARS = 2048;

// ---------------------------------------------------------------- form requests (issue 13)
/** Fields of one form: a form is a few questions, not a document. */
export const MAX_FORM_FIELDS = 20;
export const MAX_FORM_FIELD_NAME_CHARS = 64;
/** The agent's message above the form. */
export const MAX_FORM_MESSAGE_CHARS = 4000;
/** A form's, a field's or an option's title. */
export const MAX_FORM_LABEL_CHARS = 200;
export const MAX_FORM_DESCRIPTION_CHARS = 1000;
/** Choices of one enum or multi-select field. */
export const MAX_FORM_OPTIONS = 50;
/** An option's value (`const` / `enum` entry). */
export const MAX_FORM_OPTION_CHARS = 200;
/** A text answer, in Unicode code points; a field's `maxLength` cannot raise it. */
export const MAX_FORM_TEXT_CODE_POINTS = 2000;
/**
 * What a transcript note keeps of why an agent's request could not be shown:
 * enough to say why, never the request (a form may have a thousand choices).
 */
export const MAX_NOTED_PROBLEMS = 3;
export const MAX_NOTED_PROBLEM_CHARS = 200;

// ---------------------------------------------------------------- MCP waits
export const DEFAULT_WAIT_SECONDS = 600;
export const MAX_WAIT_SECONDS = 3600;

// ---------------------------------------------------------------- event frames
/** Largest client frame accepted on `/api/v1/events`, in UTF-8 bytes. */
export const MAX_CLIENT_FRAME_BYTES = 16 * 1024;
/** Most session IDs one subscribe or unsubscribe may name. */
export const MAX_SESSIONS_PER_FRAME = 500;
export const MAX_SESSION_ID_CHARS = 200;

// ---------------------------------------------------------------- bodies
/** Most strings one `invalid_text` reply names; the rest of the body is refused all the same. */
export const MAX_TEXT_ISSUES = 20;
/**
 * Most bytes JSON may spend on one character: a code point beyond the BMP
 * written as two `\uXXXX` escapes (Python's `json.dumps` does so by default);
 * raw UTF-8 needs at most 4.
 */
export const MAX_JSON_BYTES_PER_CHAR = 12;
/** Room in a body for everything beside its long texts: a task's title and cwd, ids, keys, syntax. */
const BODY_HEADROOM_BYTES = 64 * 1024;
/** The most a person types into one body: a message, or every text field of a form. */
const MAX_TYPED_CHARS = Math.max(MAX_MESSAGE_CHARS, MAX_FORM_FIELDS * MAX_FORM_TEXT_CODE_POINTS);
/** The most text one ask carries: every question whole, and its context. */
const MAX_ASK_CHARS =
  MAX_QUESTIONS *
    (MAX_QUESTION_TITLE_CHARS +
      MAX_PROMPT_CHARS +
      MAX_OPTIONS * (MAX_OPTION_LABEL_CHARS + MAX_OPTION_DESCRIPTION_CHARS)) +
  MAX_CONTEXT_CHARS;
/**
 * Largest state-changing request body, in bytes (413 beyond): a message of
 * `MAX_MESSAGE_CHARS`, or a form's every text field full, fits however it is
 * written, in any script, so the character limits are the ones a person
 * meets (about 533 KiB).
 */
export const MAX_BODY_BYTES = MAX_TYPED_CHARS * MAX_JSON_BYTES_PER_CHAR + BODY_HEADROOM_BYTES;
/**
 * How deep an MCP client's `initialize` capabilities may nest (real clients'
 * go three or four levels): they are kept for the session and written to
 * the store, and a body of nothing but nesting must not reach either.
 */
export const MAX_MCP_CAPABILITIES_DEPTH = 64;
/**
 * Largest MCP request body, in bytes: the largest ask fits however it is
 * written (about 687 KiB); far beyond is no tool call.
 */
export const MAX_MCP_BODY_BYTES = MAX_ASK_CHARS * MAX_JSON_BYTES_PER_CHAR + BODY_HEADROOM_BYTES;
