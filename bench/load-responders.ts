/**
 * The people of the load benchmark: `count` responders, each with its own
 * event WebSocket and HTTP connections, as separate browser tabs would have.
 * Agent `a`'s questions go to responder `a % count`; one in five of them
 * (decided by agent and cycle number, so the same ones every run) also goes
 * to the next responder, and both answer at once with different options, a
 * real race on the same bundle. Every reply is kept for the audit; nothing is
 * retried, so a lost answer shows as an agent that never gets one.
 *
 * With `reconnect`, a responder whose event stream ends (its server stopped
 * behind a load balancer) opens it again, as the web app does, and reads the
 * pending list after subscribing (subscribe before snapshot), so a question
 * asked meanwhile is still seen; each responder answers a bundle once.
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
/** How soon a closed event stream is opened again (`reconnect`). */
const RECONNECT_DELAY_MS = 100;

export interface ResponderOptions {
  /** Open a closed event stream again and read the pending list once subscribed. */
  reconnect?: boolean;
}

export async function startResponders(
  serverUrl: string,
  agentSessions: readonly string[],
  count: number,
  options: ResponderOptions = {},
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
  let closed = false;
  /** Per responder: the bundles it answered, so a question seen twice is answered once. */
  const answeredBy = new Map<number, Set<string>>();

  const answer = (responder: number, client: BenchClient, pendingId: string, option: string) => {
    const mine = answeredBy.get(responder) ?? new Set<string>();
    answeredBy.set(responder, mine);
    if (mine.has(pendingId)) return;
    mine.add(pendingId);
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
      const onQuestion = (agent: number, cycle: number, pendingId: string) => {
        if (agent % count === responder) answer(responder, client, pendingId, PRIMARY_OPTION);
        else if (races(agent, cycle)) answer(responder, client, pendingId, RACER_OPTION);
      };
      const open = async (): Promise<void> => {
        const socket = await subscribe(serverUrl, mine, onQuestion);
        sockets.push(socket);
        if (options.reconnect !== true) return;
        socket.once('close', () => {
          if (!closed) setTimeout(reopen, RECONNECT_DELAY_MS);
        });
        await readPending(client, new Set(mine), onQuestion);
      };
      const reopen = () => {
        if (closed) return;
        open().catch(() => setTimeout(reopen, RECONNECT_DELAY_MS));
      };
      await open();
    }
  } catch (error) {
    closed = true;
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
      closed = true;
      for (const socket of sockets) socket.terminate();
      for (const client of clients) client.close();
    },
  };
}

/** The pending list, every page, as a browser reads it after subscribing; `onQuestion` for each load question. */
async function readPending(
  client: BenchClient,
  sessions: ReadonlySet<string>,
  onQuestion: (agent: number, cycle: number, pendingId: string) => void,
): Promise<void> {
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const reply = await client.get(`/api/v1/pending?limit=200${query}`, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    if (reply.status !== 200) throw new Error(`pending list: ${reply.status}`);
    const page = JSON.parse(reply.body) as {
      bundles: { pending_id: string; session_id: string; context: string }[];
      next_cursor: string | null;
    };
    for (const bundle of page.bundles) {
      const tag = TAG.exec(bundle.context);
      if (tag && sessions.has(bundle.session_id)) {
        onQuestion(Number(tag[1]), Number(tag[2]), bundle.pending_id);
      }
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
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
    // Errors after the subscription are the close that follows them (see `reconnect`).
    socket.on('error', reject);
    socket.once('close', () => {
      reject(new Error('event stream closed before it subscribed'));
    });
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
