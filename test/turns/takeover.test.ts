/**
 * Takeover recovery for the sessions a replica took from a dead one
 * (issue 16), on both dialects with agents played by the test. It runs again
 * when it failed part-way (`cluster/replica.ts`), so it must leave alone a
 * session whose agent it already started here: what runs there now is this
 * replica's, not the dead one's. Nor may it end the credential of an agent
 * an answer delivered here started while it ran: that start already ended
 * the dead agent's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken, resolveToken } from '../../src/auth/index.js';
import { ensureAgent } from '../../src/turns/dispatch.js';
import {
  enqueueMessage,
  getSession,
  listQueue,
  setSessionState,
  startTurn,
} from '../../src/store/index.js';
import { recoverTakenSessions } from '../../src/turns/takeover.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('takeover recovery on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('recovers a dead replica’s running session and leaves one whose agent runs here', async () => {
    // Its agent runs here, busy with a turn, a message queued behind it.
    const here = await h.createTask('first');
    await h.settled();
    const queued = await h.request('POST', `/api/v1/sessions/${here.session.id}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(queued.status).toBe(202);

    // As the dead replica left it: running, its turn open, a message queued, no agent here.
    const gone = await h.createTask();
    await startTurn(h.store, { sessionId: gone.session.id, taskId: gone.task.id });
    await setSessionState(h.store, gone.session.id, 'running');
    await enqueueMessage(h.store, {
      sessionId: gone.session.id,
      taskId: gone.task.id,
      content: 'waiting for whoever holds the lease',
      admissionKey: 'waiting',
      createdBy: null,
    });

    await recoverTakenSessions(h.turns, [here.session.id, gone.session.id]);
    await h.settled();

    expect(h.host.prompts.map((prompt) => [prompt.sessionId, prompt.text])).toEqual([
      [here.session.id, 'first'],
      [gone.session.id, 'waiting for whoever holds the lease'],
    ]);
    expect(await listQueue(h.store, gone.session.id)).toEqual([]);
    expect((await getSession(h.store, gone.session.id))?.state).toBe('running');
    // Untouched: still running its turn, the queued message still waiting for it.
    expect((await getSession(h.store, here.session.id))?.state).toBe('running');
    expect((await listQueue(h.store, here.session.id)).map((item) => item.content)).toEqual([
      'second',
    ]);
    h.host.endTurn(here.session.id);
    await h.pump.idle();
    expect(h.host.prompts.map((prompt) => prompt.text)).toContain('second');
  });

  it('leaves the credential of an agent started here meanwhile; that start ended the dead one’s', async () => {
    const { task, session } = await h.createTask();
    const owner = (
      await h.store.db
        .selectFrom('tasks')
        .select('created_by')
        .where('id', '=', task.id)
        .executeTakeFirstOrThrow()
    ).created_by;
    if (!owner) throw new Error('the task has an owner');
    const dead = await issueToken(h.store, { kind: 'agent', userId: owner, sessionId: session.id });

    // Leases as one replica keeps them; recovery waits in its first read until the test says.
    const startedHere = new Set<string>();
    let goOn: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      goOn = resolve;
    });
    const leases = leasePort({
      acquire: (id) => Promise.resolve(startedHere.add(id).has(id)),
      release: (id) => Promise.resolve(void startedHere.delete(id)),
      liveReplicas: () => held.then(() => new Set<string>()),
      unlessStarted: async (id, work) => {
        if (startedHere.has(id)) return false;
        await work();
        return true;
      },
    });
    const deps = { ...h.turns, leases };
    const recovering = recoverTakenSessions(deps, [session.id]);
    // An answer delivered here starts the session's agent while recovery runs.
    await ensureAgent(deps, session.id);
    goOn();
    await recovering;

    expect(await resolveToken(h.store, dead.secret, 'bearer')).toBeUndefined();
    const launched = h.host.launches.find((launch) => launch.sessionId === session.id);
    if (!launched) throw new Error('the agent was started');
    expect(await resolveToken(h.store, launched.mcp.token, 'bearer')).toMatchObject({
      kind: 'agent',
      sessionId: session.id,
    });
  });
});
