/**
 * Several servers on one PostgreSQL (issue 16): which replica this server is,
 * which sessions it holds by lease, and the wake-ups that cross replicas. The
 * store stays the only truth; nothing here is authority a restart would lose.
 */

// Cross-replica wake-ups and events (part B).
export type {
  Wake,
  WakeBus,
  WakeBusOptions,
  WakeKind,
  WakeSubscriber,
  WakeTopic,
} from './wake-bus.js';
export { createWakeBus, encodeWake, parseWake } from './wake-bus.js';
export type { EventRelay, EventRelayOptions } from './event-relay.js';
export { loggingPublisher, sessionEventLog, startEventRelay } from './event-relay.js';
export {
  accountNews,
  type AccountNews,
  type AccountNewsDeps,
  type AccountNewsHub,
} from './account-news.js';
export { claimReplicas, type ClaimReplicasDeps, type ClaimReplicasView } from './claim-replicas.js';
// Part A: replica identity, heartbeat, session leases, takeover.
export { SessionLeases, type LostSessions, type SessionLeaseDeps } from './leases.js';
export { releasedQueues, type ReleasedQueuesDeps } from './released-queues.js';
export {
  ReplicaIdInUseError,
  ReplicaSupersededError,
  startReplica,
  type AnnounceRelease,
  type ReplicaLockState,
  type RecoverSessions,
  type RequeueSessions,
  type Replica,
  type ReplicaDeps,
} from './replica.js';
