/**
 * The people of the load benchmark: `count` responders, each with its own
 * event WebSocket and HTTP connections, as separate browser tabs would have.
 * Agent `a`'s questions go to responder `a % count`; one in five of them
 * (decided by agent and cycle number, so the same ones every run) also goes
 * to the next responder, and both answer at once with different options, a
 * real race on the same bundle. Every reply is kept for the audit; nothing is
 * retried, so a lost answer shows as an agent that never gets one.
 */
import { WebSocket } from 'ws';
import type { ServerFrame } from '../src/events/index.js';
import { ADMIN_TOKEN } from './clarion-instance.js';
import { BenchClient } from './http-client.js';

export interface ResponderReply {
  responder: number;
  /** HTTP status, or 0 when the request itself failed. */
  status: number;
  claimed: boolean | undefined;
  /** The options of `q1` in the response body: the winner's answer, for winner and loser alike. */
  selected: string[] | undefined;
}

/** When the responders first saw a bundle's question, and first got a 200 for it (`performance.now()`). */
export interface ResponderTiming {
  seenAtMs: number;
  repliedAtMs: number | undefined;
}

export interface Responders {
  /** Replies per pending ID, in arrival order. */
  readonly replies: ReadonlyMap<string, readonly ResponderReply[]>;
  readonly timings: ReadonlyMap<string, ResponderTiming>;
  /** The first few replies that were not 200 (body or error message), to say why. */
  readonly unexpected: readonly string[];
  /** Resolves once every answer already sent has its reply. */
  settled(): Promise<void>;
  close(): void;
}

/** The ask context of agent `agent`'s cycle `cycle`; responders read both back from it. */
export function loadTag(agent: number, cycle: number): string {
  return `load a${agent} c${cycle}`;
}

const TAG = /load a(\d+) c(\d+)$/;

/** One ask in five is answered by two responders at once. */
export function races(agent: number, cycle: number): boolean {
  return (agent + cycle) % 5 === 0;
}

/** The option each side of a race picks, so the audit can tell whose answer won. */
export const PRIMARY_OPTION = 'q1_opt1';
export const RACER_OPTION = 'q1_opt2';

const MAX_UNEXPECTED = 10;

export async function startResponders(
  serverUrl: string,
  agentSessions: readonly string[],
  count: number,
): Promise<Responders> {
  const replies = new Map<string, ResponderReply[]>();
  const timings = new Map<string, ResponderTiming>();
  const unexpected: string[] = [];
  const note = (line: string) => {
    if (unexpected.length < MAX_UNEXPECTED) unexpected.push(line);
  };
  const inFlight = new Set<Promise<void>>();
  const sockets: WebSocket[] = [];
  const clients: BenchClient[] = [];

  const answer = (responder: number, client: BenchClient, pendingId: string, option: string) => {
    const timing = timings.get(pendingId) ?? {
      seenAtMs: performance.now(),
      repliedAtMs: undefined,
    };
    timings.set(pendingId, timing);
    const record = (reply: ResponderReply) => {
      replies.set(pendingId, [...(replies.get(pendingId) ?? []), reply]);
      if (reply.status === 200) timing.repliedAtMs ??= performance.now();
    };
    const sent = client
      .post(
        `/api/v1/clarification/${pendingId}/respond`,
        { answers: [{ question_id: 'q1', selected_options: [option] }] },
        { authorization: `Bearer ${ADMIN_TOKEN}` },
      )
      .then(
        (reply) => {
          if (reply.status !== 200) note(`${reply.status} ${reply.body.slice(0, 200)}`);
          record({ responder, status: reply.status, ...parseReply(reply.status, reply.body) });
        },
        (error: unknown) => {
          note(`request failed: ${error instanceof Error ? error.message : String(error)}`);
          record({ responder, status: 0, claimed: undefined, selected: undefined });
        },
      );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };

  try {
    for (let responder = 0; responder < count; responder++) {
      const client = new BenchClient(serverUrl);
      clients.push(client);
      const mine = agentSessions.filter(
        (_, agent) => agent % count === responder || (agent + 1) % count === responder,
      );
      const socket = await subscribe(serverUrl, mine, (agent, cycle, pendingId) => {
        if (agent % count === responder) answer(responder, client, pendingId, PRIMARY_OPTION);
        else if (races(agent, cycle)) answer(responder, client, pendingId, RACER_OPTION);
      });
      sockets.push(socket);
    }
  } catch (error) {
    for (const socket of sockets) socket.terminate();
    for (const client of clients) client.close();
    throw error;
  }

  return {
    replies,
    timings,
    unexpected,
    async settled() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    close() {
      for (const socket of sockets) socket.terminate();
      for (const client of clients) client.close();
    },
  };
}

/** One WebSocket subscribed to `sessions`; calls `onQuestion` for each new load question. */
async function subscribe(
  serverUrl: string,
  sessions: readonly string[],
  onQuestion: (agent: number, cycle: number, pendingId: string) => void,
): Promise<WebSocket> {
  const socket = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => {
      socket.send(JSON.stringify({ type: 'subscribe', sessions }));
    });
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (frame.type === 'subscribed') {
        if (frame.refused.length > 0) reject(new Error(`refused sessions ${frame.refused.join()}`));
        else resolve();
      }
      if (frame.type !== 'event') return;
      const { event } = frame;
      if (event.type !== 'message.added' || event.message.type !== 'clarification_request') return;
      const { pending_id: pendingId, context } = event.message.metadata;
      const tag = typeof context === 'string' ? TAG.exec(context) : null;
      if (typeof pendingId !== 'string' || !tag) return;
      onQuestion(Number(tag[1]), Number(tag[2]), pendingId);
    });
  });
  return socket;
}

function parseReply(status: number, body: string): Pick<ResponderReply, 'claimed' | 'selected'> {
  if (status !== 200) return { claimed: undefined, selected: undefined };
  try {
    const parsed = JSON.parse(body) as {
      claimed?: unknown;
      response?: { answers?: { question_id?: unknown; selected_options?: unknown }[] };
    };
    const q1 = parsed.response?.answers?.find((answer) => answer.question_id === 'q1');
    return {
      claimed: typeof parsed.claimed === 'boolean' ? parsed.claimed : undefined,
      selected: Array.isArray(q1?.selected_options) ? q1.selected_options.map(String) : undefined,
    };
  } catch {
    // A malformed 200 body is a defect the audit reports as an inconsistent answer.
    return { claimed: undefined, selected: undefined };
  }
}
