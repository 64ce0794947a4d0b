/**
 * `/mcp`: Clarion's MCP server over Streamable HTTP (DESIGN §6). Every
 * request authenticates with `Authorization: Bearer` (a user or agent token;
 * the browser cookie is never accepted here, so no page can drive tools) and
 * is then handed to its MCP session's transport with the caller attached.
 * A request with a session ID reaches only a session its own principal
 * opened; anything else reads as an unknown session.
 */
import type { Env, Hono } from 'hono';
import type { TokenHolder } from '../../auth/index.js';
import type { ClarificationService } from '../../clarification/index.js';
import { bearerSecret, CredentialWatch } from '../../auth/index.js';
import {
  MCP_CALL_WITHOUT_PROGRESS_MS,
  MCP_CREDENTIAL_RECHECK_MS,
  MCP_SESSION_SWEEP_INTERVAL_MS,
} from '../../tunables.js';
import { pausePoint, systemTimers, type RepeatingTimers } from '../../support/index.js';
import {
  bearerChallenge,
  errorBodyOf,
  failure,
  MAX_MCP_BODY_BYTES,
  MAX_MCP_CAPABILITIES_DEPTH,
  OUTCOMES,
  type OutcomeEntry,
} from '../../wire/index.js';
import type { Logger } from '../../observability/index.js';
import { randomUUID } from 'node:crypto';
import { isStorageUnavailable, type Store } from '../../store/index.js';
import { sharedMcpSessions } from './shared-sessions.js';
import type { UserInputRegistry } from '../../user-input/index.js';
import { callerAuthInfo, holderKey } from './call-context.js';
import { PROGRESS_INTERVAL_MS } from './progress.js';
import {
  acceptsStreams,
  callsTool,
  capabilitiesNestDeeper,
  initializes,
  readMcpBody,
} from './body.js';
import { requestIdsOf } from './request-ids.js';
import { ANSWER_TOOL } from './tools.js';
import { openMcpSession, type McpSessionHandle, type McpSessionOrigin } from './server.js';
import {
  DEFAULT_MCP_SESSION_LIMITS,
  McpSessions,
  type McpSessionLimits,
  type QuotaScope,
  type SessionEntry,
} from './sessions.js';

export const MCP_PATH = '/mcp';

export interface McpRouteDeps {
  store: Store;
  clarification: ClarificationService;
  /** The bearer resolver of `http/auth.ts` (`createTokenHolderResolver`): external agents too. */
  resolveHolder: (request: Request) => Promise<TokenHolder | undefined>;
  logger: Logger;
  /** Between progress notifications of a waiting call; 20 s unless a test shortens it. */
  progressIntervalMs?: number;
  /** A waiting call's bound when its client sends no progress token; the tunable unless a test shortens it. */
  callWithoutProgressMs?: number;
  /** Enables `request_user_action`. */
  userInputs?: UserInputRegistry;
  /** Session quotas and idle expiry; the tunables unless a test shrinks them. */
  sessionLimits?: Partial<McpSessionLimits>;
  /**
   * Several replicas without sticky routing (issue 16): sessions are kept in
   * the store, and a request for one another replica opened opens it here.
   */
  sharedSessions?: boolean;
  /**
   * Several replicas: a client closed a shared session here (its row is
   * gone); tells the replicas that opened it again to close their copies.
   */
  onSharedSessionEnded?: (sessionId: string) => Promise<void>;
  /** The app's watch on running work's tokens, shared with the events sockets; one of its own if absent. */
  credentials?: CredentialWatch;
  /** Clock and timers of the idle sweep and of the watch on running calls' tokens; the system's unless a test fakes them. */
  nowMs?: () => number;
  timers?: RepeatingTimers;
}

export interface McpEndpoint {
  /** Open MCP sessions, for `/debug/vars` and tests. */
  sessionCount(): number;
  /**
   * One pass of the sweep its timer runs: records the store's uses of shared
   * sessions, prunes those unused too long, closes idle copies here.
   */
  sweep(): Promise<void>;
  /** Closes every session; their waiting calls end and their bundles detach. */
  close(): Promise<void>;
  /** The session's client closed it through another replica: this replica's copy closes too. */
  closeEndedElsewhere(sessionId: string): Promise<boolean>;
  /** A token was revoked or its person removed, here or elsewhere: waiting calls read theirs now. */
  credentialsEnded(): void;
}

/** The catalogue's 401, challenging for a token or naming the one sent as invalid. */
function unauthorized(request: Request): Response {
  return Response.json(errorBodyOf({ code: 'unauthorized' }), {
    status: OUTCOMES.unauthorized.status,
    headers: { 'WWW-Authenticate': bearerChallenge(request.headers.get('authorization')) },
  });
}

function sessionNotFound(): Response {
  // The status and code the SDK uses, so clients know to initialize again.
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}

/**
 * A request without a session ID that is not an `initialize`: the status and
 * code the SDK's transport uses, with what to send instead.
 */
function noSession(): Response {
  const message =
    'Bad Request: no MCP session: send initialize without an Mcp-Session-Id header to open ' +
    'one, then send its Mcp-Session-Id with every other request';
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    { status: 400 },
  );
}

/** An `initialize` refused for its capabilities' nesting, as the SDK answers invalid params. */
function capabilitiesTooDeep(): Response {
  const message =
    `Invalid params: initialize capabilities nest deeper than ${String(MAX_MCP_CAPABILITIES_DEPTH)} ` +
    'levels; no MCP client needs that many';
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32602, message }, id: null },
    { status: 400 },
  );
}

/**
 * What one principal's bound counts (`holderKey`): a person's sessions belong
 * to the person, whichever of their tokens of a kind opened them, so a token
 * never used may find its places taken.
 */
const PRINCIPAL_OF: Record<TokenHolder['kind'], string> = {
  agent: 'this token',
  user: 'the user tokens of this person',
  external_agent: 'the agent tokens of this person',
};

/**
 * A refused `initialize`, as a JSON-RPC error the way the SDK answers over
 * HTTP, with the catalogue's status, code and `Retry-After`.
 */
function quotaExceeded(scope: QuotaScope, limit: number, kind: TokenHolder['kind']): Response {
  const entry: OutcomeEntry = OUTCOMES.quota_exceeded;
  const whose = { principal: PRINCIPAL_OF[kind], user: 'this user', server: 'the server' }[scope];
  const message =
    `too many open MCP sessions for ${whose} (limit ${limit}), and none is idle: each runs a ` +
    'tool call or holds a question waiting for a person, so none is closed for a new one; ' +
    'close one or retry later';
  return Response.json(
    {
      jsonrpc: '2.0',
      error: { code: -32000, message, data: { code: entry.wire, scope, limit } },
      id: null,
    },
    { status: entry.status, headers: { 'Retry-After': String(entry.retryAfterS ?? 60) } },
  );
}

/**
 * A request under the ID of a tool call still running in its session (or of
 * another request in its batch), as a JSON-RPC error for that ID with the
 * catalogue's status and code.
 */
function requestIdInUse(id: string | number): Response {
  const entry: OutcomeEntry = OUTCOMES.request_id_in_use;
  return Response.json(
    {
      jsonrpc: '2.0',
      error: { code: -32600, message: entry.message, data: { code: entry.wire } },
      id,
    },
    { status: entry.status },
  );
}

/**
 * The JSON of a request refused before its body was read; `undefined` when
 * there is none to tell, or it cannot be read (its client left meanwhile).
 */
async function unreadJson(request: Request): Promise<unknown> {
  try {
    const body = await readMcpBody(request, MAX_MCP_BODY_BYTES);
    return body instanceof Response ? undefined : body.json;
  } catch {
    return undefined;
  }
}

interface OpenSession extends SessionEntry {
  readonly handle: McpSessionHandle;
  /** See `SharedSessionUse`. */
  useRecordedMs: number;
}

export function registerMcpRoute<E extends Env>(app: Hono<E>, deps: McpRouteDeps): McpEndpoint {
  const nowMs = deps.nowMs ?? (() => Date.now());
  /** Sessions another replica opened, being opened here, by ID: their other requests wait for that copy. */
  const reopening = new Map<string, Promise<void>>();
  const sessions = new McpSessions<OpenSession>(nowMs, {
    ...DEFAULT_MCP_SESSION_LIMITS,
    ...deps.sessionLimits,
  });
  const shared = deps.sharedSessions
    ? sharedMcpSessions(deps.store, deps.logger, nowMs)
    : undefined;
  const timers = deps.timers ?? systemTimers;
  const credentials =
    deps.credentials ??
    new CredentialWatch({
      store: deps.store,
      timers,
      intervalMs: MCP_CREDENTIAL_RECHECK_MS,
      logger: deps.logger,
    });
  /** Records the uses of sessions open here before any idles out, then closes the idle ones. */
  async function sweep(): Promise<void> {
    if (shared) {
      await shared.recordUse(sessions.open());
      await shared.prune();
    }
    const closed = await sessions.sweep();
    if (closed > 0) deps.logger.info({ closed }, 'idle mcp sessions closed');
  }
  const sweeper = timers.every(MCP_SESSION_SWEEP_INTERVAL_MS, () => {
    sweep().catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'closing idle mcp sessions failed');
    });
  });
  const toolDeps = {
    store: deps.store,
    clarification: deps.clarification,
    logger: deps.logger,
    progressIntervalMs: deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
    callWithoutProgressMs: deps.callWithoutProgressMs ?? MCP_CALL_WITHOUT_PROGRESS_MS,
    credentials,
    ...(deps.userInputs ? { userInputs: deps.userInputs } : {}),
  };

  /** A client's own close of a shared session: gone from the store, then from every replica. */
  async function endShared(sessionId: string): Promise<void> {
    await shared?.forget(sessionId);
    await deps.onSharedSessionEnded?.(sessionId).catch((error: unknown) => {
      deps.logger.warn(
        { err: error, mcpSession: sessionId },
        'other replicas keep their copy of a closed mcp session until it idles',
      );
    });
  }

  /**
   * An `answer_question` call refused before its tool runs, for a storage
   * fault (its credential lookup got no answer in time: a 503), counts as a
   * refused respond, as REST's does (`countRespondsRefusedEarly`); `/mcp` has
   * one path, so the body tells which tool was called. The fault goes on.
   */
  async function refusedBeforeTools(error: unknown, json: () => Promise<unknown>): Promise<never> {
    if (isStorageUnavailable(error) && callsTool(await json(), ANSWER_TOOL)) {
      deps.clarification.refusedEarly(failure('storage_unavailable'));
    }
    throw error;
  }

  /**
   * The transport's own reply to a POST it refuses without a session: one
   * whose body only it judges (another media type, text that is not JSON),
   * or an `initialize` without the Accept it requires. It opens none, so it
   * is served by a session of its own that takes no place and is closed after.
   */
  async function refusedByTransport(
    request: Request,
    handling: Parameters<McpSessionHandle['transport']['handleRequest']>[1],
    openedBy: TokenHolder['kind'],
  ): Promise<Response> {
    const ignored = { onInitialized: () => undefined, onClosed: () => undefined };
    const handle = await openMcpSession(toolDeps, openedBy, ignored, { sessionId: randomUUID() });
    try {
      return await handle.transport.handleRequest(request, handling);
    } finally {
      await handle.close();
    }
  }

  app.all(MCP_PATH, async (c) => {
    const request = c.req.raw;
    const secret = bearerSecret(request.headers.get('authorization'));
    if (typeof secret !== 'string') return unauthorized(request);
    const lookupStarted = deps.store.clock.nowMs();
    const holder = await deps
      .resolveHolder(request)
      .catch((error: unknown) => refusedBeforeTools(error, () => unreadJson(request)));
    if (!holder) return unauthorized(request);
    const owner = holderKey(holder);
    const lookupMs = deps.store.clock.nowMs() - lookupStarted;
    const authInfo = callerAuthInfo(holder, secret, request.signal, lookupMs);
    const body = await readMcpBody(request, MAX_MCP_BODY_BYTES);
    if (body instanceof Response) return body;
    const handling = { authInfo, ...('json' in body ? { parsedBody: body.json } : {}) };

    /** The request handed to the session's copy here. */
    const serve = (entry: OpenSession): Promise<Response> | Response => {
      const ids = requestIdsOf(body.json);
      // Twice in one batch is as bad: the first result closes the stream the second needs.
      const reused = ids.find((id, at) => entry.handle.running(id) || ids.indexOf(id) !== at);
      if (reused !== undefined) return requestIdInUse(reused);
      return entry.handle.transport.handleRequest(body.request, handling);
    };

    const sessionId = request.headers.get('mcp-session-id');
    let resume: McpSessionOrigin | undefined;
    if (sessionId !== null) {
      await reopening.get(sessionId);
      const entry = sessions.lookup(sessionId, owner);
      if (entry) return serve(entry);
      await pausePoint('mcp.before_find');
      resume = await shared
        ?.find(sessionId, owner, request)
        .catch((error: unknown) => refusedBeforeTools(error, () => Promise.resolve(body.json)));
      if (!resume) return sessionNotFound();
      // Another request of the session opened it here while the store was read, or is opening
      // it: one copy serves both. A second would replace the first in `sessions`, and what the
      // first holds (an ask past its call) would outlive the client's close.
      for (;;) {
        const opened = sessions.lookup(sessionId, owner);
        if (opened) return serve(opened);
        const racing = reopening.get(sessionId);
        if (!racing) break;
        await racing;
      }
      // Its client closes it: opening a copy only to close it would take a place, or be refused one.
      if (request.method === 'DELETE') {
        await endShared(sessionId);
        return new Response(null, { status: 200 });
      }
    }

    let reopened: () => void = () => undefined;
    const marker = new Promise<void>((resolve) => {
      reopened = resolve;
    });
    if (resume && sessionId !== null) reopening.set(sessionId, marker);
    /** The copy is open here, or will not be: the requests waiting for it go on. */
    const doneReopening = () => {
      if (sessionId !== null && reopening.get(sessionId) === marker) reopening.delete(sessionId);
      reopened();
    };
    try {
      if (resume) await pausePoint('mcp.before_reopen');
      // No session here yet: an `initialize` opens one, or a session another replica
      // opened is opened again. Anything else is refused before it can take a place.
      const opening = initializes(body.json);
      if (opening && capabilitiesNestDeeper(body.json, MAX_MCP_CAPABILITIES_DEPTH)) {
        return capabilitiesTooDeep();
      }
      if (!resume && !(opening && acceptsStreams(request))) {
        // The transport's own refusal: a body only it judges, an initialize it will not accept.
        if (request.method === 'POST' && (opening || !('json' in body))) {
          return await refusedByTransport(body.request, handling, holder.kind);
        }
        return noSession();
      }
      const admission = await sessions.admit({ owner, user: holder.userId });
      if (!admission.ok) {
        deps.logger.warn(
          { principal: holder.kind, scope: admission.scope, limit: admission.limit },
          'mcp session refused: quota exceeded',
        );
        return quotaExceeded(admission.scope, admission.limit, holder.kind);
      }
      const { slot } = admission;
      const id = sessionId ?? randomUUID();
      /** This request's copy once open: its close removes it, and never a newer copy of its ID. */
      let copy: OpenSession | undefined;
      try {
        // Kept before the client learns the ID, so its next request may go to any replica.
        if (!resume) await shared?.keep(id, owner, body.json);
        const handle = await openMcpSession(
          toolDeps,
          holder.kind,
          {
            onInitialized: (opened, handle) => {
              const openedMs = nowMs();
              copy = {
                id: opened,
                owner,
                user: holder.userId,
                handle,
                lastSeenMs: openedMs,
                // `keep` wrote a new session's use; one opened again here has none known.
                useRecordedMs: resume ? 0 : openedMs,
                inFlight: () => handle.inFlight(),
                held: () => handle.held(),
                heldForTurns: () => handle.heldForTurns(),
                close: () => handle.close(),
              };
              slot.fill(copy);
              deps.logger.info(
                { mcpSession: opened, principal: holder.kind },
                'mcp session opened',
              );
            },
            onClosed: (id) => {
              if (copy) sessions.remove(id, copy);
            },
            onCallEnded: (id) => {
              sessions.touch(id);
            },
            ...(shared ? { onEndedByClient: (ended: string) => void endShared(ended) } : {}),
          },
          { sessionId: id, ...(resume ? { resume } : {}) },
        );
        doneReopening();
        const response = await handle.transport.handleRequest(body.request, handling);
        if (handle.transport.sessionId === undefined) {
          await handle.close();
          if (!resume) await shared?.forget(id);
        }
        return response;
      } finally {
        // A no-op once filled; frees the place of an `initialize` that failed.
        slot.release();
      }
    } finally {
      doneReopening();
    }
  });

  return {
    sessionCount: () => sessions.size,
    sweep,
    close: async () => {
      sweeper.cancel();
      await sessions.closeAll();
      credentials.close();
    },
    closeEndedElsewhere: async (sessionId) => {
      const closed = await sessions.close(sessionId);
      if (closed) deps.logger.info({ mcpSession: sessionId }, 'mcp session closed by its client');
      return closed;
    },
    credentialsEnded: () => {
      credentials.recheck();
    },
  };
}
