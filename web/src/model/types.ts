/**
 * The wire shapes the browser uses, all from the server's one contract
 * (`src/wire`). Types only, plus the zod-free constants, so nothing of the
 * schemas reaches the bundle. Kept free of DOM and React so the read models
 * can be tested in Node.
 */
export type {
  ActionDecision,
  ActionView,
  Answer,
  BundleView,
  ClarificationResponse,
  ClarionEvent,
  ConsentDetail,
  ConsentOption,
  ConsentOptionKind,
  ConsentView,
  DecisionEntry,
  DecisionListReply,
  FormField,
  FormOption,
  FormSchema,
  FormView,
  MachineQueueItem,
  MessageView,
  PendingAction,
  PendingBundle,
  PendingQuestion,
  QueueItemView,
  QuestionOption,
  RespondBody,
  RespondReply as RespondOk,
  Responder,
  RowStatus,
  ServerFrame,
  SessionState,
  SessionView,
  SettlementReason,
  TaskView,
  UserInputAnswer,
  UserInputEventType,
  UserInputStatus,
  UserInputView,
  UserQueueItem,
} from '../../../src/wire/index.js';
export {
  optionsOf,
  validateFormContent,
  type FormContent,
  type FormErrorCode,
  type FormFieldError,
} from '../../../src/wire/form-content.js';
export {
  CLARIFICATION_TYPE,
  DECISION_SURFACES,
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNKEPT_TYPE,
  USER_INPUT_EVENT_TYPES,
} from '../../../src/wire/constants.js';
export type { DecisionSurface } from '../../../src/wire/constants.js';
export {
  DELIVERY_UNCONFIRMED_TYPE,
  deliveryUnconfirmedNoteOf,
  type DeliveryUnconfirmedNote,
} from '../../../src/wire/unconfirmed-delivery.js';
export {
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
  USER_INPUT_REFUSED_TYPE,
  userInputNoteOf,
  userInputRefusedNoteOf,
  type UserInputNote,
} from '../../../src/wire/user-input-notes.js';
export { turnInterruptedNoteOf } from '../../../src/wire/interrupted-turn.js';
export { turnNoteOf, type TurnNote } from '../../../src/wire/turn-notes.js';
export { toolCallStateOf, type ToolCallState } from '../../../src/wire/tool-calls.js';
