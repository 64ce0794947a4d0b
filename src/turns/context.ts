/** What the turns services share, passed in once at start-up. */
import type { AgentHost, AgentProfile } from '../agents/index.js';
import type { AgentQuota } from './agent-quota.js';
import type { AgentStarts } from './agent-starts.js';
import type { CancelRequests } from './cancellations.js';
import type { UnrecordedRefusals } from './unrecorded-refusals.js';
import type { IdleStops } from './idle-policy.js';
import type { ClarificationService } from '../clarification/index.js';
import type { SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import type { RepoContext, Store } from '../store/index.js';
import type { Timers } from '../support/index.js';
import type { UserInputRegistry } from '../user-input/index.js';
import type { UserInputsElsewhere } from './user-input-replicas.js';

/** What starting a session's agent needs. */
export interface AgentLaunchDeps {
  store: Store;
  host: AgentHost;
  profiles: ReadonlyMap<string, AgentProfile>;
  /** Clarion's MCP endpoint; known once the server listens. */
  mcpUrl: () => string;
  /** Working directory agents start in. */
  agentCwd: string;
  /** Running agents per user and per server, counted from `host`. */
  agentQuota: AgentQuota;
  /** Idle agents' deadlines and the stops under way, which a new start waits for. */
  idleStops: IdleStops;
  /** Starts running after their admission answered (the session shows `starting`). */
  starts: AgentStarts;
  /** Session leases, when several replicas share the database (issue 16); absent: this server runs every agent. */
  leases?: SessionLeasePort;
  /**
   * True once this server's stop began: it starts no turn and no agent from
   * then on (messages stay queued in the store for the next start or the
   * replica that takes the session), while the agents it runs finish.
   */
  stopping?: () => boolean;
}

/**
 * Only the holder of a session's lease starts, prompts or stops its agent. A
 * start acquires it (false: another live replica runs the agent, and the
 * message waits in the store for it); an agent's exit releases it.
 */
export interface SessionLeasePort {
  acquire(sessionId: string): Promise<boolean>;
  release(sessionId: string): Promise<void>;
  /**
   * Wakes whichever replica runs the session's agent to run its queue, cancel
   * its turn (the request is in the store) or stop it, with the commit of `ctx`.
   */
  tellHolder(ctx: RepoContext, sessionId: string, kind: 'queue' | 'cancel' | 'stop'): Promise<void>;
  /**
   * This server is stopping and queued a message it will not run: wakes the
   * other replicas, with the commit of `ctx`, to run the queues no live
   * replica holds, as its stop's release does. The commit may come after that
   * release (a request that outlived the drain), whose wake is spent by then.
   */
  leaveQueue(ctx: RepoContext): Promise<void>;
  /**
   * Before acting on the session's agent here: renews first when this
   * replica's leases are no longer certainly valid, and resolves once a
   * session lost meanwhile is fenced (`fencing.ts`); false when it was lost.
   */
  confirm(sessionId: string): Promise<boolean>;
  /** Lost to another replica and not taken again here: what its old agent reports is void. */
  isFenced(sessionId: string): boolean;
  /** The replicas live now (running, heartbeat within the lease), this one included. */
  liveReplicas(): Promise<ReadonlySet<string>>;
  /**
   * Runs `work` unless an agent start here took the session's lease, never
   * between a start's acquire and its agent's credential; whether it ran.
   */
  unlessStarted(sessionId: string, work: () => Promise<unknown>): Promise<boolean>;
}

export interface TurnsDeps extends AgentLaunchDeps {
  clarification: ClarificationService;
  userInputs: UserInputRegistry;
  /** Several servers (PostgreSQL): the requests other replicas' registries hold. */
  userInputsElsewhere?: UserInputsElsewhere;
  /** Every session write goes through it: lock, change, revision, commit, publish. */
  sessions: SessionWriter;
  logger: Logger;
  defaultProfile: string;
  /** Who asked to cancel a running turn, for its transcript row. */
  cancellations: CancelRequests;
  /** Turns the agent did not take whose note is not written yet (`unrecorded-refusals.ts`). */
  unrecordedRefusals: UnrecordedRefusals;
  /** The deadlines turns set themselves (a prompt's acceptance), so tests can drive them. */
  timers: Timers;
}
