/**
 * The floor: a bare `node:http` server doing only the indexed claim on
 * better-sqlite3, for comparison with Clarion's respond; not used by the
 * product. Its own tiny schema, the same ordered partial index on the same
 * expression, the same pragmas as Clarion's SQLite (WAL, synchronous=NORMAL),
 * and one `UPDATE … RETURNING` per request. It parses the same JSON body so
 * the two servers read the same bytes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export interface FloorServer {
  readonly url: string;
  /** Pending IDs of rows not yet claimed, one per request to come. */
  readonly pendingIds: string[];
  close(): Promise<void>;
}

const PENDING = "json_extract(metadata, '$.pending_id')";
const ROUTE = /^\/api\/v1\/clarification\/([^/]+)\/respond$/;

export async function startFloorServer(options: {
  unrelated: number;
  pending: number;
}): Promise<FloorServer> {
  const dir = await mkdtemp(join(tmpdir(), 'clarion-bench-floor-'));
  const db = new BetterSqlite3(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, metadata TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
  db.exec(
    `CREATE INDEX idx_floor_pending_ordered ON messages (${PENDING}, created_at, id) WHERE ${PENDING} IS NOT NULL`,
  );
  const insert = db.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, ?)');
  const pendingIds: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < options.unrelated; i++) {
      const metadata =
        i % 100 === 0
          ? { pending_id: `unrelated-${i}`, question_id: 'q1', status: 'answered' }
          : { streamed: true };
      insert.run(`u-${i}`, `s-${i % 100}`, JSON.stringify(metadata), stamp(i), stamp(i));
    }
    for (let i = 0; i < options.pending; i++) {
      const pendingId = `floor-${i}`;
      const metadata = { pending_id: pendingId, question_id: 'q1', status: 'pending' };
      insert.run(`p-${i}`, 'floor-session', JSON.stringify(metadata), stamp(i), stamp(i));
      pendingIds.push(pendingId);
    }
  })();
  const claim = db.prepare(`UPDATE messages
    SET metadata = json_set(metadata, '$.status', 'answered', '$.response', json(?)), updated_at = ?
    WHERE ${PENDING} = ? AND COALESCE(json_extract(metadata, '$.status'), 'pending') = 'pending'
    RETURNING id, metadata`);

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const match = req.method === 'POST' ? ROUTE.exec(req.url ?? '') : null;
    if (!match?.[1]) {
      res.writeHead(404).end();
      return;
    }
    const answer = JSON.parse(body) as unknown;
    const rows = claim.all(JSON.stringify(answer), new Date().toISOString(), match[1]);
    const status = rows.length > 0 ? 200 : 409;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ claimed: rows.length > 0, rows }));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pendingIds,
    close: () => closeFloorServer(server, db, dir),
  };
}

function stamp(i: number): string {
  return `2020-01-01T00:00:00.${String(i).padStart(9, '0')}Z`;
}

/** Stops a floor server: its sockets, its database, its directory. */
export async function closeFloorServer(
  server: Server,
  db: BetterSqlite3.Database,
  dir: string,
): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
  db.close();
  await rm(dir, { recursive: true, force: true });
}
