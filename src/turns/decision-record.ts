/**
 * A person's decision on a consent, action or form request, kept in the
 * transcript. The registry holds requests in memory only (DESIGN §7), so
 * without this row a reload or a restart would lose what was decided and by
 * whom. The row is written once, before the answer takes effect (the
 * registry's `recordDecision` port): a consent or form settles with it; an
 * action is only armed or due by it, and settles later, when its follow-up
 * went out or was swept, no longer by the person. A remembered "always"
 * answers at once and its row follows: the rule already names who set it.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import {
  currentTurn,
  forgetOpenUserInput,
  getSession,
  keepDecidedUserInput,
  supersedeUnkeptDecisions,
  undecideUserInput,
  type RepoContext,
} from '../store/index.js';
import type { SessionWrite, SessionWriter, WriteOptions } from '../events/index.js';
import type { UserInputView } from '../user-input/index.js';
import {
  CONSENT_OPTION_KIND_WORDS,
  saysOnly,
  USER_INPUT_DECISION_TYPE,
  type ConsentOption,
  type Responder,
} from '../wire/index.js';
import { appendMessage } from '../store/index.js';

export interface DecisionRecord {
  /** A plain-text line for readers without the web app (the API, logs). */
  content: string;
  metadata: {
    user_input_request_id: string;
    kind: UserInputView['kind'];
    title: string;
    responded_by: Responder;
    option_id?: string;
    option_label?: string;
    option_kind?: string;
    /** An earlier "always" answered (`remembered`). */
    remembered?: boolean;
    /**
     * A consent's "Always allow" rule behind this decision: `set` by this
     * choice (an `allow_always` a person chose), or `applied` from earlier.
     */
    always_rule?: AlwaysRule;
    decision?: 'done' | 'skip' | 'accept' | 'decline';
    /** The person's own words with a Reject or a Skip. */
    reason?: string;
  };
}

/** The row for a view a person decided; `undefined` for any other view. Pure. */
export function decisionRecordOf(view: UserInputView): DecisionRecord | undefined {
  if (!view.responded_by || !decidedByPerson(view)) return undefined;
  const base = {
    user_input_request_id: view.id,
    kind: view.kind,
    title: view.title,
    responded_by: view.responded_by,
  };
  const who = view.responded_by.name;
  if (view.kind === 'consent') {
    const option = view.options.find((entry) => entry.option_id === view.selected_option_id);
    if (!option) return undefined;
    const rule = alwaysRuleOf(option.kind, view.remembered);
    const how =
      rule === 'applied'
        ? ' (remembered "always")'
        : rule === 'set'
          ? ' and set an "Always allow" rule'
          : '';
    return {
      content: `${who} chose ${chosen(option)}${how}: ${view.title}${because(view.reason)}`,
      metadata: {
        ...base,
        option_id: option.option_id,
        option_label: option.label,
        option_kind: option.kind,
        remembered: view.remembered,
        ...(rule === undefined ? {} : { always_rule: rule }),
        ...words(view.reason),
      },
    };
  }
  if (view.decision === null) return undefined;
  if (view.kind === 'form') {
    // The values went to the agent; the transcript says only that they did.
    const how = view.decision === 'accept' ? 'sent' : 'declined';
    return {
      content: `${who} ${how} the form "${view.title}"`,
      metadata: { ...base, decision: view.decision },
    };
  }
  const how = view.decision === 'done' ? 'done' : 'skipped';
  return {
    content: `${who} marked "${view.title}" ${how}${because(view.reason)}`,
    metadata: { ...base, decision: view.decision, ...words(view.reason) },
  };
}

export type AlwaysRule = 'set' | 'applied';

/**
 * The "Always allow" rule behind a consent decision: an earlier one that
 * answered it, or the one a person's `allow_always` sets (the registry keeps
 * one for every such choice). Pure.
 */
export function alwaysRuleOf(kind: unknown, remembered: boolean): AlwaysRule | undefined {
  if (remembered) return 'applied';
  return kind === 'allow_always' ? 'set' : undefined;
}

/** What the option does in Clarion's words; the agent's label beside it when it says more. */
function chosen(option: ConsentOption): string {
  const words = CONSENT_OPTION_KIND_WORDS[option.kind];
  return saysOnly(option.kind, option.label)
    ? `"${words}"`
    : `"${words}" (agent's label: "${option.label}")`;
}

function because(reason: string | null): string {
  return reason === null ? '' : `. Reason: ${reason}`;
}

function words(reason: string | null): { reason?: string } {
  return reason === null ? {} : { reason };
}

/**
 * An action, and a Reject with a reason, are decided once armed: they settle
 * later, when the follow-up went out or was swept, no longer by the person.
 */
function decidedByPerson(view: UserInputView): boolean {
  if (view.status === 'settled') return view.settled_reason === 'human';
  return view.status !== 'awaiting' && view.kind !== 'form';
}

/**
 * What a decision row of `view`'s request becomes when its answer was refused
 * though the row was kept: it names the request, not a decision (no option,
 * no responder), so no reader takes it for one. Pure.
 */
export function unkeptRecordOf(view: UserInputView): {
  content: string;
  metadata: { user_input_request_id: string; kind: UserInputView['kind']; title: string };
} {
  return {
    content: `An answer to "${view.title}" was not recorded in time and did not count`,
    metadata: { user_input_request_id: view.id, kind: view.kind, title: view.title },
  };
}

/**
 * Appends the decision row to the request's session, in the session's current
 * turn, in place of any row an earlier refused answer's commit kept all the
 * same (`supersedeUnkeptDecisions`; its watchers hear it is no decision).
 * `appended` hears the row's ID before the commit, so a caller whose commit
 * reply was lost can read whether it was kept, and a caller that gave up on
 * the write can supersede the row if it was.
 *
 * The same write replaces the request's waiting copy (`open-user-inputs.ts`)
 * with the decided one, so no crash leaves a decided request looking
 * unanswered; that copy lasts until the turn ends, and a crash before then
 * leaves recovery to say the agent may not have received the decision.
 */
export async function recordDecision(
  sessions: SessionWriter,
  view: UserInputView,
  record: DecisionRecord,
  options: WriteOptions = {},
  appended: (rowId: string) => void = () => undefined,
  /** More the decision's transaction keeps: a person's "always" rule, all or nothing with it. */
  alsoKeep?: (tx: RepoContext) => Promise<void>,
): Promise<void> {
  await sessions.write(
    view.session_id,
    async (write) => {
      const turn = await currentTurn(write.tx, view.session_id);
      // A session without turns has had no agent to ask anything; nothing to keep.
      if (!turn) {
        await forgetOpenUserInput(write.tx, view.id);
        return;
      }
      const unkept = await supersedeUnkeptDecisions(
        write.tx,
        { sessionId: view.session_id, requestId: view.id },
        unkeptRecordOf(view),
      );
      write.updated(...unkept);
      const row = await appendMessage(write.tx, {
        sessionId: view.session_id,
        taskId: view.task_id,
        turnId: turn.id,
        authorType: 'user',
        type: USER_INPUT_DECISION_TYPE,
        content: record.content,
        metadata: record.metadata,
      });
      write.added(row);
      await alsoKeep?.(write.tx);
      await keepDecided(write, view, turn.id, turn.completed_at !== null);
      appended(row.id);
      // Its caller gave up waiting (`signal`): rolled back, not kept for an answer it refused.
      options.signal?.throwIfAborted();
    },
    options,
  );
}

/**
 * The decided copy, kept until its turn ends. An external agent is not
 * Clarion's child: it neither dies with the server nor ends its one turn
 * here, so its copy goes with the decision. A turn that already ended (its
 * agent died while the decision was being kept; the session's lock ordered
 * its end first) has forgotten its decisions and never ends again: a copy
 * kept now would make a restart, however much later, doubt a decision no
 * agent was left to hear. An action that outlived its turn is the exception:
 * its decision goes to the agent as a follow-up (`due`), held in memory
 * until a session that can take it does (a failed one waits for its
 * restart); its copy stays until the follow-up settles, so a restart before
 * then says the agent may not have received it.
 */
async function keepDecided(
  write: SessionWrite,
  view: UserInputView,
  turnId: string,
  turnEnded: boolean,
) {
  const owedAsFollowUp = view.status === 'due';
  if ((turnEnded && !owedAsFollowUp) || (await runsExternally(write.tx, view.session_id))) {
    await forgetOpenUserInput(write.tx, view.id);
  } else {
    await keepDecidedUserInput(write.tx, view, turnId);
  }
}

async function runsExternally(tx: RepoContext, sessionId: string): Promise<boolean> {
  return (await getSession(tx, sessionId))?.agent_profile === EXTERNAL_AGENT_PROFILE;
}

/**
 * Supersedes the one decision row `rowId` of a refused answer, if its write
 * kept it after all, as one session write: the row stops being a decision
 * and watchers hear so (`message.updated`). A row the next answer's write
 * already superseded, or that was never kept, changes nothing and publishes
 * nothing. The session's lock orders this after the refused write's own
 * transaction, so a commit still under way is seen, not missed.
 */
export async function supersedeRefusedDecision(
  sessions: SessionWriter,
  view: UserInputView,
  rowId: string,
  options: WriteOptions = {},
): Promise<number> {
  return sessions.write(
    view.session_id,
    async (write) => {
      const unkept = await supersedeUnkeptDecisions(
        write.tx,
        { sessionId: view.session_id, requestId: view.id, rowId },
        unkeptRecordOf(view),
      );
      write.updated(...unkept);
      // The request waits on in its registry: a restart says it ended unanswered.
      if (unkept.length > 0) await undecideUserInput(write.tx, view.id);
      return unkept.length;
    },
    options,
  );
}
