import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { fakeClock, type FakeClock } from '../../test/support/fakes.js';
import {
  createEventHub,
  DEFAULT_VISIBILITY_TTL_MS,
  type EventHub,
  type HubMetrics,
} from './hub.js';
import {
  CLOSE_GOING_AWAY,
  CLOSE_SLOW_CONSUMER,
  MAX_CLIENT_FRAMES_IN_FLIGHT,
  type CorkableStream,
  type EventSocket,
} from './connection.js';
import type { ClarionEvent } from './types.js';

class FakeSocket implements EventSocket {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closedWith: { code: number; reason: string } | undefined;
  failSends = false;

  send(data: string): void {
    if (this.failSends) throw new Error('socket exploded');
    this.sent.push(data);
  }

  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  frames(): Record<string, unknown>[] {
    return this.sent.map((text) => JSON.parse(text) as Record<string, unknown>);
  }

  /** Revisions of the events received for `sessionId`, in arrival order. */
  revisions(sessionId: string): number[] {
    return this.frames()
      .filter((frame) => frame.type === 'event')
      .map((frame) => frame.event as ClarionEvent)
      .filter((event) => event.session_id === sessionId)
      .map((event) => event.revision);
  }
}

/**
 * The bytes under a FakeSocket, behaving like a net.Socket: corks nest, and
 * what is written while corked stays counted in the socket's bufferedAmount
 * until the last uncork writes it out.
 */
class FakeStream implements CorkableStream {
  depth = 0;
  /** Sent frames per write that reached the wire. */
  readonly writes: number[] = [];
  private flushed = 0;

  constructor(private readonly socket: FakeSocket) {
    const send = socket.send.bind(socket);
    socket.send = (data: string) => {
      send(data);
      if (this.depth === 0) this.flush();
      else socket.bufferedAmount += data.length;
    };
  }

  cork(): void {
    this.depth += 1;
  }

  uncork(): void {
    this.depth -= 1;
    if (this.depth === 0) this.flush();
  }

  private flush(): void {
    const frames = this.socket.sent.length - this.flushed;
    if (frames === 0) return;
    this.writes.push(frames);
    this.flushed = this.socket.sent.length;
    this.socket.bufferedAmount = 0;
  }
}

/** A visibility function whose answers the test releases by hand. */
function manualVisibility(visible: (principal: Principal, sessionId: string) => boolean) {
  const calls: { sessionId: string; release: () => void; fail: (error: Error) => void }[] = [];
  const canSeeSession = (principal: Principal, sessionId: string) =>
    new Promise<boolean>((resolve, reject) => {
      calls.push({
        sessionId,
        release: () => {
          resolve(visible(principal, sessionId));
        },
        fail: reject,
      });
    });
  return { calls, canSeeSession };
}

/** An immediately answering visibility function that counts its calls. */
function countingVisibility(visible: Record<string, readonly string[]>) {
  const calls: string[] = [];
  const canSeeSession = (principal: Principal, sessionId: string) => {
    calls.push(sessionId);
    return Promise.resolve((visible[principal.userId] ?? []).includes(sessionId));
  };
  return { calls, canSeeSession };
}

function stateEvent(sessionId: string, revision: number): ClarionEvent {
  return {
    type: 'session.state_changed',
    session_id: sessionId,
    task_id: 'task-1',
    revision,
    pending_action: null,
    state: 'running',
  };
}

const alice: Principal = { kind: 'user', userId: 'alice', name: 'Test user', isAdmin: false };
const agent: Principal = { kind: 'agent', userId: 'alice', sessionId: 's-agent' };

/** Lets every queued promise callback run. */
const settle = () =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });

const silent = pino({ level: 'silent' });

function recordingMetrics() {
  const seen = { published: 0, subscribers: [] as number[], slow: 0 };
  const metrics: HubMetrics = {
    eventPublished: () => {
      seen.published += 1;
    },
    subscribersChanged: (count) => {
      seen.subscribers.push(count);
    },
    slowConsumerClosed: () => {
      seen.slow += 1;
    },
  };
  return { seen, metrics };
}

describe('event hub', () => {
  let clock: FakeClock;

  beforeEach(() => {
    clock = fakeClock();
  });

  function hubWith(
    canSeeSession: (p: Principal, id: string) => Promise<boolean>,
    canSeeWorkspace: (p: Principal, id: string) => Promise<boolean> = () => Promise.resolve(false),
  ): EventHub {
    return createEventHub({
      canSeeSession,
      canSeeWorkspace,
      standing: () => Promise.resolve('member'),
      clock,
      logger: silent,
    });
  }

  it('delivers nothing before a subscribe', async () => {
    const hub = hubWith(countingVisibility({ alice: ['s1'] }).canSeeSession);
    const socket = new FakeSocket();
    hub.connect(socket, alice);
    hub.publish(stateEvent('s1', 1));
    await settle();
    expect(socket.sent).toEqual([]);
  });

  it('acknowledges a subscribe, then streams its sessions and nothing else', async () => {
    const hub = hubWith(countingVisibility({ alice: ['s1', 's2'] }).canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    await subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    hub.publish(stateEvent('s1', 1));
    hub.publish(stateEvent('s2', 1));
    await settle();
    expect(socket.frames()).toEqual([
      { type: 'subscribed', sessions: ['s1'], all: false, refused: [] },
      { type: 'event', event: stateEvent('s1', 1) },
    ]);
  });

  it('refuses a session the principal cannot see exactly like an unknown one', async () => {
    const visibility = countingVisibility({ alice: ['s1'], bob: ['s-bob'] });
    const hub = hubWith(visibility.canSeeSession);
    const hidden = new FakeSocket();
    const unknown = new FakeSocket();
    await hub
      .connect(hidden, alice)
      .receive(JSON.stringify({ type: 'subscribe', sessions: ['s-bob'] }));
    await hub
      .connect(unknown, alice)
      .receive(JSON.stringify({ type: 'subscribe', sessions: ['s-none'] }));

    const shape = (socket: FakeSocket, id: string) =>
      socket.sent[0]?.replace(JSON.stringify(id), '"ID"');
    expect(shape(hidden, 's-bob')).toBe(shape(unknown, 's-none'));
    expect(hidden.frames()[0]).toEqual({
      type: 'subscribed',
      sessions: [],
      all: false,
      refused: ['s-bob'],
    });

    hub.publish(stateEvent('s-bob', 1));
    await settle();
    expect(hidden.revisions('s-bob')).toEqual([]);
  });

  it("tells a deleted session's workspace members, though the store no longer knows it", async () => {
    // Alice saw s1 until it went; the store now answers no for it, as for any unknown session.
    let gone = false;
    const canSeeSession = (principal: Principal, sessionId: string) =>
      Promise.resolve(!gone && principal.userId === 'alice' && sessionId === 's1');
    const members: Record<string, string> = { alice: 'w1', bob: 'w2' };
    const hub = hubWith(canSeeSession, (principal, workspaceId) =>
      Promise.resolve(members[principal.userId] === workspaceId),
    );
    const bob: Principal = { kind: 'user', userId: 'bob', name: 'Bob', isAdmin: false };
    const sockets = { alice: new FakeSocket(), bob: new FakeSocket(), agent: new FakeSocket() };
    const other = { ...agent, sessionId: 's2' };
    for (const [name, principal] of [
      ['alice', alice],
      ['bob', bob],
      ['agent', other],
    ] as const) {
      await hub
        .connect(sockets[name], principal)
        .receive(JSON.stringify({ type: 'subscribe', all: true }));
    }
    hub.publish(stateEvent('s1', 1));
    await settle();
    gone = true;
    for (const type of ['session.deleted', 'task.deleted'] as const) {
      hub.publish({
        type,
        session_id: 's1',
        task_id: 'task-1',
        workspace_id: 'w1',
        revision: 2,
        pending_action: null,
      });
    }
    await settle();
    const types = (socket: FakeSocket) =>
      socket
        .frames()
        .flatMap((frame) => (frame.type === 'event' ? [(frame.event as ClarionEvent).type] : []));
    expect(types(sockets.alice)).toEqual([
      'session.state_changed',
      'session.deleted',
      'task.deleted',
    ]);
    expect(sockets.bob.revisions('s1')).toEqual([]);
    expect(sockets.agent.revisions('s1')).toEqual([]);
  });

  it('keeps per-session order while a visibility lookup is slow', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));

    for (let revision = 1; revision <= 5; revision += 1) hub.publish(stateEvent('s1', revision));
    await settle();
    expect(visibility.calls.map((call) => call.sessionId)).toEqual(['s1']);
    expect(socket.revisions('s1')).toEqual([]);

    visibility.calls[0]?.release();
    hub.publish(stateEvent('s1', 6));
    await settle();
    hub.publish(stateEvent('s1', 7));
    expect(socket.revisions('s1')).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('never lets an event overtake one queued behind an older lookup', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    await subscription.receive(JSON.stringify({ type: 'subscribe', all: true }));

    hub.publish(stateEvent('s1', 1)); // first lookup, still open
    const explicit = subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    hub.publish(stateEvent('s1', 2));
    await settle();
    expect(visibility.calls).toHaveLength(2);

    // The explicit subscribe's fresh lookup answers first; revision 1 still goes first.
    visibility.calls[1]?.release();
    await explicit;
    hub.publish(stateEvent('s1', 3));
    await settle();
    expect(socket.revisions('s1')).toEqual([]);

    visibility.calls[0]?.release();
    await settle();
    expect(socket.revisions('s1')).toEqual([1, 2, 3]);
  });

  it('does not hold back one session while another waits for its lookup', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.publish(stateEvent('slow', 1));
    hub.publish(stateEvent('fast', 1));
    await settle();
    visibility.calls.find((call) => call.sessionId === 'fast')?.release();
    await settle();
    expect(socket.revisions('fast')).toEqual([1]);
    expect(socket.revisions('slow')).toEqual([]);
  });

  it('asks the database once for a burst, and again after the answer expires', async () => {
    const visibility = countingVisibility({ alice: ['s1'] });
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));

    for (let revision = 1; revision <= 100; revision += 1) hub.publish(stateEvent('s1', revision));
    await settle();
    expect(visibility.calls).toEqual(['s1']);
    expect(socket.revisions('s1')).toHaveLength(100);

    clock.advance(DEFAULT_VISIBILITY_TTL_MS + 1);
    hub.publish(stateEvent('s1', 101));
    await settle();
    expect(visibility.calls).toEqual(['s1', 's1']);
    expect(socket.revisions('s1').at(-1)).toBe(101);
  });

  it('stops delivering once a revoked visibility is asked again', async () => {
    const members: Record<string, string[]> = { alice: ['s1'] };
    const hub = hubWith(countingVisibility(members).canSeeSession);
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.publish(stateEvent('s1', 1));
    await settle();
    members.alice = [];
    clock.advance(DEFAULT_VISIBILITY_TTL_MS + 1);
    hub.publish(stateEvent('s1', 2));
    await settle();
    expect(socket.revisions('s1')).toEqual([1]);
  });

  it("tells a person's rules and the people only to those they are for", async () => {
    const hub = hubWith(countingVisibility({}).canSeeSession);
    const bob: Principal = { kind: 'user', userId: 'bob', name: 'Bob', isAdmin: false };
    const ada: Principal = { kind: 'user', userId: 'ada', name: 'Ada', isAdmin: true };
    const sockets = { desktop: new FakeSocket(), phone: new FakeSocket() };
    const others = { bob: new FakeSocket(), ada: new FakeSocket(), agent: new FakeSocket() };
    hub.connect(sockets.desktop, alice);
    // Its subscription is acknowledged before the frame told after it.
    const phone = hub.connect(sockets.phone, alice);
    const subscribed = phone.receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.connect(others.bob, bob);
    hub.connect(others.ada, ada);
    hub.connect(others.agent, agent);

    hub.consentRulesChanged('alice');
    await subscribed;
    await settle();
    const types = (socket: FakeSocket) => socket.frames().map((frame) => frame.type);
    expect(types(sockets.desktop)).toEqual(['consent_rules_changed']);
    expect(types(sockets.phone)).toEqual(['subscribed', 'consent_rules_changed']);
    // An admin lists everyone's rules; Bob and Alice's agent hear nothing of hers.
    expect(types(others.ada)).toEqual(['consent_rules_changed']);
    expect(types(others.bob)).toEqual([]);
    expect(types(others.agent)).toEqual([]);

    hub.peopleChanged({ admins: true, userIds: [] });
    await settle();
    expect(types(others.ada)).toEqual(['consent_rules_changed', 'people_changed']);
    expect(types(sockets.desktop)).toEqual(['consent_rules_changed']);
    expect(types(others.bob)).toEqual([]);
    expect(types(others.agent)).toEqual([]);

    hub.notificationsChanged('alice');
    hub.tokensChanged('alice');
    await settle();
    expect(types(sockets.desktop)).toEqual([
      'consent_rules_changed',
      'notifications_changed',
      'tokens_changed',
    ]);
    // Her channels and tokens are hers alone: not even an admin hears of them.
    expect(types(others.ada)).toEqual(['consent_rules_changed', 'people_changed']);
    expect(types(others.bob)).toEqual([]);
    expect(types(others.agent)).toEqual([]);

    // A workspace's members changed: its members hear it (once a socket), admins only if told.
    hub.peopleChanged({ admins: false, userIds: ['alice', 'alice'] });
    await settle();
    expect(types(sockets.desktop)).toEqual([
      'consent_rules_changed',
      'notifications_changed',
      'tokens_changed',
      'people_changed',
    ]);
    expect(types(sockets.phone)).toEqual([
      'subscribed',
      'consent_rules_changed',
      'notifications_changed',
      'tokens_changed',
      'people_changed',
    ]);
    expect(types(others.ada)).toEqual(['consent_rules_changed', 'people_changed']);
    expect(types(others.bob)).toEqual([]);
    expect(types(others.agent)).toEqual([]);
  });

  it('asks again at once when a person is added to or removed from a workspace', async () => {
    const members: Record<string, string[]> = { alice: [], bob: ['s1'] };
    const visibility = countingVisibility(members);
    const hub = hubWith(visibility.canSeeSession);
    const aliceSocket = new FakeSocket();
    const bobSocket = new FakeSocket();
    const bob: Principal = { kind: 'user', userId: 'bob', name: 'Bob', isAdmin: false };
    await hub.connect(aliceSocket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    await hub.connect(bobSocket, bob).receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.publish(stateEvent('s1', 1));
    await settle();
    expect(aliceSocket.revisions('s1')).toEqual([]);

    // Added, well within the cache's TTL: the next event reaches her.
    members.alice = ['s1'];
    hub.accessChanged('alice');
    hub.publish(stateEvent('s1', 2));
    await settle();
    expect(aliceSocket.revisions('s1')).toEqual([2]);

    // Removed: the next event does not.
    members.alice = [];
    hub.accessChanged('alice');
    hub.publish(stateEvent('s1', 3));
    await settle();
    expect(aliceSocket.revisions('s1')).toEqual([2]);
    // Nobody else's answers were forgotten: Bob's session was asked about once.
    expect(bobSocket.revisions('s1')).toEqual([1, 2, 3]);
    expect(visibility.calls.filter((id) => id === 's1')).toHaveLength(4);
  });

  it('ends at once the explicit subscriptions a membership change took away', async () => {
    const members: Record<string, string[]> = { alice: ['s1', 's2', 's3'] };
    const visibility = countingVisibility(members);
    let failing = '';
    const hub = createEventHub({
      canSeeSession: (principal, sessionId) =>
        sessionId === failing
          ? Promise.reject(new Error('database away'))
          : visibility.canSeeSession(principal, sessionId),
      canSeeWorkspace: () => Promise.resolve(false),
      // Deleted, as far as the standing knows: the credential watch closes such a socket.
      standing: () => Promise.resolve('gone'),
      clock,
      logger: silent,
    });
    const socket = new FakeSocket();
    await hub
      .connect(socket, alice)
      .receive(JSON.stringify({ type: 'subscribe', sessions: ['s1', 's2', 's3'] }));

    members.alice = ['s1'];
    failing = 's3';
    hub.accessChanged('alice');
    hub.accessChanged('bob');
    await settle();
    // A lookup that failed ends nothing: a storage fault is no lost access.
    expect(socket.frames().at(-1)).toEqual({ type: 'access_changed', ended: ['s2'], all: false });
    expect(socket.closedWith).toBeUndefined();
    failing = '';
    hub.publish(stateEvent('s1', 1));
    hub.publish(stateEvent('s2', 1));
    hub.publish(stateEvent('s3', 1));
    await settle();
    expect(socket.frames().filter((frame) => frame.type === 'event')).toHaveLength(1);
    expect(socket.revisions('s1')).toEqual([1]);
  });

  it('closes with 4403 a person left in no workspace', async () => {
    const hub = createEventHub({
      canSeeSession: countingVisibility({}).canSeeSession,
      canSeeWorkspace: () => Promise.resolve(false),
      standing: () => Promise.resolve('no_workspace'),
      clock,
      logger: silent,
    });
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.accessChanged('alice');
    await settle();
    expect(socket.closedWith).toEqual({ code: 4403, reason: 'no workspace left' });
    expect(hub.subscriberCount).toBe(0);
  });

  it('shows an agent only its own session, without asking about any other', async () => {
    const visibility = countingVisibility({ alice: ['s-agent', 's-other'] });
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, agent);
    await subscription.receive(JSON.stringify({ type: 'subscribe', all: true }));
    await subscription.receive(
      JSON.stringify({ type: 'subscribe', sessions: ['s-other', 's-agent'] }),
    );
    hub.publish(stateEvent('s-other', 1));
    hub.publish(stateEvent('s-agent', 1));
    await settle();

    expect(socket.frames()[1]).toEqual({
      type: 'subscribed',
      sessions: ['s-agent'],
      all: true,
      refused: ['s-other'],
    });
    expect(socket.revisions('s-agent')).toEqual([1]);
    expect(socket.revisions('s-other')).toEqual([]);
    expect(visibility.calls).not.toContain('s-other');
  });

  it('stops a session after unsubscribe, even for events already waiting on a lookup', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    await subscription.receive(JSON.stringify({ type: 'subscribe', all: true }));
    hub.publish(stateEvent('s1', 1));
    await subscription.receive(JSON.stringify({ type: 'unsubscribe', all: true }));
    visibility.calls[0]?.release();
    await settle();
    expect(socket.revisions('s1')).toEqual([]);
    expect(socket.frames().at(-1)).toEqual({ type: 'unsubscribed', sessions: [], all: false });
  });

  it('answers malformed frames with an error frame and stays usable', async () => {
    const hub = hubWith(countingVisibility({ alice: ['s1'] }).canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    await subscription.receive('{not json');
    await subscription.receive(JSON.stringify({ type: 'dance' }));
    await subscription.receive(new ArrayBuffer(4));
    await subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    hub.publish(stateEvent('s1', 1));
    await settle();

    const frames = socket.frames();
    expect(frames.slice(0, 3).map((frame) => [frame.type, frame.code])).toEqual([
      ['error', 'invalid_request'],
      ['error', 'invalid_request'],
      ['error', 'invalid_request'],
    ]);
    expect(frames[3]).toMatchObject({ type: 'subscribed', sessions: ['s1'] });
    expect(socket.revisions('s1')).toEqual([1]);
    expect(socket.closedWith).toBeUndefined();
  });

  it('disconnects a slow consumer with 1013 instead of buffering', async () => {
    const { seen, metrics } = recordingMetrics();
    const hub = createEventHub({
      canSeeSession: countingVisibility({ alice: ['s1'] }).canSeeSession,
      canSeeWorkspace: () => Promise.resolve(false),
      standing: () => Promise.resolve('member'),
      clock,
      logger: silent,
      metrics,
    });
    const slow = new FakeSocket();
    const fine = new FakeSocket();
    await hub.connect(slow, alice).receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    await hub.connect(fine, alice).receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    expect(hub.subscriberCount).toBe(2);

    slow.bufferedAmount = 2 * 1024 * 1024;
    hub.publish(stateEvent('s1', 1));
    hub.publish(stateEvent('s1', 2));

    expect(slow.closedWith?.code).toBe(CLOSE_SLOW_CONSUMER);
    expect(slow.revisions('s1')).toEqual([]);
    expect(fine.revisions('s1')).toEqual([1, 2]);
    expect(hub.subscriberCount).toBe(1);
    expect(seen).toEqual({ published: 2, subscribers: [1, 2, 1], slow: 1 });
  });

  it('writes the frames one tick publishes in one write, and the next tick in another', async () => {
    const hub = hubWith(countingVisibility({ alice: ['s1', 's2'] }).canSeeSession);
    const socket = new FakeSocket();
    const stream = new FakeStream(socket);
    const subscription = hub.connect(socket, alice, stream);
    await subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1', 's2'] }));
    await settle();
    expect(stream.writes).toEqual([1]);

    hub.publish(stateEvent('s1', 1));
    hub.publish(stateEvent('s2', 1));
    hub.publish(stateEvent('s1', 2));
    expect(stream.writes).toEqual([1]);
    await settle();
    hub.publish(stateEvent('s1', 3));
    await settle();

    expect(stream.writes).toEqual([1, 3, 1]);
    expect(stream.depth).toBe(0);
    expect(socket.revisions('s1')).toEqual([1, 2, 3]);
    expect(socket.revisions('s2')).toEqual([1]);
  });

  it('writes a burst as it goes, so corked bytes never make a subscriber look slow', async () => {
    const maxBufferedBytes = 64 * 1024;
    const hub = createEventHub({
      canSeeSession: countingVisibility({ alice: ['s1'] }).canSeeSession,
      canSeeWorkspace: () => Promise.resolve(false),
      standing: () => Promise.resolve('member'),
      clock,
      logger: silent,
      maxBufferedBytes,
    });
    const socket = new FakeSocket();
    const stream = new FakeStream(socket);
    await hub
      .connect(socket, alice, stream)
      .receive(JSON.stringify({ type: 'subscribe', all: true }));
    const frameBytes = JSON.stringify({ type: 'event', event: stateEvent('s1', 1) }).length;
    const burst = Math.ceil((4 * maxBufferedBytes) / frameBytes);

    for (let revision = 1; revision <= burst; revision += 1) {
      hub.publish(stateEvent('s1', revision));
    }
    await settle();

    expect(socket.closedWith).toBeUndefined();
    expect(socket.revisions('s1')).toHaveLength(burst);
    expect(stream.writes.length).toBeGreaterThanOrEqual(8);
    expect(stream.depth).toBe(0);
  });

  it('disconnects with 1013 when events pile up behind a stalled lookup', async () => {
    const visibility = manualVisibility(() => true);
    const hub = createEventHub({
      canSeeSession: visibility.canSeeSession,
      canSeeWorkspace: () => Promise.resolve(false),
      standing: () => Promise.resolve('member'),
      clock,
      logger: silent,
      maxWaitingEvents: 3,
    });
    const socket = new FakeSocket();
    await hub.connect(socket, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    for (let revision = 1; revision <= 3; revision += 1) hub.publish(stateEvent('s1', revision));
    expect(socket.closedWith).toBeUndefined();
    hub.publish(stateEvent('s1', 4));
    expect(socket.closedWith?.code).toBe(CLOSE_SLOW_CONSUMER);
    expect(hub.subscriberCount).toBe(0);
  });

  it('answers frames beyond the in-flight bound with an error instead of queueing them', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    const frame = JSON.stringify({ type: 'subscribe', sessions: ['s1'] });
    const pending = Array.from({ length: MAX_CLIENT_FRAMES_IN_FLIGHT }, () =>
      subscription.receive(frame),
    );
    void subscription.receive(frame);
    expect(socket.frames()[0]).toMatchObject({ type: 'error', code: 'invalid_request' });

    for (let answered = 0; answered < MAX_CLIENT_FRAMES_IN_FLIGHT; answered += 1) {
      await settle();
      visibility.calls[answered]?.release();
    }
    await Promise.all(pending);
    expect(socket.frames().filter((f) => f.type === 'subscribed')).toHaveLength(
      MAX_CLIENT_FRAMES_IN_FLIGHT,
    );
  });

  it('never throws from publish when a socket throws or a lookup fails', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const broken = new FakeSocket();
    const healthy = new FakeSocket();
    await hub.connect(broken, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    await hub.connect(healthy, alice).receive(JSON.stringify({ type: 'subscribe', all: true }));
    broken.failSends = true;

    expect(() => {
      hub.publish(stateEvent('s1', 1));
    }).not.toThrow();
    await settle();
    expect(visibility.calls).toHaveLength(2);
    visibility.calls.forEach((call) => {
      call.release();
    });
    await settle();
    expect(healthy.revisions('s1')).toEqual([1]);
    expect(broken.closedWith?.code).toBe(1011);
    expect(hub.subscriberCount).toBe(1);

    hub.publish(stateEvent('s2', 1));
    await settle();
    expect(visibility.calls.at(-1)?.sessionId).toBe('s2');
    visibility.calls.at(-1)?.fail(new Error('database down'));
    await settle();
    // The event could not be judged: rather than miss it silently, the subscriber resyncs.
    expect(healthy.revisions('s2')).toEqual([]);
    expect(healthy.closedWith?.code).toBe(CLOSE_SLOW_CONSUMER);
    expect(hub.subscriberCount).toBe(0);

    const unserializable = { ...stateEvent('s1', 2), extra: 1n } as unknown as ClarionEvent;
    expect(() => {
      hub.publish(unserializable);
    }).not.toThrow();
  });

  it('refuses a session whose lookup fails, and asks again next time', async () => {
    const visibility = manualVisibility(() => true);
    const hub = hubWith(visibility.canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    const first = subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    await settle();
    visibility.calls[0]?.fail(new Error('database down'));
    await first;
    const second = subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    await settle();
    visibility.calls[1]?.release();
    await second;
    expect(socket.frames()).toEqual([
      { type: 'subscribed', sessions: [], all: false, refused: ['s1'] },
      { type: 'subscribed', sessions: ['s1'], all: false, refused: [] },
    ]);
  });

  it('closes every subscriber with 1001 on shutdown', () => {
    const hub = hubWith(countingVisibility({}).canSeeSession);
    const sockets = [new FakeSocket(), new FakeSocket()];
    for (const socket of sockets) hub.connect(socket, alice);
    hub.closeAll();
    expect(sockets.map((socket) => socket.closedWith?.code)).toEqual([
      CLOSE_GOING_AWAY,
      CLOSE_GOING_AWAY,
    ]);
    expect(hub.subscriberCount).toBe(0);
  });

  it('forgets a disconnected subscriber', async () => {
    const hub = hubWith(countingVisibility({ alice: ['s1'] }).canSeeSession);
    const socket = new FakeSocket();
    const subscription = hub.connect(socket, alice);
    await subscription.receive(JSON.stringify({ type: 'subscribe', sessions: ['s1'] }));
    subscription.disconnect();
    subscription.disconnect();
    hub.publish(stateEvent('s1', 1));
    await settle();
    expect(hub.subscriberCount).toBe(0);
    expect(socket.revisions('s1')).toEqual([]);
  });
});
