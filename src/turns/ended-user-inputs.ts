/**
 * The agent requests (consent, action, form) that ended with the registry
 * holding them: a restart, or on PostgreSQL the death of the replica that ran
 * the agent. The registry keeps them in memory only; the copy the publisher
 * keeps in the store while one waits (`store/open-user-inputs.ts`) is what
 * recovery reads, at start-up and at a takeover.
 *
 * For each, one session write leaves a transcript note (so a person reading
 * the session knows the agent asked and that it ended unanswered) and a
 * `user_input.settled` event (so a tab open on any replica drops the card).
 * Invariant: at most once per request, however often recovery runs: the
 * write takes (deletes) the copy, under the session's lock, and writes only
 * when it took it.
 */
import type { SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  appendMessage,
  currentTurn,
  openUserInputsIn,
  takeOpenUserInput,
  type SessionScope,
  type Store,
} from '../store/index.js';
import { USER_INPUT_ENDED_TYPE, type UserInputView } from '../wire/index.js';

/** Why the registry holding the requests is gone. */
export type RegistryLoss = 'restart' | 'replica_gone';

const NOUNS: Record<UserInputView['kind'], string> = {
  consent: 'permission request',
  action: 'request',
  form: 'form',
};

const CAUSES: Record<RegistryLoss, string> = {
  restart: 'the server restarted',
  replica_gone: 'the server holding it stopped',
};

export function endedNoteText(view: UserInputView, loss: RegistryLoss): string {
  return `The agent's ${NOUNS[view.kind]} "${view.title}" ended unanswered: ${CAUSES[loss]}.`;
}

/** The request as its registry would have settled it, one revision on. */
function endedView(view: UserInputView): UserInputView {
  return {
    ...view,
    status: 'settled',
    settled_reason: 'swept',
    deadline_at: null,
    revision: view.revision + 1,
  };
}

export interface EndedUserInputsDeps {
  readonly store: Store;
  readonly sessions: SessionWriter;
  readonly logger: Logger;
}

/**
 * Ends the requests left waiting in `scope`'s sessions, but those `held`
 * names (a registry here holds them: an agent this replica started since).
 * Returns how many it ended.
 */
export async function endOrphanedUserInputs(
  deps: EndedUserInputsDeps,
  scope: SessionScope,
  loss: RegistryLoss,
  held: (requestId: string) => boolean = () => false,
): Promise<number> {
  let ended = 0;
  for (const open of await openUserInputsIn(deps.store, scope)) {
    if (held(open.id)) continue;
    const wrote = await deps.sessions.write(open.session_id, async (write) => {
      const view = await takeOpenUserInput(write.tx, open.id);
      if (!view) return false;
      const turn = await currentTurn(write.tx, view.session_id);
      if (turn) {
        write.added(
          await appendMessage(write.tx, {
            sessionId: view.session_id,
            taskId: view.task_id,
            turnId: turn.id,
            authorType: 'system',
            type: USER_INPUT_ENDED_TYPE,
            content: endedNoteText(view, loss),
            metadata: { request_id: view.id, kind: view.kind, title: view.title },
          }),
        );
      }
      write.requestEnded(endedView(view));
      return true;
    });
    if (wrote) ended += 1;
  }
  if (ended > 0) deps.logger.info({ requests: ended, loss }, 'ended requests left unanswered');
  return ended;
}
