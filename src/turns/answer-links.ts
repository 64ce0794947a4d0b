/**
 * Answering from a notification: single-use links, one per choice of an item
 * that one tap can decide (a consent request, an action request, a bundle of
 * exactly one single-select question), minted for one person.
 *
 * Viewing a link changes nothing. Using it decides through the same service a
 * person uses in the web app (`ClarificationService.respond`,
 * `respondToUserInput`), as the link's user on surface `link`, and only then
 * marks the link spent: a crash in between leaves a link whose next use meets
 * the resolver's first-responder-wins claim (or the registry's settled
 * request) and shows the winner, so nothing is answered twice. Visibility is
 * checked at every view and use, so a person who lost access to the item, or
 * was deleted, holds a link to nothing: unknown, foreign and garbage secrets
 * all read `not_found`.
 *
 * It lives here because `turns/` already holds both deciding services and the
 * store; `notify/` reaches `mintAnswerLinks` through a port, so neither owner
 * imports the other.
 */
import {
  issueAnswerLinks,
  redeemAnswerLink,
  spendAnswerLink,
  type Principal,
  type RedeemedAnswerLink,
} from '../auth/index.js';
import type { BundleView, ClarificationResponse } from '../clarification/index.js';
import type { AnswerLinkChoice } from '../notify/index.js';
import { canSeeSession, getSession, getTask, getUser, type RepoContext } from '../store/index.js';
import { EXHAUSTED, formatTimestamp, withinFreshBudget } from '../support/index.js';
import { ANSWER_LINK_MAX_TTL_MS, CREDENTIAL_LOOKUP_MAX_MS } from '../tunables.js';
import type { ActionDecision, UserInputView } from '../user-input/index.js';
import {
  failure,
  type AnswerLinkView,
  type ConsentOptionKind,
  type Failure,
  type NoticeKind,
  type Responder,
} from '../wire/index.js';
import type { TurnsDeps } from './context.js';
import { respondToUserInput } from './session-reads.js';

export interface AnswerLinkDeps extends Pick<
  TurnsDeps,
  'store' | 'clarification' | 'userInputs' | 'userInputsElsewhere'
> {
  /** Where people reach the web app: `CLARION_PUBLIC_ORIGIN`, else the server's own URL. */
  readonly origin: () => string;
  /** Bound on a link's life when its item has no deadline; `ANSWER_LINK_MAX_TTL_MS` by default. */
  readonly maxTtlMs?: number;
}

/** Viewing and using a link bound its lookup (`viewAnswerLink`, `useAnswerLink`). */
export interface AnswerLinkUseDeps extends AnswerLinkDeps, Pick<TurnsDeps, 'timers'> {}

export interface AnswerLinkRequest {
  readonly userId: string;
  readonly kind: NoticeKind;
  /** A bundle's pending ID or a request's ID, as on the notice. */
  readonly itemId: string;
  /** The outbox row whose notice will carry them: its earlier attempts' links are revoked. */
  readonly deliveryId?: string | undefined;
  /** Whether links may still go, asked in their own transaction (`AnswerLinkGrant.mayIssue`). */
  readonly mayIssue?: ((tx: RepoContext) => Promise<boolean>) | undefined;
}

type LinkKind = 'question' | 'consent' | 'action';

/** What one link answers, stored with it as JSON. */
type LinkAnswer =
  | { readonly kind: 'question'; readonly question_id: string; readonly option_id: string }
  | { readonly kind: 'consent'; readonly option_id: string }
  | { readonly kind: 'action'; readonly decision: ActionDecision };

interface LinkChoice {
  readonly label: string;
  /** A consent option's kind (absent on links minted before it was kept, and for other items). */
  readonly kind?: ConsentOptionKind;
  readonly answer: LinkAnswer;
}

/** An item as its person sees it now. */
interface ItemState {
  readonly kind: LinkKind;
  readonly sessionId: string;
  readonly title: string;
  readonly open: boolean;
  readonly deadlineMs: number | null;
  readonly decided: AnswerLinkView['decided'];
  /** The choices one tap can make; empty when the item needs more than a tap. */
  readonly choices: readonly LinkChoice[];
}

const ACTION_CHOICES: readonly LinkChoice[] = [
  { label: 'Done', answer: { kind: 'action', decision: 'done' } },
  { label: 'Skip', answer: { kind: 'action', decision: 'skip' } },
];

const NS_PER_MS = 1_000_000n;

const NOT_FOUND = failure('not_found', 'answer link not found');

/**
 * One link per choice of an open item the user can see, or none: for another
 * kind, a bundle that needs more than one tap, or an item that is gone,
 * decided or not theirs to see. Each expires with its item's deadline, and
 * at most `maxTtlMs` from now.
 */
export async function mintAnswerLinks(
  deps: AnswerLinkDeps,
  request: AnswerLinkRequest,
): Promise<AnswerLinkChoice[]> {
  if (request.kind !== 'question' && request.kind !== 'consent' && request.kind !== 'action') {
    return [];
  }
  const user = await getUser(deps.store, request.userId);
  if (!user) return [];
  const principal: Principal = {
    kind: 'user',
    userId: user.id,
    name: user.name,
    isAdmin: user.is_admin === 1,
  };
  const item = await readItem(deps, principal, request.kind, request.itemId);
  if (!item?.open || item.choices.length === 0) return [];
  const nowMs = deps.store.clock.nowMs();
  const untilMs = Math.min(
    item.deadlineMs ?? Number.POSITIVE_INFINITY,
    nowMs + (deps.maxTtlMs ?? ANSWER_LINK_MAX_TTL_MS),
  );
  const secrets = await deps.store.transaction((tx) =>
    issueAnswerLinks(tx, {
      userId: user.id,
      sessionId: item.sessionId,
      itemKind: item.kind,
      itemId: request.itemId,
      expiresAt: formatTimestamp(BigInt(Math.trunc(untilMs)) * NS_PER_MS),
      choices: item.choices.map((choice) => JSON.stringify(choice)),
      deliveryId: request.deliveryId,
      mayIssue: request.mayIssue,
    }),
  );
  if (secrets.length === 0) return [];
  const origin = deps.origin().replace(/\/+$/, '');
  // The secret rides in the fragment: browsers never send it, so no log or Referer holds it.
  return item.choices.map((choice, index) => ({
    label: choice.label,
    ...(choice.kind === undefined ? {} : { kind: choice.kind }),
    url: `${origin}/answer#${secrets[index] ?? ''}`,
  }));
}

export type AnswerLinkResult = { ok: true; link: AnswerLinkView } | Failure;

/** What the link would do and where its item stands; changes nothing. */
export async function viewAnswerLink(
  deps: AnswerLinkUseDeps,
  secret: string,
): Promise<AnswerLinkResult> {
  // The link is the request's credential: its lookup has a credential lookup's bound, so a
  // database that does not answer is a 503 to retry, not the statement reply bound's wait.
  const { clock } = deps.store;
  const viewed = await withinFreshBudget(CREDENTIAL_LOOKUP_MAX_MS, clock, deps.timers, async () => {
    const redeemed = await visibleLink(deps, secret);
    return redeemed && (await describe(deps, redeemed));
  });
  if (viewed === EXHAUSTED) return failure('temporarily_unavailable');
  if (!viewed) return NOT_FOUND;
  return { ok: true, link: viewed };
}

/**
 * Decides the link's choice once, as its user on surface `link`, then shows
 * the outcome. A link whose item is already decided (by this link or
 * anywhere else) shows the winner; an expired one says so.
 *
 * The link is this request's credential, so its lookup (the link, its
 * user's access, the item's state) is the request's credential lookup: it
 * has the same bound, and a respond's pre-claim budget counts what it took,
 * as for a bearer token (`DecisionCaller.waitedMs`). One budget for the
 * whole request; past it, a 503 and nothing decided.
 */
export async function useAnswerLink(
  deps: AnswerLinkUseDeps,
  secret: string,
): Promise<AnswerLinkResult> {
  const { clock } = deps.store;
  const started = clock.nowMs();
  const found = await withinFreshBudget(CREDENTIAL_LOOKUP_MAX_MS, clock, deps.timers, async () => {
    const redeemed = await visibleLink(deps, secret);
    return redeemed && { redeemed, before: await describe(deps, redeemed) };
  });
  if (found === EXHAUSTED) return failure('temporarily_unavailable');
  if (!found) return NOT_FOUND;
  const { redeemed, before } = found;
  if (before.state !== 'open' || redeemed.link.used_at !== null) return { ok: true, link: before };
  const decided = await decide(deps, redeemed, clock.nowMs() - started);
  if (!decided.ok) return decided;
  await spendAnswerLink(deps.store, redeemed.link.id);
  return { ok: true, link: await describe(deps, redeemed) };
}

async function decide(
  deps: AnswerLinkUseDeps,
  redeemed: RedeemedAnswerLink,
  waitedMs: number,
): Promise<{ ok: true } | Failure> {
  const caller = { principal: redeemed.principal, surface: 'link' as const };
  const { answer } = parseChoice(redeemed.link.choice);
  const itemId = redeemed.link.item_id;
  if (answer.kind === 'question') {
    const result = await deps.clarification.respond({ ...caller, waitedMs }, itemId, {
      answers: [{ question_id: answer.question_id, selected_options: [answer.option_id] }],
    });
    // Lost to another answer, or closed meanwhile: the view tells which.
    return result.ok || result.code === 'not_active' ? { ok: true } : result;
  }
  const result = await respondToUserInput(
    deps,
    { ...caller, waitedMs },
    itemId,
    answer.kind === 'consent' ? { option_id: answer.option_id } : { decision: answer.decision },
  );
  return result.ok || result.code === 'already_settled' ? { ok: true } : result;
}

/** The link, if its secret is known and its user may still see the item's session. */
async function visibleLink(
  deps: AnswerLinkDeps,
  secret: string,
): Promise<RedeemedAnswerLink | undefined> {
  const redeemed = await redeemAnswerLink(deps.store, secret);
  if (!redeemed) return undefined;
  const visible = await canSeeSession(
    deps.store,
    redeemed.principal,
    redeemed.link.task_session_id,
  );
  return visible ? redeemed : undefined;
}

async function describe(
  deps: AnswerLinkDeps,
  redeemed: RedeemedAnswerLink,
): Promise<AnswerLinkView> {
  const { link, principal } = redeemed;
  const kind = link.item_kind as LinkKind;
  const item = await readItem(deps, principal, kind, link.item_id);
  const session = await getSession(deps.store, link.task_session_id);
  const task = session ? await getTask(deps.store, session.task_id) : undefined;
  const decided = item?.decided ?? null;
  const open = item?.open === true && !redeemed.expired;
  const choice = parseChoice(link.choice);
  const state = decided ? 'answered' : open ? 'open' : 'expired';
  return {
    kind,
    state,
    task_title: task?.title ?? '',
    title: item?.title ?? '',
    agent_profile: session?.agent_profile ?? '',
    choice: choice.label,
    choice_kind: choice.kind ?? kindNow(item, choice.answer) ?? null,
    expires_at: link.expires_at,
    decided,
    // A link that can no longer decide need not tell its holder whose it was.
    answering_as: state === 'open' ? { user_id: principal.userId, name: principal.name } : null,
    url: `${deps.origin().replace(/\/+$/, '')}/sessions/${encodeURIComponent(link.task_session_id)}`,
  };
}

/** A consent option's kind as its request has it now: for links minted before links kept it. */
function kindNow(item: ItemState | undefined, answer: LinkAnswer): ConsentOptionKind | undefined {
  if (answer.kind !== 'consent') return undefined;
  return item?.choices.find(
    (entry) => entry.answer.kind === 'consent' && entry.answer.option_id === answer.option_id,
  )?.kind;
}

async function readItem(
  deps: AnswerLinkDeps,
  principal: Principal,
  kind: LinkKind,
  itemId: string,
): Promise<ItemState | undefined> {
  if (kind === 'question') {
    const found = await deps.clarification.get(principal, itemId);
    return found.ok ? questionItem(found.view) : undefined;
  }
  // Several servers: the request may live in another replica's registry.
  const view = deps.userInputs.get(itemId) ?? (await deps.userInputsElsewhere?.find(itemId))?.view;
  // A form needs its fields filled in: no one-tap link answers it (no form `LinkKind`).
  if (view?.kind !== kind) return undefined;
  if (!(await canSeeSession(deps.store, principal, view.session_id))) return undefined;
  return userInputItem(view);
}

function questionItem(view: BundleView): ItemState {
  const [question, ...others] = view.questions;
  const oneTap = question !== undefined && others.length === 0 && !question.multi_select;
  return {
    kind: 'question',
    sessionId: view.session_id,
    title: question?.prompt ?? '',
    open: view.active && view.response === null,
    deadlineMs: null,
    decided: view.response ? decidedQuestion(view, view.response) : null,
    choices: oneTap
      ? question.options.map((option) => ({
          label: option.label,
          answer: { kind: 'question', question_id: question.id, option_id: option.option_id },
        }))
      : [],
  };
}

function decidedQuestion(
  view: BundleView,
  response: ClarificationResponse,
): NonNullable<AnswerLinkView['decided']> {
  if (response.rejected) {
    return {
      choice: response.reject_reason || 'Skipped',
      choice_kind: null,
      responded_by: response.responded_by,
    };
  }
  const labels = response.answers.flatMap((answer) => {
    const question = view.questions.find((entry) => entry.id === answer.question_id);
    const chosen = answer.selected_options.map(
      (id) => question?.options.find((option) => option.option_id === id)?.label ?? id,
    );
    return answer.custom_text === '' ? chosen : [...chosen, answer.custom_text];
  });
  return { choice: labels.join(', '), choice_kind: null, responded_by: response.responded_by };
}

type LinkableView = Exclude<UserInputView, { kind: 'form' }>;

function userInputItem(view: LinkableView): ItemState {
  const decided = decidedUserInput(view);
  const base = {
    sessionId: view.session_id,
    title: view.title,
    open: view.status === 'awaiting',
    deadlineMs: view.deadline_at === null ? null : Date.parse(view.deadline_at),
    decided,
  };
  if (view.kind === 'action') return { ...base, kind: 'action', choices: ACTION_CHOICES };
  return {
    ...base,
    kind: 'consent',
    choices: view.options.map((option) => ({
      label: option.label,
      kind: option.kind,
      answer: { kind: 'consent', option_id: option.option_id },
    })),
  };
}

function decidedUserInput(view: LinkableView): AnswerLinkView['decided'] {
  const respondedBy: Responder | null = view.responded_by;
  // Settled without a person (timed out, swept, superseded) is no decision: it expired.
  if (view.status === 'awaiting' || respondedBy === null) return null;
  if (view.kind === 'action') {
    const label = ACTION_CHOICES.find(
      (choice) => choice.answer.kind === 'action' && choice.answer.decision === view.decision,
    )?.label;
    return { choice: label ?? view.decision ?? '', choice_kind: null, responded_by: respondedBy };
  }
  const option = view.options.find((entry) => entry.option_id === view.selected_option_id);
  return {
    choice: option?.label ?? view.selected_option_id ?? '',
    choice_kind: option?.kind ?? null,
    responded_by: respondedBy,
  };
}

function parseChoice(text: string): LinkChoice {
  return JSON.parse(text) as LinkChoice;
}
