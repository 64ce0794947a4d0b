/**
 * Running agents per user and per server (issue 17). "Running" is what the
 * agent host reports, not a tally kept beside it: a session counts while the
 * host says its process is started (alive or starting), plus the places held
 * by starts still on their way (a message admitted, its agent not yet
 * spawned). The user charged is the task's owner: the agent runs with their
 * token and acts for them, whoever sent the message that woke it.
 *
 * A start over a limit is refused before anything is written, so a refusal
 * leaves no task, message, turn or process behind. An agent holds its place
 * until its process exits or its session is deleted; nothing here stops one.
 */
import { AGENTS_PER_SERVER, AGENTS_PER_USER } from '../tunables.js';
import { failure, type Failure } from '../wire/index.js';

export interface AgentQuotaLimits {
  readonly perUser: number;
  readonly perServer: number;
}

export const DEFAULT_AGENT_QUOTA: AgentQuotaLimits = {
  perUser: AGENTS_PER_USER,
  perServer: AGENTS_PER_SERVER,
};

/** A place for one agent start, held until the start is over (then the host counts it). */
export interface AgentSlot {
  /** Names the session the place is for, once that session exists. */
  bind(sessionId: string): void;
  release(): void;
}

export type AgentHold = { ok: true; slot: AgentSlot } | Failure<'quota_exceeded'>;

interface Hold {
  readonly userId: string;
  sessionId: string | undefined;
}

export class AgentQuota {
  /** Sessions whose agent was started through here, with the user charged. */
  private readonly owners = new Map<string, string>();
  private readonly holds = new Set<Hold>();

  constructor(
    /** The host's answer: does this session have a live agent process? */
    private readonly isRunning: (sessionId: string) => boolean,
    readonly limits: AgentQuotaLimits = DEFAULT_AGENT_QUOTA,
  ) {}

  /**
   * A place for starting an agent for `userId` (in `sessionId`, when it exists
   * yet). An agent already running or being started for that session takes
   * no second place.
   */
  hold(userId: string, sessionId?: string): AgentHold {
    const running = this.running();
    const counted =
      sessionId !== undefined && (running.has(sessionId) || this.isRunning(sessionId));
    if (!counted) {
      const mine = [...running.values()].filter((owner) => owner === userId).length;
      if (mine >= this.limits.perUser) {
        return failure(
          'quota_exceeded',
          `${mine} agents are running for you, the most allowed; delete a task or session you no longer need, or try again later`,
          { scope: 'user', limit: this.limits.perUser },
        );
      }
      if (running.size >= this.limits.perServer) {
        return failure(
          'quota_exceeded',
          `${running.size} agents are running on this server, the most allowed; try again later`,
          { scope: 'server', limit: this.limits.perServer },
        );
      }
    }
    const held: Hold = { userId, sessionId };
    this.holds.add(held);
    if (sessionId !== undefined) this.owners.set(sessionId, userId);
    return {
      ok: true,
      slot: {
        bind: (id) => {
          held.sessionId = id;
          this.owners.set(id, userId);
        },
        release: () => {
          this.holds.delete(held);
        },
      },
    };
  }

  /** How many agents count now, for one user or for the server. */
  count(userId?: string): number {
    const running = [...this.running().values()];
    return userId === undefined ? running.length : running.filter((u) => u === userId).length;
  }

  /** Every counted agent (a session, or a start not yet bound to one) → the user charged. */
  private running(): Map<unknown, string> {
    const units = new Map<unknown, string>();
    const held = new Set<string>();
    for (const hold of this.holds) {
      units.set(hold.sessionId ?? hold, hold.userId);
      if (hold.sessionId !== undefined) held.add(hold.sessionId);
    }
    for (const [sessionId, userId] of this.owners) {
      if (this.isRunning(sessionId)) units.set(sessionId, userId);
      // Exited and no start under way: its place is free; forget it.
      else if (!held.has(sessionId)) this.owners.delete(sessionId);
    }
    return units;
  }
}
