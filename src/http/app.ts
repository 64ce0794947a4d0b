/**
 * The HTTP application, built apart from `listen` so routes can be exercised
 * with `app.request()` in tests. Order matters: Hono runs handlers in
 * registration order, so access control is mounted before any `/api/v1` route.
 */
import { Hono, type Context } from 'hono';
import type { upgradeWebSocket } from '@hono/node-server';
import { registerMcpRoute, type McpEndpoint } from '../agents/mcp/index.js';
import { AccountService, CredentialWatch } from '../auth/index.js';
import type { ClarificationService } from '../clarification/index.js';
import { consentRuleService, endSessionsActedFor, type TurnsDeps } from '../turns/index.js';
import type { EventHub } from '../events/index.js';
import type { NotificationService } from '../notify/index.js';
import type { ClarionMetrics } from '../observability/index.js';
import type { Logger } from '../observability/index.js';
import type { Store } from '../store/index.js';
import { BUILT_WEB_APP, builtPath, systemTimers } from '../support/index.js';
import { MCP_CREDENTIAL_RECHECK_MS } from '../tunables.js';
import { registerAccountRoutes } from './admin-routes.js';
import { mountBearerChallenge } from './bearer-challenge.js';
import { registerAnswerLinkRoutes } from './answer-link-routes.js';
import {
  createPrincipalResolver,
  createTokenHolderResolver,
  mountApiAccess,
  requestCredential,
} from './auth.js';
import { countRespondsRefusedEarly, registerClarificationRoutes } from './clarification-routes.js';
import { registerConsentRuleRoutes } from './consent-rule-routes.js';
import type { AppEnv } from './env.js';
import { handleUnexpectedErrors } from './errors.js';
import { registerEventsRoute } from './events-route.js';
import { registerHealthRoute, type ReplicaHealth } from './health-route.js';
import { registerTaskRoutes } from './task-routes.js';
import { registerUserInputRoutes } from './user-input-routes.js';
import { registerNotificationRoutes } from './notification-routes.js';
import { registerWebApp } from './web-app.js';
import { registerObservabilityRoutes } from './observability-routes.js';
import { createHostGuard } from './exposure.js';
import { registerOpenApiRoute } from './openapi.js';

export interface AppDeps {
  readonly store: Store;
  readonly clarification: ClarificationService;
  readonly turns: TurnsDeps;
  readonly hub: EventHub;
  readonly notifications: NotificationService;
  readonly metrics: ClarionMetrics;
  readonly logger: Logger;
  readonly upgradeWebSocket: typeof upgradeWebSocket;
  /** The built web app; defaults to `dist/web` next to the compiled server. */
  readonly webRoot?: string;
  /** The server's own URL, known once it listens: where links point without a public origin. */
  readonly origin: () => string;
  /** The browser-facing origin behind a TLS proxy; cookies are then `Secure`. */
  readonly publicOrigin?: string | undefined;
  /** Host names answered (`allowedHostnames`); a request naming another gets 403. */
  readonly hostnames: readonly string[];
  /** The connecting peer's address, for `/metrics`; tests play a remote peer with it. */
  readonly peerAddress?: (c: Context) => string | undefined;
  /** This server as one replica on the database, for `/healthz` (issue 16). */
  readonly replica?: ReplicaHealth;
  /** Several replicas: an MCP session opened on one is served by all (`agents/mcp/route.ts`). */
  readonly sharedMcpSessions?: boolean;
  /** How long an MCP call without a progress token is kept (tests shorten it). */
  readonly mcpCallWithoutProgressMs?: number;
  /** Several replicas: a client closed a shared MCP session here; the others close theirs. */
  readonly mcpSessionEnded?: (sessionId: string) => Promise<void>;
  /** True once a graceful stop began (`drain.ts`): `/healthz` says 503 `draining`. */
  readonly draining?: () => boolean;
  /** A person's memberships changed (`AccountService`'s hook); the hub's own when absent (one server). */
  readonly accessChanged?: (userId: string) => void;
  /**
   * News for pages that list what no session event carries, told by the
   * services built here (`AccountService`, `consentRuleService`): the
   * server's `accountNews` (`cluster/`, to every replica); this server's hub
   * alone when absent (apps built in tests).
   */
  readonly news?: PageNews;
  /**
   * Several replicas: a token was revoked or its person removed here; the
   * others' MCP calls read theirs again (this replica's always do).
   */
  readonly credentialsEnded?: (userId: string) => void;
  /** How often running MCP calls and events sockets read their tokens again (tests lengthen it). */
  readonly credentialRecheckMs?: number;
}

const DEFAULT_WEB_ROOT = builtPath(BUILT_WEB_APP);

export interface App {
  readonly app: Hono<AppEnv>;
  readonly mcp: McpEndpoint;
}

/** What `AppDeps.news` tells; `members`: a workspace's, who list its members. */
export interface PageNews {
  readonly consentRulesChanged: (userId: string) => void;
  readonly notificationsChanged: (userId: string) => void;
  readonly tokensChanged: (userId: string) => void;
  readonly peopleChanged: (subjectId: string, members: readonly string[]) => void;
}

/** One server's news: its own hub's sockets are everyone. */
function hubNews(hub: EventHub): PageNews {
  return {
    consentRulesChanged: (userId) => {
      hub.consentRulesChanged(userId);
    },
    notificationsChanged: (userId) => {
      hub.notificationsChanged(userId);
    },
    tokensChanged: (userId) => {
      hub.tokensChanged(userId);
    },
    peopleChanged: (_subjectId, members) => {
      hub.peopleChanged({ admins: true, userIds: members });
    },
  };
}

export function createApp(deps: AppDeps): App {
  const app = new Hono<AppEnv>();
  handleUnexpectedErrors(app, deps.logger);
  const trustedOrigins = deps.publicOrigin ? [deps.publicOrigin] : [];

  // Before the host check: probes address a server by IP, and health holds nothing to steal.
  registerHealthRoute(app, deps);
  app.use('*', createHostGuard(deps.hostnames));
  registerObservabilityRoutes(app, {
    metrics: deps.metrics,
    store: deps.store,
    ...(deps.peerAddress ? { peerAddress: deps.peerAddress } : {}),
  });
  // Before the API's access control: the document describes the API and holds no data.
  registerOpenApiRoute(app);

  // Where minted links (sign-in, answer) point: the public origin, else the server's own URL.
  const linkOrigin = () => deps.publicOrigin ?? deps.origin();

  // The tokens of work outliving its request's check, MCP calls and events sockets alike.
  const credentials = new CredentialWatch({
    store: deps.store,
    timers: systemTimers,
    intervalMs: deps.credentialRecheckMs ?? MCP_CREDENTIAL_RECHECK_MS,
    logger: deps.logger,
  });

  const news = deps.news ?? hubNews(deps.hub);
  // The account changes announce themselves: whoever calls them, these hear of each.
  const accounts = new AccountService({
    store: deps.store,
    announce: {
      accessChanged:
        deps.accessChanged ??
        ((userId) => {
          deps.hub.accessChanged(userId);
        }),
      peopleChanged: news.peopleChanged,
      tokensChanged: news.tokensChanged,
      notificationsChanged: news.notificationsChanged,
      // Calls and sockets here read their credentials again now; the others on their wake.
      credentialsEnded: (userId) => {
        credentials.recheck();
        deps.credentialsEnded?.(userId);
      },
    },
    endSessionsActedFor: (sessionIds, why) => endSessionsActedFor(deps.turns, sessionIds, why),
  });

  mountBearerChallenge(app, '/api/v1/*');
  countRespondsRefusedEarly(app, deps.clarification);
  mountApiAccess(app, { store: deps.store, trustedOrigins });
  registerAccountRoutes(app, {
    store: deps.store,
    secureCookies: deps.publicOrigin?.startsWith('https:') ?? false,
    trustedOrigins,
    linkOrigin,
    accounts,
  });
  registerClarificationRoutes(app, { clarification: deps.clarification });
  registerTaskRoutes(app, deps.turns);
  registerUserInputRoutes(app, deps.turns);
  registerConsentRuleRoutes(app, {
    rules: consentRuleService({ store: deps.store, rulesChanged: news.consentRulesChanged }),
  });
  registerAnswerLinkRoutes(app, { ...deps.turns, origin: linkOrigin });
  registerNotificationRoutes(app, { notifications: deps.notifications });
  const resolvePrincipal = createPrincipalResolver({ store: deps.store, trustedOrigins });
  registerEventsRoute(app, {
    hub: deps.hub,
    resolvePrincipal,
    credentials: {
      credentialOf: requestCredential,
      watch: (secret, channel) => credentials.watch(secret, channel),
    },
    upgradeWebSocket: deps.upgradeWebSocket,
    logger: deps.logger,
  });
  const mcp = registerMcpRoute(app, {
    store: deps.store,
    clarification: deps.clarification,
    resolveHolder: createTokenHolderResolver({ store: deps.store, trustedOrigins }),
    logger: deps.logger.child({ component: 'mcp' }),
    userInputs: deps.turns.userInputs,
    sharedSessions: deps.sharedMcpSessions ?? false,
    ...(deps.mcpCallWithoutProgressMs === undefined
      ? {}
      : { callWithoutProgressMs: deps.mcpCallWithoutProgressMs }),
    ...(deps.mcpSessionEnded ? { onSharedSessionEnded: deps.mcpSessionEnded } : {}),
    credentials,
  });
  // Last, and it only answers GET/HEAD outside the API prefixes: it never shadows a route.
  registerWebApp(app, { root: deps.webRoot ?? DEFAULT_WEB_ROOT });
  return { app, mcp };
}
