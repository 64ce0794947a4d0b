/**
 * The inbox listing: every active bundle a principal can see, oldest first,
 * in keyset pages. Owns the wire shape shared by REST `GET /api/v1/pending`
 * and the MCP tool `list_pending_questions`, and the opaque cursor
 * (base64url of `<created_at>|<pending_id>`). Users see the sessions of their
 * workspaces; an agent token sees only its own session (DESIGN §8).
 */
import type { Principal } from '../auth/index.js';
import { activeBundlePage, type PendingCursor, type RepoContext } from '../store/index.js';
import {
  DEFAULT_PENDING_PAGE,
  MAX_CURSOR_CHARS,
  MAX_PENDING_ID_CHARS,
  MAX_PENDING_PAGE,
  failure,
  textProblem,
  type Failure,
  type PendingBundle,
  type PendingPage,
} from '../wire/index.js';
import { readBundle } from './bundle.js';
import type { Issue } from './outcome.js';

export { DEFAULT_PENDING_PAGE, MAX_PENDING_PAGE };
export type { PendingBundle, PendingPage, PendingQuestion } from '../wire/index.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

export type PendingListResult = { ok: true; page: PendingPage } | Failure<'invalid_request'>;

export interface PendingListOptions {
  cursor?: string | undefined;
  limit?: number | undefined;
}

export function encodePendingCursor(cursor: PendingCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.pendingId}`, 'utf8').toString('base64url');
}

/** The position a cursor names; `undefined` for anything this module did not write. */
export function decodePendingCursor(text: string): PendingCursor | undefined {
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) {
    return undefined;
  }
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  // Node's decoder skips junk; a cursor must round-trip exactly to be ours.
  if (Buffer.from(decoded, 'utf8').toString('base64url') !== text) return undefined;
  const separator = decoded.indexOf('|');
  if (separator < 0) return undefined;
  const createdAt = decoded.slice(0, separator);
  const pendingId = decoded.slice(separator + 1);
  if (!TIMESTAMP.test(createdAt)) return undefined;
  if (pendingId.length === 0 || pendingId.length > MAX_PENDING_ID_CHARS) return undefined;
  // Clarion never writes NUL into a cursor, and PostgreSQL would refuse it as a parameter.
  if (textProblem(pendingId) !== undefined) return undefined;
  return { createdAt, pendingId };
}

/** One page of the principal's active bundles. */
export async function listPendingBundles(
  ctx: RepoContext,
  principal: Principal,
  options: PendingListOptions = {},
): Promise<PendingListResult> {
  const limit = options.limit ?? DEFAULT_PENDING_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PENDING_PAGE) {
    const issue: Issue = {
      path: 'limit',
      message: `must be an integer from 1 to ${MAX_PENDING_PAGE}`,
    };
    return failure('invalid_request', 'invalid listing request', [issue]);
  }
  const after = options.cursor === undefined ? undefined : decodePendingCursor(options.cursor);
  if (options.cursor !== undefined && !after) {
    // Worded as every other list refuses a cursor (http/task-routes.ts), so a client reads one refusal.
    const issue: Issue = { path: 'cursor', message: 'is not a cursor from this API' };
    return failure('invalid_request', 'invalid cursor', [issue]);
  }

  const scope =
    principal.kind === 'agent'
      ? ({ kind: 'session', sessionId: principal.sessionId } as const)
      : ({ kind: 'user', userId: principal.userId } as const);
  const page = await activeBundlePage(ctx, scope, { after, limit });
  const pending: PendingBundle[] = [];
  for (const head of page.bundles) {
    const read = readBundle(head.pendingId, head.rows);
    // A malformed bundle is never answerable (bundle.ts), so the inbox leaves it out.
    if (!read.ok) continue;
    const { bundle } = read;
    pending.push({
      pending_id: bundle.pendingId,
      task_id: bundle.taskId,
      session_id: bundle.sessionId,
      turn_id: bundle.turnId,
      created_at: head.createdAt,
      context: bundle.context,
      detached: bundle.rows.some((row) => row.detached),
      questions: bundle.questions.map((question, index) => ({
        question_id: question.id,
        title: question.title,
        prompt: question.prompt,
        multi_select: question.multi_select,
        status: bundle.rows[index]?.status ?? 'pending',
        options: question.options.map((option) => ({
          option_id: option.option_id,
          label: option.label,
          description: option.description,
        })),
      })),
    });
  }
  return {
    ok: true,
    page: { pending, next_cursor: page.next ? encodePendingCursor(page.next) : null },
  };
}
