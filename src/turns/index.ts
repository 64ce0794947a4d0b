/** The public surface of `src/turns/`. */
export { type AdmissionResult, type MessageAdmission, admitMessage } from './admission.js';
export { AgentQuota, type AgentQuotaLimits, DEFAULT_AGENT_QUOTA } from './agent-quota.js';
export { type TurnsDeps } from './context.js';
export {
  type QueueResult,
  type SessionQueue,
  clearQueued,
  editQueued,
  queueOf,
  removeQueued,
  reorderQueued,
} from './queue.js';
export { agentProfileList } from './agent-profiles.js';
export { endSessionsActedFor } from './acted-for.js';
export {
  ensureExternalSession,
  externalAskerOf,
  externalSessionLive,
  findExternalSession,
  type ExternalSessionLookup,
  type ExternalSessionResult,
} from './external-sessions.js';
export { restartSession, type RestartResult } from './restart.js';
export { sessionFailureOf } from './session-failure.js';
export {
  formRequester,
  type AgentFormInput,
  type AgentFormResult,
  type RequestForm,
} from './form-requests.js';
export { respondToUserInput, sessionTranscript, visibleUserInputs } from './session-reads.js';
export { decisionEntryOf, decisionHistory } from './decision-history.js';
export {
  cancelTurn,
  createTaskWithSession,
  deleteSession,
  deleteTask,
  visibleSessions,
  visibleTaskPage,
  type ShownSession,
} from './tasks.js';
export {
  mintAnswerLinks,
  useAnswerLink,
  viewAnswerLink,
  type AnswerLinkDeps,
  type AnswerLinkUseDeps,
  type AnswerLinkRequest,
  type AnswerLinkResult,
} from './answer-links.js';
export {
  consentRuleService,
  consentRulesPort,
  keepRuleWhere,
  ruleStandsWhere,
  type ConsentRuleService,
} from './consent-rules.js';
