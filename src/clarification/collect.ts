/**
 * A decision an external agent collects by retrying its call. Claude Code
 * over HTTP whose `ask_user_question` was cut (the person pressed Esc, the
 * client timed out) never learned the pending ID; the person then decides
 * in the inbox, and the model calls again with the same questions. DESIGN
 * §5: "an identical retry of the same call in the same session reuses the
 * bundle"; a bundle already decided hands that decision over rather than
 * asking the person a second time. Only while it is uncollected and the
 * session's newest question (`uncollected-answers.ts`): an identical ask
 * after the agent read the decision, or after it asked anything else, is a
 * new question.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import type { SessionWriter } from '../events/index.js';
import {
  collectableRetry,
  markCollected,
  messagesByPendingId,
  type RepoContext,
  type SessionRecord,
} from '../store/index.js';
import { readBundle, winnerResponse } from './bundle.js';
import type { ClarificationResponse } from './outcome.js';

export interface Collected {
  pendingId: string;
  response: ClarificationResponse;
}

/** Within the ask's session write: the decision this ask, a retry, collects; marked collected. */
export async function collectRetried(
  tx: RepoContext,
  session: SessionRecord,
  fingerprint: string,
): Promise<Collected | undefined> {
  if (session.agent_profile !== EXTERNAL_AGENT_PROFILE) return undefined;
  const pendingId = await collectableRetry(tx, session.id, fingerprint);
  if (pendingId === undefined) return undefined;
  const read = readBundle(pendingId, await messagesByPendingId(tx, pendingId));
  const response = read.ok ? winnerResponse(read.bundle) : undefined;
  if (!response) return undefined;
  await markCollected(tx, pendingId);
  return { pendingId, response };
}

/** Its asker read the decision of `pendingId` (`wait_for_answer`): an identical ask is new from now on. */
export function collectedByAsker(
  sessions: SessionWriter,
  sessionId: string,
  pendingId: string,
): Promise<void> {
  return sessions.write(sessionId, (write) => markCollected(write.tx, pendingId));
}
