/**
 * Which waiting items are news to this page, for the arrivals live region.
 * Judged by what the page has seen, never by clocks: an item the page's first
 * read of its list named already waited when the page opened (the inbox lists
 * it); one that came later (through a live event, or a read after a
 * reconnect) arrived while the page was open. Comparing a server timestamp
 * with the browser's clock told old requests as new, or missed new ones, on
 * a machine whose clock is off. Pure.
 */
import type { TriageItem } from './triage.js';

/** The first reads' IDs (`firstRead` of each model); undefined until that read is applied. */
export interface FirstReads {
  bundles: Readonly<Record<string, true>> | undefined;
  requests: Readonly<Record<string, true>> | undefined;
}

/**
 * The items to tell now, in list order: not told before, not named by their
 * list's first read, and with their task's title known (an item waits until
 * then). Until a list's first read is applied nothing of it is told: it
 * cannot yet say what waited before; an item that came by an event in that
 * moment and that the read then names counts as having waited.
 */
export function arrivals(
  items: readonly TriageItem[],
  firstReads: FirstReads,
  told: ReadonlySet<string>,
): TriageItem[] {
  return items.filter((item) => {
    const firstRead = item.source === 'bundle' ? firstReads.bundles : firstReads.requests;
    return (
      firstRead !== undefined &&
      firstRead[item.key] !== true &&
      !told.has(item.key) &&
      item.task_title !== ''
    );
  });
}
