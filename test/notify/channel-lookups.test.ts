/**
 * A channel send resolves its host through the lookup gate, whatever its
 * reach: while one name hangs in the system's resolver, a second send waits
 * its turn instead of taking another of libuv's threads, a send that gave up
 * leaves no thread behind it, and a `public` channel's addresses are judged
 * on what the gate answered. The receiver is real; only the resolver is held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  guardedPost,
  InternalTargetError,
  resolvesInternal,
} from '../../src/notify/guarded-post.js';
import { lookupGate, type ResolveAll } from '../../src/notify/lookup-gate.js';
import { heldResolver } from '../support/held-resolver.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

describe('channel sends behind the lookup gate', () => {
  let receiver: Receiver;
  let port: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    port = new URL(receiver.url).port;
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('holds a second send’s lookup while the first hangs, and sends both once the system answers', async () => {
    const system = heldResolver();
    const gate = lookupGate(1, system.resolve);
    const hung = new AbortController();
    const first = guardedPost(
      `http://hang.test:${port}/first`,
      {},
      'one',
      hung.signal,
      'any',
      gate,
    );
    const second = guardedPost(
      `http://relay.test:${port}/second`,
      {},
      'two',
      AbortSignal.timeout(30_000),
      'any',
      gate,
    );
    await expect.poll(() => gate.waiting).toBe(1);
    expect(system.asked).toEqual(['hang.test']);

    // The first send's own bound ends it; the system still holds the thread.
    hung.abort(new Error('the send timed out'));
    await expect(first).rejects.toThrow();
    expect(system.asked).toEqual(['hang.test']);

    system.answer('hang.test', '127.0.0.1');
    await expect.poll(() => system.asked).toEqual(['hang.test', 'relay.test']);
    system.answer('relay.test', '127.0.0.1');
    expect(await second).toMatchObject({ status: 200 });
    expect(receiver.received.map((each) => each.path)).toEqual(['/second']);
  });

  it('refuses a `public` channel’s name the gate resolved to a loopback address', async () => {
    const loopback: ResolveAll = (_hostname, _hints, callback) => {
      callback(null, [
        { address: '203.0.113.9', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]);
    };
    const gate = lookupGate(1, loopback);
    await expect(
      guardedPost(
        `http://rebind.test:${port}/x`,
        {},
        null,
        AbortSignal.timeout(30_000),
        'public',
        gate,
      ),
    ).rejects.toBeInstanceOf(InternalTargetError);
    expect(await resolvesInternal(`http://rebind.test:${port}/x`, 1_000, gate)).toBe(true);
    expect(gate.running).toBe(0);
  });

  it('lets adding a channel go on when its name hangs, holding no more than the gate allows', async () => {
    const system = heldResolver();
    const gate = lookupGate(1, system.resolve);
    const checks = [1, 2, 3].map(() => resolvesInternal('https://slow.test/topic', 50, gate));
    expect(await Promise.all(checks)).toEqual([false, false, false]);
    expect(system.asked).toEqual(['slow.test']);
    expect([gate.running, gate.waiting]).toEqual([1, 0]);
    system.answer('slow.test', '127.0.0.1');
    expect(gate.running).toBe(0);
  });
});
