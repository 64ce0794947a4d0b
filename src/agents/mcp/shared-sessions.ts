/**
 * MCP sessions every replica serves (issue 16: several servers behind a
 * balancer that does not stick). A new session's client, as its
 * `initialize` names it, is kept in the store before the session ID reaches
 * the client, so its next request may land anywhere; a replica that gets a
 * request for a session it does not have opens it again from that row
 * (`openMcpSession`'s `resume`), as does this server after its own idle
 * close or a restart. The client's own close ends a shared session; a
 * replica's idle close or shutdown leaves it to the others, and one its
 * client stopped using without a close goes once unused for
 * `MCP_SHARED_SESSION_UNUSED_MS`. Uses are written by the sweep, at most once
 * per `MCP_SHARED_SESSION_USE_RECORD_MS` a session, never on a call.
 */
import {
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SHARED_SESSION_UNUSED_MS, MCP_SHARED_SESSION_USE_RECORD_MS } from '../../tunables.js';
import type { Logger } from '../../observability/index.js';
import {
  findMcpSession,
  forgetMcpSession,
  pruneMcpSessions,
  recordMcpSession,
  recordMcpSessionsUse,
  timestampAtMs,
  type Store,
} from '../../store/index.js';
import { storableJson, storableText } from '../../wire/index.js';
import type { McpSessionOrigin } from './server.js';

/** A session open here, as the sweep sees it: when it was last used, and last recorded so. */
export interface SharedSessionUse {
  readonly id: string;
  readonly lastSeenMs: number;
  /** When its use was last written to the store; 0 when unknown (opened again here). */
  useRecordedMs: number;
}

export interface SharedMcpSessions {
  /** The session as another replica's `initialize` opened it, for `owner` only. */
  find(sessionId: string, owner: string, request: Request): Promise<McpSessionOrigin | undefined>;
  /** Keeps the client an `initialize` body (its parsed JSON) names, under the ID its session will get. */
  keep(sessionId: string, owner: string, initialize: unknown): Promise<void>;
  /** The client closed it, or its `initialize` failed. */
  forget(sessionId: string): Promise<void>;
  /** Writes the use of the sessions among `open` used since their use was last written, if due. */
  recordUse(open: Iterable<SharedSessionUse>): Promise<void>;
  /** Drops sessions unused past the bound (clients that never closed theirs). */
  prune(): Promise<void>;
}

export function sharedMcpSessions(
  store: Store,
  logger: Logger,
  nowMs: () => number,
): SharedMcpSessions {
  return {
    async find(sessionId, owner, request) {
      const record = await findMcpSession(store, sessionId, owner);
      if (!record) return undefined;
      return {
        clientInfo: { name: record.client_name, version: record.client_version },
        capabilities: JSON.parse(record.capabilities) as Record<string, unknown>,
        protocolVersion: request.headers.get('mcp-protocol-version') ?? LATEST_PROTOCOL_VERSION,
      };
    },
    async keep(sessionId, owner, initialize) {
      // Anything but one well-formed `initialize` opens no session: nothing to keep.
      const parsed = InitializeRequestSchema.safeParse(initialize);
      if (!parsed.success) return;
      const { clientInfo, capabilities } = parsed.data.params;
      // The client's own words, made storable as its task title is (a NUL cannot be kept).
      const now = timestampAtMs(nowMs());
      await recordMcpSession(store, {
        id: sessionId,
        owner,
        client_name: storableText(clientInfo.name),
        client_version: storableText(clientInfo.version),
        capabilities: JSON.stringify(storableJson(capabilities)),
        created_at: now,
        last_used_at: now,
      });
    },
    async forget(sessionId) {
      try {
        await forgetMcpSession(store, sessionId);
      } catch (error) {
        logger.warn({ err: error, mcpSession: sessionId }, 'a closed mcp session stays shared');
      }
    },
    async recordUse(open) {
      const due = [...open].filter(
        (session) => session.lastSeenMs - session.useRecordedMs >= MCP_SHARED_SESSION_USE_RECORD_MS,
      );
      if (due.length === 0) return;
      const atMs = nowMs();
      try {
        await recordMcpSessionsUse(
          store,
          due.map((session) => session.id),
          timestampAtMs(atMs),
        );
        for (const session of due) session.useRecordedMs = atMs;
      } catch (error) {
        logger.warn({ err: error }, 'recording mcp sessions in use failed; the next sweep tries');
      }
    },
    async prune() {
      try {
        await pruneMcpSessions(store, timestampAtMs(nowMs() - MCP_SHARED_SESSION_UNUSED_MS));
      } catch (error) {
        logger.warn({ err: error }, 'pruning shared mcp sessions failed');
      }
    },
  };
}
