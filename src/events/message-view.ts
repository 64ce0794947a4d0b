/** The wire shape of a transcript row, shared by REST responses and events. */
import type { MessageRecord } from '../store/index.js';
import type { MessageView } from './types.js';

export function toMessageView(message: MessageRecord): MessageView {
  return {
    id: message.id,
    session_id: message.task_session_id,
    task_id: message.task_id,
    turn_id: message.turn_id,
    type: message.type,
    author: message.author_type,
    content: message.content,
    metadata: message.metadata,
    requests_input: message.requests_input,
    created_at: message.created_at,
    updated_at: message.updated_at,
  };
}
