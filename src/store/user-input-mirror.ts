/**
 * The registry's requests seen from other replicas (issue 16, PostgreSQL
 * only). The replica whose registry holds a consent, action or form request
 * (its owner) keeps the request's view here while it lives and, once settled,
 * while its registry still remembers it; any replica lists the live ones of
 * live owners. An answer given on another replica is left here for the owner,
 * which applies it through its registry and writes the outcome on the row.
 *
 * Invariants: the owner's registry stays the only authority; a row is a copy
 * of what it published. A row counts only while its owner is the same live
 * incarnation that wrote it (a restarted replica's registry starts empty).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Responder, UserInputView } from '../wire/index.js';
import type { RepoContext } from './context.js';
import { replicaLive, replicaRuns } from './replicas.js';

/** The owner of the mirror row aliased `m` is the incarnation that wrote it, and is `alive` (as `r`). */
function ownerIs(alive: RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM replicas r
    WHERE r.id = m.replica_id AND r.started_at <= m.created_at AND ${alive})`;
}

/** It runs, however late its heartbeat. */
const ownerRuns = (ctx: RepoContext) => ownerIs(replicaRuns(ctx, 'r'));

/** It runs and heartbeats. */
const ownerLive = (ctx: RepoContext, heartbeatAfter: string) =>
  ownerIs(replicaLive(ctx, 'r', heartbeatAfter));

/** Keeps the owner's latest view of a request: a view older than the kept one changes nothing. */
export async function mirrorUserInput(
  ctx: RepoContext,
  input: { replicaId: string; view: UserInputView },
): Promise<void> {
  const { replicaId, view } = input;
  await sql`
    INSERT INTO user_input_requests (id, session_id, replica_id, status, view, created_at)
    VALUES (${view.id}, ${view.session_id}, ${replicaId}, ${view.status},
            ${JSON.stringify(view)}, ${ctx.clock.timestamp()})
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, view = excluded.view
    WHERE user_input_requests.replica_id = excluded.replica_id
      AND (user_input_requests.view::jsonb ->> 'revision')::integer
        <= (excluded.view::jsonb ->> 'revision')::integer`.execute(ctx.db);
}

/** Forgets the owner's settled requests its registry no longer remembers. */
export async function forgetUserInputs(
  ctx: RepoContext,
  replicaId: string,
  keep: (id: string) => boolean,
): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM user_input_requests
    WHERE replica_id = ${replicaId} AND status = 'settled'`.execute(ctx.db);
  const gone = rows.map((row) => row.id).filter((id) => !keep(id));
  if (gone.length === 0) return 0;
  const result = await sql`
    DELETE FROM user_input_requests
    WHERE replica_id = ${replicaId} AND id = ANY(${gone}::text[])`.execute(ctx.db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Deletes rows no running replica can answer for: their owner stopped, died
 * (its lock is gone) or started again since. A late heartbeat alone deletes
 * nothing, so a slow owner's requests come back into lists once it beats.
 */
export async function pruneUserInputMirror(ctx: RepoContext): Promise<void> {
  await sql`DELETE FROM user_input_requests m WHERE NOT ${ownerRuns(ctx)}`.execute(ctx.db);
}

/**
 * The requests other owners still wait on a person for, for notifications:
 * judged by whether their owner runs, not by its heartbeat, since telling a
 * channel "answered" cannot be taken back when a slow owner beats again.
 */
export async function waitingUserInputsElsewhere(
  ctx: RepoContext,
  exclude: string,
): Promise<UserInputView[]> {
  const { rows } = await sql<{ view: string }>`
    SELECT m.view FROM user_input_requests m
    WHERE m.replica_id <> ${exclude} AND m.status = 'awaiting' AND ${ownerRuns(ctx)}
    ORDER BY m.created_at, m.id`.execute(ctx.db);
  return rows.map((row) => JSON.parse(row.view) as UserInputView);
}

/** The live (not settled) requests of live owners other than `exclude`, oldest first. */
export async function mirroredUserInputs(
  ctx: RepoContext,
  input: { exclude: string; heartbeatAfter: string },
): Promise<UserInputView[]> {
  const { rows } = await sql<{ view: string }>`
    SELECT m.view FROM user_input_requests m
    WHERE m.replica_id <> ${input.exclude} AND m.status <> 'settled'
      AND ${ownerLive(ctx, input.heartbeatAfter)}
    ORDER BY m.created_at, m.id`.execute(ctx.db);
  return rows.map((row) => JSON.parse(row.view) as UserInputView);
}

/** The kinds of the session's awaiting requests in other live owners' registries. */
export async function mirroredAwaitingKinds(
  ctx: RepoContext,
  input: { sessionId: string; exclude: string; heartbeatAfter: string },
): Promise<UserInputView['kind'][]> {
  const { rows } = await sql<{ kind: UserInputView['kind'] }>`
    SELECT DISTINCT m.view::jsonb ->> 'kind' AS kind FROM user_input_requests m
    WHERE m.session_id = ${input.sessionId} AND m.status = 'awaiting'
      AND m.replica_id <> ${input.exclude} AND ${ownerLive(ctx, input.heartbeatAfter)}`.execute(
    ctx.db,
  );
  return rows.map((row) => row.kind);
}

/** A request a live owner other than `exclude` holds (settled too), and that owner. */
export async function mirroredUserInput(
  ctx: RepoContext,
  input: { id: string; exclude: string; heartbeatAfter: string },
): Promise<{ view: UserInputView; owner: string } | undefined> {
  const { rows } = await sql<{ view: string; replica_id: string }>`
    SELECT m.view, m.replica_id FROM user_input_requests m
    WHERE m.id = ${input.id} AND m.replica_id <> ${input.exclude}
      AND ${ownerLive(ctx, input.heartbeatAfter)}`.execute(ctx.db);
  const row = rows[0];
  return row ? { view: JSON.parse(row.view) as UserInputView, owner: row.replica_id } : undefined;
}

export interface ForwardedAnswer {
  readonly id: string;
  readonly requestId: string;
  /** A `HumanResponse`, as the responding replica parsed it. */
  readonly answer: unknown;
  readonly responder: Responder;
}

export async function forwardUserInputAnswer(
  ctx: RepoContext,
  input: ForwardedAnswer & { owner: string; origin: string },
): Promise<void> {
  await sql`
    INSERT INTO user_input_answers (id, request_id, owner, origin, answer, responder, created_at)
    VALUES (${input.id}, ${input.requestId}, ${input.owner}, ${input.origin},
            ${JSON.stringify(input.answer)}, ${JSON.stringify(input.responder)},
            ${ctx.clock.timestamp()})`.execute(ctx.db);
}

/** Answers left for `owner` not yet taken, oldest first. */
export async function pendingForwardedAnswers(
  ctx: RepoContext,
  owner: string,
): Promise<ForwardedAnswer[]> {
  const { rows } = await sql<{ id: string; request_id: string; answer: string; responder: string }>`
    SELECT id, request_id, answer, responder FROM user_input_answers
    WHERE owner = ${owner} AND outcome IS NULL AND taken_at IS NULL
    ORDER BY created_at, id`.execute(ctx.db);
  return rows.map((row) => ({
    id: row.id,
    requestId: row.request_id,
    answer: JSON.parse(row.answer) as unknown,
    responder: JSON.parse(row.responder) as Responder,
  }));
}

/**
 * The owner takes an answer before applying it: once taken it can no longer
 * be withdrawn, and no other pass applies it. False when withdrawn or taken.
 */
export async function takeForwardedAnswer(ctx: RepoContext, id: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    UPDATE user_input_answers SET taken_at = ${ctx.clock.timestamp()}
    WHERE id = ${id} AND taken_at IS NULL AND outcome IS NULL
    RETURNING id`.execute(ctx.db);
  return rows.length > 0;
}

/** Writes what applying a taken answer gave. */
export async function settleForwardedAnswer(
  ctx: RepoContext,
  id: string,
  outcome: unknown,
): Promise<void> {
  await sql`
    UPDATE user_input_answers SET outcome = ${JSON.stringify(outcome)}
    WHERE id = ${id}`.execute(ctx.db);
}

export type ForwardedAnswerState =
  | { readonly state: 'waiting' }
  | { readonly state: 'taken' }
  | { readonly state: 'settled'; readonly outcome: unknown }
  | { readonly state: 'gone' };

export async function forwardedAnswerState(
  ctx: RepoContext,
  id: string,
): Promise<ForwardedAnswerState> {
  const { rows } = await sql<{ taken_at: string | null; outcome: string | null }>`
    SELECT taken_at, outcome FROM user_input_answers WHERE id = ${id}`.execute(ctx.db);
  const row = rows[0];
  if (!row) return { state: 'gone' };
  if (row.outcome !== null)
    return { state: 'settled', outcome: JSON.parse(row.outcome) as unknown };
  return row.taken_at === null ? { state: 'waiting' } : { state: 'taken' };
}

/**
 * Takes back an answer the owner has not taken, so a responder that gives up
 * knows nothing changed; false when the owner took it first.
 */
export async function withdrawForwardedAnswer(ctx: RepoContext, id: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    DELETE FROM user_input_answers WHERE id = ${id} AND taken_at IS NULL
    RETURNING id`.execute(ctx.db);
  return rows.length > 0;
}

/** Deletes an answer whose outcome its responder has read. */
export async function dropForwardedAnswer(ctx: RepoContext, id: string): Promise<void> {
  await sql`DELETE FROM user_input_answers WHERE id = ${id}`.execute(ctx.db);
}

/** Deletes answers older than `before`: their responder stopped waiting long ago. */
export async function pruneForwardedAnswers(ctx: RepoContext, before: string): Promise<void> {
  await sql`DELETE FROM user_input_answers WHERE created_at < ${before}`.execute(ctx.db);
}
