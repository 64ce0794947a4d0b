/** Publication of session events to WebSocket subscribers (DESIGN §3 `events/`). */
export type {
  ClarionEvent,
  ClarionEventType,
  EventPublisher,
  MessageView,
  PendingAction,
} from './types.js';
export type {
  SessionEventLog,
  SessionWrite,
  SessionWriter,
  SessionWriterDeps,
  SessionsDeleted,
  UserInputPending,
  WriteOptions,
} from './session-writer.js';
export { createSessionWriter } from './session-writer.js';
export type {
  EventHub,
  EventHubOptions,
  EventSubscription,
  HubMetrics,
  PeopleAudience,
} from './hub.js';
export {
  createEventHub,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_CACHED_SESSIONS,
  DEFAULT_MAX_WAITING_EVENTS,
  DEFAULT_VISIBILITY_TTL_MS,
} from './hub.js';
export type {
  EventSocket,
  SessionVisibility,
  WorkspaceStanding,
  WorkspaceVisibility,
} from './connection.js';
export {
  CLOSE_GOING_AWAY,
  CLOSE_INTERNAL_ERROR,
  CLOSE_SLOW_CONSUMER,
  MAX_CLIENT_FRAMES_IN_FLIGHT,
} from './connection.js';
export type { ClientFrame, ParsedFrame, ServerFrame } from './protocol.js';
export { MAX_CLIENT_FRAME_BYTES, MAX_SESSIONS_PER_FRAME, parseClientFrame } from './protocol.js';
export { toMessageView } from './message-view.js';
