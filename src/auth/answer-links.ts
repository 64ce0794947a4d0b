/**
 * The answer link as a credential: a random secret per choice, of which only
 * the SHA-256 hash is stored (as for tokens), redeemed into the person it was
 * minted for. Links are minted for users only, so an agent can never hold
 * one; what the link may decide, and whether its user may still see the
 * item, is the answering service's to check (`turns/answer-links.ts`).
 * Links long past their expiry go with the other spent credentials
 * (`spent-credentials.ts`).
 */
import { randomBytes } from 'node:crypto';
import {
  deleteUnusedDeliveryLinks,
  findAnswerLink,
  insertAnswerLinks,
  markAnswerLinkUsed,
  wallTimestamp,
  type AnswerLinkRecord,
  type RepoContext,
  type Timestamp,
} from '../store/index.js';
import { MAX_ANSWER_LINK_TOKEN_CHARS } from '../wire/index.js';
import type { Principal } from './principal.js';
import { hashSecret } from './tokens.js';

/** Its own prefix: an answer link is no API token and is never accepted as one. */
export const ANSWER_LINK_PREFIX = 'cla_';
const SECRET_BYTES = 32;

export interface AnswerLinkGrant {
  readonly userId: string;
  readonly sessionId: string;
  readonly itemKind: string;
  readonly itemId: string;
  readonly expiresAt: Timestamp;
  /** One link per entry, each with its own secret; stored as given (JSON text). */
  readonly choices: readonly string[];
  /**
   * The outbox row whose notice carries them. Its earlier attempts' unused
   * links are revoked: only hashes are kept, so a retry cannot send the same
   * secrets again, and one notice holds one live set of links, not one per try.
   */
  readonly deliveryId?: string | undefined;
  /**
   * Asked first in the links' own transaction: whether they may still be
   * issued. A person may withdraw links (turn them off, delete the channel)
   * after the send that carries them was checked; their withdrawal and this
   * transaction are ordered, so it either sees the withdrawal or revokes
   * what this issued. First, before any link row is touched: a withdrawal
   * takes the rows it orders on before the links it revokes, and this must
   * take them in the same order, or each would wait for the other.
   */
  readonly mayIssue?: ((tx: RepoContext) => Promise<boolean>) | undefined;
}

/**
 * Stores one link per choice; the secrets, in the choices' order, are shown
 * this once. None when `mayIssue` refuses.
 */
export async function issueAnswerLinks(
  ctx: RepoContext,
  grant: AnswerLinkGrant,
): Promise<string[]> {
  const allowed = grant.mayIssue ? await grant.mayIssue(ctx) : true;
  if (grant.deliveryId !== undefined) await deleteUnusedDeliveryLinks(ctx, grant.deliveryId);
  if (!allowed) return [];
  const secrets = grant.choices.map(
    () => `${ANSWER_LINK_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`,
  );
  await insertAnswerLinks(
    ctx,
    grant.choices.map((choice, index) => ({
      tokenHash: hashSecret(secrets[index] ?? ''),
      userId: grant.userId,
      sessionId: grant.sessionId,
      itemKind: grant.itemKind,
      itemId: grant.itemId,
      choice,
      expiresAt: grant.expiresAt,
      deliveryId: grant.deliveryId,
    })),
  );
  return secrets;
}

export interface RedeemedAnswerLink {
  readonly link: AnswerLinkRecord;
  /** The person the link was minted for, as they are now. */
  readonly principal: Extract<Principal, { kind: 'user' }>;
  /** Its expiry has passed (it may still show a decision). */
  readonly expired: boolean;
}

/** The link a secret names; `undefined` for unknown and malformed secrets alike. */
export async function redeemAnswerLink(
  ctx: RepoContext,
  secret: string,
): Promise<RedeemedAnswerLink | undefined> {
  if (!secret.startsWith(ANSWER_LINK_PREFIX) || secret.length > MAX_ANSWER_LINK_TOKEN_CHARS) {
    return undefined;
  }
  const found = await findAnswerLink(ctx, hashSecret(secret));
  if (!found) return undefined;
  return {
    link: found.link,
    principal: {
      kind: 'user',
      userId: found.link.user_id,
      name: found.userName,
      isAdmin: found.isAdmin,
    },
    expired: found.link.expires_at <= wallTimestamp(ctx.clock),
  };
}

/** Marks a link spent once its decision is recorded; a repeat is harmless. */
export function spendAnswerLink(ctx: RepoContext, linkId: string): Promise<boolean> {
  return markAnswerLinkUsed(ctx, linkId);
}
