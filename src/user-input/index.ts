/** The user-input registry's public surface (DESIGN §7). */
export { createUserInputRegistry } from './registry.js';
export { AnswerWithdrawn, ConsentRuleGone, ResponderGone } from './ports.js';
export type {
  ConsentRuleQuery,
  ConsentRulesPort,
  ConsentRuleToKeep,
  FollowUpAdmissionInput,
  QueueItemResult,
  RequestResult,
  UserInputRespondResult,
  UserInputDeadlines,
  UserInputLogger,
  UserInputPorts,
  UserInputRegistry,
} from './ports.js';
export {
  formTitle,
  isSafeUrl,
  requestInputProblems,
  type ActionRequestInput,
  type ConsentRequestInput,
  type FormRequestInput,
  type RequestInput,
  type TurnEndWatch,
} from './request-input.js';
export { followUpText, retryDelayMs, transition } from './transition.js';
export { mostBlocking } from './view.js';
export {
  ACTION_DEADLINE_MS,
  CONSENT_DEADLINE_MS,
  FORM_DEADLINE_MS,
  FOLLOW_UP_ATTEMPT_TIMEOUT_MS,
  FOLLOW_UP_BUSY_RECHECK_MS,
  FOLLOW_UP_RETRY_BASE_MS,
  FOLLOW_UP_RETRY_MAX_MS,
  type ActionDecision,
  type ActionView,
  type AgentOutcome,
  type ConsentOption,
  type ConsentOptionKind,
  type ConsentView,
  type FollowUpAdmission,
  type FormContent,
  type FormResponse,
  type FormSchema,
  type FormView,
  type HumanResponse,
  type MachineQueueItem,
  type RefusalReason,
  type SettlementReason,
  type TurnOutcome,
  type UserInputKind,
  type UserInputStatus,
  type UserInputView,
} from './types.js';
