/**
 * A waiting request's copy and a person's decision on it, on both engines:
 * the decision's own session write turns the copy into a decided one (a
 * waiting view published late never undoes that), so recovery says the
 * decision may not have reached the agent, never that the request ended
 * unanswered; a decision refused after all (its row superseded) leaves the
 * request waiting again; a turn's end forgets the decisions made in it; an
 * external agent's decision forgets the copy at once. Each note names its
 * cause (`loss`), so the web app words it in the reader's language.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import { createSessionWriter } from '../../src/events/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  completeTurn,
  createSession,
  createTask,
  forgetDecidedIn,
  keepOpenUserInput,
  listMemberWorkspaces,
  openStore,
  startTurn,
  type Driver,
  type Store,
} from '../../src/store/index.js';
import {
  decisionRecordOf,
  recordDecision,
  supersedeRefusedDecision,
} from '../../src/turns/decision-record.js';
import { endOrphanedUserInputs } from '../../src/turns/ended-user-inputs.js';
import { transition } from '../../src/user-input/transition.js';
import { toView } from '../../src/user-input/view.js';
import type { UserInputRequest, UserInputView } from '../../src/user-input/types.js';
import {
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
} from '../../src/wire/index.js';
import { ADA } from '../support/user-input-fixtures.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { RecordingPublisher } from '../support/recorders.js';

describe.each(DRIVERS)('a decided request’s copy on %s', (driver: Driver) => {
  let database: TestDatabase;
  let store: Store;

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  async function setup(profile = 'demo') {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const boot = await bootstrapAccounts(store, { adminToken: 'decided-copies-token-0123456789' });
    const [workspace] = await listMemberWorkspaces(store, boot.admin.id);
    if (!workspace) throw new Error('no workspace');
    const task = await createTask(store, {
      workspaceId: workspace.id,
      title: 'copies',
      createdBy: boot.admin.id,
    });
    const session = await createSession(store, { taskId: task.id, agentProfile: profile });
    const turn = await startTurn(store, { sessionId: session.id, taskId: task.id });
    const events = new RecordingPublisher();
    const sessions = createSessionWriter({ store, events, userInputPending: () => null });
    let next = 0;
    const ask = (kind: 'consent' | 'action'): UserInputRequest => {
      const base = {
        id: `req-${(next += 1)}`,
        sessionId: session.id,
        taskId: task.id,
        createdAtMs: Date.now(),
        deadlineAtMs: Date.now() + 60_000,
      };
      return kind === 'consent'
        ? {
            ...base,
            kind,
            profile,
            toolKey: 'execute',
            command: 'Run npm publish',
            title: 'Run npm publish',
            toolCallId: null,
            options: [{ option_id: 'allow', label: 'Allow', kind: 'allow_once' }],
            details: [],
          }
        : {
            ...base,
            kind,
            title: 'Connect GitHub',
            instructions: 'Open the link.',
            url: null,
            followUp: true,
          };
    };
    /** The request's first waiting view and the view a person's answer leaves. */
    const views = (request: UserInputRequest) => {
      const opened = transition(
        { status: 'absent' },
        { type: 'requested', request, rememberedBy: null },
      );
      if ('ignored' in opened) throw new Error('not opened');
      const answered = transition(opened.state, {
        type: 'humanResponded',
        response: request.kind === 'consent' ? { option_id: 'allow' } : { decision: 'done' },
        responder: ADA,
      });
      if ('ignored' in answered) throw new Error('not answered');
      return { awaiting: toView(opened.state), decided: toView(answered.state) };
    };
    const decide = async (decided: UserInputView) => {
      const record = decisionRecordOf(decided);
      if (!record) throw new Error('no record');
      let rowId = '';
      await recordDecision(sessions, decided, record, {}, (id) => (rowId = id));
      return rowId;
    };
    const recover = () =>
      endOrphanedUserInputs({ store, sessions, logger: silentLogger }, { kind: 'all' }, 'restart');
    const notes = async (type: string) =>
      (
        await store.db
          .selectFrom('task_session_messages')
          .select(['content', 'metadata', 'turn_id'])
          .where('task_session_id', '=', session.id)
          .where('type', '=', type)
          .execute()
      ).map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }));
    const settled = () =>
      events.events.flatMap((event) =>
        event.type === 'user_input.settled' && 'request' in event ? [event.request] : [],
      );
    return { session, turn, ask, views, decide, recover, notes, settled, sessions };
  }

  it('a decision’s write makes the copy decided; recovery says it may not have reached the agent', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    const { awaiting, decided } = t.views(consent);
    await keepOpenUserInput(store, awaiting);
    await t.decide(decided);
    // The waiting view published late: the decision's copy stands.
    await keepOpenUserInput(store, awaiting);

    expect(await t.recover()).toBe(1);
    expect(await t.notes(USER_INPUT_ENDED_TYPE)).toEqual([]);
    const [note, ...more] = await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE);
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      turn_id: t.turn.id,
      metadata: { request_id: consent.id, kind: 'consent', title: consent.title, loss: 'restart' },
    });
    expect(note?.content).toContain('may not have received it');
    // The consent settled with its decision: no tab shows it any more.
    expect(t.settled()).toEqual([]);
    expect(await t.recover()).toBe(0);
  });

  it('a rule’s answer, kept with no waiting copy, is noted as perhaps not received too', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    // An "Always allow" answers it as it opens: nobody was asked, so no waiting copy was kept.
    const answered = transition(
      { status: 'absent' },
      { type: 'requested', request: consent, rememberedBy: ADA },
    );
    if ('ignored' in answered) throw new Error('not answered by its rule');
    await t.decide(toView(answered.state));

    // The server stopped before the agent's turn ended: the rule's allow may not have reached it.
    expect(await t.recover()).toBe(1);
    const [note, ...more] = await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE);
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      turn_id: t.turn.id,
      metadata: { request_id: consent.id, kind: 'consent', loss: 'restart' },
    });
    expect(note?.content).toContain('may not have received it');
  });

  it('an armed action’s tabs hear it ended, newer than anything they saw', async () => {
    const t = await setup();
    const action = t.ask('action');
    const { awaiting, decided } = t.views(action);
    await keepOpenUserInput(store, awaiting);
    await t.decide(decided);
    expect(decided.status).toBe('armed');

    expect(await t.recover()).toBe(1);
    const [request] = t.settled();
    expect(request).toMatchObject({ id: action.id, status: 'settled' });
    expect(request?.revision).toBeGreaterThan(decided.revision);
    expect(await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toHaveLength(1);
  });

  it('a request still waiting ends unanswered, with its cause', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    await keepOpenUserInput(store, t.views(consent).awaiting);
    expect(await t.recover()).toBe(1);
    const [note] = await t.notes(USER_INPUT_ENDED_TYPE);
    expect(note?.metadata).toEqual({
      request_id: consent.id,
      kind: 'consent',
      title: consent.title,
      loss: 'restart',
    });
    // The card says why too: the server stopped, not the agent.
    expect(t.settled()).toEqual([
      expect.objectContaining({ id: consent.id, settled_reason: 'server_stopped' }),
    ]);
  });

  it('a decision refused after all (its row superseded) leaves the request waiting', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    const { awaiting, decided } = t.views(consent);
    await keepOpenUserInput(store, awaiting);
    const rowId = await t.decide(decided);
    expect(await supersedeRefusedDecision(t.sessions, decided, rowId)).toBe(1);

    expect(await t.recover()).toBe(1);
    expect(await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);
    expect(await t.notes(USER_INPUT_ENDED_TYPE)).toHaveLength(1);
  });

  it('the end of the turn a decision was made in forgets it', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    const { awaiting, decided } = t.views(consent);
    await keepOpenUserInput(store, awaiting);
    await t.decide(decided);
    await forgetDecidedIn(store, t.session.id, t.turn.id);
    expect(await t.recover()).toBe(0);
  });

  it('a decision whose write commits after its turn ended (the agent died) keeps no copy', async () => {
    const t = await setup();
    const consent = t.ask('consent');
    const { awaiting, decided } = t.views(consent);
    await keepOpenUserInput(store, awaiting);
    // The session's lock put the exit's turn end first: it forgot what was decided then.
    await t.sessions.write(t.session.id, async (write) => {
      await completeTurn(write.tx, t.turn.id);
      await forgetDecidedIn(write.tx, t.session.id, t.turn.id);
    });
    await t.decide(decided);
    // The decision stands; no restart, days later, doubts it.
    expect(await t.notes(USER_INPUT_DECISION_TYPE)).toHaveLength(1);
    expect(await t.recover()).toBe(0);
    expect(await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE)).toEqual([]);
    expect(await t.notes(USER_INPUT_ENDED_TYPE)).toEqual([]);
  });

  it('an action decided after its turn ended keeps its copy while its follow-up is owed', async () => {
    const t = await setup();
    const action = t.ask('action');
    const { awaiting } = t.views(action);
    await keepOpenUserInput(store, awaiting);
    // Its turn ended normally: the action outlives it, and a person's Done is owed as a follow-up.
    await t.sessions.write(t.session.id, async (write) => {
      await completeTurn(write.tx, t.turn.id);
      await forgetDecidedIn(write.tx, t.session.id, t.turn.id);
    });
    const opened = transition(
      { status: 'absent' },
      { type: 'requested', request: action, rememberedBy: null },
    );
    if ('ignored' in opened) throw new Error('not opened');
    const ended = transition(opened.state, { type: 'turnEnded', outcome: 'normal' });
    if ('ignored' in ended) throw new Error('turn end ignored');
    const done = transition(ended.state, {
      type: 'humanResponded',
      response: { decision: 'done' },
      responder: ADA,
    });
    if ('ignored' in done) throw new Error('not answered');
    const due = toView(done.state);
    expect(due.status).toBe('due');
    await t.decide(due);

    // The server stopped before the follow-up went (its session failed, say): the agent never
    // heard the Done, and the transcript says it may not have.
    expect(await t.recover()).toBe(1);
    expect(await t.notes(USER_INPUT_ENDED_TYPE)).toEqual([]);
    const [note, ...more] = await t.notes(USER_INPUT_DECISION_UNCONFIRMED_TYPE);
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      turn_id: t.turn.id,
      metadata: { request_id: action.id, kind: 'action', loss: 'restart' },
    });
  });

  it('an external agent’s decision forgets the copy with it', async () => {
    const t = await setup(EXTERNAL_AGENT_PROFILE);
    const action = t.ask('action');
    const { awaiting, decided } = t.views(action);
    await keepOpenUserInput(store, awaiting);
    await t.decide(decided);
    expect(await t.recover()).toBe(0);
  });
});
