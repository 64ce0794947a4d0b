import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../test/support/fakes.js';
import { VisibilityCache } from './visibility-cache.js';

function cacheWith(check: (id: string) => Promise<boolean>, maxEntries = 10) {
  const clock = fakeClock();
  return { clock, cache: new VisibilityCache({ check, clock, ttlMs: 1000, maxEntries }) };
}

describe('VisibilityCache', () => {
  it('shares one lookup among concurrent askers and remembers it for ttlMs', async () => {
    let calls = 0;
    const { clock, cache } = cacheWith(() => {
      calls += 1;
      return Promise.resolve(true);
    });
    expect(cache.peek('s1')).toBeUndefined();
    const answers = await Promise.all([cache.lookup('s1'), cache.lookup('s1')]);
    expect(answers).toEqual([true, true]);
    expect(calls).toBe(1);
    expect(cache.peek('s1')).toBe(true);
    clock.advance(1000);
    expect(cache.peek('s1')).toBeUndefined();
  });

  it('forgets a failed lookup so the next one asks again', async () => {
    let fail = true;
    const { cache } = cacheWith(() =>
      fail ? Promise.reject(new Error('down')) : Promise.resolve(false),
    );
    await expect(cache.lookup('s1')).rejects.toThrow('down');
    expect(cache.size).toBe(0);
    fail = false;
    expect(await cache.lookup('s1')).toBe(false);
    expect(cache.peek('s1')).toBe(false);
  });

  it('lets a newer lookup win over an older one that answers later', async () => {
    const releases: ((visible: boolean) => void)[] = [];
    const { cache } = cacheWith(
      () =>
        new Promise<boolean>((resolve) => {
          releases.push(resolve);
        }),
    );
    const older = cache.lookup('s1');
    const newer = cache.refresh('s1');
    releases[1]?.(false);
    await newer;
    releases[0]?.(true);
    await older;
    expect(cache.peek('s1')).toBe(false);
  });

  it('remembers at most maxEntries sessions, oldest out first', async () => {
    const { cache } = cacheWith(() => Promise.resolve(true), 2);
    await cache.lookup('a');
    await cache.lookup('b');
    await cache.lookup('c');
    expect(cache.size).toBe(2);
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.peek('c')).toBe(true);
  });
});
