/**
 * Deleting a channel: by its owner in Settings, or by the outbox once the
 * channel's Web Push subscription is gone for good. Its unused answer links
 * go with it, in one transaction that takes the channel first, so a send
 * minting links for it meanwhile is ordered against the deletion
 * (`holdLinkWithdrawals`): either those links are revoked here or that
 * send finds the channel gone. Its outbox rows go by cascade.
 */
import {
  deleteUnusedChannelLinks,
  deleteUserChannel,
  lockChannelForDelete,
  type Store,
} from '../store/index.js';

/** False when `userId` has no channel `channelId` (another's, or already deleted). */
export function removeChannel(store: Store, userId: string, channelId: string): Promise<boolean> {
  return store.transaction(async (tx) => {
    if (!(await lockChannelForDelete(tx, userId, channelId))) return false;
    await deleteUnusedChannelLinks(tx, channelId);
    return deleteUserChannel(tx, userId, channelId);
  });
}
