/**
 * A storage fault on the one write that moves a session out of `starting`
 * (its agent's start ended, either way) or out of `running` (its agent did
 * not take the prompt). Nothing else would move it: its queue would wait, its
 * idle agent never be stopped, a cancel reach nothing, until a restart. So the
 * write is tried again on the turns' timers, as an agent's report is
 * (`writeRetrying`), and the session goes on once the storage takes it. A
 * person whose message the agent did not take hears within seconds even
 * while that write is still being retried.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionLaunch } from '../../src/agents/runtime.js';
import { getSession, listQueue } from '../../src/store/index.js';
import {
  AGENT_EVENT_RETRY_BASE_MS,
  AGENT_EVENT_RETRY_MAX_MS,
  MESSAGE_ANSWER_AFTER_REFUSAL_MS,
} from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { faultedTurns, type FaultedTurns } from '../support/faulted-turns.js';
import type { TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a session state write the storage refuses once, on %s', (driver) => {
  let h: TurnsHarness;
  let faults: FaultedTurns['faults'];
  let timers: FaultedTurns['timers'];
  let log: FaultedTurns['log'];

  beforeEach(async () => {
    ({ h, faults, timers, log } = await faultedTurns(driver));
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function stateOf(sessionId: string) {
    return (await getSession(h.store, sessionId))?.state;
  }

  /**
   * The next agent start refuses the session update that follows it, the one
   * that ends the start; `refusal`, if given, is the start's own outcome.
   */
  function faultAfterNextStart(refusal?: Error): Promise<string> {
    const start = h.host.start.bind(h.host);
    return new Promise((started) => {
      h.host.start = async (launch: SessionLaunch) => {
        h.host.start = start;
        faults.failNext('update', 'task_sessions');
        started(launch.sessionId);
        if (refusal) throw refusal;
        await start(launch);
      };
    });
  }

  /** Waits for the one retry's pause, then lets the fake clock reach it. */
  async function retryOnce() {
    await eventually(() => log.pauses().length === 1);
    expect(faults.failed).toBe(1);
    timers.advance(AGENT_EVENT_RETRY_BASE_MS);
  }

  it('ends a start whose end it refused: idle, then its queued message prompted', async () => {
    const starting = faultAfterNextStart();
    const creating = h.createTask('first message');
    const sessionId = await starting;
    await retryOnce();
    const created = await creating;
    await h.settled();

    expect(created.admission).toBe('sent');
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first message']);
    expect(await stateOf(sessionId)).toBe('running');
    expect(await listQueue(h.store, sessionId)).toEqual([]);
  });

  it('fails a session whose start failed and whose failure it refused, rather than starting', async () => {
    const refusal = Object.assign(new Error('spawn demo-agent ENOENT'), {
      failure: { code: 'spawn_failed', message: 'could not start demo-agent' },
    });
    const starting = faultAfterNextStart(refusal);
    const creating = h.createTask('first message');
    const sessionId = await starting;
    await retryOnce();
    const created = await creating;
    await h.settled();

    expect(created.admission).toBe('failed');
    const session = await getSession(h.store, sessionId);
    expect([session?.state, session?.failure_code]).toEqual(['failed', 'spawn_failed']);
  });

  it('frees a session whose agent did not take a prompt: idle, the next message sent', async () => {
    const { session } = await h.createBusyTask('second');
    const prompt = h.host.prompt.bind(h.host);
    h.host.prompt = () => {
      h.host.prompt = prompt;
      faults.failNext('update', 'task_sessions');
      return Promise.reject(new Error('the agent process has exited'));
    };

    // The turn's end runs the queue: `second` is refused, and so is the write that says so.
    h.host.endTurn(session.id);
    await retryOnce();
    await h.settled();
    expect(await stateOf(session.id)).toBe('idle');

    const sent = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'third',
      admission_key: 'third',
    });
    expect(((await sent.json()) as { outcome: string }).outcome).toBe('sent');
    expect(h.host.prompts.map((request) => request.text)).toEqual(['first', 'third']);
  });

  it('answers a message its agent refused within seconds while storage fails; the note follows', async () => {
    const created = await h.createTask('first');
    await h.settled();
    h.host.endTurn(created.session.id);
    await h.settled();
    expect(await stateOf(created.session.id)).toBe('idle');
    const prompt = h.host.prompt.bind(h.host);
    h.host.prompt = () => {
      h.host.prompt = prompt;
      // The disk is full from here on: no write of the session goes through.
      faults.failEvery('update', 'task_sessions');
      return Promise.reject(new Error('the agent process has exited'));
    };

    let answered: Response | undefined;
    void h
      .request('POST', `/api/v1/sessions/${created.session.id}/messages`, {
        text: 'second',
        admission_key: 'second',
      })
      .then((response) => (answered = response));
    await eventually(() => log.pauses().length >= 1);
    // The turns' clock runs while the refusal's write is retried: the person hears within seconds.
    let waitedMs = 0;
    while (!answered && waitedMs < 10_000) {
      timers.advance(250);
      waitedMs += 250;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answered?.status).toBe(503);
    expect(waitedMs).toBeLessThanOrEqual(MESSAGE_ANSWER_AFTER_REFUSAL_MS + 250);
    expect(await answered?.json()).toMatchObject({ code: 'temporarily_unavailable' });

    // Sent again meanwhile, under the same key: not "sent", for the agent never had it.
    const retried = await h.request('POST', `/api/v1/sessions/${created.session.id}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(retried.status).toBe(503);
    expect(await retried.json()).toMatchObject({ code: 'temporarily_unavailable' });

    // The write goes on with its own bound: once the storage takes it, the session is free.
    faults.heal();
    await eventually(async () => {
      timers.advance(AGENT_EVENT_RETRY_MAX_MS);
      return (await stateOf(created.session.id)) === 'idle';
    });
    const again = await h.request('POST', `/api/v1/sessions/${created.session.id}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(((await again.json()) as { outcome: string }).outcome).toBe('sent');
    expect(h.host.prompts.map((request) => request.text)).toEqual(['first', 'second']);
  });

  it('sends a queued message whose taking off the queue the storage refused at a turn’s end', async () => {
    const { session } = await h.createBusyTask('second');

    // Nothing else runs the queue of an idle session: a dropped write would leave `second` there.
    faults.failNext('delete', 'message_queue');
    h.host.endTurn(session.id);
    await retryOnce();
    await h.settled();

    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    expect(await listQueue(h.store, session.id)).toEqual([]);
    expect(await stateOf(session.id)).toBe('running');
  });
});
