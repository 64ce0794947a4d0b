/**
 * The gate in front of channel lookups: at most `max` reach the system at
 * once, the rest wait in order, one whose send gave up never starts, and a
 * slot is held until the system answers, whoever still listens.
 */
import { describe, expect, it } from 'vitest';
import { heldResolver } from '../../test/support/held-resolver.js';
import { lookupGate, type ResolveAll } from './lookup-gate.js';

const never = () => new AbortController().signal;
/** Lets settled promises' callbacks run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the channel lookup gate', () => {
  it('lets `max` lookups reach the system at once, and the rest in the order they came', async () => {
    const system = heldResolver();
    const gate = lookupGate(2, system.resolve);
    const results = ['a.test', 'b.test', 'c.test', 'd.test'].map((name) =>
      gate.lookup(name, {}, never()),
    );
    expect(system.asked).toEqual(['a.test', 'b.test']);
    expect([gate.running, gate.waiting]).toEqual([2, 2]);

    system.answer('b.test', '203.0.113.2');
    expect(await results[1]).toEqual([{ address: '203.0.113.2', family: 4 }]);
    expect(system.asked).toEqual(['a.test', 'b.test', 'c.test']);
    system.answer('c.test');
    system.answer('a.test');
    expect(system.asked).toEqual(['a.test', 'b.test', 'c.test', 'd.test']);
    system.answer('d.test');
    await Promise.all(results);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('drops a waiting lookup whose send gave up: it never reaches the system', async () => {
    const system = heldResolver();
    const gate = lookupGate(1, system.resolve);
    const first = gate.lookup('held.test', {}, never());
    const cancelled = new AbortController();
    const gaveUp = gate.lookup('gave-up.test', {}, cancelled.signal);
    const after = gate.lookup('after.test', {}, never());
    cancelled.abort(new Error('the send timed out'));
    await expect(gaveUp).rejects.toThrow('the send timed out');
    expect(gate.waiting).toBe(1);

    system.answer('held.test');
    await first;
    expect(system.asked).toEqual(['held.test', 'after.test']);
    system.answer('after.test');
    await after;
  });

  it('answers a running lookup’s caller when it gives up, but keeps its slot until the system answers', async () => {
    const system = heldResolver();
    const gate = lookupGate(1, system.resolve);
    const cancelled = new AbortController();
    const hung = gate.lookup('hung.test', {}, cancelled.signal);
    const next = gate.lookup('next.test', {}, never());
    cancelled.abort(new Error('the send timed out'));
    await expect(hung).rejects.toThrow('the send timed out');
    await turn();
    // The system's thread is still busy with the first name.
    expect(system.asked).toEqual(['hung.test']);
    expect([gate.running, gate.waiting]).toEqual([1, 1]);

    system.answer('hung.test');
    expect(system.asked).toEqual(['hung.test', 'next.test']);
    system.answer('next.test');
    await next;
  });

  it('refuses a lookup whose signal had already aborted, without asking the system', async () => {
    const system = heldResolver();
    const gate = lookupGate(1, system.resolve);
    const done = new AbortController();
    done.abort(new Error('already over'));
    await expect(gate.lookup('late.test', {}, done.signal)).rejects.toThrow('already over');
    expect(system.asked).toEqual([]);
  });

  it('frees the slot of a lookup the system refused, and passes its error on', async () => {
    const failing: ResolveAll = (hostname, _hints, callback) => {
      if (hostname === 'throws.test') throw new TypeError('bad hints');
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    };
    const gate = lookupGate(1, failing);
    await expect(gate.lookup('throws.test', {}, never())).rejects.toThrow('bad hints');
    await expect(gate.lookup('missing.test', {}, never())).rejects.toThrow('ENOTFOUND');
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });
});
