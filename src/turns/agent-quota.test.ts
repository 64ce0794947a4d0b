import { describe, expect, it } from 'vitest';
import { AgentQuota } from './agent-quota.js';

function quota(perUser: number, perServer: number) {
  const running = new Set<string>();
  return { running, quota: new AgentQuota((id) => running.has(id), { perUser, perServer }) };
}

describe('the running-agent quota', () => {
  it('counts what the host runs plus starts under way, per user and per server', () => {
    const { running, quota: q } = quota(2, 3);
    const a = q.hold('ann', 's1');
    expect(a.ok).toBe(true);
    if (a.ok) a.slot.release();
    // Released before the host ever ran it: nothing counts.
    expect(q.count('ann')).toBe(0);

    const started = q.hold('ann', 's1');
    running.add('s1');
    if (started.ok) started.slot.release();
    expect(q.count('ann')).toBe(1);
    const pending = q.hold('ann');
    expect(q.count('ann')).toBe(2);
    expect(q.hold('ann', 's3')).toMatchObject({
      ok: false,
      code: 'quota_exceeded',
      details: { scope: 'user', limit: 2 },
    });
    // The same session takes no second place.
    expect(q.hold('ann', 's1').ok).toBe(true);
    expect(q.hold('bob', 'b1').ok).toBe(true);
    expect(q.hold('cid', 'c1')).toMatchObject({ ok: false, details: { scope: 'server' } });

    // A pending start bound to its session is that session's place.
    if (pending.ok) pending.slot.bind('s2');
    expect(q.hold('ann', 's2').ok).toBe(true);
    expect(q.count()).toBe(3);
  });

  it('frees the place of an agent whose process exited', () => {
    const { running, quota: q } = quota(1, 10);
    const held = q.hold('ann', 's1');
    running.add('s1');
    if (held.ok) held.slot.release();
    expect(q.hold('ann', 's2').ok).toBe(false);
    running.delete('s1');
    expect(q.count('ann')).toBe(0);
    expect(q.hold('ann', 's2').ok).toBe(true);
  });
});
