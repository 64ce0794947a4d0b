/**
 * Answer-link rows. Only SHA-256 hashes of secrets reach this file; minting
 * and hashing live in `auth/answer-links.ts`. Expiry is compared as text,
 * which is time order for the fixed-width timestamps (`support/clock.ts`).
 * A row goes with its user and with its session (both cascade), so a deleted
 * user's links find nothing.
 */
import type { RepoContext } from './context.js';
import type { AnswerLinksTable, Timestamp } from './tables.js';
import { wallTimestamp } from './tokens.js';

export type AnswerLinkRecord = AnswerLinksTable;

export interface NewAnswerLink {
  readonly tokenHash: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly itemKind: string;
  readonly itemId: string;
  readonly choice: string;
  readonly expiresAt: Timestamp;
  /** The outbox row whose notice carries it, if one does. */
  readonly deliveryId?: string | undefined;
}

/** A link with what a principal needs from its user. */
export interface AnswerLinkHolder {
  readonly link: AnswerLinkRecord;
  readonly userName: string;
  readonly isAdmin: boolean;
}

export async function insertAnswerLinks(
  ctx: RepoContext,
  links: readonly NewAnswerLink[],
): Promise<AnswerLinkRecord[]> {
  if (links.length === 0) return [];
  const now = ctx.clock.timestamp();
  const rows: AnswerLinkRecord[] = links.map((link) => ({
    id: ctx.ids.next(),
    token_hash: link.tokenHash,
    user_id: link.userId,
    task_session_id: link.sessionId,
    item_kind: link.itemKind,
    item_id: link.itemId,
    choice: link.choice,
    expires_at: link.expiresAt,
    used_at: null,
    created_at: now,
    delivery_id: link.deliveryId ?? null,
  }));
  await ctx.db.insertInto('answer_links').values(rows).execute();
  return rows;
}

/** The link with this hash and its user, used or expired alike: the caller says which it is. */
export async function findAnswerLink(
  ctx: RepoContext,
  tokenHash: string,
): Promise<AnswerLinkHolder | undefined> {
  const row = await ctx.db
    .selectFrom('answer_links as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .selectAll('a')
    .select(['u.name as user_name', 'u.is_admin as user_is_admin'])
    .where('a.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { user_name: userName, user_is_admin: isAdmin, ...link } = row;
  return { link, userName, isAdmin: isAdmin === 1 };
}

/** Marks the link used; false when it already was. */
export async function markAnswerLinkUsed(ctx: RepoContext, id: string): Promise<boolean> {
  const result = await ctx.db
    .updateTable('answer_links')
    .set({ used_at: wallTimestamp(ctx.clock) })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deletes the unused links a notice's earlier attempts carried; how many went.
 * A used one stays: it shows its holder the decision it made.
 */
export async function deleteUnusedDeliveryLinks(
  ctx: RepoContext,
  deliveryId: string,
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('answer_links')
    .where('delivery_id', '=', deliveryId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes a person's unused links: they turned answer links off. How many went. */
export async function deleteUnusedUserLinks(ctx: RepoContext, userId: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom('answer_links')
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Holds, to the end of the caller's transaction, what may withdraw links a
 * notice is about to carry: its person's row (turning links off takes it
 * for update, `lockNoticeOwner`) and its channel's (deleting the channel
 * takes it, `lockChannelForDelete`). Either the withdrawal commits first and
 * this reads what it wrote, or it waits for these links and revokes them.
 * SQLite's one writer already orders the two. False when the delivery's
 * channel is gone.
 */
export async function holdLinkWithdrawals(
  ctx: RepoContext,
  userId: string,
  deliveryId: string | undefined,
): Promise<boolean> {
  const postgres = ctx.dialect.driver === 'postgres';
  await ctx.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(postgres, (query) => query.forShare())
    .execute();
  if (deliveryId === undefined) return true;
  const channel = await ctx.db
    .selectFrom('notification_channels')
    .select('id')
    .where('id', '=', (eb) =>
      eb.selectFrom('notification_outbox').select('channel_id').where('id', '=', deliveryId),
    )
    .$if(postgres, (query) => query.forShare())
    .executeTakeFirst();
  return channel !== undefined;
}

/**
 * Takes a person's row for a change of their notices: their link settings
 * (ordered against a send's minting, `holdLinkWithdrawals`) or their
 * channels (two added at once are counted one after the other against the
 * limit). Not for key update: rows that only refer to the person (their
 * tokens, messages) are written meanwhile as before.
 */
export async function lockNoticeOwner(ctx: RepoContext, userId: string): Promise<void> {
  await ctx.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(ctx.dialect.driver === 'postgres', (query) => query.forNoKeyUpdate())
    .execute();
}

/** Takes one's channel for its deletion (`holdLinkWithdrawals`); false when it is not theirs. */
export async function lockChannelForDelete(
  ctx: RepoContext,
  userId: string,
  channelId: string,
): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('notification_channels')
    .select('id')
    .where('id', '=', channelId)
    .where('user_id', '=', userId)
    .$if(ctx.dialect.driver === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the unused links that notices to one channel carried; how many went. */
export async function deleteUnusedChannelLinks(
  ctx: RepoContext,
  channelId: string,
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('answer_links')
    .where('used_at', 'is', null)
    .where('delivery_id', 'in', (rows) =>
      rows.selectFrom('notification_outbox').select('id').where('channel_id', '=', channelId),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` links whose expiry passed before `before`; how many
 * went. As `deleteSpentTokenBatch`, safe for several replicas at once.
 */
export async function deleteExpiredAnswerLinkBatch(
  ctx: RepoContext,
  before: Timestamp,
  limit: number,
): Promise<number> {
  const result = await deleteExpiredAnswerLinkBatchQuery(ctx, before, limit).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** `deleteExpiredAnswerLinkBatch` as a query, for its plan. */
export function deleteExpiredAnswerLinkBatchQuery(
  ctx: RepoContext,
  before: Timestamp,
  limit: number,
) {
  return ctx.db.deleteFrom('answer_links').where('id', 'in', (eb) =>
    eb
      .selectFrom('answer_links')
      .select('id')
      .where('expires_at', '<', before)
      .limit(limit)
      .$if(ctx.dialect.driver === 'postgres', (query) => query.forUpdate().skipLocked()),
  );
}
