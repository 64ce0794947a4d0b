/**
 * The clarification harness plus the turns services and their REST routes,
 * with agents played by a `TestHost`.
 */
import type { KyselyPlugin } from 'kysely';
import type { Driver } from '../../src/store/index.js';
import { registerTaskRoutes } from '../../src/http/task-routes.js';
import { registerUserInputRoutes } from '../../src/http/user-input-routes.js';
import { systemTimers } from '../../src/support/timers.js';
import {
  decisionRecorder,
  followUpAdmitter,
  userInputPublisher,
} from '../../src/turns/user-input-bridge.js';
import {
  createUserInputRegistry,
  type ConsentView,
  type UserInputDeadlines,
  type UserInputPorts,
  type UserInputRegistry,
} from '../../src/user-input/index.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import {
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNKEPT_TYPE,
  type MessageView,
} from '../../src/wire/index.js';
import {
  AgentQuota,
  DEFAULT_AGENT_QUOTA,
  type AgentQuotaLimits,
} from '../../src/turns/agent-quota.js';
import type { TurnsDeps } from '../../src/turns/context.js';
import { RuntimeEventPump } from '../../src/turns/event-pump.js';
import { AgentStarts } from '../../src/turns/agent-starts.js';
import { CancelRequests } from '../../src/turns/cancellations.js';
import { UnrecordedRefusals } from '../../src/turns/unrecorded-refusals.js';
import { IdleStops } from '../../src/turns/idle-policy.js';
import type { Timers } from '../../src/support/timers.js';
import { clarificationHarness, eventually, type Harness } from './clarification-harness.js';
import { TestHost } from './test-host.js';

/** What `POST /api/v1/tasks` answers (the parts tests read). */
export interface CreatedTask {
  task: { id: string };
  session: { id: string; state: string };
  admission: string | null;
}

export interface TurnsHarness extends Harness {
  host: TestHost;
  turns: TurnsDeps;
  pump: RuntimeEventPump;
  /** Resolves once agent starts begun after their admission, and the reports they caused, are done. */
  settled(): Promise<void>;
  request(method: string, path: string, body?: unknown, as?: string): Promise<Response>;
  /** Creates a task over REST as the member, its prompt (if any) admitted to a new agent; 201 or throws. */
  createTask(prompt?: string): Promise<CreatedTask>;
  /** A task whose agent runs `first`, with `queued` waiting behind it (202, or throws). */
  createBusyTask(queued: string): Promise<CreatedTask>;
}

export async function turnsHarness(
  driver: Driver,
  options: {
    agentQuota?: AgentQuotaLimits;
    timers?: Timers;
    agentIdleMs?: number;
    userInputDeadlines?: Partial<UserInputDeadlines>;
    plugins?: KyselyPlugin[];
    /** The turns services' logger, in place of a silent one. */
    logger?: Logger;
    /** The registry's `recordDecision` port, in place of one over the harness's store. */
    recordDecision?: (h: Harness) => Promise<UserInputPorts['recordDecision']>;
  } = {},
): Promise<TurnsHarness> {
  const host = new TestHost();
  const ref: { turns?: TurnsDeps; userInputs?: UserInputRegistry } = {};
  const h = await clarificationHarness(driver, {
    runtime: host,
    userInputPending: (sessionId) => ref.userInputs?.pendingActionOf(sessionId) ?? null,
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  const userInputs = createUserInputRegistry({
    clock: h.store.clock,
    ids: h.store.ids,
    timers: systemTimers,
    publish: userInputPublisher({ sessions: h.sessions, events: h.events, logger: silentLogger }),
    admitFollowUp: followUpAdmitter(() => ref.turns),
    recordDecision: options.recordDecision
      ? await options.recordDecision(h)
      : decisionRecorder(h.sessions, h.store),
    logger: silentLogger,
    deadlines: options.userInputDeadlines,
  });
  const turns: TurnsDeps = {
    store: h.store,
    host,
    clarification: h.service,
    userInputs,
    sessions: h.sessions,
    logger: options.logger ?? silentLogger,
    profiles: new Map([['demo', { name: 'demo', command: 'demo-agent', args: [], env: {} }]]),
    defaultProfile: 'demo',
    mcpUrl: () => 'http://127.0.0.1:1/mcp',
    agentCwd: process.cwd(),
    agentQuota: new AgentQuota(
      (sessionId) => host.isStarted(sessionId),
      options.agentQuota ?? DEFAULT_AGENT_QUOTA,
    ),
    idleStops: new IdleStops(options.timers ?? systemTimers, options.agentIdleMs ?? 600_000),
    starts: new AgentStarts(),
    cancellations: new CancelRequests(),
    unrecordedRefusals: new UnrecordedRefusals(),
    timers: options.timers ?? systemTimers,
  };
  ref.turns = turns;
  ref.userInputs = userInputs;
  registerTaskRoutes(h.app, turns);
  registerUserInputRoutes(h.app, { store: h.store, userInputs, timers: turns.timers });
  const pump = new RuntimeEventPump(turns);
  const request: TurnsHarness['request'] = (method, path, body, as = 'member') =>
    Promise.resolve(
      h.app.request(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-test-principal': as },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const harness: TurnsHarness = {
    ...h,
    host,
    turns,
    pump,
    settled: async () => {
      await turns.starts.idle();
      await pump.idle();
      await turns.starts.idle();
    },
    request,
    createTask: async (prompt) => {
      const response = await request('POST', '/api/v1/tasks', {
        title: 'Write the parser',
        ...(prompt ? { prompt } : {}),
      });
      if (response.status !== 201) {
        throw new Error(`creating a task answered ${response.status}: ${await response.text()}`);
      }
      return (await response.json()) as CreatedTask;
    },
    createBusyTask: async (queued) => {
      const created = await harness.createTask('first');
      await harness.settled();
      const response = await request('POST', `/api/v1/sessions/${created.session.id}/messages`, {
        text: queued,
        admission_key: queued,
      });
      if (response.status !== 202) {
        throw new Error(`queueing a message answered ${response.status}: ${await response.text()}`);
      }
      return created;
    },
    dispose: async () => {
      turns.idleStops.close();
      pump.stop();
      userInputs.close();
      await h.dispose();
    },
  };
  return harness;
}

/** The session's consent request as `GET /api/v1/user-inputs` lists it, once it is listed. */
export async function listedConsent(h: TurnsHarness, sessionId: string): Promise<ConsentView> {
  let found: ConsentView | undefined;
  await eventually(async () => {
    const listed = (await (await h.request('GET', '/api/v1/user-inputs')).json()) as {
      requests: ConsentView[];
    };
    found = listed.requests.find((view) => view.session_id === sessionId);
    return found !== undefined;
  });
  if (!found) throw new Error('no consent');
  return found;
}

/** The session's decision rows: what the transcript shows, and their metadata as stored. */
export function decisionMessages(h: TurnsHarness, sessionId: string) {
  return h.store.db
    .selectFrom('task_session_messages')
    .select(['content', 'metadata'])
    .where('task_session_id', '=', sessionId)
    .where('type', '=', USER_INPUT_DECISION_TYPE)
    .execute();
}

/** The metadata of the session's decision rows, as stored (JSON text). */
export async function decisionRows(h: TurnsHarness, sessionId: string): Promise<string[]> {
  return (await decisionMessages(h, sessionId)).map((row) =>
    typeof row.metadata === 'string' ? row.metadata : JSON.stringify(row.metadata),
  );
}

/** The session's rows that were a refused answer's decision and now record none. */
export async function unkeptDecisionIds(h: TurnsHarness, sessionId: string): Promise<string[]> {
  const rows = await h.store.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('task_session_id', '=', sessionId)
    .where('type', '=', USER_INPUT_DECISION_UNKEPT_TYPE)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * What a watcher of the session's events takes for its decisions: each row as
 * its last `message.added` or `message.updated` showed it, the decision rows'
 * chosen option (or decision), in the order they were first heard of.
 */
export function decisionsWatchersSee(h: TurnsHarness, sessionId: string): unknown[] {
  const rows = new Map<string, MessageView>();
  for (const event of h.events.events) {
    if (event.session_id !== sessionId) continue;
    if (event.type === 'message.added' || event.type === 'message.updated') {
      rows.set(event.message.id, event.message);
    }
  }
  return [...rows.values()]
    .filter((row) => row.type === USER_INPUT_DECISION_TYPE)
    .map((row) => row.metadata.option_id ?? row.metadata.decision);
}
