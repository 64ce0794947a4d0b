/**
 * An edit of a queued message under way, as data: the text it was made from
 * (`base`, which the server compares before it saves) and what the person has
 * typed. When the message comes to read otherwise (another tab or window saved
 * it, seen in a read of the queue or in a refused save), the edit holds both
 * texts until the person chooses: take the new text, or keep theirs and save
 * over it knowingly. Nothing typed is dropped without that choice.
 */
import type { QueueItemChangedDetails } from '../../../src/wire/index.js';

export interface QueueEdit {
  itemId: string;
  base: string;
  text: string;
  /** The message reads `current` now; `refused` when a save said so. Saving waits for a choice. */
  changed?: { current: string; refused: boolean };
}

export function startEdit(item: { id: string; text: string }): QueueEdit {
  return { itemId: item.id, base: item.text, text: item.text };
}

export function typed(edit: QueueEdit, text: string): QueueEdit {
  return { ...edit, text };
}

/**
 * The edit once the message is seen to read `current`. The same object when
 * nothing changes for it, so a caller can skip a render.
 */
export function observed(edit: QueueEdit, current: string, refused = false): QueueEdit {
  // What was typed is what it reads now (this tab's own save, or the same words): nothing to lose.
  if (current === edit.text) return { itemId: edit.itemId, base: current, text: edit.text };
  if (current === edit.base) {
    if (edit.changed === undefined) return edit;
    // Changed back to the text the edit was made from: nothing to choose between any more.
    return { itemId: edit.itemId, base: edit.base, text: edit.text };
  }
  const wasRefused = refused || (edit.changed?.refused ?? false);
  if (edit.changed?.current === current && edit.changed.refused === wasRefused) return edit;
  return { ...edit, changed: { current, refused: wasRefused } };
}

/** The server refused the save: the message reads `current` (from the refusal, when it said). */
export function refusedAsChanged(edit: QueueEdit, current: string): QueueEdit {
  return observed(edit, current, true);
}

/** The person takes the message's new text, in place of what they typed. */
export function takeCurrent(edit: QueueEdit): QueueEdit {
  const current = edit.changed?.current ?? edit.base;
  return { itemId: edit.itemId, base: current, text: current };
}

/** The person keeps their text: a save then replaces the new text, as they chose. */
export function keepTyped(edit: QueueEdit): QueueEdit {
  const current = edit.changed?.current ?? edit.base;
  return { itemId: edit.itemId, base: current, text: edit.text };
}

/** The current text a `queue_item_changed` refusal names, if it names one. */
export function currentTextOf(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const current = (details as Partial<QueueItemChangedDetails>).current_text;
  return typeof current === 'string' ? current : undefined;
}
