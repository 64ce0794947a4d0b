/**
 * Deleting a channel: by its owner in Settings, or by the outbox once the
 * channel's Web Push subscription is gone for good. Its unused answer links
 * go with it, in one transaction that takes the channel first, so a send
 * minting links for it meanwhile is ordered against the deletion
 * (`holdLinkWithdrawals`): either those links are revoked here or that
 * send finds the channel gone. Its outbox rows go by cascade.
 */
import { pausePoint } from '../support/index.js';
import {
  deleteUnusedChannelLinks,
  deleteUserChannel,
  getUserChannel,
  lockChannelForDelete,
  type Store,
} from '../store/index.js';

/**
 * False when `userId` has no channel `channelId` (another's, or already
 * deleted), or, given `ifConfig`, when the channel holds another config now:
 * a subscription said gone after its channel was renewed to a new one
 * (`renewWebPushChannel`) says nothing of the new one.
 */
export function removeChannel(
  store: Store,
  userId: string,
  channelId: string,
  ifConfig?: string,
): Promise<boolean> {
  return store.transaction(async (tx) => {
    if (!(await lockChannelForDelete(tx, userId, channelId))) return false;
    // A race test holds the removal here, its channel's row taken.
    const paused = pausePoint('notify.channel_removal_locked');
    if (paused) await paused;
    if (
      ifConfig !== undefined &&
      (await getUserChannel(tx, userId, channelId))?.config !== ifConfig
    ) {
      return false;
    }
    await deleteUnusedChannelLinks(tx, channelId);
    return deleteUserChannel(tx, userId, channelId);
  });
}
