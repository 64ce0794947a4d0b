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
} from '../../../src/wire/index.js';
import { request, type ApiResult, type FetchLike } from './api.js';

export type {
  ChannelTestReply,
  ChannelView,
  NewChannelBody,
  NotificationSettings,
} from '../../../src/wire/index.js';

const browserFetch: FetchLike = (input, init) => fetch(input, init);
const CHANNELS = '/api/v1/notification-channels';
const SETTINGS = '/api/v1/notification-settings';

export function notificationsApi(fetchImpl: FetchLike = browserFetch) {
  return {
    channels: (): Promise<ApiResult<ChannelListReply>> => request(fetchImpl, CHANNELS),
    addChannel: (body: NewChannelBody): Promise<ApiResult<NewChannelReply>> =>
      request(fetchImpl, CHANNELS, { method: 'POST', body: JSON.stringify(body) }),
    deleteChannel: (id: string): Promise<ApiResult<unknown>> =>
      request(fetchImpl, `${CHANNELS}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    testChannel: (id: string): Promise<ApiResult<ChannelTestReply>> =>
      request(fetchImpl, `${CHANNELS}/${encodeURIComponent(id)}/test`, {
        method: 'POST',
        body: '{}',
      }),
    settings: (): Promise<ApiResult<NotificationSettingsReply>> => request(fetchImpl, SETTINGS),
    updateSettings: (
      change: Partial<NotificationSettings>,
    ): Promise<ApiResult<NotificationSettingsReply>> =>
      request(fetchImpl, SETTINGS, { method: 'PUT', body: JSON.stringify(change) }),
  };
}
