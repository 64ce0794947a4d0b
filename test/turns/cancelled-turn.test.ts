/**
 * A cancelled turn leaves a trace (issue 13): the transcript gets a status
 * row naming the person who cancelled it, on both dialects, with the agent
 * played by the test. A cancel made through a replica that does not run the
 * agent (issue 16) waits on the turn's row, so the holder takes it even when
 * the wake-up is lost, and still names the person. The row keeps who and
 * where as a decision's record does (a name may be two people's), and an
 * agent stops nothing, whatever reaches the service.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLease, timestampAtMs } from '../../src/store/index.js';
import { holderWakes } from '../../src/turns/holder-wakes.js';
import { cancelTurn } from '../../src/turns/index.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('a cancelled turn on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** The session's rows as author, type and text. */
  async function transcript(sessionId: string) {
    return (await rows(sessionId)).map((row) => [row.author, row.type, row.content]);
  }

  async function rows(sessionId: string) {
    const { messages } = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages`)
    ).json()) as {
      messages: { author: string; type: string; content: string; metadata: unknown }[];
    };
    return messages;
  }

  /** Who the turn's cancelled line says stopped it, and where. */
  async function cancelledBy(sessionId: string) {
    const line = (await rows(sessionId)).find((row) => row.content.startsWith('Cancelled'));
    return (line?.metadata as { cancelled_by?: unknown } | undefined)?.cancelled_by;
  }

  /** The member as their decisions record them, on `surface`. */
  function memberOn(surface: string) {
    const member = h.principals.member;
    if (member.kind !== 'user') throw new Error('the member is a person');
    return { user_id: member.userId, name: member.name, surface };
  }

  it('writes "Cancelled by <person>" into the turn, once', async () => {
    const created = await h.createTask('work for hours');
    expect(created.admission).toBe('sent');
    const sessionId = created.session.id;
    const cancel = await h.request('POST', `/api/v1/sessions/${sessionId}/cancel`);
    expect(cancel.status).toBe(202);
    await h.pump.idle();
    expect(await transcript(sessionId)).toEqual([
      ['user', 'message', 'work for hours'],
      ['system', 'status', 'Cancelled by member'],
    ]);
    expect(await cancelledBy(sessionId)).toEqual(memberOn('rest'));
  });

  it('refuses an agent, even its own session’s, before anything is read: the turn runs on', async () => {
    const created = await h.createTask('work for hours');
    const sessionId = created.session.id;
    const cancels: string[] = [];
    const cancel = h.host.cancel.bind(h.host);
    h.host.cancel = (id) => {
      cancels.push(id);
      return cancel(id);
    };
    const agent = { kind: 'agent', userId: h.principals.member.userId, sessionId } as const;
    const refused = await cancelTurn(h.turns, { principal: agent, surface: 'mcp' }, sessionId);
    expect(refused).toMatchObject({ ok: false, code: 'person_required' });
    await h.pump.idle();
    expect(cancels).toEqual([]);
    expect(await transcript(sessionId)).toEqual([['user', 'message', 'work for hours']]);
  });

  it('a cancel that found the turn over names nobody on a later cancelled turn', async () => {
    const created = await h.createTask('first');
    const sessionId = created.session.id;
    h.host.endTurn(sessionId);
    await h.pump.idle();
    // Pressed as the turn ended: there is nothing left to cancel.
    expect((await h.request('POST', `/api/v1/sessions/${sessionId}/cancel`)).status).toBe(202);
    const sent = await h.request('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'second',
      admission_key: 'second',
    });
    expect(sent.status).toBe(200);
    // The later turn ends cancelled without anyone asking (the agent's own report).
    h.host.endTurn(sessionId, 'cancelled');
    await h.pump.idle();
    expect(await transcript(sessionId)).toEqual([
      ['user', 'message', 'first'],
      ['user', 'message', 'second'],
      ['system', 'status', 'Cancelled'],
    ]);
  });

  it('a cancel through another replica waits for the holder, which names the person', async () => {
    const created = await h.createTask('work for hours');
    const sessionId = created.session.id;
    const nowMs = h.store.clock.nowMs();
    const held = await acquireLease(h.store, sessionId, {
      replicaId: 'holder',
      now: timestampAtMs(nowMs),
      expiresAt: timestampAtMs(nowMs + 60_000),
    });
    expect(held).toBe(true);

    const cancels: string[] = [];
    const cancel = h.host.cancel.bind(h.host);
    h.host.cancel = (id) => {
      cancels.push(id);
      return cancel(id);
    };
    // Replica B: the agent does not run there, and its wake-up to the holder is lost.
    const woken: string[] = [];
    const notHere = Object.assign(Object.create(h.host) as typeof h.host, {
      isStarted: () => false,
    });
    const throughB = {
      ...h.turns,
      host: notHere,
      leases: leasePort({
        acquire: () => Promise.resolve(false),
        tellHolder: (_ctx, id, kind) => {
          woken.push(`${kind} ${id}`);
          return Promise.resolve();
        },
      }),
    };
    const caller = { principal: h.principals.member, surface: 'web' } as const;
    expect(await cancelTurn(throughB, caller, sessionId)).toEqual({ ok: true });
    expect(woken).toEqual([`cancel ${sessionId}`]);
    await h.pump.idle();
    expect(cancels).toEqual([]);

    // The holder's poll finds it, takes it once, and the turn ends naming who asked.
    const holder = holderWakes(h.turns, 'holder');
    await holder.resync();
    await holder.resync();
    await h.pump.idle();
    expect(cancels).toEqual([sessionId]);
    expect(await transcript(sessionId)).toEqual([
      ['user', 'message', 'work for hours'],
      ['system', 'status', 'Cancelled by member'],
    ]);
    expect(await cancelledBy(sessionId)).toEqual(memberOn('web'));
  });
});
