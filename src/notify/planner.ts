/**
 * Which notices are owed now (pure): from the items waiting on people, the
 * channels of the people who may see them, their settings, what the outbox
 * already holds, and the time. The reconciler feeds it and writes its plan;
 * the outbox's unique (channel, event, occurrence) key is what finally makes
 * a second notice impossible, so a plan made twice is harmless.
 *
 * Rules: one `asked` per item per channel of anyone who may see it; one
 * `reminder` when the item still waits `reminder_delay_s` after it was asked
 * (0 sends none); one `answered` to a channel that can retract (webhook, Web
 * Push) once an item it was told about stops waiting; a prompt still owed
 * for an item that stopped waiting is dropped. A session going idle is no
 * item: only bundles and requests are.
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
}

export interface ExistingNotice {
  readonly channelId: string;
  readonly event: string;
  readonly occurrence: string;
  readonly createdAtMs: number;
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
  readonly owed: readonly { readonly id: string; readonly occurrence: string }[];
  readonly nowMs: number;
}

export interface PlannedPrompt {
  readonly channelId: string;
  readonly userId: string;
  readonly event: 'asked' | 'reminder';
  readonly item: WaitingItem;
  readonly includeQuestion: boolean;
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
  /** Outbox row IDs to stop: their item no longer waits. */
  readonly drop: readonly string[];
}

/** Kinds that can take a notice back or mark it done; others would only add noise. */
export const RETRACTING_KINDS: readonly ChannelKind[] = ['webhook', 'web_push'];

const key = (channelId: string, event: string, occurrence: string) =>
  `${channelId}\u0000${event}\u0000${occurrence}`;

/**
 * Whether a notice of `kind` may carry answer links. A question's links are
 * labelled with its options, which are its text, so they go only to a person
 * who included the question; a consent's (the agent's option names) and an
 * action's (Done, Skip) go either way.
 */
export function mayCarryAnswerLinks(kind: NoticeKind, includeQuestion: boolean): boolean {
  return kind !== 'question' || includeQuestion;
}

export function timestampMs(timestamp: string): number {
  // Row versions carry nine fractional digits; Date.parse reads the first three.
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

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
        const planned = { channelId: channel.id, userId, item };
        const asked = existing.get(key(channel.id, 'asked', item.itemId));
        if (!asked) {
          prompts.push({ ...planned, event: 'asked', includeQuestion: settings.includeQuestion });
          continue;
        }
        if (settings.reminderDelayS <= 0) continue;
        if (existing.has(key(channel.id, 'reminder', item.itemId))) continue;
        // From when this channel was told, so a channel added late is not reminded at once.
        const since = Math.max(timestampMs(item.createdAt), asked.createdAtMs);
        if (input.nowMs >= since + settings.reminderDelayS * 1000) {
          prompts.push({
            ...planned,
            event: 'reminder',
            includeQuestion: settings.includeQuestion,
          });
        }
      }
    }
  }

  const kinds = new Map(input.channels.map((channel) => [channel.id, channel.kind]));
  const answered: PlannedAnswered[] = [];
  for (const ask of input.deliveredAsks) {
    if (live.has(ask.occurrence)) continue;
    const kind = kinds.get(ask.channelId);
    if (kind === undefined || !RETRACTING_KINDS.includes(kind)) continue;
    answered.push({
      channelId: ask.channelId,
      userId: ask.userId,
      occurrence: ask.occurrence,
      askedPayload: ask.payload,
    });
  }

  const drop = input.owed.filter((row) => !live.has(row.occurrence)).map((row) => row.id);
  return { prompts, answered, drop };
}
