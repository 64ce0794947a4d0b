/**
 * Several servers on one PostgreSQL (issue 16): which replica this server is,
 * which sessions it holds by lease, and the wake-ups that cross replicas. The
 * store stays the only truth; nothing here is authority a restart would lose.
 */

// Part A: replica identity, heartbeat, session leases, takeover.
export { SessionLeases, type SessionLeaseDeps } from './leases.js';
export {
  ReplicaIdInUseError,
  startReplica,
  type RecoverSessions,
  type Replica,
  type ReplicaDeps,
} from './replica.js';
