/**
 * The agent requests (consent, action, form) that ended with the registry
 * holding them: a restart, or on PostgreSQL the death of the replica that ran
 * the agent. The registry keeps them in memory only; the copy kept in the
 * store while one waits, and from a person's decision on it until the turn
 * it was made in ended (`store/open-user-inputs.ts`), is what recovery reads,
 * at start-up and at a takeover.
 *
 * For each, one session write leaves a transcript note and, for a request a
 * tab may still show, a `user_input.settled` event (so a tab open on any
 * replica drops the card). A waiting copy's note says the request ended
 * unanswered. A decided copy's says the decision was recorded but the agent's
 * turn never finished after it, so the agent may not have received it: the
 * agent died with its server, and nothing else says whether its answer got
 * there first. Neither claims more. The note's metadata names the request
 * and the `loss`, so the web app words it in the reader's language.
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
  type NewMessage,
  type SessionScope,
  type Store,
} from '../store/index.js';
import {
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
  type UserInputLoss,
  type UserInputNote,
  type UserInputView,
} from '../wire/index.js';

/** Why the registry holding the requests is gone. */
export type RegistryLoss = Exclude<UserInputLoss, 'agent_exited' | 'stopped'>;

const NOUNS: Record<UserInputView['kind'], string> = {
  consent: 'permission request',
  action: 'request',
  form: 'form',
};

const CAUSES: Record<UserInputLoss, string> = {
  restart: 'the server restarted',
  replica_gone: 'the server holding it stopped',
  agent_exited: 'the agent stopped',
  stopped: 'its turn was stopped',
};

export function endedNoteText(
  view: Pick<UserInputView, 'kind' | 'title'>,
  loss: UserInputLoss,
): string {
  return `The agent's ${NOUNS[view.kind]} "${view.title}" ended unanswered: ${CAUSES[loss]}.`;
}

const UNFINISHED: Record<RegistryLoss, string> = {
  restart: 'the server restarted',
  replica_gone: 'the server running the agent stopped',
};

export function unconfirmedNoteText(view: UserInputView, loss: RegistryLoss): string {
  return (
    `The decision on the agent's ${NOUNS[view.kind]} "${view.title}" was recorded, ` +
    `but ${UNFINISHED[loss]} before the agent's turn finished, so the agent may not have received it.`
  );
}

/**
 * The note that `view` ended unanswered, in the write that ends `turnId`:
 * recovery's for a lost registry, a turn's end for an agent that exited or
 * for a person's Stop.
 */
export function endedNote(view: UserInputView, turnId: string, loss: UserInputLoss): NewMessage {
  const metadata: UserInputNote = { request_id: view.id, kind: view.kind, title: view.title, loss };
  return {
    sessionId: view.session_id,
    taskId: view.task_id,
    turnId,
    authorType: 'system',
    type: USER_INPUT_ENDED_TYPE,
    content: endedNoteText(view, loss),
    metadata: { ...metadata },
  };
}

/** The request settled because the server holding it stopped, one revision on. */
function endedView(view: UserInputView): UserInputView {
  return {
    ...view,
    status: 'settled',
    settled_reason: 'server_stopped',
    deadline_at: null,
    revision: view.revision + 1,
  };
}

/**
 * The registry's `noteEnded` port: the note that a request no turn's end
 * named ended unanswered because its agent stopped, in its session's latest
 * turn. A write that fails is logged: the request ended all the same.
 */
export function agentGoneNoter(
  sessions: SessionWriter,
  logger: Logger,
): (ended: UserInputView) => void {
  return (ended) => {
    void sessions
      .write(ended.session_id, async (write) => {
        const turn = await currentTurn(write.tx, ended.session_id);
        if (!turn) return;
        write.added(await appendMessage(write.tx, endedNote(ended, turn.id, 'agent_exited')));
      })
      .catch((error: unknown) => {
        logger.warn(
          { err: error, request_id: ended.id, session_id: ended.session_id },
          'a request its agent left could not be noted in the transcript',
        );
      });
  };
}

export interface EndedUserInputsDeps {
  readonly store: Store;
  readonly sessions: SessionWriter;
  readonly logger: Logger;
}

/**
 * Ends the requests left in `scope`'s sessions, but those `held` names (a
 * registry here holds them: an agent this replica started since). Returns
 * how many it ended.
 */
export async function endOrphanedUserInputs(
  deps: EndedUserInputsDeps,
  scope: SessionScope,
  loss: RegistryLoss,
  held: (requestId: string) => boolean = () => false,
): Promise<number> {
  let ended = 0;
  let unconfirmed = 0;
  for (const open of await openUserInputsIn(deps.store, scope)) {
    if (held(open.id)) continue;
    const wrote = await deps.sessions.write(open.session_id, async (write) => {
      const taken = await takeOpenUserInput(write.tx, open.id);
      if (!taken) return undefined;
      const { view, decidedTurnId } = taken;
      const turnId = decidedTurnId ?? (await currentTurn(write.tx, view.session_id))?.id;
      if (turnId !== undefined) {
        const metadata: UserInputNote = {
          request_id: view.id,
          kind: view.kind,
          title: view.title,
          loss,
        };
        write.added(
          await appendMessage(write.tx, {
            sessionId: view.session_id,
            taskId: view.task_id,
            turnId,
            authorType: 'system',
            type: decidedTurnId ? USER_INPUT_DECISION_UNCONFIRMED_TYPE : USER_INPUT_ENDED_TYPE,
            content: decidedTurnId ? unconfirmedNoteText(view, loss) : endedNoteText(view, loss),
            metadata: { ...metadata },
          }),
        );
      }
      // A decided request that settled is off every tab already; any other one is not.
      if (!decidedTurnId || view.status !== 'settled') write.requestEnded(endedView(view));
      return decidedTurnId ? 'unconfirmed' : 'ended';
    });
    if (wrote === 'ended') ended += 1;
    if (wrote === 'unconfirmed') unconfirmed += 1;
  }
  if (ended > 0 || unconfirmed > 0) {
    deps.logger.info(
      { requests: ended, decisions_unconfirmed: unconfirmed, loss },
      'ended requests left unanswered or undelivered',
    );
  }
  return ended + unconfirmed;
}
