/**
 * A person's notification channels and settings, as REST offers them: list,
 * add (at most `MAX_CHANNELS_PER_USER`), delete, "send a test" (one bounded
 * attempt outside the outbox), and the reminder and privacy settings. Only
 * one's own channels exist for anyone: another person's answers `not_found`.
 * Bodies arrive parsed by their wire schemas; this adds what a schema cannot
 * check (the admin's allowed hosts, a private target added by someone who
 * is not an admin, the per-person limit).
 */
import { randomBytes } from 'node:crypto';
import {
  countUserChannels,
  deleteUnusedUserLinks,
  getNoticeSettings,
  getUserChannel,
  insertChannel,
  latestRowPerChannel,
  listUserChannels,
  lockNoticeOwner,
  putNoticeSettings,
  renewWebPushChannel,
  type ChannelRecord,
  type OutboxRecord,
  type RepoContext,
  type Store,
} from '../store/index.js';
import { heldBrowserSession } from '../auth/index.js';
import type { RepeatingTimers } from '../support/index.js';
import {
  failure,
  isDeliveryErrorCode,
  MAX_CHANNELS_PER_USER,
  type ChannelKind,
  type ChannelListReply,
  type ChannelTestReply,
  type ChannelView,
  type Failure,
  type NewChannelBody,
  type NewChannelReply,
  type NotificationSettings,
  type NotificationSettingsReply,
  type WebPushRenewalBody,
  type WebPushRenewalReply,
} from '../wire/index.js';
import { NOTIFY_TARGET_LOOKUP_TIMEOUT_MS } from '../tunables.js';
import type { ChannelSender, Notice } from './channel.js';
import { resolvesInternal } from './guarded-post.js';
import { removeChannel } from './channel-removal.js';
import { topicTarget } from './ntfy.js';
import { attemptOnce, channelTarget, ownerReach } from './outbox.js';
import { channelReach, channelUrl, hostAllowed, targetLabel } from './targets.js';

export interface NotificationServiceDeps {
  readonly store: Store;
  readonly senders: ReadonlyMap<ChannelKind, ChannelSender>;
  readonly timers: RepeatingTimers;
  readonly sendTimeoutMs: number;
  readonly allowedHosts: readonly string[];
  /** Where the web app is reached, for the test notice's link. */
  readonly origin: () => string;
  /** The server's VAPID public key for the web app's `PushManager.subscribe`; empty when none. */
  readonly vapidPublicKey: () => string | Promise<string>;
  /** A person's channels or settings changed (committed): their open Settings read them again. */
  readonly changed?: (userId: string) => void;
}

export type SettingsBody = Partial<NotificationSettings>;

/** Who adds a channel: its owner, and whether they are an admin (`targets.ts`). */
export interface ChannelOwner {
  readonly userId: string;
  readonly isAdmin: boolean;
  /**
   * The browser session's secret when a page calls (its cookie): a Web Push
   * channel it turns on or renews goes when that session ends, so a device
   * signed out, from anywhere, hears nothing more. A bearer token has none.
   */
  readonly browserSession?: string | undefined;
}

type ChannelSession =
  { readonly ended: false; readonly id: string | null } | { readonly ended: true };

/** The browser session a Web Push channel is to go with (none for a token), or that it ended. */
async function channelSession(
  tx: RepoContext,
  owner: ChannelOwner,
  kind: ChannelKind,
): Promise<ChannelSession> {
  if (kind !== 'web_push' || owner.browserSession === undefined) return { ended: false, id: null };
  const id = await heldBrowserSession(tx, owner.browserSession);
  return id === undefined ? { ended: true } : { ended: false, id };
}

const SESSION_ENDED = 'this browser session has ended; sign in again';

/** Bytes of a generated webhook secret (43 base64url characters). */
const GENERATED_SECRET_BYTES = 32;

function lastDelivery(row: OutboxRecord | undefined): ChannelView['last_delivery'] {
  if (!row) return null;
  const status = row.last_status;
  const none = { error: null, error_code: null, status };
  if (row.delivered_at) return { state: 'delivered', at: row.delivered_at, ...none };
  // A row from before codes were kept (or from a newer server) has none: the page shows `error`.
  const failed = {
    error: row.last_error,
    error_code: isDeliveryErrorCode(row.last_error_code) ? row.last_error_code : null,
    status,
  };
  if (row.gave_up_at) return { state: 'failed', at: row.gave_up_at, ...failed };
  if (row.attempts > 0) return { state: 'retrying', at: row.updated_at, ...failed };
  return { state: 'pending', at: row.created_at, ...none };
}

export function channelView(channel: ChannelRecord, latest?: OutboxRecord): ChannelView {
  // Shown, not sent: the reach does not matter here.
  const target = channelTarget(channel, 'public');
  return {
    id: channel.id,
    kind: target.kind,
    name: channel.name,
    target: targetLabel(target.kind, target.config),
    created_at: channel.created_at,
    last_delivery: lastDelivery(latest),
  };
}

function configOf(body: NewChannelBody): { config: Record<string, unknown>; secret?: string } {
  switch (body.kind) {
    case 'web_push':
      return { config: { subscription: body.subscription } };
    case 'ntfy':
      return {
        config: {
          url: body.url,
          ...(body.access_token ? { access_token: body.access_token } : {}),
        },
      };
    case 'webhook': {
      if (body.secret !== undefined) return { config: { url: body.url, secret: body.secret } };
      const secret = randomBytes(GENERATED_SECRET_BYTES).toString('base64url');
      return { config: { url: body.url, secret }, secret };
    }
    case 'slack':
      return { config: { url: body.url } };
  }
}

/**
 * An endpoint as `createChannel` keeps it in `target`: the URL as its sends
 * go, so two spellings sent alike (host case, default port, a fragment no
 * request carries, an ntfy topic's slashes) are one channel.
 */
function normalizedTarget(kind: ChannelKind, url: string): string {
  if (kind === 'ntfy') return topicTarget(url);
  const parsed = new URL(url);
  // A push service's endpoint is the browser's to spell: kept whole, as a renewal names it.
  if (kind !== 'web_push') parsed.hash = '';
  return parsed.href;
}

const KIND_NAMES: Record<ChannelKind, string> = {
  web_push: 'Web Push',
  ntfy: 'ntfy',
  webhook: 'Webhook',
  slack: 'Slack',
};

export class NotificationService {
  constructor(private readonly deps: NotificationServiceDeps) {}

  async listChannels(userId: string): Promise<ChannelListReply> {
    const channels = await listUserChannels(this.deps.store, userId);
    const latest = await latestRowPerChannel(
      this.deps.store,
      channels.map((channel) => channel.id),
    );
    return { channels: channels.map((channel) => channelView(channel, latest.get(channel.id))) };
  }

  async createChannel(
    owner: ChannelOwner,
    body: NewChannelBody,
  ): Promise<
    | ({ ok: true } & NewChannelReply)
    | Failure<
        'invalid_request' | 'internal_target' | 'conflict' | 'channel_exists' | 'unauthorized'
      >
  > {
    const { userId } = owner;
    const { config, secret } = configOf(body);
    const url = channelUrl(body.kind, config);
    const path = body.kind === 'web_push' ? 'subscription.endpoint' : 'url';
    const refused = await this.targetRefusal(owner, url, path);
    if (refused) return refused;
    const name = body.name ?? `${KIND_NAMES[body.kind]} · ${new URL(url).host}`;
    // Counted and added under the person's row: two added at once are counted one after the other.
    const channel = await this.deps.store.transaction(async (tx) => {
      await lockNoticeOwner(tx, userId);
      if ((await countUserChannels(tx, userId)) >= MAX_CHANNELS_PER_USER) return 'limit' as const;
      const session = await channelSession(tx, owner, body.kind);
      if (session.ended) return 'ended' as const;
      return insertChannel(tx, {
        userId,
        kind: body.kind,
        name,
        config,
        // Parsed, so spellings of one URL that `fetch` sends alike (host case, default port) match.
        target: normalizedTarget(body.kind, url),
        browserSessionId: session.id,
      });
    });
    if (channel === 'ended') return failure('unauthorized', SESSION_ENDED);
    if (channel === 'limit') {
      return failure('conflict', `at most ${MAX_CHANNELS_PER_USER} notification channels each`, {
        reason: 'channel_limit',
        limit: MAX_CHANNELS_PER_USER,
      });
    }
    if (!channel) return failure('channel_exists');
    this.deps.changed?.(userId);
    return { ok: true, channel: channelView(channel), ...(secret ? { secret } : {}) };
  }

  /**
   * The browser replaced the subscription one's Web Push channel was made
   * from (its service worker heard `pushsubscriptionchange`): the channel
   * takes the new one, keeping its ID, its name and the notices it still
   * owes, so the device goes on hearing without anyone opening Settings.
   * The new endpoint is checked as a new channel's would be. `not_found`
   * when no channel of theirs was made from the old one (turned off, or
   * removed in Settings: a renewal must not bring it back). Renewed from a
   * page, it goes with that page's browser session from now on.
   */
  async renewWebPush(
    owner: ChannelOwner,
    body: WebPushRenewalBody,
  ): Promise<
    | ({ ok: true } & WebPushRenewalReply)
    | Failure<'invalid_request' | 'internal_target' | 'not_found' | 'unauthorized'>
  > {
    const config = { subscription: body.subscription };
    const url = channelUrl('web_push', config);
    const refused = await this.targetRefusal(owner, url, 'subscription.endpoint');
    if (refused) return refused;
    const channel = await this.deps.store.transaction(async (tx) => {
      await lockNoticeOwner(tx, owner.userId);
      const session = await channelSession(tx, owner, 'web_push');
      if (session.ended) return 'ended' as const;
      return renewWebPushChannel(tx, owner.userId, {
        oldTarget: normalizedTarget('web_push', body.old_endpoint),
        newTarget: normalizedTarget('web_push', url),
        config,
        browserSessionId: session.id ?? undefined,
      });
    });
    if (channel === 'ended') return failure('unauthorized', SESSION_ENDED);
    if (!channel) return failure('not_found', 'no Web Push channel holds that subscription');
    this.deps.changed?.(owner.userId);
    return { ok: true, channel: channelView(channel) };
  }

  /** Why a channel may not send to `url`, as the refusal to reply with; `undefined` when it may. */
  private async targetRefusal(
    owner: ChannelOwner,
    url: string,
    path: string,
  ): Promise<Failure<'invalid_request' | 'internal_target'> | undefined> {
    if (!hostAllowed(url, this.deps.allowedHosts)) {
      return failure('invalid_request', 'this server does not send notifications there', [
        {
          path,
          code: 'host_not_allowed',
          message: 'the host is not in CLARION_NOTIFY_ALLOWED_HOSTS',
        },
      ]);
    }
    if (
      channelReach(owner.isAdmin, this.deps.allowedHosts) === 'public' &&
      (await resolvesInternal(url, NOTIFY_TARGET_LOOKUP_TIMEOUT_MS))
    ) {
      return failure('internal_target', undefined, [
        {
          path,
          code: 'internal_target',
          message: 'the host is, or resolves to, a loopback, link-local or private address',
        },
      ]);
    }
    return undefined;
  }

  /**
   * Deletes one's channel, and with it the answer links its notices carried
   * that are still unused: a person drops a channel others may read, and
   * what it already shows must not decide as them (`removeChannel`).
   */
  async deleteChannel(userId: string, id: string): Promise<{ ok: true } | Failure<'not_found'>> {
    if (!(await removeChannel(this.deps.store, userId, id))) {
      return failure('not_found', 'notification channel not found');
    }
    this.deps.changed?.(userId);
    return { ok: true };
  }

  /** One bounded attempt now, outside the outbox: nothing is retried or recorded. */
  async testChannel(
    userId: string,
    id: string,
  ): Promise<({ ok: true } & ChannelTestReply) | Failure<'not_found'>> {
    const channel = await getUserChannel(this.deps.store, userId, id);
    if (!channel) return failure('not_found', 'notification channel not found');
    const target = channelTarget(
      channel,
      await ownerReach(this.deps.store, userId, this.deps.allowedHosts),
    );
    const sender = this.deps.senders.get(target.kind);
    if (!sender) {
      return {
        ok: true,
        delivered: false,
        status: null,
        error: `this server cannot send ${KIND_NAMES[target.kind]} notifications yet`,
        error_code: 'kind_unsupported',
      };
    }
    if (!hostAllowed(channelUrl(target.kind, target.config), this.deps.allowedHosts)) {
      return {
        ok: true,
        delivered: false,
        status: null,
        error: 'the target host is not in CLARION_NOTIFY_ALLOWED_HOSTS',
        error_code: 'host_not_allowed',
      };
    }
    const now = this.deps.store.clock.timestamp();
    const notice: Notice = {
      deliveryId: this.deps.store.ids.next(),
      event: 'test',
      kind: 'question',
      itemId: 'test',
      sessionId: '',
      taskId: '',
      taskTitle: 'Test notification',
      url: `${this.deps.origin().replace(/\/+$/, '')}/settings`,
      createdAt: now,
    };
    const result = await attemptOnce(
      sender,
      target,
      notice,
      this.deps.timers,
      this.deps.sendTimeoutMs,
    );
    return result.ok
      ? { ok: true, delivered: true, status: result.status, error: null, error_code: null }
      : {
          ok: true,
          delivered: false,
          status: result.status,
          error: result.error,
          error_code: result.code,
        };
  }

  async settings(userId: string): Promise<NotificationSettingsReply> {
    const settings = await getNoticeSettings(this.deps.store, userId);
    return {
      settings: {
        reminder_delay_s: settings.reminderDelayS,
        include_question: settings.includeQuestion,
        answer_links: settings.answerLinks,
      },
      web_push_public_key: await this.deps.vapidPublicKey(),
    };
  }

  /**
   * Turning answer links off also revokes the person's unused ones: the
   * setting is how they keep a topic others read from deciding as them, and
   * links it already carries would otherwise decide for a day. One
   * transaction that takes the person's row first, so a send minting links
   * meanwhile is ordered against it (`holdLinkWithdrawals`): either those
   * links are revoked here or that send reads links off.
   */
  async updateSettings(userId: string, body: SettingsBody): Promise<NotificationSettingsReply> {
    await this.deps.store.transaction(async (tx) => {
      await lockNoticeOwner(tx, userId);
      await putNoticeSettings(tx, userId, {
        ...(body.reminder_delay_s === undefined ? {} : { reminderDelayS: body.reminder_delay_s }),
        ...(body.include_question === undefined ? {} : { includeQuestion: body.include_question }),
        ...(body.answer_links === undefined ? {} : { answerLinks: body.answer_links }),
      });
      if (body.answer_links === false) await deleteUnusedUserLinks(tx, userId);
    });
    this.deps.changed?.(userId);
    return this.settings(userId);
  }
}
