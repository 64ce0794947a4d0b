/**
 * The reconcile pass: reads what waits on people now (active bundles from the
 * store, live consent and action requests from the registry's memory), plans
 * the notices owed (`planner.ts`), gives each its payload and writes them to
 * the outbox. Passes run one at a time; a pass asked for while one runs runs
 * once more after it, so no change is missed and none is planned twice at
 * once.
 *
 * Visibility is the inbox's: a bundle is read per person with a channel
 * through the same listing `GET /api/v1/pending` uses; a request reaches the
 * members of its session's workspace. So an item missing from that reading
 * has stopped waiting, has its answer on the way to its agent, or is out of
 * sight of everyone with a channel; the pass asks which of the items its
 * rows name still wait, whoever may see them (active bundles by pending ID,
 * awaiting requests), and which have an answer claimed whose delivery is
 * still pending (it goes back to pending if the agent is not ready for it),
 * so the planner gives up, re-arms and announces `answered` for the right
 * reason, kept on the row with the text a person reads (`GIVE_UP_TEXT`, the
 * send recheck's too).
 */
import type { Principal } from '../auth/index.js';
import { listPendingBundles, MAX_PENDING_PAGE } from '../clarification/index.js';
import {
  activePendingIds,
  anyChannel,
  DEFAULT_NOTICE_SETTINGS,
  deliveredAsksWithoutAnswer,
  deliveringPendingIds,
  giveUpRows,
  insertOutboxRows,
  listAllChannels,
  markAsksAnswered,
  outboxKeysOf,
  owedPrompts,
  promptsInFlight,
  rearmOutboxRows,
  sessionAudiences,
  settingsOfUsers,
  type NewOutboxRow,
  type OutboxKey,
  type RearmedRow,
  type RepoContext,
  type SettledCursor,
} from '../store/index.js';
import { webSessionPath, type ChannelKind, type PendingBundle } from '../wire/index.js';
import type { Notice } from './channel.js';
import type { NotifyLogger } from './outbox.js';
import {
  mayCarryAnswerLinks,
  planNotices,
  RETRACTING_KINDS,
  timestampMs,
  type ExistingNotice,
  type GiveUpReason,
  type PlannedAnswered,
  type PlannedPrompt,
  type WaitingItem,
} from './planner.js';
import { GIVE_UP_TEXT } from './recheck.js';
import { pruneBatch, readPruneBatch, type PruneRequest } from './retention.js';
import { awaitingRequests, type WaitingRequests } from './waiting.js';

export interface ReconcilerDeps {
  readonly store: RepoContext;
  readonly requests: WaitingRequests;
  /** Where the web app is reached: `CLARION_PUBLIC_ORIGIN`, else the server's URL. */
  readonly origin: () => string;
  readonly logger: NotifyLogger;
}

export interface PassReport {
  readonly inserted: number;
  readonly dropped: number;
  /** Given-up rows owed again (the item waits on its person again): due now, like inserted ones. */
  readonly rearmed: number;
  /** Rows pruned, when the pass was asked to prune (`retention.ts`). */
  readonly pruned: number;
  /** Where a full prune batch stopped, for the next to go on from; `null` otherwise. */
  readonly pruneFrom: SettledCursor | null;
}

function existingNotice(row: OutboxKey): ExistingNotice {
  return {
    id: row.id,
    channelId: row.channelId,
    event: row.event,
    occurrence: row.occurrence,
    createdAtMs: timestampMs(row.createdAt),
    deliveredAtMs: row.deliveredAt === null ? null : timestampMs(row.deliveredAt),
    gaveUpFor: row.gaveUpFor,
  };
}

/** Where a notice's link leads: the item's session, opened on the question it names. */
export function itemUrl(
  origin: string,
  item: Pick<WaitingItem, 'kind' | 'sessionId' | 'itemId'>,
): string {
  const pendingId = item.kind === 'question' ? item.itemId : undefined;
  return `${origin.replace(/\/+$/, '')}${webSessionPath(item.sessionId, pendingId)}`;
}

function bundleQuestion(bundle: PendingBundle): string {
  return bundle.questions.map((question) => question.prompt).join('\n');
}

interface Waiting {
  /** What waits on someone with a channel, with who may see it. */
  readonly items: WaitingItem[];
  /** Every request awaiting a person, whoever may see it. */
  readonly requestIds: ReadonlySet<string>;
}

async function waitingItems(deps: ReconcilerDeps, userIds: readonly string[]): Promise<Waiting> {
  const bundles = new Map<string, PendingBundle>();
  for (const userId of userIds) {
    const principal: Principal = { kind: 'user', userId, name: '', isAdmin: false };
    let cursor: string | undefined;
    do {
      const listed = await listPendingBundles(deps.store, principal, {
        cursor,
        limit: MAX_PENDING_PAGE,
      });
      if (!listed.ok) break;
      for (const bundle of listed.page.pending) bundles.set(bundle.pending_id, bundle);
      cursor = listed.page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
  const requests = await awaitingRequests(deps.requests);
  const audiences = await sessionAudiences(deps.store, [
    ...[...bundles.values()].map((bundle) => bundle.session_id),
    ...requests.map((request) => request.session_id),
  ]);

  const items: WaitingItem[] = [];
  for (const bundle of bundles.values()) {
    const audience = audiences.get(bundle.session_id);
    if (!audience) continue;
    const [first] = bundle.questions;
    items.push({
      kind: 'question',
      itemId: bundle.pending_id,
      sessionId: bundle.session_id,
      taskId: bundle.task_id,
      taskTitle: audience.taskTitle,
      question: bundleQuestion(bundle),
      createdAt: bundle.created_at,
      expiresAt: null,
      decidable: bundle.questions.length === 1 && first !== undefined && !first.multi_select,
      userIds: audience.userIds,
    });
  }
  for (const request of requests) {
    const audience = audiences.get(request.session_id);
    if (!audience) continue;
    items.push({
      kind: request.kind,
      itemId: request.id,
      sessionId: request.session_id,
      taskId: request.task_id,
      taskTitle: audience.taskTitle,
      question:
        request.kind === 'action' ? `${request.title}\n${request.instructions}` : request.title,
      createdAt: request.created_at,
      expiresAt: request.deadline_at,
      decidable: true,
      userIds: audience.userIds,
    });
  }
  return { items, requestIds: new Set(requests.map((request) => request.id)) };
}

interface Unlisted {
  /** Still waiting on a person, whoever may see it: a request awaiting one, or an active bundle. */
  readonly waiting: Set<string>;
  /** A bundle whose answer is claimed and not yet handed to its agent (or put back). */
  readonly delivering: Set<string>;
}

/** Of the occurrences the outbox names beyond `items`, those not settled for good. */
async function stillWaiting(
  store: RepoContext,
  waiting: Waiting,
  occurrences: readonly string[],
): Promise<Unlisted> {
  const listed = new Set(waiting.items.map((item) => item.itemId));
  const unlisted = occurrences.filter((occurrence) => !listed.has(occurrence));
  const requests = unlisted.filter((occurrence) => waiting.requestIds.has(occurrence));
  const others = unlisted.filter((occurrence) => !waiting.requestIds.has(occurrence));
  const active = await activePendingIds(store, others);
  return {
    waiting: new Set([...requests, ...active]),
    delivering: await deliveringPendingIds(
      store,
      others.filter((occurrence) => !active.has(occurrence)),
    ),
  };
}

/**
 * What a prompt's outbox row holds. Its answer links are not minted here:
 * a row is kept for days, and a link's secret decides the item as its
 * person; `answerable` says the send may mint them (`outbox.ts`).
 */
function promptPayload(deps: ReconcilerDeps, prompt: PlannedPrompt): Omit<Notice, 'deliveryId'> {
  const { item } = prompt;
  // Without "include the question" a question's notice says no more than the task and the kind.
  const answerable = item.decidable && mayCarryAnswerLinks(item.kind, prompt.content);
  return {
    event: prompt.event,
    kind: item.kind,
    itemId: item.itemId,
    sessionId: item.sessionId,
    taskId: item.taskId,
    taskTitle: item.taskTitle,
    ...(prompt.content.includeQuestion ? { question: item.question } : {}),
    url: itemUrl(deps.origin(), item),
    createdAt: item.createdAt,
    expiresAt: item.expiresAt,
    ...(answerable ? { answerable } : {}),
  };
}

/** `answered` repeats what the channel was told, without links that no longer decide anything. */
function answeredPayload(askedPayload: string): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    ...(JSON.parse(askedPayload) as Record<string, unknown>),
    event: 'answered',
  };
  delete payload.answerable;
  delete payload.answerLinks;
  delete payload.expiresAt;
  return payload;
}

/**
 * The planned `answered` notices but those whose channel a prompt of the
 * item is still on its way to: with several servers, another one's lane may
 * be sending its reminder right now. Sent first, `answered` would close the
 * notice that reminder then shows again, for good. The ask stays to follow
 * up, and a pass after that send settled (or its lease ran out) writes it.
 */
async function notSending(
  store: RepoContext,
  answered: readonly PlannedAnswered[],
): Promise<PlannedAnswered[]> {
  if (answered.length === 0) return [];
  const sending = new Set(
    (await promptsInFlight(store, answered, store.clock.nowMs())).map(
      (ask) => `${ask.channelId}\u0000${ask.occurrence}`,
    ),
  );
  return answered.filter((each) => !sending.has(`${each.channelId}\u0000${each.occurrence}`));
}

/** One pass: plan what is owed now and write it; then prune, if asked to. */
export async function reconcileOnce(
  deps: ReconcilerDeps,
  prune?: PruneRequest,
): Promise<PassReport> {
  const { store } = deps;
  // No channel, no outbox row: they go with their channel.
  if (!(await anyChannel(store))) {
    return { inserted: 0, dropped: 0, rearmed: 0, pruned: 0, pruneFrom: null };
  }
  const channels = await listAllChannels(store);
  const userIds = [...new Set(channels.map((channel) => channel.user_id))];
  const waiting = await waitingItems(deps, userIds);
  const { items } = waiting;
  const [settings, existing, deliveredAsks, owed] = [
    await settingsOfUsers(store, userIds),
    await outboxKeysOf(
      store,
      items.map((item) => item.itemId),
    ),
    await deliveredAsksWithoutAnswer(store, RETRACTING_KINDS),
    await owedPrompts(store),
  ];
  const batch = prune ? await readPruneBatch(store, prune) : undefined;
  // One reading of what still waits, for the plan and the prune alike.
  const named = [...owed, ...deliveredAsks, ...(batch?.rows ?? [])].map((row) => row.occurrence);
  const waitingNow = await stillWaiting(store, waiting, named);
  const plan = planNotices({
    items,
    channels: channels.map((channel) => ({
      id: channel.id,
      userId: channel.user_id,
      kind: channel.kind as ChannelKind,
    })),
    settings,
    defaults: DEFAULT_NOTICE_SETTINGS,
    existing: existing.map(existingNotice),
    deliveredAsks,
    owed,
    stillWaiting: waitingNow.waiting,
    delivering: waitingNow.delivering,
    nowMs: store.clock.nowMs(),
  });

  const rows: NewOutboxRow[] = [];
  const rearms: RearmedRow[] = [];
  for (const prompt of plan.prompts) {
    const payload = promptPayload(deps, prompt);
    if (prompt.rearms !== null) {
      rearms.push({ id: prompt.rearms, payload });
      continue;
    }
    rows.push({
      channelId: prompt.channelId,
      userId: prompt.userId,
      event: prompt.event,
      occurrence: prompt.item.itemId,
      payload,
    });
  }
  for (const answered of await notSending(store, plan.answered)) {
    rows.push({
      channelId: answered.channelId,
      userId: answered.userId,
      event: 'answered',
      occurrence: answered.occurrence,
      payload: answeredPayload(answered.askedPayload),
    });
  }
  // Dropped first: a prompt for an item that stopped waiting must not go out after its `answered`.
  for (const reason of Object.keys(GIVE_UP_TEXT) as GiveUpReason[]) {
    const ids = plan.drop.filter((drop) => drop.reason === reason).map((drop) => drop.id);
    const { error, code } = GIVE_UP_TEXT[reason];
    if (ids.length > 0) await giveUpRows(store, ids, reason, error, code);
  }
  const rearmed = await rearmOutboxRows(store, rearms);
  const inserted = await insertOutboxRows(store, rows);
  // Only once the `answered` rows are written: a crash between leaves them to say it.
  await markAsksAnswered(
    store,
    rows
      .filter((row) => row.event === 'answered')
      .map((row) => ({ channelId: row.channelId, occurrence: row.occurrence })),
  );
  const pruned = batch
    ? await pruneBatch(
        store,
        batch,
        new Set([
          ...items.map((item) => item.itemId),
          ...waitingNow.waiting,
          ...waitingNow.delivering,
        ]),
      )
    : 0;
  return {
    inserted,
    dropped: plan.drop.length,
    rearmed,
    pruned,
    pruneFrom: batch?.next ?? null,
  };
}
