/**
 * A real clarification stack over a real database (SQLite or PostgreSQL):
 * store, live waiters, resolver, HTTP routes. Only the agent runtime is a
 * test double, and principals come from a test header so that these suites
 * can speak as a member, an outsider or an agent without the sign-in flow
 * (which has its own suites).
 */
import { Hono } from 'hono';
import type { KyselyPlugin } from 'kysely';
import type { AgentRuntime } from '../../src/agents/runtime.js';
import type { Principal } from '../../src/auth/principal.js';
import {
  ClarificationService,
  DEFAULT_BUDGETS,
  LiveWaiters,
  type ClarificationBudgets,
} from '../../src/clarification/index.js';
import {
  createSessionWriter,
  type SessionWriter,
  type UserInputPending,
} from '../../src/events/index.js';
import { registerClarificationRoutes } from '../../src/http/clarification-routes.js';
import type { AppEnv } from '../../src/http/env.js';
import { handleUnexpectedErrors } from '../../src/http/errors.js';
import { errorBodyOf } from '../../src/wire/index.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { ResponseObserver } from '../../src/observability/response-observer.js';
import {
  addWorkspaceMember,
  createUser,
  messagesByPendingId,
  openStore,
  setSessionState,
  type DatabaseTarget,
  type Driver,
  type MessageRecord,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { createSuccessorTurns } from '../../src/turns/successor-turn.js';
import { freshDatabase, type TestDatabase } from './databases.js';
import { RecordingObserver, RecordingPublisher } from './recorders.js';
import { seedSession, type Seeded } from './seed.js';
import { TestRuntime } from './test-runtime.js';

export const TWO_QUESTIONS = {
  context: 'Setting up the parser',
  questions: [
    {
      prompt: 'Which parser should we use?',
      title: 'Parser',
      options: [
        { label: 'Hand-written', description: 'Recursive descent, no dependency' },
        { label: 'Generated', description: 'From a grammar file' },
      ],
    },
    {
      prompt: 'Which checks should run?',
      multi_select: true,
      options: [
        { label: 'Lint', description: 'ESLint' },
        { label: 'Types', description: 'tsc' },
        { label: 'Tests', description: 'vitest' },
      ],
    },
  ],
};

export const ANSWERS = {
  answers: [
    { question_id: 'q1', selected_options: ['q1_opt2'] },
    {
      question_id: 'q2',
      selected_options: ['q2_opt3', 'q2_opt1', 'q2_opt3'],
      custom_text: ' and e2e ',
    },
  ],
};

/** `ANSWERS` as the asking agent receives them: options named, in asking order, once each; text trimmed. */
export const ANSWERS_AS_RECEIVED = {
  q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }], custom_text: '' },
  q2: {
    selected: [
      { id: 'q2_opt1', label: 'Lint' },
      { id: 'q2_opt3', label: 'Tests' },
    ],
    custom_text: 'and e2e',
  },
};

export interface HarnessOptions {
  /** Defaults to a `TestRuntime`. */
  runtime?: AgentRuntime;
  budgets?: Partial<ClarificationBudgets>;
  plugins?: KyselyPlugin[];
  observer?: ResponseObserver;
  /** The registry's half of pending_action; none by default. */
  userInputPending?: UserInputPending;
  /** The service's and the routes' logger; silent by default. */
  logger?: Logger;
  /** Wraps the write unit the service writes through (the harness's `sessions` stays unwrapped). */
  wrapSessions?: (sessions: SessionWriter) => SessionWriter;
  /** Bundles the seeded session may hold open at once; `OPEN_ASKS_PER_AGENT` by default. */
  openAsksPerAgent?: number;
}

export interface Harness {
  store: Store;
  /** Where the store lives, for other connections and processes. */
  target: DatabaseTarget;
  seeded: Seeded;
  runtime: TestRuntime;
  events: RecordingPublisher;
  /** The write unit the service writes through, publishing into `events`. */
  sessions: SessionWriter;
  observer: RecordingObserver;
  waiters: LiveWaiters;
  service: ClarificationService;
  app: Hono<AppEnv>;
  memberId: string;
  principals: { member: Principal; outsider: Principal; agent: Principal };
  respond(
    pendingId: string,
    body: unknown,
    as?: 'member' | 'outsider' | 'agent',
  ): Promise<Response>;
  rows(pendingId: string): Promise<MessageRecord[]>;
  /**
   * The service of a second server on the same database: its own connection,
   * waiters, runtime and recorders. Its connection closes with `dispose`.
   */
  secondServer(): Promise<ClarificationService>;
  dispose(): Promise<void>;
}

/**
 * A service over `store` with parts of its own and nobody listening: what a
 * server other than the one under test runs, or a seeding step that leaves
 * questions behind as an earlier run would.
 */
export function serviceOver(
  store: Store,
  runtime: AgentRuntime = new TestRuntime(),
): ClarificationService {
  return new ClarificationService({
    store,
    waiters: new LiveWaiters(systemTimers),
    successors: createSuccessorTurns(runtime),
    sessions: createSessionWriter({
      store,
      events: new RecordingPublisher(),
      userInputPending: () => null,
    }),
    observer: new RecordingObserver(),
    logger: silentLogger,
    timers: systemTimers,
    budgets: DEFAULT_BUDGETS,
  });
}

export async function clarificationHarness(
  driver: Driver,
  options: HarnessOptions = {},
): Promise<Harness> {
  const database: TestDatabase = await freshDatabase(driver, { migrated: true });
  const store = await openStore(database.target, { plugins: options.plugins ?? [] });
  const member = await createUser(store, { name: 'member' });
  const outsider = await createUser(store, { name: 'outsider' });
  const seeded = await seedSession(store, 'parser');
  await addWorkspaceMember(store, {
    workspaceId: seeded.task.workspace_id,
    userId: member.id,
    role: 'member',
  });
  await seedSession(store, 'elsewhere');
  await setSessionState(store, seeded.session.id, 'running');

  const runtime = new TestRuntime();
  const events = new RecordingPublisher();
  const userInputPending = options.userInputPending ?? (() => null);
  const sessions = createSessionWriter({ store, events, userInputPending });
  const observer = new RecordingObserver();
  const waiters = new LiveWaiters(systemTimers);
  const service = new ClarificationService({
    store,
    waiters,
    successors: createSuccessorTurns(options.runtime ?? runtime),
    sessions: options.wrapSessions?.(sessions) ?? sessions,
    observer: options.observer ?? observer,
    logger: options.logger ?? silentLogger,
    timers: systemTimers,
    budgets: { ...DEFAULT_BUDGETS, ...options.budgets },
    ...(options.openAsksPerAgent === undefined
      ? {}
      : { openAsksPerAgent: options.openAsksPerAgent }),
  });
  const principals = {
    member: { kind: 'user', userId: member.id, name: member.name, isAdmin: false },
    outsider: { kind: 'user', userId: outsider.id, name: 'Test user', isAdmin: false },
    agent: { kind: 'agent', userId: member.id, sessionId: seeded.session.id },
  } satisfies Record<string, Principal>;

  const app = new Hono<AppEnv>();
  handleUnexpectedErrors(app, options.logger ?? silentLogger);
  app.use('/api/v1/*', async (c, next) => {
    const principal = principals[c.req.header('x-test-principal') as keyof typeof principals];
    if (!(principal as Principal | undefined))
      return c.json(errorBodyOf({ code: 'unauthorized' }), 401);
    c.set('principal', principal);
    c.set('surface', 'rest');
    await next();
  });
  registerClarificationRoutes(app, { clarification: service });
  const otherStores: Store[] = [];

  return {
    store,
    target: database.target,
    seeded,
    runtime,
    events,
    sessions,
    observer,
    waiters,
    service,
    app,
    memberId: member.id,
    principals,
    respond: (pendingId, body, as = 'member') =>
      Promise.resolve(
        app.request(`/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-test-principal': as },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    rows: (pendingId) => messagesByPendingId(store, pendingId),
    secondServer: async () => {
      const other = await openStore(database.target);
      otherStores.push(other);
      return serviceOver(other);
    },
    dispose: async () => {
      for (const other of otherStores.splice(0)) await other.close();
      await store.close();
      await database.dispose();
    },
  };
}

/** Resolves once `check` holds, polling; for waits that cross the event loop. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
