/**
 * Which notices are owed now (pure): from the items waiting on people, the
 * channels of the people who may see them, their settings, what the outbox
 * already holds, and the time. The reconciler feeds it and writes its plan;
 * the outbox's unique (channel, event, occurrence) key is what finally makes
 * a second notice impossible, so a plan made twice is harmless.
 *
 * Rules: one `asked` per item per channel of anyone who may see it; one
 * `reminder` when the item still waits `reminder_delay_s` after the channel
 * took its `asked` (0 sends none; none while the `asked` is still tried, one
 * all the same once it failed for good); one
 * `answered` to a channel that can retract (webhook, Web Push) once an item
 * it was told about stops waiting. A session going idle
 * is no item: only bundles and requests are.
 *
 * An item leaves `items` when it stops waiting, when its answer is claimed
 * and on its way to its agent (`delivering`), or when nobody with a channel
 * may see it any more (`stillWaiting`). A prompt still owed for it is given
 * up `not_visible` in the last case and `stopped_waiting` in the others: a
 * person who just answered is not told an agent asks. Only an item that
 * stopped waiting is announced `answered`: an answer on its way may yet go
 * back to pending (its agent was not ready for it), and the item with it.
 * (A prompt for an item others still see is left to the send's recheck,
 * which gives it up for the same reasons.) A row given up for either reason
 * is owed again, re-armed rather than inserted since its key (the item's ID)
 * is taken, once the item waits on its person again; a row given up because
 * its channel failed, or delivered, stays as it is.
 */
import type { ChannelKind, NoticeKind } from '../wire/index.js';

/** Something waiting on a person: one question bundle or one consent/action request. */
export interface WaitingItem {
  readonly kind: NoticeKind;
  /** A bundle's pending ID or a request's ID: the notice's occurrence. */
  readonly itemId: string;
  readonly sessionId: string;
  readonly taskId: string;
  readonly taskTitle: string;
  /** The question or request text; sent only to people who turned `include_question` on. */
  readonly question: string;
  readonly createdAt: string;
  /** When it stops waiting by itself, if ever. */
  readonly expiresAt: string | null;
  /** A bundle of one single-choice question, or a request: decidable from a notice. */
  readonly decidable: boolean;
  /** Everyone who may see it (the members of its task's workspace). */
  readonly userIds: readonly string[];
}

export interface PlannerChannel {
  readonly id: string;
  readonly userId: string;
  readonly kind: ChannelKind;
}

export interface PlannerSettings {
  readonly reminderDelayS: number;
  readonly includeQuestion: boolean;
  readonly answerLinks: boolean;
}

/** What a person chose that decides what their notices may carry. */
export type NoticeContent = Pick<PlannerSettings, 'includeQuestion' | 'answerLinks'>;

/**
 * Why a prompt still owed is given up: by the planner (`stopped_waiting`,
 * `not_visible`) or by the send's recheck, which also gives up a reminder
 * whose person turned reminders off meanwhile (`reminders_off`) or set a
 * delay that has not passed yet (`reminder_later`).
 */
export type GiveUpReason = 'stopped_waiting' | 'not_visible' | 'reminders_off' | 'reminder_later';

/** Why an outbox row was given up: by one of the planner's reasons, or because sending failed. */
export type GaveUpFor = GiveUpReason | 'failed';

export interface ExistingNotice {
  readonly id: string;
  readonly channelId: string;
  readonly event: string;
  readonly occurrence: string;
  readonly createdAtMs: number;
  /** When its channel took it; `null` while owed or given up. */
  readonly deliveredAtMs: number | null;
  /** `null` while owed or once delivered. */
  readonly gaveUpFor: GaveUpFor | null;
}

export interface OwedNotice {
  readonly id: string;
  readonly occurrence: string;
}

export interface DeliveredAskFact {
  readonly channelId: string;
  readonly userId: string;
  readonly occurrence: string;
  /** The `asked` notice's stored payload (JSON text): `answered` repeats it. */
  readonly payload: string;
}

export interface PlanInput {
  readonly items: readonly WaitingItem[];
  readonly channels: readonly PlannerChannel[];
  /** Absent users have the defaults. */
  readonly settings: ReadonlyMap<string, PlannerSettings>;
  readonly defaults: PlannerSettings;
  /** Every outbox key of the items in `items`. */
  readonly existing: readonly ExistingNotice[];
  /** `asked` notices delivered and not yet followed by `answered`. */
  readonly deliveredAsks: readonly DeliveredAskFact[];
  /** `asked`/`reminder` rows still owed (not delivered, not given up). */
  readonly owed: readonly OwedNotice[];
  /**
   * Of the occurrences in `owed` and `deliveredAsks` missing from `items`,
   * those whose item still waits (whoever may see it).
   */
  readonly stillWaiting: ReadonlySet<string>;
  /** Of the same, the bundles whose answer is claimed and on its way to its agent. */
  readonly delivering: ReadonlySet<string>;
  readonly nowMs: number;
}

export interface PlannedPrompt {
  readonly channelId: string;
  readonly userId: string;
  readonly event: 'asked' | 'reminder';
  readonly item: WaitingItem;
  readonly content: NoticeContent;
  /** The given-up row this prompt owes again; `null` for a new row. */
  readonly rearms: string | null;
}

export interface PlannedAnswered {
  readonly channelId: string;
  readonly userId: string;
  readonly occurrence: string;
  readonly askedPayload: string;
}

export interface NoticePlan {
  readonly prompts: readonly PlannedPrompt[];
  readonly answered: readonly PlannedAnswered[];
  /** Owed rows to give up, and why. */
  readonly drop: readonly PlannedDrop[];
}

export interface PlannedDrop {
  readonly id: string;
  readonly reason: GiveUpReason;
}

/** Kinds that can take a notice back or mark it done; others would only add noise. */
export const RETRACTING_KINDS: readonly ChannelKind[] = ['webhook', 'web_push'];

const key = (channelId: string, event: string, occurrence: string) =>
  `${channelId}\u0000${event}\u0000${occurrence}`;

/**
 * Whether a notice of `kind` may carry answer links: never to a person who
 * turned them off. A question's links are labelled with its options, which
 * are its text, so they go only to a person who included the question; a
 * consent's (the agent's option names) and an action's (Done, Skip) go
 * either way.
 */
export function mayCarryAnswerLinks(kind: NoticeKind, content: NoticeContent): boolean {
  return content.answerLinks && (kind !== 'question' || content.includeQuestion);
}

export function timestampMs(timestamp: string): number {
  // Row versions carry nine fractional digits; Date.parse reads the first three.
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Whether a person wants reminders at all: a delay of 0 ("Never") sends none. */
export function remindersOn(settings: Pick<PlannerSettings, 'reminderDelayS'>): boolean {
  return settings.reminderDelayS > 0;
}

/**
 * Why a reminder of an item asked at `askedAtMs` may not go out at
 * `nowMs` under the person's settings now, or `undefined` when it may:
 * they turned reminders off, or chose a delay that has not passed.
 */
export function reminderHeldBack(
  settings: Pick<PlannerSettings, 'reminderDelayS'>,
  askedAtMs: number,
  nowMs: number,
): 'reminders_off' | 'reminder_later' | undefined {
  if (!remindersOn(settings)) return 'reminders_off';
  return nowMs < askedAtMs + settings.reminderDelayS * 1000 ? 'reminder_later' : undefined;
}

/**
 * A row given up because its person could not see its item, because the
 * item stopped waiting, or (a reminder) because its person turned reminders
 * off or set a longer delay, is owed again once the reason no longer holds:
 * the item is in `items`, and a reminder is planned only while reminders
 * are on and its delay has passed.
 */
const REARMABLE: ReadonlySet<GaveUpFor> = new Set<GaveUpFor>([
  'not_visible',
  'stopped_waiting',
  'reminders_off',
  'reminder_later',
]);
const rearmable = (notice: ExistingNotice | undefined): boolean =>
  notice?.gaveUpFor != null && REARMABLE.has(notice.gaveUpFor);

export function planNotices(input: PlanInput): NoticePlan {
  const existing = new Map<string, ExistingNotice>();
  for (const notice of input.existing) {
    existing.set(key(notice.channelId, notice.event, notice.occurrence), notice);
  }
  const channelsByUser = new Map<string, PlannerChannel[]>();
  for (const channel of input.channels) {
    const list = channelsByUser.get(channel.userId) ?? [];
    list.push(channel);
    channelsByUser.set(channel.userId, list);
  }

  const prompts: PlannedPrompt[] = [];
  const live = new Set<string>();
  for (const item of input.items) {
    live.add(item.itemId);
    for (const userId of new Set(item.userIds)) {
      const settings = input.settings.get(userId) ?? input.defaults;
      for (const channel of channelsByUser.get(userId) ?? []) {
        const planned = {
          channelId: channel.id,
          userId,
          item,
          content: { includeQuestion: settings.includeQuestion, answerLinks: settings.answerLinks },
        };
        const asked = existing.get(key(channel.id, 'asked', item.itemId));
        if (!asked || rearmable(asked)) {
          prompts.push({ ...planned, event: 'asked', rearms: asked?.id ?? null });
          continue;
        }
        // Not while the channel's `asked` is still tried: the reminder would arrive first, and
        // be the one notice no `answered` takes back should the item stop waiting meanwhile.
        // One whose `asked` failed for good is reminded all the same: it may reach them now.
        const settledAtMs =
          asked.deliveredAtMs ?? (asked.gaveUpFor === 'failed' ? asked.createdAtMs : null);
        if (!remindersOn(settings) || settledAtMs === null) continue;
        const reminder = existing.get(key(channel.id, 'reminder', item.itemId));
        if (reminder && !rearmable(reminder)) continue;
        // From when this channel was told, so a channel told late is not reminded at once.
        const since = Math.max(timestampMs(item.createdAt), settledAtMs);
        if (input.nowMs >= since + settings.reminderDelayS * 1000) {
          prompts.push({ ...planned, event: 'reminder', rearms: reminder?.id ?? null });
        }
      }
    }
  }

  const kinds = new Map(input.channels.map((channel) => [channel.id, channel.kind]));
  const answered: PlannedAnswered[] = [];
  for (const ask of input.deliveredAsks) {
    // Still waiting, though perhaps no longer for this person, or not yet answered for good.
    if (
      live.has(ask.occurrence) ||
      input.stillWaiting.has(ask.occurrence) ||
      input.delivering.has(ask.occurrence)
    ) {
      continue;
    }
    const kind = kinds.get(ask.channelId);
    if (kind === undefined || !RETRACTING_KINDS.includes(kind)) continue;
    answered.push({
      channelId: ask.channelId,
      userId: ask.userId,
      occurrence: ask.occurrence,
      askedPayload: ask.payload,
    });
  }

  const drop = input.owed
    .filter((row) => !live.has(row.occurrence))
    .map((row): PlannedDrop => {
      // Out of `items` yet waiting: nobody with a channel may see it, this row's person included.
      const reason = input.stillWaiting.has(row.occurrence) ? 'not_visible' : 'stopped_waiting';
      return { id: row.id, reason };
    });
  return { prompts, answered, drop };
}
