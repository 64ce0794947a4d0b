/**
 * The store: all SQL of Clarion. Services receive a `RepoContext` (the store
 * itself, or a transaction from `store.transaction`) and call the repository
 * functions below; nothing outside this folder writes SQL.
 */
export type { RepoContext, Metadata } from './context.js';
export { parseMetadata } from './context.js';
export type { Dialect, Driver, MetadataKey } from './dialect.js';
export {
  ATTACHED_ASKS_INDEX,
  DELIVERY_INTENT_INDEX,
  PENDING_ID_INDEX,
  PENDING_ID_LOOKUP_INDEX,
  PENDING_ID_ORDERED_INDEX,
  PENDING_ROWS_INDEX,
  START_UP_LOCK_CLASS,
  dialectFor,
} from './dialect.js';
export type { DatabaseTarget, OpenOptions, Store, StoreOpenErrorCode } from './open.js';
export { connectDatabase, openStore, redactUrl, SQLITE_FILE, StoreOpenError } from './open.js';
export type { DataDirLock } from './data-dir-lock.js';
export { DataDirLockedError, lockDataDir, LOCK_FILE, PID_FILE } from './data-dir-lock.js';
export type { StorageFaultReason } from './faults.js';
export {
  idempotentOnNewConnection,
  isDamagedDatabase,
  isStorageUnavailable,
  StorageUnavailableError,
} from './faults.js';
export type { TransactionOptions } from './transaction.js';
export type { ColumnAddition, SchemaState, SchemaStep } from './schema.js';
export { applySchema, runSchemaStep, schemaSteps, SchemaStepError } from './schema.js';
export type {
  Database,
  SessionState,
  TaskSessionTurnsTable as TaskSessionTurnsRow,
  Timestamp,
} from './tables.js';
export { SESSION_STATES } from './tables.js';
export type { UserRecord, WorkspaceRecord } from './accounts.js';
export { addWorkspaceMember, createUser, createWorkspace, getWorkspace } from './accounts.js';
export type { SessionRecord, TaskRecord } from './tasks.js';
export {
  createSession,
  createTask,
  getSession,
  liveSessionIds,
  getTask,
  listSessions,
  listTasks,
  taskPage,
  type TaskCursor,
  type TaskPage,
  liveExternalSessionFor,
  liveExternalSessionsOf,
  lockExternalAgents,
  type ExternalSessionRef,
  liveSessionsCreatedBy,
  setSessionState,
} from './tasks.js';
export type { TurnRecord } from './turns.js';
export { completeTurn, currentTurn, currentTurnIdOf, getTurn, startTurn } from './turns.js';
export type {
  MessageRecord,
  NewMessage,
  TranscriptCursor,
  TranscriptOrder,
  TranscriptPage,
} from './messages.js';
export {
  decisionPage,
  messageExists,
  supersedeUnkeptDecisions,
  type DecisionCursor,
  type DecisionFilter,
  type DecisionPage,
  type DecisionReader,
  type DecisionRow,
} from './decisions.js';
export {
  appendMessage,
  MAX_TRANSCRIPT_PAGE,
  messagesByPendingId,
  messagesByPendingIds,
  messagesByPendingIdQuery,
  releaseTurnAdmissionKeys,
  reviseMessage,
  toolCallMessage,
  transcriptPage,
  transcriptRowsQuery,
  turnHasMessage,
} from './messages.js';
export type { PrincipalBundle } from './access.js';
export {
  bundleForPrincipal,
  bundleForPrincipalQuery,
  canSeeSession,
  canSeeWorkspace,
  canSeeTask,
  memberWorkspaceIds,
  workspaceStanding,
} from './access.js';
export { TERMINAL_SESSION_STATES } from './tables.js';
export {
  clearSessionFailure,
  endedSessions,
  failSession,
  resetInterruptedSessions,
  idleSessionsWithQueue,
  setAgentSessionId,
  transitionSession,
} from './tasks.js';
export type { InterruptedTurn } from './interrupted-turns.js';
export {
  OPEN_TURNS_INDEX,
  closeOpenTurns,
  endOpenToolCalls,
  interruptedTurnsToExamine,
  turnHasPersonMessage,
  turnIsOpen,
  turnRowsOfTypes,
} from './interrupted-turns.js';
export type { DispatchRecovery } from './turns.js';
export {
  deleteUnattemptedReservation,
  markDispatchAttempted,
  hasReservedTurn,
  pendingReservations,
  publishReservedTurn,
  cancelRequestsQuery,
  requestTurnCancel,
  reserveSuccessorTurn,
  sessionsWithCancelRequest,
  takeTurnCancel,
  turnHasMessages,
} from './turns.js';
export type { AttachedBundle } from './clarification.js';
export type { ClaimInput } from './clarification-claims.js';
export {
  CLARIFICATION_TYPE,
  bumpRevisionReadingClarification,
  hasActiveClarification,
  isPendingClarificationRow,
  listSessionsReadingClarification,
  activePendingIdByFingerprint,
  activePendingIdByFingerprintQuery,
  endWaitWhenNoneOpen,
  openBundleCount,
  openBundleCountQuery,
  cancelBundleRows,
  attachedBundles,
  detachBundleRows,
  reattachBundleRows,
  detachSessionRows,
  expireSessionRows,
  pendingIdsOfSession,
  rowsStillCurrent,
  currentRowIds,
} from './clarification.js';
export {
  claimBundle,
  claimBundleQuery,
  untakenClaims,
  type UntakenClaim,
  releaseOrphanedDeliveries,
  clearDeliveryIntent,
  detachClaim,
  takeDelivery,
  restoreClaim,
  retireClaim,
  rowsWithDeliveryIntent,
} from './clarification-claims.js';
export {
  detachOrphanedAsk,
  orphanedAsks,
  orphanedAsksQuery,
  type OrphanedAsk,
} from './orphaned-asks.js';
export { jsonValue } from './dialect.js';
export { toMessageRecord } from './messages.js';
export type { ApiTokenKind } from './tables.js';
export { PERSONAL_TOKEN_KINDS } from './tables.js';
export type { ListedWorkspace, MemberListing, MemberRecord, MemberRole } from './accounts.js';
export {
  deleteUserRow,
  ensureWorkspaceMember,
  firstAdmin,
  getUser,
  getWorkspaceMember,
  hasAnyUser,
  listAllWorkspaces,
  listMemberWorkspaces,
  listUsers,
  listWorkspaceMembers,
  lockUsers,
  removeWorkspaceMember,
  renameWorkspaceRow,
  soleOwnedWorkspaces,
} from './accounts.js';
export type { LiveToken, NewToken, SpentTokenRule, TokenRecord } from './tokens.js';
export {
  bindToken,
  deleteAgentTokensIn,
  countLiveTokens,
  deleteSessionTokens,
  deleteSpentTokenBatch,
  deleteSpentTokenBatchQuery,
  deleteSpentTokens,
  deleteToken,
  deleteTokenById,
  deleteTokensOfKind,
  deleteOtherBrowserTokens,
  holdBrowserSession,
  deletePersonalToken,
  deleteSignInLinksNamed,
  findLiveToken,
  insertToken,
  listPersonalTokens,
  listUserTokens,
  liveTokenHashes,
  MAX_LIVE_TOKEN_HASHES,
  lockUserRow,
  redeemToken,
  touchTokenUse,
  wallTimestamp,
} from './tokens.js';
export type { DeletedSessions, QueuedEdit, QueuedMessage } from './admission.js';
export {
  clearQueue,
  deleteQueued,
  deleteSessionRow,
  deleteTaskRow,
  enqueueMessage,
  listQueue,
  messageByAdmissionKey,
  queuedByAdmissionKey,
  reorderQueue,
  takeNextQueued,
  takeQueuedOfLeftAuthors,
  updateQueuedContent,
} from './admission.js';
export type {
  ActiveBundlePage,
  ActiveBundleRows,
  PendingCursor,
  PendingScope,
} from './pending-bundles.js';
export { activeBundleHeadsQuery, activeBundlePage, MAX_PENDING_PAGE } from './pending-bundles.js';
export type { AnswerLinkHolder, AnswerLinkRecord, NewAnswerLink } from './answer-links.js';
export {
  deleteExpiredAnswerLinkBatch,
  deleteExpiredAnswerLinkBatchQuery,
  deleteUnusedChannelLinks,
  deleteUnusedDeliveryLinks,
  deleteUnusedUserLinks,
  findAnswerLink,
  holdLinkWithdrawals,
  insertAnswerLinks,
  lockChannelForDelete,
  lockNoticeOwner,
  markAnswerLinkUsed,
} from './answer-links.js';
export { claimServerKey, getServerKey } from './server-keys.js';
export type {
  AskKey,
  AttemptRecord,
  ChannelRecord,
  DeliveredAsk,
  NewOutboxRow,
  NoticeSettingsRecord,
  OutboxKey,
  OutboxRecord,
  RearmedRow,
  SessionAudience,
} from './notifications.js';
export {
  activePendingIds,
  anyChannel,
  channelsWithDueRows,
  deferDueRows,
  claimNextDue,
  countUserChannels,
  DEFAULT_NOTICE_SETTINGS,
  deleteUserChannel,
  deliveredAsksWithoutAnswer,
  deliveringPendingIds,
  deliveredAsksWithoutAnswerQuery,
  getNoticeSettings,
  getUserChannel,
  giveUpRows,
  insertChannel,
  insertOutboxRows,
  renewWebPushChannel,
  handOverBrowserChannels,
  latestRowPerChannel,
  listAllChannels,
  listUserChannels,
  markAsksAnswered,
  outboxKeysOf,
  owedPrompts,
  promptsInFlight,
  putNoticeSettings,
  rearmOutboxRows,
  recordAttempt,
  sessionAudiences,
  settingsOfUsers,
  timestampAtMs,
  UNANSWERED_ASKS_INDEX,
  UNANSWERED_ASKS_INDEX_DDL,
} from './notifications.js';
export type { SettledCursor, SettledRow } from './outbox-retention.js';
export {
  deleteSettledItems,
  SETTLED_ROWS_INDEX,
  settledRowsBefore,
  settledRowsBeforeQuery,
} from './outbox-retention.js';
export type { ConsentRuleRecord, NewConsentRule, RuleScope } from './consent-rules.js';
export type { ConsentRuleRevocationRecord, RuleRevoker } from './consent-rule-revocations.js';
export { listConsentRuleRevocations, revokeConsentRuleRow } from './consent-rule-revocations.js';
export {
  consentRuleFor,
  consentRuleStands,
  keepConsentRule,
  listConsentRules,
} from './consent-rules.js';
export type { ListenerState, WakeChannel, WakeHandlers } from './wake.js';
export { localWakeChannel, WAKE_CHANNEL, WAKE_LISTENER_APPLICATION } from './wake.js';
export type { EventLogCursor, LoggableEvent, LoggedEvent } from './event-log.js';
export type { ForwardedAnswer, ForwardedAnswerState } from './user-input-mirror.js';
export {
  dropForwardedAnswer,
  forgetUserInputs,
  forwardedAnswerState,
  forwardUserInputAnswer,
  mirroredAwaitingKinds,
  mirroredUserInput,
  mirroredUserInputs,
  mirrorUserInput,
  pendingForwardedAnswers,
  pruneForwardedAnswers,
  pruneUserInputMirror,
  settleForwardedAnswer,
  takeForwardedAnswer,
  waitingUserInputsElsewhere,
  withdrawForwardedAnswer,
} from './user-input-mirror.js';
export { appendSessionEvents, eventLogStart, pruneEventLog, readEventLog } from './event-log.js';
// Several servers on one database (issue 16).
export type { ReplicaLock } from './replica-lock.js';
export { holdReplicaLock } from './replica-lock.js';
export type { Registration, ReplicaRecord } from './replicas.js';
export {
  getReplica,
  heartbeatReplica,
  liveReplicaIds,
  markReplicaStopped,
  replicaRegisteredAs,
  pruneReplicas,
  registerReplica,
  retireOtherReplicas,
  stoppedReplicas,
} from './replicas.js';
export type { DeliveryOwners, LeaseTerms, OwnerTerms, SessionScope } from './leases.js';
export {
  acquireLease,
  ALL_SESSIONS,
  countLeases,
  deliveryOwners,
  leasedSessions,
  releaseLease,
  releaseLeasesOf,
  renewLeases,
  sessionInScope,
  adoptOrphanedClaims,
  takeOverLeases,
} from './leases.js';
export {
  forgetDecidedIn,
  forgetOpenUserInput,
  keepDecidedUserInput,
  keepOpenUserInput,
  openUserInputsIn,
  refreshDecidedUserInput,
  takeOpenUserInput,
  undecideUserInput,
  type OpenUserInput,
} from './open-user-inputs.js';
export type { McpSessionRecord } from './mcp-sessions.js';
export {
  findMcpSession,
  forgetMcpSession,
  pruneMcpSessions,
  recordMcpSession,
  recordMcpSessionsUse,
} from './mcp-sessions.js';
export { collectableRetry, markAwaitingCollection, markCollected } from './uncollected-answers.js';
