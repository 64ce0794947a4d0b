/**
 * Notifications in the store: a person's channels and settings, and the
 * outbox of notices owed to channels. The outbox row is the truth about a
 * notice: the unique (channel, event, occurrence) key makes a second notice
 * for one item impossible, and `next_attempt_at` doubles as the claim's lease,
 * so a row claimed by a server that died falls due again by itself.
 *
 * Times the worker compares (`next_attempt_at`, `first_attempt_at`) are wall
 * times formatted like row versions, so plain string order is time order.
 */
import { ONE_ROW } from './compiled.js';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { formatTimestamp } from '../support/index.js';
import type { DeliveryErrorCode } from '../wire/index.js';
import { chunks } from './chunks.js';
import { CLARIFICATION_TYPE } from './clarification.js';
import { inCurrentTurn, sessionLive } from './clarification-guards.js';
import type { RepoContext } from './context.js';
import type {
  Database,
  OutboxGiveUpReason,
  NotificationChannelsTable,
  NotificationOutboxTable,
  NotificationSettingsTable,
} from './tables.js';

export type ChannelRecord = NotificationChannelsTable;
export type OutboxRecord = NotificationOutboxTable;

export interface NoticeSettingsRecord {
  readonly reminderDelayS: number;
  readonly includeQuestion: boolean;
  readonly answerLinks: boolean;
}

export const DEFAULT_NOTICE_SETTINGS: NoticeSettingsRecord = {
  reminderDelayS: 600,
  includeQuestion: false,
  answerLinks: true,
};

/** A wall time in milliseconds as a row timestamp, comparable with any other. */
export function timestampAtMs(ms: number): string {
  return formatTimestamp(BigInt(Math.floor(ms)) * 1_000_000n);
}

// ---------------------------------------------------------------- channels

/**
 * Adds a channel, or nothing when the person already has one of this kind
 * with this target: the unique index decides, so of two concurrent creates
 * one commits and the other reads `undefined`.
 */
export async function insertChannel(
  ctx: RepoContext,
  input: {
    userId: string;
    kind: string;
    name: string;
    config: Record<string, unknown>;
    target: string;
    /** The browser session a Web Push channel goes with (`holdBrowserSession`), if any. */
    browserSessionId?: string | null;
  },
): Promise<ChannelRecord | undefined> {
  const now = ctx.clock.timestamp();
  const row: ChannelRecord = {
    id: ctx.ids.next(),
    user_id: input.userId,
    kind: input.kind,
    name: input.name,
    config: JSON.stringify(input.config),
    target: input.target,
    browser_session_id: input.browserSessionId ?? null,
    created_at: now,
    updated_at: now,
  };
  const inserted = await ctx.db
    .insertInto('notification_channels')
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'kind', 'target']).where('target', 'is not', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return inserted ? row : undefined;
}

export function listUserChannels(ctx: RepoContext, userId: string): Promise<ChannelRecord[]> {
  return ctx.db
    .selectFrom('notification_channels')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countUserChannels(ctx: RepoContext, userId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('notification_channels')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Every channel of every person: bounded by users × `MAX_CHANNELS_PER_USER`. */
export function listAllChannels(ctx: RepoContext): Promise<ChannelRecord[]> {
  return ctx.db.selectFrom('notification_channels').selectAll().orderBy('id').execute();
}

/** A person's own channel; someone else's is as absent as a missing one. */
export function getUserChannel(
  ctx: RepoContext,
  userId: string,
  id: string,
): Promise<ChannelRecord | undefined> {
  return ctx.db
    .selectFrom('notification_channels')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Moves a person's Web Push channel made from the subscription at
 * `oldTarget` to the one at `newTarget` (both as `insertChannel` keeps
 * them), keeping its ID and its owed notices; one already moved (a renewal
 * sent twice) is returned as it is. `undefined` when the person has no
 * such channel (or it was deleted while this waited for its row), or
 * another of theirs holds the new subscription already. Given
 * `browserSessionId`, the channel goes with that session from now on.
 */
export async function renewWebPushChannel(
  ctx: RepoContext,
  userId: string,
  renewal: {
    oldTarget: string;
    newTarget: string;
    config: Record<string, unknown>;
    browserSessionId?: string | undefined;
  },
): Promise<ChannelRecord | undefined> {
  const byTarget = (target: string) =>
    ctx.db
      .selectFrom('notification_channels')
      .selectAll()
      .where('user_id', '=', userId)
      .where('kind', '=', 'web_push')
      .where('target', '=', target)
      .executeTakeFirst();
  const moved = await byTarget(renewal.newTarget);
  if (moved) return moved;
  const channel = await byTarget(renewal.oldTarget);
  if (!channel) return undefined;
  const updated = {
    config: JSON.stringify(renewal.config),
    target: renewal.newTarget,
    ...(renewal.browserSessionId === undefined
      ? {}
      : { browser_session_id: renewal.browserSessionId }),
    updated_at: ctx.clock.timestamp(),
  };
  // The update, not the read, says whether it moved: a deletion that held the row (the outbox
  // hearing the old subscription is gone, on any replica) commits first and leaves nothing here.
  return ctx.db
    .updateTable('notification_channels')
    .set(updated)
    .where('id', '=', channel.id)
    .where('target', '=', renewal.oldTarget)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A sign-in that replaces a browser's session for the same person keeps the
 * device's Web Push channels: they go with the new session from now on.
 */
export async function handOverBrowserChannels(
  ctx: RepoContext,
  fromTokenHash: string,
  toSessionId: string,
): Promise<number> {
  const result = await ctx.db
    .updateTable('notification_channels')
    .set({ browser_session_id: toSessionId, updated_at: ctx.clock.timestamp() })
    .where('browser_session_id', '=', (eb) =>
      eb
        .selectFrom('api_tokens')
        .select('id')
        .where('token_hash', '=', fromTokenHash)
        .where('kind', '=', 'browser'),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes a person's channel and (by cascade) its outbox rows; false when it was not theirs. */
export async function deleteUserChannel(
  ctx: RepoContext,
  userId: string,
  id: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('notification_channels')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---------------------------------------------------------------- settings

type SettingsRow = Pick<
  NotificationSettingsTable,
  'reminder_delay_s' | 'include_question' | 'answer_links'
>;

function toSettings(row: SettingsRow): NoticeSettingsRecord {
  return {
    reminderDelayS: row.reminder_delay_s,
    includeQuestion: row.include_question === 1,
    answerLinks: row.answer_links === 1,
  };
}

export async function getNoticeSettings(
  ctx: RepoContext,
  userId: string,
): Promise<NoticeSettingsRecord> {
  const row = await ctx.db
    .selectFrom('notification_settings')
    .select(['reminder_delay_s', 'include_question', 'answer_links'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? toSettings(row) : DEFAULT_NOTICE_SETTINGS;
}

export async function putNoticeSettings(
  ctx: RepoContext,
  userId: string,
  change: Partial<NoticeSettingsRecord>,
): Promise<NoticeSettingsRecord> {
  const next = { ...(await getNoticeSettings(ctx, userId)), ...change };
  const now = ctx.clock.timestamp();
  const values = {
    reminder_delay_s: next.reminderDelayS,
    include_question: next.includeQuestion ? 1 : 0,
    answer_links: next.answerLinks ? 1 : 0,
    updated_at: now,
  };
  await ctx.db
    .insertInto('notification_settings')
    .values({ user_id: userId, ...values, created_at: now })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
    .execute();
  return next;
}

export async function settingsOfUsers(
  ctx: RepoContext,
  userIds: readonly string[],
): Promise<Map<string, NoticeSettingsRecord>> {
  const out = new Map<string, NoticeSettingsRecord>();
  for (const part of chunks(userIds)) {
    const rows = await ctx.db
      .selectFrom('notification_settings')
      .select(['user_id', 'reminder_delay_s', 'include_question', 'answer_links'])
      .where('user_id', 'in', part)
      .execute();
    for (const row of rows) out.set(row.user_id, toSettings(row));
  }
  return out;
}

// ---------------------------------------------------------------- who an item is for

export interface SessionAudience {
  readonly taskId: string;
  readonly taskTitle: string;
  /** Members of the task's workspace: everyone who may see the session. */
  readonly userIds: readonly string[];
}

/** For each session: its task and the people who may see it (workspace membership). */
export async function sessionAudiences(
  ctx: RepoContext,
  sessionIds: readonly string[],
): Promise<Map<string, SessionAudience>> {
  const out = new Map<string, { taskId: string; taskTitle: string; userIds: string[] }>();
  for (const part of chunks([...new Set(sessionIds)])) {
    const rows = await ctx.db
      .selectFrom('task_sessions as s')
      .innerJoin('tasks as t', 't.id', 's.task_id')
      .leftJoin('workspace_members as m', 'm.workspace_id', 't.workspace_id')
      .select(['s.id as session_id', 't.id as task_id', 't.title', 'm.user_id'])
      .where('s.id', 'in', part)
      .execute();
    for (const row of rows) {
      let audience = out.get(row.session_id);
      if (!audience) {
        audience = { taskId: row.task_id, taskTitle: row.title, userIds: [] };
        out.set(row.session_id, audience);
      }
      if (row.user_id !== null) audience.userIds.push(row.user_id);
    }
  }
  return out;
}

/**
 * Which of these pending IDs name a bundle that still waits, whoever may see
 * it: the inbox's guards (a pending row in its session's current turn, in a
 * session that has not ended) without its visibility.
 */
export function activePendingIds(
  ctx: RepoContext,
  pendingIds: readonly string[],
): Promise<Set<string>> {
  return pendingIdsOfLiveTurns(ctx, pendingIds, () => ctx.dialect.pendingClarificationRow());
}

/**
 * Which of these pending IDs name a bundle whose answer is claimed and on its
 * way to its agent: the claim's delivery intent still set, in its session's
 * current turn, the session not ended. Such an answer may yet go back to
 * pending (its agent was not ready: `restoreClaim` holds the same guards),
 * so the item is neither waiting on a person nor answered for anyone yet.
 */
export function deliveringPendingIds(
  ctx: RepoContext,
  pendingIds: readonly string[],
): Promise<Set<string>> {
  return pendingIdsOfLiveTurns(ctx, pendingIds, (eb) =>
    eb.and([
      eb('type', '=', CLARIFICATION_TYPE),
      ctx.dialect.metadataFlag('response_delivery_pending'),
    ]),
  );
}

/**
 * Which of these pending IDs have a clarification row that `rows` admits,
 * in its session's current turn, the session not ended.
 */
async function pendingIdsOfLiveTurns(
  ctx: RepoContext,
  pendingIds: readonly string[],
  rows: (eb: ExpressionBuilder<Database, 'task_session_messages'>) => Expression<SqlBool>,
): Promise<Set<string>> {
  const pendingId = ctx.dialect.pendingId();
  const out = new Set<string>();
  for (const part of chunks([...new Set(pendingIds)])) {
    const found = await ctx.db
      .selectFrom('task_session_messages')
      .select(pendingId.as('pending_id'))
      .distinct()
      .where(pendingId, 'in', part)
      .where(rows)
      .where(inCurrentTurn(ctx))
      .where(sessionLive())
      .execute();
    for (const row of found) if (row.pending_id !== null) out.add(row.pending_id);
  }
  return out;
}

// ---------------------------------------------------------------- the outbox

export interface NewOutboxRow {
  readonly channelId: string;
  readonly userId: string;
  readonly event: string;
  readonly occurrence: string;
  readonly payload: Record<string, unknown>;
}

/**
 * Inserts the rows whose (channel, event, occurrence) key is new; a key that
 * exists already is left as it is. Returns how many were inserted.
 */
export async function insertOutboxRows(
  ctx: RepoContext,
  rows: readonly NewOutboxRow[],
): Promise<number> {
  let inserted = 0;
  for (const part of chunks(rows)) {
    const now = ctx.clock.timestamp();
    const due = timestampAtMs(ctx.clock.nowMs());
    const result = await ctx.db
      .insertInto('notification_outbox')
      .values(
        part.map((row) => ({
          id: ctx.ids.next(),
          channel_id: row.channelId,
          user_id: row.userId,
          event: row.event,
          occurrence: row.occurrence,
          payload: JSON.stringify(row.payload),
          attempts: 0,
          next_attempt_at: due,
          claimed_until: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((conflict) => conflict.columns(['channel_id', 'event', 'occurrence']).doNothing())
      .returning('id')
      .execute();
    inserted += result.length;
  }
  return inserted;
}

export interface OutboxKey {
  readonly id: string;
  readonly channelId: string;
  readonly event: string;
  readonly occurrence: string;
  readonly createdAt: string;
  /** When its channel took it; `null` while owed or given up. */
  readonly deliveredAt: string | null;
  /** Why it was given up; `null` while owed or once delivered. */
  readonly gaveUpFor: OutboxGiveUpReason | null;
}

/** The notices already owed or sent for these items, whatever their state. */
export async function outboxKeysOf(
  ctx: RepoContext,
  occurrences: readonly string[],
): Promise<OutboxKey[]> {
  const out: OutboxKey[] = [];
  for (const part of chunks([...new Set(occurrences)])) {
    const rows = await ctx.db
      .selectFrom('notification_outbox')
      .select(['id', 'channel_id', 'event', 'occurrence', 'created_at', 'delivered_at'])
      .select('gave_up_at')
      .select('gave_up_reason')
      .where('occurrence', 'in', part)
      .execute();
    for (const row of rows) {
      out.push({
        id: row.id,
        channelId: row.channel_id,
        event: row.event,
        occurrence: row.occurrence,
        createdAt: row.created_at,
        deliveredAt: row.delivered_at,
        // A row given up before its reason was kept counts as failed: it is never owed again.
        gaveUpFor: row.gave_up_at === null ? null : (row.gave_up_reason ?? 'failed'),
      });
    }
  }
  return out;
}

/**
 * Delivered asks not yet followed up by an `answered` notice: what every
 * reconcile pass reads, so it reads those and never the outbox's history.
 * Its predicate's `'asked'` is a literal, as in the query: SQLite uses a
 * partial index only for a query that carries the same literal. Keyed as the
 * unique key is, so a planner that starts from the channels (SQLite without
 * statistics does) finds it as good a way in as that key's every ask.
 */
export const UNANSWERED_ASKS_INDEX = 'idx_notification_outbox_unanswered';
export const UNANSWERED_ASKS_INDEX_DDL =
  `CREATE INDEX IF NOT EXISTS ${UNANSWERED_ASKS_INDEX} ON notification_outbox ` +
  "(channel_id, event, occurrence) WHERE event = 'asked' AND delivered_at IS NOT NULL " +
  'AND answered_at IS NULL';

export interface DeliveredAsk {
  readonly channelId: string;
  readonly userId: string;
  readonly occurrence: string;
  readonly payload: string;
}

/**
 * `asked` notices that reached a channel of one of `kinds` and have had no
 * `answered` yet: the candidates for "answered elsewhere". Bounded by the
 * items still waiting plus those that just stopped.
 */
export function deliveredAsksWithoutAnswer(
  ctx: RepoContext,
  kinds: readonly string[],
): Promise<DeliveredAsk[]> {
  if (kinds.length === 0) return Promise.resolve([]);
  return deliveredAsksWithoutAnswerQuery(ctx, kinds).execute();
}

/** `deliveredAsksWithoutAnswer` as a query, for its plan. */
export function deliveredAsksWithoutAnswerQuery(ctx: RepoContext, kinds: readonly string[]) {
  return (
    ctx.db
      .selectFrom('notification_outbox as o')
      .innerJoin('notification_channels as c', 'c.id', 'o.channel_id')
      .select(['o.channel_id as channelId', 'o.user_id as userId', 'o.occurrence', 'o.payload'])
      .where('o.event', '=', sql.lit('asked'))
      .where('o.delivered_at', 'is not', null)
      .where('o.answered_at', 'is', null)
      .where('c.kind', 'in', kinds)
      // An ask followed up before `answered_at` was kept has only its `answered` row to say so.
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('notification_outbox as a')
              .select('a.id')
              .whereRef('a.channel_id', '=', 'o.channel_id')
              .whereRef('a.occurrence', '=', 'o.occurrence')
              .where('a.event', '=', 'answered'),
          ),
        ),
      )
  );
}

export interface AskKey {
  readonly channelId: string;
  readonly occurrence: string;
}

/**
 * Whether the row is one of these asks: its (channel, item occurrence) pair
 * among theirs. The occurrences alone say it too, so SQLite's planner takes
 * the occurrence index rather than reading a channel's whole history.
 */
function oneOfAsks(
  eb: ExpressionBuilder<Database, 'notification_outbox'>,
  asks: readonly AskKey[],
): Expression<SqlBool> {
  return eb.and([
    eb('occurrence', 'in', [...new Set(asks.map((ask) => ask.occurrence))]),
    eb(
      eb.refTuple('channel_id', 'occurrence'),
      'in',
      asks.map((ask) => eb.tuple(ask.channelId, ask.occurrence)),
    ),
  ]);
}

/**
 * Marks these items followed up on these channels, once their `answered`
 * rows are written: every row of the item to the channel, the `answered`
 * one included, so the few asks still to follow up are what `answered_at`
 * is NULL on, which PostgreSQL's statistics see too. A crash in between
 * leaves an ask that `deliveredAsksWithoutAnswer` still reads and drops for
 * its `answered` row, never one followed up twice or not at all. One
 * statement per slice of asks, however many items a bulk decision settled.
 */
export async function markAsksAnswered(ctx: RepoContext, asks: readonly AskKey[]): Promise<void> {
  for (const part of chunks(asks)) {
    await ctx.db
      .updateTable('notification_outbox')
      .set({ answered_at: ctx.clock.timestamp() })
      .where((eb) => oneOfAsks(eb, part))
      .where('answered_at', 'is', null)
      .execute();
  }
}

/**
 * Of these asks, those whose channel a prompt (`asked`, `reminder`) of the
 * same item is being sent to at `nowMs`, by any server: claimed, its lease
 * not over, its result not yet recorded (giving a row up leaves its claim to
 * the send in flight). One statement per slice of asks, found through the
 * outbox's occurrence index, however many items a bulk decision settled.
 */
export async function promptsInFlight(
  ctx: RepoContext,
  asks: readonly AskKey[],
  nowMs: number,
): Promise<AskKey[]> {
  const now = timestampAtMs(nowMs);
  const sending = new Set<string>();
  for (const part of chunks(asks)) {
    const rows = await ctx.db
      .selectFrom('notification_outbox')
      .select(['channel_id', 'occurrence'])
      .distinct()
      .where((eb) => oneOfAsks(eb, part))
      .where('event', 'in', ['asked', 'reminder'])
      .where('claimed_until', '>', now)
      .execute();
    for (const row of rows) sending.add(askId(row.channel_id, row.occurrence));
  }
  return asks.filter((ask) => sending.has(askId(ask.channelId, ask.occurrence)));
}

function askId(channelId: string, occurrence: string): string {
  return `${channelId}\u0000${occurrence}`;
}

/** `asked` and `reminder` notices still owed: dropped once their item stops waiting. */
export function owedPrompts(ctx: RepoContext): Promise<{ id: string; occurrence: string }[]> {
  return ctx.db
    .selectFrom('notification_outbox')
    .select(['id', 'occurrence'])
    .where('event', 'in', ['asked', 'reminder'])
    .where('delivered_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .execute();
}

/**
 * Stops rows that are still owed, with why (`code` is what a person reads,
 * in their language; `error` the same in English);
 * a row already delivered keeps its delivery.
 */
export async function giveUpRows(
  ctx: RepoContext,
  ids: readonly string[],
  reason: OutboxGiveUpReason,
  error: string,
  code: DeliveryErrorCode,
): Promise<void> {
  const now = ctx.clock.timestamp();
  for (const part of chunks(ids)) {
    await ctx.db
      .updateTable('notification_outbox')
      .set({
        gave_up_at: now,
        gave_up_reason: reason,
        last_error: error,
        last_error_code: code,
        updated_at: now,
      })
      .where('id', 'in', part)
      .where('delivered_at', 'is', null)
      .where('gave_up_at', 'is', null)
      .execute();
  }
}

/** Why a given-up row may be owed again; one given up for failure never is. */
const REARMABLE_REASONS: readonly OutboxGiveUpReason[] = [
  'not_visible',
  'stopped_waiting',
  'reminders_off',
  'reminder_later',
];

export interface RearmedRow {
  readonly id: string;
  readonly payload: Record<string, unknown>;
}

/**
 * Owes again rows given up because their person could not see the item, or
 * because it stopped waiting (it waits again: an answer that could not be
 * delivered went back to pending), each with a new payload, as if never
 * tried. Each row is one statement, guarded so that a row since delivered,
 * re-armed, or given up for failure is left alone.
 * It falls due now, or when the lease of a send still in flight ends: that
 * send (on another server) settles first, and then only by a delivery.
 * `created_at` moves to now too: a reminder counts its delay from when the
 * channel is told, and the channel's view shows the row as pending since
 * then. Returns how many were re-armed.
 */
export async function rearmOutboxRows(
  ctx: RepoContext,
  rows: readonly RearmedRow[],
): Promise<number> {
  let rearmed = 0;
  for (const row of rows) {
    const now = ctx.clock.timestamp();
    const due = timestampAtMs(ctx.clock.nowMs());
    const result = await ctx.db
      .updateTable('notification_outbox')
      .set({
        payload: JSON.stringify(row.payload),
        attempts: 0,
        next_attempt_at: sql<string>`CASE WHEN claimed_until > ${due} THEN claimed_until ELSE ${due} END`,
        claimed_until: null,
        first_attempt_at: null,
        gave_up_at: null,
        gave_up_reason: null,
        last_error: null,
        last_error_code: null,
        last_status: null,
        created_at: now,
        updated_at: now,
      })
      .where('id', '=', row.id)
      .where('delivered_at', 'is', null)
      .where('gave_up_at', 'is not', null)
      .where('gave_up_reason', 'in', REARMABLE_REASONS)
      .executeTakeFirst();
    rearmed += Number(result.numUpdatedRows);
  }
  return rearmed;
}

/**
 * The browser session of channel `channelId` if it has expired by `at`:
 * such a channel (Web Push, turned on from a page) is sent nothing. Its row
 * stays until the spent-credential prune deletes it and, by cascade, the
 * channel with what it owed; meanwhile a device signed out by time must hear
 * nothing, as one whose row is gone does. The session is read by its key, so
 * the outbox's poll and claim stay a lookup per channel, and the comparison
 * is the one `findLiveToken` makes (`expires_at` is a wall time, as `at` is).
 */
function expiredSession(ctx: RepoContext, channelId: Expression<string> | string, at: string) {
  return ctx.db
    .selectFrom('notification_channels as sc')
    .innerJoin('api_tokens as st', 'st.id', 'sc.browser_session_id')
    .select('st.id')
    .where('sc.id', '=', channelId)
    .where('st.expires_at', '<=', at);
}

/**
 * Channels with at least one row due at `nowMs`, with what a sender needs;
 * none whose browser session has expired (`expiredSession`), and none of
 * `sending`: a channel whose lane runs takes its next row itself, and
 * listed, it would take a place of the `limit` from a channel waiting its turn.
 */
export function channelsWithDueRows(
  ctx: RepoContext,
  nowMs: number,
  limit: number,
  sending: readonly string[] = [],
): Promise<ChannelRecord[]> {
  const due = timestampAtMs(nowMs);
  return ctx.db
    .selectFrom('notification_channels as c')
    .selectAll('c')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('notification_outbox as o')
          .select('o.id')
          .whereRef('o.channel_id', '=', 'c.id')
          .where('o.delivered_at', 'is', null)
          .where('o.gave_up_at', 'is', null)
          .where('o.next_attempt_at', '<=', due),
      ),
    )
    .where((eb) => eb.not(eb.exists(expiredSession(ctx, sql.ref<string>('c.id'), due))))
    .$if(sending.length > 0, (query) => query.where('c.id', 'not in', sending))
    .limit(limit)
    .execute();
}

/**
 * Puts off the channel's rows due before `untilMs` to then, as its receiver
 * asked (`Retry-After`); a row another lane has claimed keeps its lease.
 */
export async function deferDueRows(
  ctx: RepoContext,
  channelId: string,
  untilMs: number,
  nowMs: number,
): Promise<void> {
  const until = timestampAtMs(untilMs);
  const now = timestampAtMs(nowMs);
  await ctx.db
    .updateTable('notification_outbox')
    .set({ next_attempt_at: until })
    .where('channel_id', '=', channelId)
    .where('delivered_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .where('next_attempt_at', '<', until)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .execute();
}

/**
 * Claims the channel's earliest due row in one statement: the attempt is
 * counted and `next_attempt_at` moves to the lease's end, so no other lane
 * takes it, and a crash before the result is recorded leaves it due again
 * after the lease. Nothing once the channel's browser session has expired
 * (`expiredSession`): a lane running when it does claims nothing more.
 */
export async function claimNextDue(
  ctx: RepoContext,
  channelId: string,
  nowMs: number,
  leaseMs: number,
): Promise<OutboxRecord | undefined> {
  const due = timestampAtMs(nowMs);
  const leaseEnd = timestampAtMs(nowMs + leaseMs);
  const next = ctx.db
    .selectFrom('notification_outbox')
    .select('id')
    .where('channel_id', '=', channelId)
    .where('delivered_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .where('next_attempt_at', '<=', due)
    .where((eb) => eb.not(eb.exists(expiredSession(ctx, channelId, due))))
    .orderBy('next_attempt_at')
    .orderBy('created_at')
    .limit(ONE_ROW);
  return ctx.db
    .updateTable('notification_outbox')
    .set({
      attempts: sql`attempts + 1`,
      next_attempt_at: leaseEnd,
      claimed_until: leaseEnd,
      first_attempt_at: sql`COALESCE(first_attempt_at, ${due})`,
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', '=', next)
    .where('next_attempt_at', '<=', due)
    .where('delivered_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export type AttemptRecord =
  | { readonly outcome: 'delivered'; readonly status: number | null }
  | {
      readonly outcome: 'retry';
      readonly status: number | null;
      readonly error: string;
      readonly code: DeliveryErrorCode;
      readonly nextAttemptMs: number;
    }
  | {
      readonly outcome: 'gave_up';
      /** Not `failed` when the send's recheck found the item out of its person's sight, or no longer waiting. */
      readonly reason: OutboxGiveUpReason;
      readonly status: number | null;
      readonly error: string;
      readonly code: DeliveryErrorCode;
    };

/**
 * Records the result of an attempt at the row as `claimed`. A delivery is
 * recorded even if the row was dropped or owed again meanwhile: it did reach
 * the channel. A retry or give-up only while the claim still holds the row:
 * once it is owed again, or claimed anew after the lease, it has attempts of
 * its own. Whatever it records, a send that still holds the claim ends it: a
 * claim left to its lease reads as a prompt on its way (`promptsInFlight`).
 */
export async function recordAttempt(
  ctx: RepoContext,
  claimed: Pick<OutboxRecord, 'id' | 'claimed_until'>,
  result: AttemptRecord,
): Promise<void> {
  const now = ctx.clock.timestamp();
  const base = ctx.db
    .updateTable('notification_outbox')
    .where('id', '=', claimed.id)
    .set({ claimed_until: null });
  const stillClaimed = base.where('claimed_until', '=', claimed.claimed_until ?? '');
  switch (result.outcome) {
    case 'delivered':
      await base
        .set({
          delivered_at: now,
          gave_up_at: null,
          gave_up_reason: null,
          last_status: result.status,
          updated_at: now,
        })
        .execute();
      return;
    case 'retry': {
      const retried = await stillClaimed
        .set({
          next_attempt_at: timestampAtMs(result.nextAttemptMs),
          last_error: result.error,
          last_error_code: result.code,
          last_status: result.status,
          updated_at: now,
        })
        .where('gave_up_at', 'is', null)
        .executeTakeFirst();
      // Given up meanwhile (its item stopped waiting): the row stays so, but the send is over.
      if (retried.numUpdatedRows === 0n) await stillClaimed.execute();
      return;
    }
    case 'gave_up': {
      const gaveUp = await stillClaimed
        .set({
          gave_up_at: now,
          gave_up_reason: result.reason,
          last_error: result.error,
          last_error_code: result.code,
          last_status: result.status,
          updated_at: now,
        })
        .where('delivered_at', 'is', null)
        .executeTakeFirst();
      if (gaveUp.numUpdatedRows === 0n) await stillClaimed.execute();
      return;
    }
  }
}

/**
 * The most recently changed outbox row of each channel: what "last delivery"
 * shows, and what pruning keeps. One statement per channel, each walking the
 * channel's rows newest first until one says something of the channel.
 */
export async function latestRowPerChannel(
  ctx: RepoContext,
  channelIds: readonly string[],
): Promise<Map<string, OutboxRecord>> {
  const out = new Map<string, OutboxRecord>();
  for (const channelId of new Set(channelIds)) {
    const row = await ctx.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('channel_id', '=', channelId)
      // A notice dropped before any attempt (its item stopped waiting) says nothing of the channel.
      .where((eb) => eb.or([eb('gave_up_at', 'is', null), eb('attempts', '>', 0)]))
      .orderBy('updated_at', 'desc')
      .limit(ONE_ROW)
      .executeTakeFirst();
    if (row) out.set(channelId, row);
  }
  return out;
}

/** Whether anyone has a channel: with none, there is nothing to plan. */
export async function anyChannel(ctx: RepoContext): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('notification_channels')
    .select('id')
    .limit(ONE_ROW)
    .execute();
  return row.length > 0;
}
