/**
 * The planner as a table of situations on a fake clock, without a database:
 * one `asked` per item and channel, one reminder after the delay, `answered`
 * only to channels that can retract, owed prompts dropped once an item stops
 * (or given up as out of sight when it still waits), no `answered` while an
 * answer is on its way to its agent, and a row given up out of sight or as
 * no longer waiting owed again once the item waits on its person again.
 */
import { describe, expect, it } from 'vitest';
import {
  planNotices,
  reminderHeldBack,
  type ExistingNotice,
  type GaveUpFor,
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
    defaults: { reminderDelayS: 600, includeQuestion: false, answerLinks: true },
    existing: [],
    deliveredAsks: [],
    owed: [],
    stillWaiting: new Set(),
    delivering: new Set(),
    nowMs: T0,
    ...overrides,
  };
}

/** An `asked` row; delivered when it was made, unless given up (a delivery clears that). */
const asked = (
  channelId: string,
  createdAtMs = T0,
  gaveUpFor: GaveUpFor | null = null,
): ExistingNotice => ({
  id: `${channelId}-asked`,
  channelId,
  event: 'asked',
  occurrence: 'b1',
  createdAtMs,
  deliveredAtMs: gaveUpFor === null ? createdAtMs : null,
  gaveUpFor,
});

/** An `asked` row its channel has not taken yet: still being tried. */
const askedOwed = (channelId: string): ExistingNotice => ({
  ...asked(channelId),
  deliveredAtMs: null,
});

const reminded = (channelId: string, gaveUpFor: GaveUpFor | null = null): ExistingNotice => ({
  ...asked(channelId, T0, gaveUpFor),
  id: `${channelId}-reminder`,
  event: 'reminder',
});

const summary = (plan: ReturnType<typeof planNotices>) =>
  plan.prompts.map(
    (prompt) =>
      `${prompt.event}:${prompt.channelId}:${prompt.item.itemId}` +
      (prompt.rearms === null ? '' : `:rearms ${prompt.rearms}`),
  );

describe('planNotices', () => {
  it('asks once on every channel of everyone who may see the item, and nobody else', () => {
    const plan = planNotices(input({}));
    expect(summary(plan)).toEqual(['asked:hook:b1', 'asked:ntfy:b1']);
    expect(plan.prompts.every((prompt) => !prompt.content.includeQuestion)).toBe(true);
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
      input({
        settings: new Map([
          ['ann', { reminderDelayS: 600, includeQuestion: true, answerLinks: true }],
        ]),
      }),
    );
    expect(plan.prompts.every((prompt) => prompt.content.includeQuestion)).toBe(true);
  });

  it('plans no answer links for a person who turned them off, whatever they include', () => {
    const plan = planNotices(
      input({
        settings: new Map([
          ['ann', { reminderDelayS: 600, includeQuestion: true, answerLinks: false }],
        ]),
      }),
    );
    expect(plan.prompts.map((prompt) => prompt.content)).toEqual([
      { includeQuestion: true, answerLinks: false },
      { includeQuestion: true, answerLinks: false },
    ]);
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
    const existing = [asked('hook'), reminded('hook'), asked('ntfy'), reminded('ntfy')];
    expect(planNotices(input({ existing, nowMs: T0 + 7_200_000 })).prompts).toEqual([]);
  });

  it('reminds a channel only once its `asked` reached it, counting the delay from then', () => {
    // The webhook's receiver was down: its `asked` is still being retried. A reminder now would
    // arrive first, and, if the item is then answered and the `asked` dropped, stand as the only
    // notice delivered, one no `answered` takes back (that follows a delivered `asked`).
    const late = T0 + 7_200_000;
    const retrying = [askedOwed('hook'), asked('ntfy')];
    expect(summary(planNotices(input({ existing: retrying, nowMs: late })))).toEqual([
      'reminder:ntfy:b1',
    ]);
    // Delivered at last, an hour and a half in: reminded the person's delay after that.
    const told = { ...asked('hook'), deliveredAtMs: T0 + 5_400_000 };
    const existing = [told, asked('ntfy'), reminded('ntfy')];
    expect(summary(planNotices(input({ existing, nowMs: T0 + 5_999_999 })))).toEqual([]);
    expect(summary(planNotices(input({ existing, nowMs: T0 + 6_000_000 })))).toEqual([
      'reminder:hook:b1',
    ]);
    // An `asked` the receiver refused for good (a 404 while it was redeployed): the reminder
    // is what may still reach the person.
    const refused = [asked('hook', T0, 'failed'), asked('ntfy'), reminded('ntfy')];
    expect(summary(planNotices(input({ existing: refused, nowMs: T0 + 600_000 })))).toEqual([
      'reminder:hook:b1',
    ]);
  });

  it('never reminds with a delay of 0', () => {
    const plan = planNotices(
      input({
        existing: [asked('hook'), asked('ntfy')],
        settings: new Map([
          ['ann', { reminderDelayS: 0, includeQuestion: false, answerLinks: true }],
        ]),
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
    expect(plan.drop).toEqual([
      { id: 'row-1', reason: 'stopped_waiting' },
      { id: 'row-2', reason: 'stopped_waiting' },
    ]);
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

  describe('an item out of its person’s sight', () => {
    const deliveredToAnn = ['hook', 'ntfy'].map((channelId) => ({
      channelId,
      userId: 'ann',
      occurrence: 'b1',
      payload: '{"event":"asked"}',
    }));

    it('gives up what is owed as no longer visible, not as no longer waiting', () => {
      const plan = planNotices(
        input({
          items: [],
          owed: [
            { id: 'row-1', occurrence: 'b1' },
            { id: 'row-2', occurrence: 'b2' },
          ],
          stillWaiting: new Set(['b1']),
        }),
      );
      expect(plan.drop).toEqual([
        { id: 'row-1', reason: 'not_visible' },
        { id: 'row-2', reason: 'stopped_waiting' },
      ]);
    });

    it('says "answered" to nobody while the item still waits', () => {
      const waiting = input({
        items: [],
        deliveredAsks: deliveredToAnn,
        stillWaiting: new Set(['b1']),
      });
      expect(planNotices(waiting).answered).toEqual([]);
      // Once it stops, the retracting channel hears of it (the send's recheck decides the rest).
      const stopped = planNotices({ ...waiting, stillWaiting: new Set() });
      expect(stopped.answered.map((answered) => answered.channelId)).toEqual(['hook']);
    });

    it('says "answered" to nobody while an answer is on its way, and gives up what is owed', () => {
      const delivering = input({
        items: [],
        deliveredAsks: deliveredToAnn,
        owed: [{ id: 'row-1', occurrence: 'b1' }],
        delivering: new Set(['b1']),
      });
      const plan = planNotices(delivering);
      expect(plan.answered).toEqual([]);
      // The person just answered: nobody is told an agent asks, until the answer comes back.
      expect(plan.drop).toEqual([{ id: 'row-1', reason: 'stopped_waiting' }]);
      const delivered = planNotices({ ...delivering, delivering: new Set() });
      expect(delivered.answered.map((answered) => answered.channelId)).toEqual(['hook']);
    });

    it('owes an `asked` given up as no longer waiting again once the item waits again', () => {
      // An answer its agent was not ready for went back to pending, under the same pending ID.
      const plan = planNotices(
        input({ existing: [asked('hook', T0, 'stopped_waiting'), asked('ntfy')] }),
      );
      expect(summary(plan)).toEqual(['asked:hook:b1:rearms hook-asked']);
    });

    it('owes an `asked` given up out of sight again once its person may see the item', () => {
      const plan = planNotices(
        input({
          existing: [asked('hook', T0, 'not_visible'), asked('ntfy')],
          settings: new Map([
            ['ann', { reminderDelayS: 600, includeQuestion: true, answerLinks: true }],
          ]),
          nowMs: T0 + 60_000,
        }),
      );
      expect(summary(plan)).toEqual(['asked:hook:b1:rearms hook-asked']);
      // Built as it is now: the person's current setting.
      expect(plan.prompts[0]?.content.includeQuestion).toBe(true);
    });

    it('re-arms nothing while the person still may not see the item', () => {
      const plan = planNotices(
        input({
          items: [{ ...ITEM, userIds: ['bob'] }],
          existing: [asked('hook', T0, 'not_visible'), asked('ntfy', T0, 'not_visible')],
        }),
      );
      expect(summary(plan)).toEqual(['asked:bob-slack:b1']);
    });

    it.each<[string, GaveUpFor | null]>([
      ['given up for failure', 'failed'],
      ['delivered or still owed', null],
    ])('never re-arms a row %s', (_label, gaveUpFor) => {
      const plan = planNotices(
        input({ existing: [asked('hook', T0, gaveUpFor), asked('ntfy', T0, gaveUpFor)] }),
      );
      expect(plan.prompts).toEqual([]);
    });

    it('re-arms a reminder given up out of sight when it is due, and not before', () => {
      const existing = [asked('hook'), reminded('hook', 'not_visible'), asked('ntfy')];
      expect(summary(planNotices(input({ existing, nowMs: T0 + 599_999 })))).toEqual([]);
      expect(summary(planNotices(input({ existing, nowMs: T0 + 600_000 })))).toEqual([
        'reminder:hook:b1:rearms hook-reminder',
        'reminder:ntfy:b1',
      ]);
    });

    it('re-arms a reminder given up as reminders off only once reminders are on again', () => {
      const existing = [asked('hook'), reminded('hook', 'reminders_off'), asked('ntfy')];
      const never = new Map([
        ['ann', { reminderDelayS: 0, includeQuestion: false, answerLinks: true }],
      ]);
      const late = T0 + 86_400_000;
      expect(planNotices(input({ existing, settings: never, nowMs: late })).prompts).toEqual([]);
      expect(summary(planNotices(input({ existing, nowMs: late })))).toEqual([
        'reminder:hook:b1:rearms hook-reminder',
        'reminder:ntfy:b1',
      ]);
    });

    it('re-arms a reminder held back for a later delay once that delay has passed', () => {
      const existing = [asked('hook'), reminded('hook', 'reminder_later'), asked('ntfy')];
      const hour = new Map([
        ['ann', { reminderDelayS: 3600, includeQuestion: false, answerLinks: true }],
      ]);
      expect(
        planNotices(input({ existing, settings: hour, nowMs: T0 + 3_599_999 })).prompts,
      ).toEqual([]);
      expect(
        summary(planNotices(input({ existing, settings: hour, nowMs: T0 + 3_600_000 }))),
      ).toEqual(['reminder:hook:b1:rearms hook-reminder', 'reminder:ntfy:b1']);
    });

    it('re-arms the `asked` before any reminder of a channel that was never told', () => {
      const existing = [asked('hook', T0, 'not_visible'), reminded('hook', 'not_visible')];
      const plan = planNotices(input({ existing, nowMs: T0 + 86_400_000 }));
      expect(summary(plan)).toEqual(['asked:hook:b1:rearms hook-asked', 'asked:ntfy:b1']);
    });
  });
});

describe('reminderHeldBack', () => {
  it.each<[string, number, number, ReturnType<typeof reminderHeldBack>]>([
    ['reminders off', 0, T0 + 86_400_000, 'reminders_off'],
    ['a delay not yet passed', 3600, T0 + 3_599_999, 'reminder_later'],
    ['a delay just passed', 3600, T0 + 3_600_000, undefined],
    ['a shorter delay long passed', 60, T0 + 600_000, undefined],
  ])('%s', (_label, reminderDelayS, nowMs, expected) => {
    expect(reminderHeldBack({ reminderDelayS }, T0, nowMs)).toBe(expected);
  });
});
