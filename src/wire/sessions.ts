/** Tasks, sessions, transcripts, message admission and the session queue on the wire. */
import { z } from 'zod';
import { pendingAction, sessionState, timestamp, verbatimText, visibleText } from './common.js';
import { SESSION_FAILURE_CODES } from './constants.js';
import {
  MAX_ADMISSION_KEY_CHARS,
  MAX_CWD_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_PROFILE_NAME_CHARS,
  MAX_QUEUE_ORDER_IDS,
  MAX_RECORD_ID_CHARS,
  MAX_TASK_TITLE_CHARS,
} from './limits.js';

/** One transcript row, shared by REST and events. `metadata` is the row's JSON. */
export const messageView = z
  .object({
    id: z.string(),
    session_id: z.string(),
    task_id: z.string(),
    turn_id: z.string(),
    type: z.string().describe('What the row is: message, clarification_request, tool_call, …'),
    author: z.string(),
    content: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    requests_input: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Message' });
export type MessageView = z.infer<typeof messageView>;

export const taskView = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    title: z.string(),
    created_by: z
      .string()
      .nullable()
      .describe(
        'The user who started it; for an external agent, the person whose token it asks with. Null for tasks from before Clarion kept it',
      ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Task' });
export type TaskView = z.infer<typeof taskView>;

/** Why a session's agent failed: the exit code or signal, its stderr's last lines, or the ACP error. */
export const sessionFailure = z
  .object({
    code: z.enum(SESSION_FAILURE_CODES),
    message: z.string(),
    at: timestamp,
  })
  .meta({ id: 'SessionFailure' });
export type SessionFailure = z.infer<typeof sessionFailure>;

export const sessionView = z
  .object({
    id: z.string(),
    task_id: z.string(),
    agent_profile: z.string(),
    state: sessionState,
    failure: sessionFailure.nullable().describe('Why the session failed; null unless it did'),
    revision: z.number().int(),
    /** What the session waits on a person for, read no earlier than `revision` (as events carry it). */
    pending_action: pendingAction,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Session' });
export type SessionView = z.infer<typeof sessionView>;

/** A person's queued message: persisted, editable and removable. */
export const userQueueItem = z
  .object({
    id: z.string(),
    session_id: z.string(),
    text: z.string(),
    admission_key: z.string(),
    position: z.number().int(),
    owner: z.literal('user'),
    editable: z.literal(true),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'UserQueueItem' });
export type UserQueueItem = z.infer<typeof userQueueItem>;

/**
 * A due follow-up waiting for the session (DESIGN §7): memory-owned by the
 * server's registry, never persisted, not editable, removable. Its ID is the
 * user-input request's ID.
 */
export const machineQueueItem = z
  .object({
    id: z.string(),
    session_id: z.string(),
    text: z.string(),
    owner: z.literal('machine'),
    editable: z.literal(false),
    removable: z.literal(true),
    created_at: timestamp,
  })
  .meta({ id: 'MachineQueueItem' });
export type MachineQueueItem = z.infer<typeof machineQueueItem>;

export const queueItemView = z.union([userQueueItem, machineQueueItem]);
export type QueueItemView = z.infer<typeof queueItemView>;

// ---------------------------------------------------------------- bodies

const messageText = verbatimText(MAX_MESSAGE_CHARS);
const recordId = z.string().min(1).max(MAX_RECORD_ID_CHARS);

export const createTaskBody = z
  .strictObject({
    title: visibleText(MAX_TASK_TITLE_CHARS),
    workspace_id: recordId.optional(),
    agent_profile: z.string().min(1).max(MAX_PROFILE_NAME_CHARS).optional(),
    prompt: messageText.optional().describe('The first message, sent as the session starts'),
    cwd: z
      .string()
      .min(1)
      .max(MAX_CWD_CHARS)
      .optional()
      .describe('Absolute path of an existing directory the agents work in (default: Clarion’s)'),
  })
  .meta({ id: 'CreateTaskBody' });

/** A message for a session; resending the same `admission_key` never duplicates it. */
export const messageBody = z
  .strictObject({
    text: messageText,
    admission_key: z
      .string()
      .min(1)
      .max(MAX_ADMISSION_KEY_CHARS)
      .describe(
        'Names this message so a retry is not a second one. A key the session already holds ' +
          'answers as its first send did, with the text it holds: the text of the repeat is not ' +
          'read (the web app resends after a lost reply and shows what went under the key). ' +
          'Use a new key for a new message',
      ),
  })
  .meta({ id: 'MessageBody' });

/**
 * An edit of a queued message names the text it was made from: when the
 * message no longer reads so (another tab or window edited it meanwhile), the
 * edit is refused with `queue_item_changed` and nothing changes, so no one's
 * edit is overwritten unseen. Required: an edit without it could only guess.
 */
export const queueEditBody = z
  .strictObject({
    text: messageText,
    base_text: messageText.describe(
      'The text the edit was made from; refused (409 queue_item_changed) unless the message still reads so',
    ),
  })
  .meta({ id: 'QueueEditBody' });

/** The `details` of a refused stale edit: what the message reads now. */
export const queueItemChangedDetails = z
  .object({ current_text: z.string() })
  .meta({ id: 'QueueItemChangedDetails' });
export type QueueItemChangedDetails = z.infer<typeof queueItemChangedDetails>;

export const queueOrderBody = z
  .strictObject({ ids: z.array(recordId).max(MAX_QUEUE_ORDER_IDS) })
  .meta({ id: 'QueueOrderBody' });

// ---------------------------------------------------------------- replies

export const createTaskReply = z.object({
  task: taskView,
  session: sessionView,
  /** How the first prompt was admitted; absent without a prompt. */
  admission: z.enum(['sent', 'queued', 'refused', 'busy', 'not_found', 'failed']).optional(),
});
export type CreateTaskReply = z.infer<typeof createTaskReply>;

/** A session after its agent was started again. */
export const sessionReply = z.object({ session: sessionView });

/** A configured way to start an agent, without the values of its `env` (they may be secrets). */
export const agentProfileView = z
  .object({
    name: z.string(),
    command: z.string(),
    args: z.array(z.string()),
    pass_env: z.array(z.string()).describe('Names of Clarion’s variables handed to the agent'),
    env_names: z.array(z.string()).describe('Names the profile sets; never their values'),
    cwd: z.string().nullable(),
  })
  .meta({ id: 'AgentProfile' });
export type AgentProfileView = z.infer<typeof agentProfileView>;
export const agentProfileListReply = z.object({ profiles: z.array(agentProfileView) });

export const messageSentReply = z.object({ outcome: z.literal('sent'), message: messageView });
export const messageQueuedReply = z.object({ outcome: z.literal('queued'), item: userQueueItem });

/** One page of the tasks the caller can see, oldest first. */
export const taskListReply = z.object({
  tasks: z.array(taskView),
  next_cursor: z.string().nullable(),
});
export const sessionListReply = z.object({ sessions: z.array(sessionView) });
export const transcriptPageReply = z.object({
  messages: z.array(messageView),
  next_cursor: z.string().nullable(),
});
export const queueReply = z.object({ items: z.array(queueItemView) });
export const userQueueReply = z.object({ items: z.array(userQueueItem) });
export const queueItemReply = z.object({ item: userQueueItem });
export const queueRemovedReply = z.union([
  z.object({ removed: z.string().describe('The removed follow-up’s request ID') }),
  z.object({ item: userQueueItem }),
]);
export const queueClearedReply = z.object({ removed: z.array(queueItemView) });
export const deletedReply = z.object({ deleted: z.literal(true) });
export const cancellingReply = z.object({ cancelling: z.literal(true) });
