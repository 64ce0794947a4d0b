/**
 * `/api/v1/notification-channels` and `/api/v1/notification-settings`: a
 * person's own channels and settings. Thin: parse with the wire schema, call
 * `NotificationService`, map its result through the catalogue. Channels are
 * personal, so an agent's token reaches none of these (403), and another
 * person's channel is as absent as a missing one (404).
 */
import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ChannelOwner, NotificationService } from '../notify/index.js';
import {
  newChannelBody,
  notificationSettingsBody,
  unpagedListQuery,
  WEB_PUSH_RENEWAL_PATH,
  webPushRenewalBody,
  type ChannelTestReply,
} from '../wire/index.js';
import { principalOf, SESSION_COOKIE } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody, parseQuery, storableParams } from './request-guards.js';

export interface NotificationRouteDeps {
  readonly notifications: NotificationService;
}

type Person = ({ ok: true } & ChannelOwner) | { ok: false; response: Response };

function person(c: Context<AppEnv>): Person {
  const principal = principalOf(c);
  if (!principal) return { ok: false, response: errorResponse(c, 'unauthorized') };
  if (principal.kind !== 'user') return { ok: false, response: errorResponse(c, 'forbidden') };
  // A page's session: the Web Push channel it turns on or renews goes when that session ends.
  const browserSession = c.get('surface') === 'web' ? getCookie(c, SESSION_COOKIE) : undefined;
  return { ok: true, userId: principal.userId, isAdmin: principal.isAdmin, browserSession };
}

export function registerNotificationRoutes(app: Hono<AppEnv>, deps: NotificationRouteDeps): void {
  const { notifications } = deps;
  app.use('/api/v1/notification-channels/:id/*', storableParams('notification channel not found'));

  app.get('/api/v1/notification-channels', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json(await notifications.listChannels(caller.userId));
  });

  app.post('/api/v1/notification-channels', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const body = await parseJsonBody(c, newChannelBody);
    if (!body.ok) return body.response;
    const created = await notifications.createChannel(caller, body.value);
    if (!created.ok) return failureResponse(c, created);
    const reply = {
      channel: created.channel,
      ...(created.secret === undefined ? {} : { secret: created.secret }),
    };
    // A generated secret is shown only this once; no cache may keep it.
    return c.json(reply, 201, { 'Cache-Control': 'no-store' });
  });

  app.post(WEB_PUSH_RENEWAL_PATH, async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const body = await parseJsonBody(c, webPushRenewalBody);
    if (!body.ok) return body.response;
    const renewed = await notifications.renewWebPush(caller, body.value);
    if (!renewed.ok) return failureResponse(c, renewed);
    return c.json({ channel: renewed.channel });
  });

  app.delete('/api/v1/notification-channels/:id', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const deleted = await notifications.deleteChannel(caller.userId, c.req.param('id'));
    return deleted.ok ? c.body(null, 204) : failureResponse(c, deleted);
  });

  app.post('/api/v1/notification-channels/:id/test', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const tested = await notifications.testChannel(caller.userId, c.req.param('id'));
    if (!tested.ok) return failureResponse(c, tested);
    const reply: ChannelTestReply = {
      delivered: tested.delivered,
      status: tested.status,
      error: tested.error,
      error_code: tested.error_code,
    };
    return c.json(reply);
  });

  app.get('/api/v1/notification-settings', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    return c.json(await notifications.settings(caller.userId));
  });

  app.put('/api/v1/notification-settings', async (c) => {
    const caller = person(c);
    if (!caller.ok) return caller.response;
    const body = await parseJsonBody(c, notificationSettingsBody);
    if (!body.ok) return body.response;
    return c.json(await notifications.updateSettings(caller.userId, body.value));
  });
}
