/**
 * The planner as a table of situations on a fake clock, without a database:
 * one `asked` per item and channel, one reminder after the delay, `answered`
 * only to channels that can retract, owed prompts dropped once an item stops.
 */
import { describe, expect, it } from 'vitest';
import {
  planNotices,
  type ExistingNotice,
  type PlanInput,
  type PlannerChannel,
  type WaitingItem,
} from './planner.js';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString().replace('Z', '000000Z');

const ITEM: WaitingItem = {
  kind: 'question',
  itemId: 'b1',
  sessionId: 's1',
  taskId: 't1',
  taskTitle: 'Task',
  question: 'Which parser?',
  createdAt: at(T0),
  expiresAt: null,
  decidable: true,
  userIds: ['ann'],
};

const CHANNELS: PlannerChannel[] = [
  { id: 'hook', userId: 'ann', kind: 'webhook' },
  { id: 'ntfy', userId: 'ann', kind: 'ntfy' },
  { id: 'bob-slack', userId: 'bob', kind: 'slack' },
];

function input(overrides: Partial<PlanInput>): PlanInput {
  return {
    items: [ITEM],
    channels: CHANNELS,
    settings: new Map(),
    defaults: { reminderDelayS: 600, includeQuestion: false },
    existing: [],
    deliveredAsks: [],
    owed: [],
    nowMs: T0,
    ...overrides,
  };
}

const asked = (channelId: string, createdAtMs = T0): ExistingNotice => ({
  channelId,
  event: 'asked',
  occurrence: 'b1',
  createdAtMs,
});

const summary = (plan: ReturnType<typeof planNotices>) =>
  plan.prompts.map((prompt) => `${prompt.event}:${prompt.channelId}:${prompt.item.itemId}`);

describe('planNotices', () => {
  it('asks once on every channel of everyone who may see the item, and nobody else', () => {
    const plan = planNotices(input({}));
    expect(summary(plan)).toEqual(['asked:hook:b1', 'asked:ntfy:b1']);
    expect(plan.prompts.every((prompt) => !prompt.includeQuestion)).toBe(true);
  });

  it('asks nothing twice', () => {
    const plan = planNotices(input({ existing: [asked('hook'), asked('ntfy')], nowMs: T0 + 1 }));
    expect(plan.prompts).toEqual([]);
  });

  it('one bundle is one notice however many questions it has, and no item is no notice', () => {
    expect(planNotices(input({ items: [] })).prompts).toEqual([]);
    const twoUsers = { ...ITEM, userIds: ['ann', 'ann', 'bob'] };
    expect(summary(planNotices(input({ items: [twoUsers] })))).toEqual([
      'asked:hook:b1',
      'asked:ntfy:b1',
      'asked:bob-slack:b1',
    ]);
  });

  it('carries the question only for a person who turned it on', () => {
    const plan = planNotices(
      input({ settings: new Map([['ann', { reminderDelayS: 600, includeQuestion: true }]]) }),
    );
    expect(plan.prompts.every((prompt) => prompt.includeQuestion)).toBe(true);
  });

  it.each([
    ['before the delay', 599_999, []],
    ['at the delay', 600_000, ['reminder:hook:b1', 'reminder:ntfy:b1']],
    ['long after', 86_400_000, ['reminder:hook:b1', 'reminder:ntfy:b1']],
  ])('reminds %s', (_label, elapsed, expected) => {
    const plan = planNotices(
      input({ existing: [asked('hook'), asked('ntfy')], nowMs: T0 + elapsed }),
    );
    expect(summary(plan)).toEqual(expected);
  });

  it('reminds once', () => {
    const existing = [
      asked('hook'),
      { ...asked('hook'), event: 'reminder' },
      asked('ntfy'),
      { ...asked('ntfy'), event: 'reminder' },
    ];
    expect(planNotices(input({ existing, nowMs: T0 + 7_200_000 })).prompts).toEqual([]);
  });

  it('never reminds with a delay of 0', () => {
    const plan = planNotices(
      input({
        existing: [asked('hook'), asked('ntfy')],
        settings: new Map([['ann', { reminderDelayS: 0, includeQuestion: false }]]),
        nowMs: T0 + 86_400_000,
      }),
    );
    expect(plan.prompts).toEqual([]);
  });

  it('counts a late channel’s delay from when it was told', () => {
    const plan = planNotices(
      input({ existing: [asked('hook', T0 + 900_000)], nowMs: T0 + 1_000_000 }),
    );
    // ntfy was never told: it is asked now; the webhook was told late and is not reminded yet.
    expect(summary(plan)).toEqual(['asked:ntfy:b1']);
  });

  it('never reminds an item that no longer waits, and drops what is still owed for it', () => {
    const plan = planNotices(
      input({
        items: [],
        existing: [],
        owed: [
          { id: 'row-1', occurrence: 'b1' },
          { id: 'row-2', occurrence: 'b2' },
        ],
        nowMs: T0 + 86_400_000,
      }),
    );
    expect(plan.prompts).toEqual([]);
    expect(plan.drop).toEqual(['row-1', 'row-2']);
  });

  it('keeps what is owed for items still waiting', () => {
    const plan = planNotices(input({ owed: [{ id: 'row-1', occurrence: 'b1' }] }));
    expect(plan.drop).toEqual([]);
  });

  it('says "answered" once an item stops, only to channels that can retract', () => {
    const deliveredAsks = ['hook', 'ntfy', 'bob-slack'].map((channelId) => ({
      channelId,
      userId: channelId === 'bob-slack' ? 'bob' : 'ann',
      occurrence: 'b1',
      payload: '{"event":"asked"}',
    }));
    expect(planNotices(input({ deliveredAsks })).answered).toEqual([]);
    const plan = planNotices(input({ items: [], deliveredAsks }));
    expect(plan.answered).toEqual([
      { channelId: 'hook', userId: 'ann', occurrence: 'b1', askedPayload: '{"event":"asked"}' },
    ]);
  });
});
