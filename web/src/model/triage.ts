/**
 * The inbox as a triage list (issue 15): everything waiting for a person,
 * one item each, in the order a person should take them: what expires first,
 * then what has waited longest. Pure and framework-free; the inbox, the
 * session view's "Next waiting item" and the favicon badge read the same list.
 */
import { activeBundles, type BundleState, type ModelState } from './read-model.js';
import type { ConsentView } from './types.js';
import { waitingRequests, type UserInputEntry, type UserInputsState } from './user-inputs.js';

/**
 * What a person is asked for, in the decision log's words (its `consent` is a
 * permission here): questions (one or several in one ask), a permission, an
 * action, a form. One name for one thing, so the Decisions page's Kind
 * filter finds what the inbox called it.
 */
export type TriageKind = 'question' | 'form' | 'permission' | 'action';

interface ItemBase {
  /** The pending ID or the request ID: unique across the list. */
  key: string;
  kind: TriageKind;
  session_id: string;
  task_id: string;
  task_title: string;
  /** The session's agent profile, `''` while unknown. */
  agent: string;
  /** Whose agent asks (the task's `created_by`); `null` while unknown or never kept. */
  owner: string | null;
  created_at: string;
  /** When nobody answering means the agent is refused; `null` for no deadline. */
  deadline_at: string | null;
}

export type TriageItem =
  | (ItemBase & { source: 'bundle'; bundle: BundleState })
  | (ItemBase & { source: 'user_input'; entry: UserInputEntry });

function bundleItem(state: ModelState, bundle: BundleState): TriageItem {
  return {
    key: bundle.pending_id,
    kind: 'question',
    session_id: bundle.session_id,
    task_id: bundle.task_id,
    task_title: state.tasks[bundle.task_id]?.title ?? '',
    agent: state.sessions[bundle.session_id]?.agent_profile ?? '',
    owner: state.tasks[bundle.task_id]?.created_by ?? null,
    created_at: bundle.created_at,
    deadline_at: null,
    source: 'bundle',
    bundle,
  };
}

function requestItem(state: ModelState, entry: UserInputEntry): TriageItem {
  const { view } = entry;
  return {
    key: view.id,
    kind: view.kind === 'consent' ? 'permission' : view.kind,
    session_id: view.session_id,
    task_id: view.task_id,
    task_title: state.tasks[view.task_id]?.title ?? '',
    agent: state.sessions[view.session_id]?.agent_profile ?? '',
    owner: state.tasks[view.task_id]?.created_by ?? null,
    created_at: view.created_at,
    deadline_at: view.deadline_at,
    source: 'user_input',
    entry,
  };
}

/** Expiring first (soonest deadline first), then the longest waiting; ties by key. */
export function triageOrder(a: TriageItem, b: TriageItem): number {
  if (a.deadline_at !== null && b.deadline_at !== null && a.deadline_at !== b.deadline_at) {
    return a.deadline_at < b.deadline_at ? -1 : 1;
  }
  if ((a.deadline_at === null) !== (b.deadline_at === null)) return a.deadline_at === null ? 1 : -1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Everything waiting for the person now, in triage order. */
export function triageItems(state: ModelState, requests: UserInputsState): TriageItem[] {
  return [
    ...activeBundles(state).map((bundle) => bundleItem(state, bundle)),
    ...waitingRequests(requests).map((entry) => requestItem(state, entry)),
  ].sort(triageOrder);
}

/** The first waiting item outside `sessionId`: where "Next waiting item" leads. */
export function nextWaitingItem(
  items: readonly TriageItem[],
  sessionId: string,
): TriageItem | undefined {
  return items.find((item) => item.session_id !== sessionId);
}

/**
 * Consents a person may decide together: the same tool for the same agent
 * profile, so "allow" means the same thing for each of them.
 */
export function bulkGroupOf(item: TriageItem): string | undefined {
  if (item.source !== 'user_input' || item.entry.view.kind !== 'consent') return undefined;
  return `${item.agent}\u0000${item.entry.view.tool_key}`;
}

/** The option a bulk "allow" or "reject" picks on one consent: its once-only option of that kind. */
export function bulkOptionOf(view: ConsentView, choice: 'allow' | 'reject'): string | undefined {
  const wanted = choice === 'allow' ? 'allow_once' : 'reject_once';
  return view.options.find((option) => option.kind === wanted)?.option_id;
}
