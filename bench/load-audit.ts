/**
 * The load benchmark's audit: what the agents received, what the responders
 * were told, and what the database kept, checked against each other. The
 * tally is a pure function of those three records.
 */
import {
  CLARIFICATION_TYPE,
  openStore,
  parseMetadata,
  rowsWithDeliveryIntent,
  type DatabaseTarget,
} from '../src/store/index.js';
import type { ResponderReply } from './load-responders.js';

/** One answered ask, as its agent read it. */
export interface Received {
  pendingId: string;
  selected: string[];
}

export interface DatabaseAudit {
  /**
   * Pending IDs whose answer started a new turn in an agent's session: the
   * resume of a detached bundle (its agent had stopped waiting), one entry
   * per such turn.
   */
  resumed: string[];
  pendingRows: number;
  deliveryIntents: number;
  /** When each bundle's question row was written (epoch ms), for the slow-cycle diagnosis. */
  writtenAtMs: ReadonlyMap<string, number>;
}

export interface Tally {
  lost: number;
  doubles: number;
  inconsistent: number;
  serverErrors: number;
  /** Replies that were neither 200 nor 5xx, and requests that failed outright. */
  otherFailures: number;
  /** Bundles that two responders answered. */
  raced: number;
  /** Answers delivered by resuming the session, after the agent stopped waiting. */
  resumed: number;
  /** What each double or inconsistency was, by pending ID (the first few), to find it in the logs. */
  findings: string[];
}

const MAX_FINDINGS = 20;

export function tally(
  asks: number,
  received: readonly Received[],
  replies: ReadonlyMap<string, readonly ResponderReply[]>,
  database: DatabaseAudit,
): Tally {
  const result: Tally = {
    lost: asks - received.length,
    doubles: 0,
    inconsistent: 0,
    serverErrors: 0,
    otherFailures: 0,
    raced: 0,
    resumed: database.resumed.length,
    findings: [],
  };
  const find = (line: string) => {
    if (result.findings.length < MAX_FINDINGS) result.findings.push(line);
  };
  const winners = new Map<string, string[] | undefined>();
  for (const [pendingId, answers] of replies) {
    if (answers.length > 1) result.raced++;
    for (const reply of answers) {
      if (reply.status >= 500) result.serverErrors++;
      else if (reply.status !== 200) result.otherFailures++;
    }
    const ok = answers.filter((reply) => reply.status === 200);
    const claimed = ok.filter((reply) => reply.claimed === true);
    if (claimed.length > 1) {
      result.doubles += claimed.length - 1;
      find(`${pendingId}: ${claimed.length} responders told they won: ${describe(claimed)}`);
    }
    const winner = claimed[0]?.selected;
    if (ok.length > 0 && winner === undefined) {
      result.inconsistent++;
      find(`${pendingId}: no responder won, replies ${describe(ok)}`);
    } else if (ok.some((reply) => !sameOptions(reply.selected, winner))) {
      result.inconsistent++;
      find(`${pendingId}: responders told different winners: ${describe(ok)}`);
    }
    winners.set(pendingId, winner);
  }
  // An answer reaches an agent live or by a resumed turn, and only once either way.
  const seen = new Set<string>();
  const resumed = new Set(database.resumed);
  for (const pendingId of [...received.map((answer) => answer.pendingId), ...database.resumed]) {
    if (seen.has(pendingId)) {
      result.doubles++;
      const how = resumed.has(pendingId) ? 'live and by a resumed turn' : 'twice live';
      find(`${pendingId}: its agent received it ${how}`);
    }
    seen.add(pendingId);
  }
  for (const answer of received) {
    const winner = winners.get(answer.pendingId);
    if (!sameOptions(answer.selected, winner)) {
      result.inconsistent++;
      find(
        `${answer.pendingId}: its agent received ${answer.selected.join('+')}, ` +
          `the winner was ${winner?.join('+') ?? 'unknown'}`,
      );
    }
  }
  return result;
}

function describe(replies: readonly ResponderReply[]): string {
  return replies
    .map(
      (reply) =>
        `responder ${reply.responder} ${reply.selected?.join('+') ?? '?'}` +
        ` (claimed ${String(reply.claimed)})`,
    )
    .join(', ');
}

function sameOptions(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a !== undefined && b !== undefined && a.join('\n') === b.join('\n');
}

/** Reads the stopped server's database: resumed answers, pending rows and unconfirmed hand-offs. */
export async function auditDatabase(
  target: DatabaseTarget,
  agentSessions: readonly string[],
): Promise<DatabaseAudit> {
  const store = await openStore(target);
  try {
    const resumes = await store.db
      .selectFrom('task_session_turns')
      .select('metadata')
      .where('task_session_id', 'in', agentSessions)
      .execute();
    const rows = await store.db
      .selectFrom('task_session_messages')
      .select(['metadata', 'created_at'])
      .where('type', '=', CLARIFICATION_TYPE)
      .execute();
    const writtenAtMs = new Map<string, number>();
    for (const row of rows) {
      const pendingId = parseMetadata(row.metadata).pending_id;
      if (typeof pendingId === 'string') writtenAtMs.set(pendingId, Date.parse(row.created_at));
    }
    return {
      resumed: resumes.flatMap((turn) => {
        const pendingId = parseMetadata(turn.metadata).prompt_dispatch_clarification_pending_id;
        return typeof pendingId === 'string' ? [pendingId] : [];
      }),
      pendingRows: rows.filter((row) => parseMetadata(row.metadata).status === 'pending').length,
      deliveryIntents: (await rowsWithDeliveryIntent(store)).length,
      writtenAtMs,
    };
  } finally {
    await store.close();
  }
}
