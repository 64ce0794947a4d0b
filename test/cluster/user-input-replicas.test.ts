/**
 * Consent and form requests answered through another replica (issue 16), with
 * two replicas in one test process on one real PostgreSQL: each has its own
 * store connection, replica row, wake bus and user-input registry (with the
 * publisher that mirrors its views). A request raised on A is listed on B and
 * answered there with A's own answers; a lost wake is applied by A's poll; a
 * stopped owner's requests are gone; an owner that never answers costs B a
 * 503 and changes nothing.
 */
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { sessionEventLog, type Replica, type WakeBus } from '../../src/cluster/index.js';
import { createSessionWriter, type SessionWriter } from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  createUser,
  openStore,
  pendingForwardedAnswers,
  takeForwardedAnswer,
  transcriptPage,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import type { ClarificationService } from '../../src/clarification/index.js';
import {
  formRequester,
  mintAnswerLinks,
  respondToUserInput,
  useAnswerLink,
  visibleUserInputs,
  type AnswerLinkDeps,
} from '../../src/turns/index.js';
import {
  decisionRecorder,
  userInputPending,
  userInputPublisher,
} from '../../src/turns/user-input-bridge.js';
import {
  userInputReplicas,
  type UserInputReplicasDeps,
} from '../../src/turns/user-input-replicas.js';
import {
  createUserInputRegistry,
  type AgentOutcome,
  type HumanResponse,
  type UserInputRegistry,
} from '../../src/user-input/index.js';
import { formSchema, type UserInputView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { inProcessReplica, seedAnsweringMember } from '../support/replicas.js';
import type { Seeded } from '../support/seed.js';

const LEASE_MS = 15_000;

interface Node {
  id: string;
  store: Store;
  replica: Replica;
  bus: WakeBus;
  registry: UserInputRegistry;
  sessions: SessionWriter;
  /** What `respondToUserInput` and `visibleUserInputs` are given on this replica. */
  deps: Parameters<typeof respondToUserInput>[0];
  close(): Promise<void>;
}

describe('registry requests across replicas on postgres', () => {
  let database: TestDatabase;
  let seeded: Seeded;
  let person: Principal;
  let personId: string;
  let stranger: Principal;
  const nodes: Node[] = [];

  beforeEach(async () => {
    database = await freshDatabase('postgres', { migrated: true });
    ({ seeded, person } = await seedAnsweringMember(database.target));
    personId = person.userId;
    const store = await openStore(database.target);
    try {
      const other = await createUser(store, { name: 'other' });
      stranger = { kind: 'user', userId: other.id, name: other.name, isAdmin: false };
    } finally {
      await store.close();
    }
  });

  afterEach(async () => {
    for (const node of nodes.splice(0).reverse()) {
      node.registry.close();
      await node.registry.drain();
      await node.close();
    }
    await database.dispose();
  });

  async function node(
    id: string,
    options: {
      pollIntervalMs?: number;
      /** false: this replica never hears wakes or polls for answers left for it. */
      applies?: boolean;
      across?: Partial<Pick<UserInputReplicasDeps, 'waitMs' | 'recheckMs'>>;
      bus?: (bus: WakeBus) => WakeBus;
      /** The store the replicas' mirror and forwarded answers go through. */
      acrossStore?: (store: Store) => Store;
    } = {},
  ): Promise<Node> {
    const { store, replica, bus, close } = await inProcessReplica(database.target, id, {
      leaseMs: LEASE_MS,
      ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    const across = userInputReplicas({
      store: options.acrossStore ? options.acrossStore(store) : store,
      bus: options.bus ? options.bus(bus) : bus,
      // Called only once the registry below exists.
      registry: () => registry,
      leaseMs: LEASE_MS,
      timers: systemTimers,
      logger: silentLogger,
      ...options.across,
    });
    const sessions = createSessionWriter({
      store,
      events: { publish: () => undefined },
      // As the server wires it; no agent runs in these replicas.
      userInputPending: userInputPending({
        registry: () => registry,
        runsHere: () => false,
        elsewhere: across.pendingElsewhere,
      }),
      log: sessionEventLog(bus),
    });
    const registry: UserInputRegistry = createUserInputRegistry({
      clock: store.clock,
      ids: store.ids,
      timers: systemTimers,
      publish: userInputPublisher({
        sessions,
        events: { publish: () => undefined },
        logger: silentLogger,
        mirror: across.mirror,
      }),
      admitFollowUp: () => Promise.resolve('accepted'),
      recordDecision: decisionRecorder(sessions, store),
      logger: silentLogger,
    });
    if (options.applies !== false) bus.subscribe(across.wakes);
    const deps = {
      store,
      userInputs: registry,
      userInputsElsewhere: across.elsewhere,
      timers: systemTimers,
    };
    const made = { id, store, replica, bus, registry, sessions, deps, close };
    nodes.push(made);
    await eventually(() => bus.listenerState() === 'listening');
    return made;
  }

  const caller = (principal: Principal = person) => ({ principal, surface: 'rest' as const });

  /** A consent raised on `on` (its agent waits on `outcome`), once B can see it. */
  async function consent(on: Node, seen: Node) {
    const created = on.registry.request({
      kind: 'consent',
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      profile: 'demo',
      toolKey: 'execute',
      command: 'Run npm test',
      title: 'Run npm test',
      options: [
        { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
        { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
      ],
    });
    if (!created.ok) throw new Error('consent refused');
    await eventually(async () =>
      (await visibleUserInputs(seen.deps, person)).some((view) => view.id === created.id),
    );
    return { id: created.id, outcome: created.outcome };
  }

  async function form(on: Node, seen: Node) {
    const created = on.registry.request({
      kind: 'form',
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      message: 'Where to deploy?',
      schema: formSchema.parse({
        properties: { env: { type: 'string', enum: ['dev', 'prod'] } },
        required: ['env'],
      }),
    });
    if (!created.ok) throw new Error('form refused');
    await eventually(async () =>
      (await visibleUserInputs(seen.deps, person)).some((view) => view.id === created.id),
    );
    return { id: created.id, outcome: created.outcome };
  }

  const respond = (on: Node, id: string, response: HumanResponse, principal?: Principal) =>
    respondToUserInput(on.deps, caller(principal), id, response);

  it("a session write on B says what the session waits on in A's registry", async () => {
    const a = await node('A');
    const b = await node('B');
    const sessionId = seeded.session.id;
    expect(await b.sessions.pendingAction(sessionId)).toBeNull();

    const asked = await form(a, b);
    expect(await b.sessions.pendingAction(sessionId)).toBe('form');
    // As the registry ranks them: a consent before a form.
    const { id } = await consent(a, b);
    expect(await b.sessions.pendingAction(sessionId)).toBe('consent');
    expect(await a.sessions.pendingAction(sessionId)).toBe('consent');

    expect(await respond(b, id, { option_id: 'allow' })).toMatchObject({ ok: true });
    await eventually(async () => (await b.sessions.pendingAction(sessionId)) === 'form');
    expect(await respond(b, asked.id, { decision: 'decline' })).toMatchObject({ ok: true });
    await eventually(async () => (await b.sessions.pendingAction(sessionId)) === null);
  });

  it('a consent raised on A is listed on B, answered there, and reaches the agent on A', async () => {
    const a = await node('A');
    const b = await node('B');
    const { id, outcome } = await consent(a, b);

    // Listed on B as A lists it; not to a person who cannot see the session.
    const listed = (await visibleUserInputs(b.deps, person)).find((view) => view.id === id);
    expect(listed).toEqual(a.registry.get(id));
    expect(await visibleUserInputs(b.deps, stranger)).toEqual([]);
    expect(await respond(b, id, { option_id: 'allow' }, stranger)).toMatchObject({
      ok: false,
      code: 'not_found',
    });

    const answered = await respond(b, id, { option_id: 'allow' });
    expect(answered).toMatchObject({
      ok: true,
      request: {
        id,
        status: 'settled',
        settled_reason: 'human',
        responded_by: { user_id: personId, surface: 'rest' },
      },
    });
    const reached: AgentOutcome = await outcome;
    expect(reached).toMatchObject({ kind: 'selected', option_id: 'allow' });

    // A second answer, on either replica, finds it settled.
    for (const on of [b, a, b]) {
      expect(await respond(on, id, { option_id: 'reject' })).toMatchObject({
        ok: false,
        code: 'already_settled',
      });
    }
    // Settled: listed nowhere.
    await eventually(async () => (await visibleUserInputs(b.deps, person)).length === 0);
    expect(await visibleUserInputs(a.deps, person)).toEqual([]);

    // A kept the decision with the person who made it on B, as for its own answer.
    await eventually(async () => {
      const page = await transcriptPage(a.store, seeded.session.id, { limit: 50 });
      return page.messages.some((message) => message.metadata.user_input_request_id === id);
    });
    const page = await transcriptPage(a.store, seeded.session.id, { limit: 50 });
    const decision = page.messages.find((message) => message.metadata.user_input_request_id === id);
    expect(decision?.metadata).toMatchObject({
      option_id: 'allow',
      responded_by: { name: 'member', surface: 'rest' },
    });
  });

  it('an answer link minted on A for its consent is used through B', async () => {
    const a = await node('A');
    const b = await node('B');
    const { id, outcome } = await consent(a, b);
    // A consent's links never reach the clarification service.
    const linkDeps = (on: Node): AnswerLinkDeps => ({
      ...on.deps,
      clarification: null as unknown as ClarificationService,
      origin: () => 'https://clarion.test',
    });
    const links = await mintAnswerLinks(linkDeps(a), {
      userId: personId,
      kind: 'consent',
      itemId: id,
    });
    const allow = links.find((link) => link.label === 'Allow');
    const secret = new URL(allow?.url ?? 'https://clarion.test/').hash.slice(1);

    const used = await useAnswerLink({ ...linkDeps(b), timers: systemTimers }, secret);
    expect(used).toMatchObject({ ok: true, link: { state: 'answered' } });
    expect(await outcome).toMatchObject({ kind: 'selected', option_id: 'allow' });
    expect(a.registry.get(id)).toMatchObject({
      status: 'settled',
      responded_by: { user_id: personId, surface: 'link' },
    });
  });

  it('a form whose choices hold a NUL is listed and answered on B; A’s agent gets its own values back', async () => {
    const a = await node('A');
    const b = await node('B');
    const requestForm = formRequester({ store: a.store }, () => a.registry);
    const answer = requestForm({
      sessionId: seeded.session.id,
      turnId: undefined,
      message: 'Where to deploy?',
      schema: formSchema.parse({
        properties: {
          env: {
            type: 'string',
            oneOf: [
              { const: 'dev\u0000', title: 'Dev\u0000 box', description: 'the\u0000 spare one' },
              { const: 'prod', title: 'Prod' },
            ],
          },
          region: { type: 'string', enum: ['eu\u0000', 'us'], enumNames: ['E\u0000U', 'US'] },
          tags: { type: 'array', items: { enum: ['x\u0000y', 'z'] }, default: ['x\u0000y'] },
        },
        required: ['env'],
      }),
      signal: new AbortController().signal,
    });
    let listed: UserInputView | undefined;
    await eventually(async () => {
      listed = (await visibleUserInputs(b.deps, person)).find((view) => view.kind === 'form');
      return listed !== undefined;
    });
    expect(JSON.stringify(listed)).not.toContain('\\u0000');
    expect(await b.sessions.pendingAction(seeded.session.id)).toBe('form');

    const chosen = await respond(b, listed?.id ?? '', {
      decision: 'accept',
      content: { env: 'dev', region: 'eu', tags: ['xy', 'z'] },
    });
    expect(chosen).toMatchObject({ ok: true, request: { status: 'settled' } });
    // The agent reads back the values it offered, exactly.
    expect(await answer).toEqual({
      action: 'accept',
      content: { env: 'dev\u0000', region: 'eu\u0000', tags: ['x\u0000y', 'z'] },
    });
  });

  it('a request whose mirroring failed is mirrored at the owner’s next poll', async () => {
    let failures = 1;
    // A's first write of a request's view to the mirror fails (a dropped connection, say).
    const failingOnce: KyselyPlugin = {
      transformQuery(args) {
        if (failures > 0 && JSON.stringify(args.node).includes('INSERT INTO user_input_requests')) {
          failures -= 1;
          throw new Error('connection lost');
        }
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const a = await node('A', {
      pollIntervalMs: 200,
      acrossStore: (store) => ({ ...store, db: store.db.withPlugin(failingOnce) }),
    });
    const b = await node('B');
    const { id, outcome } = await consent(a, b);
    expect(failures).toBe(0);
    expect(await respond(b, id, { option_id: 'allow' })).toMatchObject({ ok: true });
    expect(await outcome).toMatchObject({ kind: 'selected', option_id: 'allow' });
  });

  it('an applied answer whose outcome could not be written reaches its responder as applied', async () => {
    let failures = 1;
    // A applies B's answer, then its write of the outcome fails once.
    const failingOnce: KyselyPlugin = {
      transformQuery(args) {
        if (failures > 0 && JSON.stringify(args.node).includes('SET outcome')) {
          failures -= 1;
          throw new Error('connection lost');
        }
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const a = await node('A', {
      pollIntervalMs: 200,
      acrossStore: (store) => ({
        ...store,
        transaction: (work, options) =>
          store.transaction((tx) => work({ ...tx, db: tx.db.withPlugin(failingOnce) }), options),
      }),
    });
    const b = await node('B', { across: { waitMs: 3_000, recheckMs: 50 } });
    const { id, outcome } = await consent(a, b);

    // Not "internal" (it may not have reached the agent): it did, and the person hears so.
    expect(await respond(b, id, { option_id: 'allow' })).toMatchObject({
      ok: true,
      request: { id, status: 'settled' },
    });
    expect(failures).toBe(0);
    expect(await outcome).toMatchObject({ kind: 'selected', option_id: 'allow' });
  });

  it('an unknown request is not found on B', async () => {
    await node('A');
    const b = await node('B');
    expect(await respond(b, 'no-such-request', { option_id: 'allow' })).toMatchObject({
      ok: false,
      code: 'not_found',
    });
  });

  it('a form answered on B with content that does not fit gets what A gives, and nothing changes', async () => {
    const a = await node('A');
    const b = await node('B');
    const { id, outcome } = await form(a, b);
    const bad: HumanResponse = { decision: 'accept', content: { env: 'staging' } };

    const onB = await respond(b, id, bad);
    const onA = await respond(a, id, bad);
    expect(onB).toMatchObject({ ok: false, code: 'invalid_form_content' });
    expect(onB).toEqual(onA);
    expect(a.registry.get(id)).toMatchObject({ status: 'awaiting', revision: 1 });

    // A fitting answer then goes through from B.
    const good = await respond(b, id, { decision: 'accept', content: { env: 'prod' } });
    expect(good).toMatchObject({ ok: true, request: { id, status: 'settled' } });
    expect(await outcome).toMatchObject({ kind: 'submitted', content: { env: 'prod' } });
  });

  it('an answer whose wake was lost is applied by the owner’s poll', async () => {
    const a = await node('A', { pollIntervalMs: 200 });
    // Every wake B sends is lost.
    const b = await node('B', {
      bus: (bus) => ({ ...bus, send: () => Promise.resolve() }),
      across: { waitMs: 8_000 },
    });
    const { id, outcome } = await consent(a, b);

    expect(await respond(b, id, { option_id: 'reject' })).toMatchObject({
      ok: true,
      request: { id, status: 'settled' },
    });
    expect(await outcome).toMatchObject({ kind: 'selected', option_id: 'reject' });
  });

  it('an owner that does not answer in time costs a 503, and the answer is taken back', async () => {
    const a = await node('A', { applies: false });
    const b = await node('B', { across: { waitMs: 300, recheckMs: 50 } });
    const { id } = await consent(a, b);

    expect(await respond(b, id, { option_id: 'allow' })).toMatchObject({
      ok: false,
      code: 'temporarily_unavailable',
    });
    // A starts applying now: the withdrawn answer is not there to apply.
    const late = userInputReplicas({
      store: a.store,
      bus: a.bus,
      registry: () => a.registry,
      leaseMs: LEASE_MS,
      timers: systemTimers,
      logger: silentLogger,
    });
    await late.wakes.resync();
    expect(a.registry.get(id)).toMatchObject({ status: 'awaiting' });
  });

  it('an action answered on B is armed on A with the person who answered', async () => {
    const a = await node('A');
    const b = await node('B');
    const created = a.registry.request({
      kind: 'action',
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      title: 'Connect GitHub',
      instructions: 'Open the link and authorise Clarion.',
      url: 'https://example.test/connect',
    });
    if (!created.ok) throw new Error('action refused');
    await eventually(async () =>
      (await visibleUserInputs(b.deps, person)).some((view) => view.id === created.id),
    );

    expect(await respond(b, created.id, { decision: 'done' })).toMatchObject({
      ok: true,
      request: { id: created.id, kind: 'action', status: 'armed' },
    });
    expect(a.registry.get(created.id)).toMatchObject({
      status: 'armed',
      responded_by: { user_id: personId, surface: 'rest' },
    });
  });

  it('an action whose link holds a NUL is refused on A, and B’s session writes go on', async () => {
    const a = await node('A');
    const b = await node('B');
    const created = a.registry.request({
      kind: 'action',
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      title: 'Sign in',
      instructions: 'Open the link.',
      url: 'https://example.test/log\u0000in',
    });
    // Its view could be kept by no replica's mirror (PostgreSQL refuses a NUL), as a consent's.
    expect(created).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(await b.sessions.pendingAction(seeded.session.id)).toBeNull();
  });

  it('an answer the owner took but never confirmed is a 500, not a 503', async () => {
    const a = await node('A', { applies: false });
    const b = await node('B', { across: { waitMs: 300, recheckMs: 50 } });
    const { id } = await consent(a, b);

    // A takes the answer, then says nothing more (as if it died applying it).
    const taking = (async () => {
      for (;;) {
        const [answer] = await pendingForwardedAnswers(a.store, 'A');
        if (answer) return takeForwardedAnswer(a.store, answer.id);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const result = await respond(b, id, { option_id: 'allow' });
    expect(await taking).toBe(true);
    expect(result).toMatchObject({ ok: false, code: 'internal' });
  });

  it('the requests of an owner that stopped are listed nowhere and not found', async () => {
    const a = await node('A');
    const b = await node('B');
    const { id } = await consent(a, b);
    await a.replica.stop();

    expect(await visibleUserInputs(b.deps, person)).toEqual([]);
    expect(await respond(b, id, { option_id: 'allow' })).toMatchObject({
      ok: false,
      code: 'not_found',
    });
  });
});
