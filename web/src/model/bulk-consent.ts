/**
 * Deciding several consent requests of one kind at once: the client sends the
 * ordinary respond call for each, one after another, with each request's own
 * once-only option (a Reject with the one reason given for all, or none), and
 * reports what became of each. No bulk route: every
 * request settles by the same first-wins rule as a single answer, and a
 * failure of one leaves the others decided.
 */
import type { ApiClient } from './api.js';
import type { Timers } from './respond.js';
import { bulkOptionOf } from './triage.js';
import type { ConsentView } from './types.js';
import { postUserInputAnswer, type UserInputRespondOutcome } from './user-input-respond.js';

export type BulkChoice = 'allow' | 'reject';

export type BulkItemOutcome = UserInputRespondOutcome | { kind: 'no_option' };

export interface BulkItemResult {
  view: ConsentView;
  outcome: BulkItemOutcome;
}

export async function decideAll(
  api: Pick<ApiClient, 'respondUserInput'>,
  views: readonly ConsentView[],
  choice: BulkChoice,
  options: {
    /** With a Reject: the person's words, sent with each request's reject. */
    reason?: string;
    deadlineMs?: number;
    timers?: Timers;
    /** Called after each request, so the model can take each answer as it lands. */
    onEach?: (result: BulkItemResult) => void;
  } = {},
): Promise<BulkItemResult[]> {
  const results: BulkItemResult[] = [];
  const words = choice === 'reject' && options.reason ? { reason: options.reason } : {};
  for (const view of views) {
    const optionId = bulkOptionOf(view, choice);
    const outcome: BulkItemOutcome =
      optionId === undefined
        ? { kind: 'no_option' }
        : await postUserInputAnswer(
            api,
            view.id,
            { option_id: optionId, ...words },
            {
              ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
              ...(options.timers ? { timers: options.timers } : {}),
            },
          );
    const result = { view, outcome };
    options.onEach?.(result);
    results.push(result);
  }
  return results;
}
