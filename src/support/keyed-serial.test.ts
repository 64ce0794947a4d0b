import { describe, expect, it } from 'vitest';
import { KeyedSerial } from './keyed-serial.js';

/** A section the test ends when it wants, noting when it began and ended. */
function gate(order: string[], name: string) {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open: () => {
      open();
    },
    work: async () => {
      order.push(`${name} began`);
      await opened;
      order.push(`${name} ended`);
      return name;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSerial', () => {
  it('runs one session’s sections one at a time, in order, and other sessions’ meanwhile', async () => {
    const serial = new KeyedSerial();
    const order: string[] = [];
    const start = gate(order, 'start');
    const exit = gate(order, 'exit');
    const elsewhere = gate(order, 'elsewhere');
    const started = serial.run('s1', start.work);
    const exited = serial.run('s1', exit.work);
    const other = serial.run('s2', elsewhere.work);
    await tick();
    expect(order).toEqual(['start began', 'elsewhere began']);
    exit.open();
    await tick();
    expect(order).toEqual(['start began', 'elsewhere began']);
    start.open();
    elsewhere.open();
    expect(await Promise.all([started, exited, other])).toEqual(['start', 'exit', 'elsewhere']);
    expect(order).toEqual([
      'start began',
      'elsewhere began',
      'start ended',
      'elsewhere ended',
      'exit began',
      'exit ended',
    ]);
  });

  it('starts work on the call when nothing for its key is under way', () => {
    const serial = new KeyedSerial();
    const order: string[] = [];
    void serial.run('s1', () => {
      order.push('began');
      return Promise.resolve();
    });
    order.push('returned');
    expect(order).toEqual(['began', 'returned']);
  });

  it('runs the next section after one that failed, and passes the failure to its caller', async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('s1', () => Promise.reject(new Error('no such profile')));
    const next = serial.run('s1', () => Promise.resolve('exit handled'));
    await expect(failed).rejects.toThrow('no such profile');
    expect(await next).toBe('exit handled');
  });
});
