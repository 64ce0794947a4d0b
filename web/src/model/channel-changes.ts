/**
 * News, within the page, that this person's notification channels changed:
 * Settings shows them in two sections that each change them (this device's
 * Web Push adds and deletes its channel; the channel list adds and removes
 * any), and each must show what the other did without a reload. Changes
 * made elsewhere come as the events socket's `notifications_changed`; this
 * carries one made in the page at once. Either is only a "look again": each
 * listener reads the server, never the news, as the truth.
 */
type Listener = () => void;

const listeners = new Map<Listener, unknown>();

/** Tells every listener but `from`'s own that the channels changed. */
export function announceChannelsChanged(from: unknown): void {
  for (const [listener, owner] of [...listeners]) if (owner !== from) listener();
}

/** Calls `listener` when another owner announces a change; returns the unsubscribe. */
export function onChannelsChanged(owner: unknown, listener: Listener): () => void {
  listeners.set(listener, owner);
  return () => {
    listeners.delete(listener);
  };
}
