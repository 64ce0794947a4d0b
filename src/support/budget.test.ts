import { describe, expect, it } from 'vitest';
import { ClockTimers, fakeClock } from '../../test/support/fakes.js';
import { BudgetExhausted, EXHAUSTED, startBudget, withinBudget } from './budget.js';

/** Timers driven by a fake clock: `advance` moves the clock and fires what fell due. */

function setup() {
  const clock = fakeClock();
  const timers = new ClockTimers(clock);
  return { clock, timers };
}

/** Lets every queued promise reaction run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('startBudget', () => {
  it('starts with the whole budget remaining and counts down with the clock', () => {
    const { clock, timers } = setup();
    const budget = startBudget(5000, clock, timers);
    expect(budget.remainingMs()).toBe(5000);
    timers.advance(1200);
    expect(budget.remainingMs()).toBe(3800);
    timers.advance(3799);
    expect(budget.remainingMs()).toBe(1);
    expect(budget.signal.aborted).toBe(false);
  });

  it('never reports negative time remaining', () => {
    const { clock, timers } = setup();
    const budget = startBudget(100, clock, timers);
    timers.advance(100);
    expect(budget.remainingMs()).toBe(0);
    clock.advance(10_000);
    expect(budget.remainingMs()).toBe(0);
  });

  it('reads the clock, not the timers, for the remaining time', () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    clock.advance(400);
    expect(budget.remainingMs()).toBe(600);
  });

  it('check passes before expiry and throws BudgetExhausted after', () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    timers.advance(999);
    expect(() => {
      budget.check();
    }).not.toThrow();
    timers.advance(1);
    expect(() => {
      budget.check();
    }).toThrow(BudgetExhausted);
  });

  it('throws an error with a stable code', () => {
    const error = new BudgetExhausted();
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('budget_exhausted');
    expect(error.name).toBe('BudgetExhausted');
  });

  it('aborts its signal with a BudgetExhausted reason when it runs out', () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    let aborts = 0;
    budget.signal.addEventListener('abort', () => aborts++);
    timers.advance(1000);
    expect(budget.signal.aborted).toBe(true);
    expect(budget.signal.reason).toBeInstanceOf(BudgetExhausted);
    expect(aborts).toBe(1);
  });

  it('resolves exhausted when it runs out, and not before', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    let done = false;
    void budget.exhausted.then(() => {
      done = true;
    });
    timers.advance(999);
    await flush();
    expect(done).toBe(false);
    timers.advance(1);
    await flush();
    expect(done).toBe(true);
  });

  it('dispose cancels the timer, so the budget never fires', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    expect(timers.active).toBe(1);
    budget.dispose();
    expect(timers.active).toBe(0);
    let done = false;
    void budget.exhausted.then(() => {
      done = true;
    });
    timers.advance(5000);
    await flush();
    expect(done).toBe(false);
    expect(budget.signal.aborted).toBe(false);
    expect(() => {
      budget.check();
    }).not.toThrow();
  });

  it('tolerates dispose after expiry and twice', () => {
    const { clock, timers } = setup();
    const budget = startBudget(10, clock, timers);
    timers.advance(10);
    budget.dispose();
    budget.dispose();
    expect(budget.signal.aborted).toBe(true);
  });

  it('keeps budgets independent of each other', () => {
    const { clock, timers } = setup();
    const short = startBudget(100, clock, timers);
    const long = startBudget(1000, clock, timers);
    timers.advance(100);
    expect(short.signal.aborted).toBe(true);
    expect(long.signal.aborted).toBe(false);
    expect(long.remainingMs()).toBe(900);
  });
});

describe('withinBudget', () => {
  it("returns the work's value when it finishes first", async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    await expect(withinBudget(budget, Promise.resolve('done'))).resolves.toBe('done');
  });

  it('returns the value of work that finishes just before the deadline', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    let finish: (value: number) => void = () => {};
    const work = new Promise<number>((resolve) => {
      finish = resolve;
    });
    const raced = withinBudget(budget, work);
    timers.advance(999);
    finish(42);
    await expect(raced).resolves.toBe(42);
  });

  it('returns EXHAUSTED when the budget runs out first', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    const never = new Promise<string>(() => {});
    const raced = withinBudget(budget, never);
    timers.advance(1000);
    await expect(raced).resolves.toBe(EXHAUSTED);
  });

  it('passes through a rejection from the work', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    const error = new Error('query failed');
    await expect(withinBudget(budget, Promise.reject(error))).rejects.toBe(error);
  });

  it('refuses to start on an exhausted budget', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    timers.advance(1000);
    await expect(withinBudget(budget, Promise.resolve('late'))).rejects.toBeInstanceOf(
      BudgetExhausted,
    );
  });

  it('leaves no unhandled rejection when work it refused to wait for fails later', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    timers.advance(1000);
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      let fail: (error: Error) => void = () => {};
      const work = new Promise<string>((_resolve, reject) => {
        fail = reject;
      });
      await expect(withinBudget(budget, work)).rejects.toBeInstanceOf(BudgetExhausted);
      fail(new Error('the statement failed after all'));
      await new Promise((done) => setImmediate(done));
      await new Promise((done) => setImmediate(done));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('never returns EXHAUSTED after dispose', async () => {
    const { clock, timers } = setup();
    const budget = startBudget(1000, clock, timers);
    let finish: (value: string) => void = () => {};
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const raced = withinBudget(budget, work);
    budget.dispose();
    timers.advance(5000);
    finish('eventually');
    await expect(raced).resolves.toBe('eventually');
  });
});
