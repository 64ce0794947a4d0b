/**
 * Benchmark 8, part two: how much later an answer reaches a waiting agent
 * when it is posted to another replica (issue 16). Two `clarion serve`
 * replicas, A and B, share a fresh PostgreSQL database. One external MCP
 * agent (the admin's token, as someone's own coding agent would use a user
 * token) asks `ask_user_question` on A and waits live; once the question is
 * seen on A's event stream, the answer is posted to A (same replica) or to B
 * (cross replica: B claims, announces with `pg_notify`, A delivers). Both
 * clocks start at the POST: `post` stops at its reply (on B that waits until
 * the store shows A's hand-off), `answer` when the agent's tool result
 * arrives. Samples alternate same, cross, cross, same (ABBA) so the
 * machine's drift lands on both alike; warm-up samples of both kinds are
 * dropped.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ADMIN_TOKEN, ANSWER, askArgs } from './clarion-instance.js';
import { BenchClient } from './http-client.js';
import { watchArrivals, type ArrivalWatch } from './question-watch.js';
import { askQuestion, connectAgent, type AskOutcome } from './mcp-agent.js';
import type { BenchPostgres } from './postgres.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { elapsedMs, summarize, type LatencySummary } from './stats.js';

export interface AnswerLatency {
  /** POST to its reply. */
  post: LatencySummary;
  /** POST to the agent's tool result. */
  answer: LatencySummary;
}

export interface CrossLatencyResult {
  same: AnswerLatency;
  cross: AnswerLatency;
  /** Samples whose POST was not a winning 200, or whose agent got something else. */
  failures: number;
  unexpected: string[];
}

const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const SEEN_TIMEOUT_MS = 30_000;
const MAX_UNEXPECTED = 5;

/** ABBA: samples 0 and 3 of every four go to the same replica, 1 and 2 across. */
function crossing(sample: number): boolean {
  return sample % 4 === 1 || sample % 4 === 2;
}

export async function measureCrossLatency(
  postgres: BenchPostgres,
  warmup: number,
  samples: number,
): Promise<CrossLatencyResult> {
  const database = await postgres.createDatabase();
  const target = database.target;
  const servers: ServerProcess[] = [];
  const http: BenchClient[] = [];
  let agent: Client | undefined;
  let questions: ArrivalWatch | undefined;
  try {
    // One after the other: the first start bootstraps the admin the second finds.
    for (const name of ['a', 'b']) {
      servers.push(await startServerProcess(target, { CLARION_REPLICA_ID: `bench-${name}` }));
    }
    const [a, b] = servers;
    if (!a || !b) throw new Error('two replicas expected');
    http.push(new BenchClient(a.url), new BenchClient(b.url));
    const [toA, toB] = http;
    if (!toA || !toB) throw new Error('two clients expected');
    // The agent's external session is made on its first ask: its ID is not known beforehand.
    questions = await watchArrivals(a.url, ADMIN_TOKEN);
    agent = await connectAgent(a.url, ADMIN_TOKEN);

    const ms = {
      same: { post: [] as number[], answer: [] as number[] },
      cross: { post: [] as number[], answer: [] as number[] },
    };
    const unexpected: string[] = [];
    let failures = 0;
    const note = (line: string) => {
      failures++;
      if (unexpected.length < MAX_UNEXPECTED) unexpected.push(line);
    };
    // Whole ABBA blocks of each, so warm-up and samples hold as many of both kinds.
    const total = 4 * Math.ceil(warmup / 2) + 4 * Math.ceil(samples / 2);
    const firstTimed = 4 * Math.ceil(warmup / 2);
    for (let sample = 0; sample < total; sample++) {
      const cross = crossing(sample);
      const call = askQuestion(agent, askArgs(`replicas ${sample}`)).catch(
        (error: unknown): AskOutcome => ({
          status: 'error',
          pendingId: String(error),
          selected: [],
        }),
      );
      const pendingId = await questions.next(SEEN_TIMEOUT_MS);
      const t0 = performance.now();
      const answered = call.then((outcome) => ({ outcome, ms: elapsedMs(t0) }));
      const reply = await (cross ? toB : toA).post(
        `/api/v1/clarification/${pendingId}/respond`,
        ANSWER,
        AUTH,
      );
      const postMs = elapsedMs(t0);
      const got = await answered;
      const claimed =
        reply.status === 200 && (JSON.parse(reply.body) as { claimed?: unknown }).claimed === true;
      if (!claimed) note(`respond ${reply.status} ${reply.body.slice(0, 200)}`);
      else if (got.outcome.status !== 'answered' || got.outcome.pendingId !== pendingId) {
        note(`agent got ${got.outcome.status} for ${String(got.outcome.pendingId)}`);
      }
      if (sample < firstTimed) continue;
      const kind = cross ? ms.cross : ms.same;
      kind.post.push(postMs);
      kind.answer.push(got.ms);
    }
    return {
      same: { post: summarize(ms.same.post), answer: summarize(ms.same.answer) },
      cross: { post: summarize(ms.cross.post), answer: summarize(ms.cross.answer) },
      failures,
      unexpected,
    };
  } finally {
    questions?.close();
    await agent?.close().catch(() => undefined);
    for (const client of http) client.close();
    await Promise.allSettled(servers.map((server) => server.stop()));
    await database.drop();
  }
}
