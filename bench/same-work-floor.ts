/**
 * The same-work floor: a minimal `node:http` server on better-sqlite3 doing
 * exactly the durable steps of the respond contract (DESIGN §5.1) and
 * nothing else, so that Clarion against it measures Clarion's overhead, not
 * the contract's. Benchmark 3 only; not used by the product.
 *
 * Per `POST /api/v1/clarification/:pendingId/respond`, all through prepared
 * statements:
 *
 * 1. Token lookup: the bearer secret hashed as Clarion hashes it
 *    (`hashSecret`: SHA-256, hex), the live token row read by hash and joined
 *    to its user (the query of `findLiveToken`). Unknown: 401.
 * 2. Visibility read: the bundle's rows by pending ID, through the ordered
 *    partial index on (pending-ID expression, `created_at`, `id`), then the
 *    sessions → tasks → workspace_members join of `canSeeSession`. No rows, or
 *    not a member: 404, the same either way.
 * 3. The claim with its delivery intent, in one transaction: one
 *    `UPDATE … SET metadata = json_set(status, response, reject_reason,
 *    responded_at, response_delivery_pending = true), updated_at … WHERE
 *    pending ID = ? AND status pending RETURNING`, committed.
 * 4. The hand-off, in a second transaction: the intent removed from the
 *    claimed rows (`json_remove`) and the session's revision bumped,
 *    committed. Then the 200 body of the contract,
 *    `{claimed, status, response: {pending_id, answers, rejected,
 *    reject_reason, responded_at}}`, answers in question order, options
 *    deduplicated and text trimmed.
 *
 * Ten statements per claimed respond: the token, the rows, the visibility
 * join, BEGIN, the claim, COMMIT, BEGIN, the intent, the revision, COMMIT.
 * (Clarion runs twelve: these, plus in its hand-off transaction the
 * session's move to `running` and a read of the session's still-pending
 * rows for its events' `pending_action`.)
 *
 * A loser (the claim updated no row) mirrors Clarion's resolver: it reads the
 * bundle again and answers 200 with `claimed: false` and the winner's
 * response, or 409 `not_active` when no row was answered or rejected.
 *
 * It does not: validate the answers against the questions (option IDs, one
 * answer per question, text length), check the claim's other guards that
 * Clarion's claim carries (row type, current turn, live session, well-formed
 * bundle), run a budget, hold or wake a live waiter, move the session's
 * state, stage or publish events, record metrics or logs, route through a
 * framework, or checkpoint the WAL in a worker thread (SQLite's own
 * threshold checkpoints on the request path here). Its schema is its own and tiny; the pragmas are Clarion's
 * SQLite pragmas (`src/store/open.ts`: WAL, synchronous=NORMAL,
 * foreign_keys, busy_timeout), and the unrelated history is the bare floor's
 * (`floor-server.ts`): the same count, one row in a hundred a finished
 * question of another bundle.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { hashSecret } from '../src/auth/tokens.js';
import { closeFloorServer } from './floor-server.js';

export interface SameWorkFloor {
  readonly url: string;
  /** Pending IDs of bundles not yet claimed, one per request to come. */
  readonly pendingIds: string[];
  /** For tests: a bundle's rows as stored, oldest first, and its session's revision. */
  inspect(pendingId: string): { rows: StoredRow[]; revision: number | undefined };
  /** For tests: `EXPLAIN QUERY PLAN` of the visibility read and of the claim. */
  plans(): { bundleRows: string[]; claim: string[] };
  close(): Promise<void>;
}

export interface StoredRow {
  id: string;
  sessionId: string;
  metadata: Record<string, unknown>;
}

export interface SameWorkFloorOptions {
  /** Unrelated messages, as the bare floor seeds them. */
  unrelated: number;
  /** One-question bundles to seed, each pending. */
  pending: number;
  /** Sessions the bundles are spread over, all in the token holder's workspace. */
  sessions: number;
  /** The bearer secret of the workspace member (the benchmark's admin token). */
  token: string;
  /** A secret of a user who belongs to no workspace: sees nothing (for tests). */
  outsiderToken?: string;
}

const PENDING = "json_extract(metadata, '$.pending_id')";
const ROUTE = /^\/api\/v1\/clarification\/([^/]+)\/respond$/;
/** `auth/tokens.ts`: longer secrets are refused before hashing. */
const MAX_SECRET_LENGTH = 512;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const WORKSPACE = 'ws-bench';

/** The visibility read: the bundle's rows, oldest first, through the ordered partial index. */
const BUNDLE_ROWS = `SELECT id, session_id, metadata FROM messages
  WHERE ${PENDING} = ? ORDER BY created_at, id`;
/** The claim with its delivery intent; `@answers -> question_id` picks each row's own answer. */
const CLAIM = `UPDATE messages SET
    metadata = json_set(metadata,
      '$.status', @status,
      '$.response', json(COALESCE(@answers -> json_extract(metadata, '$.question_id'), 'null')),
      '$.reject_reason', @reason,
      '$.responded_at', @at,
      '$.response_delivery_pending', json('true')),
    updated_at = @at
  WHERE ${PENDING} = @pendingId AND COALESCE(json_extract(metadata, '$.status'), 'pending') = 'pending'
  RETURNING id, session_id, metadata`;

interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

interface Body {
  answers?: { question_id?: unknown; selected_options?: unknown; custom_text?: unknown }[];
  rejected?: boolean;
  reject_reason?: string;
}

interface RowOut {
  id: string;
  session_id: string;
  metadata: string;
}

export async function startSameWorkFloor(options: SameWorkFloorOptions): Promise<SameWorkFloor> {
  const dir = await mkdtemp(join(tmpdir(), 'clarion-bench-same-work-'));
  const db = new BetterSqlite3(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE users (id TEXT PRIMARY KEY, is_admin INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE api_tokens (
      id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id), kind TEXT NOT NULL,
      token_hash TEXT NOT NULL UNIQUE, task_session_id TEXT, expires_at TEXT, used_at TEXT);
    CREATE TABLE workspace_members (
      workspace_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users (id),
      PRIMARY KEY (workspace_id, user_id));
    CREATE TABLE tasks (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL);
    CREATE TABLE task_sessions (
      id TEXT PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks (id),
      revision INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL);
    CREATE TABLE messages (
      id TEXT PRIMARY KEY, session_id TEXT NOT NULL, metadata TEXT NOT NULL,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE INDEX idx_same_work_pending_ordered ON messages (${PENDING}, created_at, id)
      WHERE ${PENDING} IS NOT NULL;
  `);
  const pendingIds = seed(db, options);

  const findToken = db.prepare<[string, string], { user_id: string; is_admin: number }>(
    `SELECT t.id, t.kind, t.user_id, t.task_session_id, u.is_admin
     FROM api_tokens t JOIN users u ON u.id = t.user_id
     WHERE t.token_hash = ? AND t.kind IN ('user', 'agent') AND t.used_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > ?)`,
  );
  const bundleRows = db.prepare<[string], RowOut>(BUNDLE_ROWS);
  const canSee = db.prepare<[string, string], { id: string }>(
    `SELECT s.id FROM task_sessions s
     JOIN tasks t ON t.id = s.task_id
     JOIN workspace_members wm ON wm.workspace_id = t.workspace_id
     WHERE s.id = ? AND wm.user_id = ?`,
  );
  const claim = db.prepare<
    [{ answers: string; status: string; reason: string; at: string; pendingId: string }],
    RowOut
  >(CLAIM);
  const clearIntent = db.prepare<[{ at: string; ids: string }], { id: string }>(
    `UPDATE messages SET metadata = json_remove(metadata, '$.response_delivery_pending'),
       updated_at = @at
     WHERE id IN (SELECT value FROM json_each(@ids))
       AND json_extract(metadata, '$.response_delivery_pending') = 1
     RETURNING id`,
  );
  const bumpRevision = db.prepare<[{ at: string; sessionId: string }], { revision: number }>(
    `UPDATE task_sessions SET revision = revision + 1, updated_at = @at WHERE id = @sessionId
     RETURNING revision`,
  );
  const revisionOf = db.prepare<[string], { revision: number }>(
    'SELECT revision FROM task_sessions WHERE id = ?',
  );
  const claimTx = db.transaction(
    (answers: string, status: string, reason: string, at: string, pendingId: string) =>
      claim.all({ answers, status, reason, at, pendingId }),
  );
  const handOffTx = db.transaction((ids: string, sessionId: string, at: string) => {
    clearIntent.all({ at, ids });
    bumpRevision.get({ at, sessionId });
  });

  const respond = (req: IncomingMessage, res: ServerResponse, pendingId: string, raw: string) => {
    const secret = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const now = new Date().toISOString();
    const token =
      secret !== undefined && secret.length <= MAX_SECRET_LENGTH
        ? findToken.get(hashSecret(secret), now)
        : undefined;
    if (!token) {
      reply(res, 401, { error: 'authentication required', code: 'unauthorized' });
      return;
    }
    const body = JSON.parse(raw) as Body;

    const rows = bundleRows.all(pendingId);
    const first = rows[0];
    if (!first || !canSee.get(first.session_id, token.user_id)) {
      reply(res, 404, { error: 'clarification request not found', code: 'not_found' });
      return;
    }

    const rejected = body.rejected === true;
    const status = rejected ? 'rejected' : 'answered';
    const answers = rejected ? [] : normalize(body.answers ?? []);
    const byQuestion = Object.fromEntries(answers.map((answer) => [answer.question_id, answer]));
    const reason = rejected ? (body.reject_reason ?? '').trim() : '';
    const claimed = claimTx(JSON.stringify(byQuestion), status, reason, now, pendingId);
    if (claimed.length === 0) {
      replayWinner(res, pendingId);
      return;
    }

    handOffTx(JSON.stringify(claimed.map((row) => row.id)), first.session_id, now);
    const ordered = questionOrder(rows, answers);
    reply(res, 200, {
      claimed: true,
      status,
      response: {
        pending_id: pendingId,
        answers: ordered,
        rejected,
        reject_reason: reason,
        responded_at: now,
      },
    });
  };

  const replayWinner = (res: ServerResponse, pendingId: string) => {
    const rows = bundleRows.all(pendingId).map((row) => JSON.parse(row.metadata) as Metadata);
    const decided = rows.find((m) => m.status === 'answered' || m.status === 'rejected');
    if (!decided) {
      reply(res, 409, {
        error: 'clarification request is no longer active',
        code: 'not_active',
      });
      return;
    }
    const rejected = decided.status === 'rejected';
    reply(res, 200, {
      claimed: false,
      status: decided.status,
      response: {
        pending_id: pendingId,
        answers: rejected
          ? []
          : rows.flatMap((m) => (m.status === 'answered' && m.response ? [m.response] : [])),
        rejected,
        reject_reason: rejected ? (decided.reject_reason ?? '') : '',
        responded_at: decided.responded_at ?? '',
      },
    });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const pendingId = req.method === 'POST' ? ROUTE.exec(req.url ?? '')?.[1] : undefined;
        if (pendingId === undefined) {
          res.writeHead(404).end();
          return;
        }
        respond(req, res, pendingId, Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        reply(res, 500, { error: String(error), code: 'internal' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pendingIds,
    inspect(pendingId) {
      const rows = bundleRows.all(pendingId).map((row) => ({
        id: row.id,
        sessionId: row.session_id,
        metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      }));
      const session = rows[0]?.sessionId;
      return {
        rows,
        revision: session === undefined ? undefined : revisionOf.get(session)?.revision,
      };
    },
    plans() {
      const plan = (sql: string, ...params: unknown[]) =>
        db
          .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((row) => row.detail);
      const at = new Date().toISOString();
      return {
        bundleRows: plan(BUNDLE_ROWS, 'x'),
        claim: plan(CLAIM, { answers: '{}', status: 'answered', reason: '', at, pendingId: 'x' }),
      };
    },
    close: () => closeFloorServer(server, db, dir),
  };
}

interface Metadata {
  status?: string;
  question_id?: string;
  response?: Answer;
  reject_reason?: string;
  responded_at?: string;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The contract's normalization: options deduplicated, text trimmed. */
function normalize(answers: NonNullable<Body['answers']>): Answer[] {
  return answers.map((answer) => ({
    question_id: String(answer.question_id),
    selected_options: Array.isArray(answer.selected_options)
      ? [...new Set(answer.selected_options.filter((o): o is string => typeof o === 'string'))]
      : [],
    custom_text: typeof answer.custom_text === 'string' ? answer.custom_text.trim() : '',
  }));
}

/** Answers in the bundle's question order (its rows are read oldest first). */
function questionOrder(rows: readonly RowOut[], answers: readonly Answer[]): Answer[] {
  if (rows.length === 1) return [...answers];
  const position = new Map(
    rows.map((row, index) => [(JSON.parse(row.metadata) as Metadata).question_id, index]),
  );
  return [...answers].sort(
    (a, b) => (position.get(a.question_id) ?? 0) - (position.get(b.question_id) ?? 0),
  );
}

/**
 * One admin, member of one workspace; `sessions` sessions of one task each in
 * that workspace; one one-question bundle per pending ID, round-robin over
 * the sessions; the unrelated history of the bare floor.
 */
function seed(db: BetterSqlite3.Database, options: SameWorkFloorOptions): string[] {
  const user = db.prepare('INSERT INTO users VALUES (?, ?)');
  const token = db.prepare('INSERT INTO api_tokens VALUES (?, ?, ?, ?, NULL, NULL, NULL)');
  const member = db.prepare('INSERT INTO workspace_members VALUES (?, ?)');
  const task = db.prepare('INSERT INTO tasks VALUES (?, ?)');
  const session = db.prepare('INSERT INTO task_sessions VALUES (?, ?, 0, ?)');
  const message = db.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, ?)');
  const pendingIds: string[] = [];
  db.transaction(() => {
    user.run('u-admin', 1);
    token.run('t-admin', 'u-admin', 'user', hashSecret(options.token));
    member.run(WORKSPACE, 'u-admin');
    if (options.outsiderToken !== undefined) {
      user.run('u-outsider', 0);
      token.run('t-outsider', 'u-outsider', 'user', hashSecret(options.outsiderToken));
    }
    for (let i = 0; i < options.sessions; i++) {
      task.run(`task-${i}`, WORKSPACE);
      session.run(`session-${i}`, `task-${i}`, stamp(0));
    }
    for (let i = 0; i < options.unrelated; i++) {
      const metadata =
        i % 100 === 0
          ? { pending_id: `unrelated-${i}`, question_id: 'q1', status: 'answered' }
          : { streamed: true };
      message.run(`u-${i}`, `s-${i % 100}`, JSON.stringify(metadata), stamp(i), stamp(i));
    }
    for (let i = 0; i < options.pending; i++) {
      const pendingId = `same-work-${i}`;
      const metadata = { pending_id: pendingId, question_id: 'q1', status: 'pending' };
      const sessionId = `session-${i % options.sessions}`;
      message.run(`p-${i}`, sessionId, JSON.stringify(metadata), stamp(i), stamp(i));
      pendingIds.push(pendingId);
    }
  })();
  return pendingIds;
}

function stamp(i: number): string {
  return `2020-01-01T00:00:00.${String(i).padStart(9, '0')}Z`;
}
