/**
 * The Settings page's notification calls: a person's channels and settings.
 * Its own file (not ApiClient), so the settings sections grow apart.
 */
import type {
  ChannelListReply,
  ChannelTestReply,
  NewChannelBody,
  NewChannelReply,
  NotificationSettings,
  NotificationSettingsReply,
  WebPushRenewalBody,
  WebPushRenewalReply,
} from '../../../src/wire/index.js';
import { WEB_PUSH_RENEWAL_PATH } from '../../../src/wire/constants.js';
import { request, type ApiResult, type FetchLike } from './api.js';

export type {
  ChannelTestReply,
  ChannelView,
  NewChannelBody,
  NotificationSettings,
} from '../../../src/wire/index.js';
import { pageFetch } from './page-fetch.js';

const CHANNELS = '/api/v1/notification-channels';
const SETTINGS = '/api/v1/notification-settings';

/**
 * `timeoutMs` bounds every call, for a caller whose button must not spin for
 * ever (a device turning push on or off).
 */
export function notificationsApi(
  fetchImpl: FetchLike = pageFetch,
  options: { timeoutMs?: number } = {},
) {
  const call = <T>(path: string, init: RequestInit = {}): Promise<ApiResult<T>> =>
    request<T>(
      fetchImpl,
      path,
      options.timeoutMs === undefined
        ? init
        : { ...init, signal: AbortSignal.timeout(options.timeoutMs) },
    );
  return {
    channels: () => call<ChannelListReply>(CHANNELS),
    addChannel: (body: NewChannelBody) =>
      call<NewChannelReply>(CHANNELS, { method: 'POST', body: JSON.stringify(body) }),
    deleteChannel: (id: string) =>
      call<unknown>(`${CHANNELS}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    testChannel: (id: string) =>
      call<ChannelTestReply>(`${CHANNELS}/${encodeURIComponent(id)}/test`, {
        method: 'POST',
        body: '{}',
      }),
    renewWebPush: (body: WebPushRenewalBody) =>
      call<WebPushRenewalReply>(WEB_PUSH_RENEWAL_PATH, {
        method: 'POST',
        body: JSON.stringify(body),
      }),
    settings: () => call<NotificationSettingsReply>(SETTINGS),
    updateSettings: (change: Partial<NotificationSettings>) =>
      call<NotificationSettingsReply>(SETTINGS, { method: 'PUT', body: JSON.stringify(change) }),
  };
}
