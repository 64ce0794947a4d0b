/**
 * The composition root: opens the store (schema first), recovers the
 * clarification state and interrupted sessions, bootstraps accounts, wires
 * agents, builds the app and listens. Work is admitted only once every
 * start-up step has succeeded; any failure before `listen` leaves nothing
 * served.
 */
import {
  REPLICA_HEARTBEAT_INTERVAL_MS,
  SHUTDOWN_DRAIN_MS,
  SHUTDOWN_REPORTS_MS,
  SESSION_LEASE_MS,
  STATISTICS_INTERVAL_MS,
} from './tunables.js';
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { upgradeWebSocket } from '@hono/node-server';
import { createAcpHost } from './agents/acp-host/index.js';
import { DEFAULT_AGENT_PROFILE } from './agents/profiles.js';
import { EXTERNAL_AGENT_PROFILE, type AgentHost } from './agents/runtime.js';
import { bootstrapAccounts } from './auth/bootstrap.js';
import {
  revokeAgentTokensIn,
  signInUrl,
  startSpentCredentialPruning,
  type SpentCredentialPruning,
} from './auth/index.js';
import { accountNews, startReplica, type Replica } from './cluster/index.js';
import {
  ClarificationService,
  DEFAULT_BUDGETS,
  LiveWaiters,
  recoverAtStartUp,
  type ClarificationBudgets,
} from './clarification/index.js';
import {
  claimReplicas,
  createWakeBus,
  loggingPublisher,
  releasedQueues,
  sessionEventLog,
  startEventRelay,
  type WakeBus,
} from './cluster/index.js';
import { listenUrl, type Config } from './config.js';
import { createEventHub, createSessionWriter } from './events/index.js';
import { createApp } from './http/app.js';
import { allowedHostnames, exposureWarning } from './http/exposure.js';
import { createEventsWebSocketServer, terminateWebSockets } from './http/events-route.js';
import { createDrain } from './http/drain.js';
import { createHttpServer, listen } from './server/listen.js';
import { wireNotifications, type NotifyOptions } from './server/notifications.js';
import type { PassReport } from './notify/index.js';
import type { Logger } from './observability/logger.js';
import { createMetrics, createResponseObserver } from './observability/index.js';
import {
  canSeeSession,
  canSeeWorkspace,
  idempotentOnNewConnection,
  workspaceStanding,
  lockDataDir,
  openStore,
  resetInterruptedSessions,
  type OpenOptions,
  type Store,
} from './store/index.js';
import { EXHAUSTED, withinFreshBudget } from './support/index.js';
import { systemTimers } from './support/timers.js';
import { AgentQuota, DEFAULT_AGENT_QUOTA } from './turns/agent-quota.js';
import { AgentStarts } from './turns/agent-starts.js';
import { CancelRequests } from './turns/cancellations.js';
import { UnrecordedRefusals } from './turns/unrecorded-refusals.js';
import { IdleStops } from './turns/idle-policy.js';
import { drainQueuesAfterRestart } from './turns/admission.js';
import { agentGoneNoter, endOrphanedUserInputs } from './turns/ended-user-inputs.js';
import { AGENT_IDLE_MS } from './tunables.js';
import type { AgentLaunchDeps, TurnsDeps } from './turns/context.js';
import { RuntimeEventPump } from './turns/event-pump.js';
import { sessionRuntime } from './turns/session-runtime.js';
import { consentRulesPort, formRequester, keepRuleWhere, ruleStandsWhere } from './turns/index.js';
import { createSuccessorTurns } from './turns/successor-turn.js';
import { fenceSessions } from './turns/fencing.js';
import { recoverTakenSessions } from './turns/takeover.js';
import { holderWakes } from './turns/holder-wakes.js';
import { userInputReplicas } from './turns/user-input-replicas.js';
import {
  consentHandler,
  decisionRecorder,
  followUpAdmitter,
  userInputCopyKeeper,
  userInputPending,
  userInputPublisher,
} from './turns/user-input-bridge.js';
import { elicitationHandlers } from './turns/elicitation-bridge.js';
import {
  createUserInputRegistry,
  type UserInputDeadlines,
  type UserInputRegistry,
} from './user-input/index.js';

export interface RunningServer {
  readonly url: string;
  /** The one-time sign-in link for this start; a credential, never logged. */
  readonly signInUrl: string;
  readonly store: Store;
  readonly clarification: ClarificationService;
  readonly turns: TurnsDeps;
  /**
   * One notifications reconcile pass that starts after this call, for tests
   * that prove nothing more is owed without sleeping out the pass interval.
   */
  readonly reconcileNotices: () => Promise<PassReport>;
  /** Every route the HTTP app registered (Hono's table), for contract tests. */
  readonly routes: readonly { readonly method: string; readonly path: string }[];
  /** Cross-replica wake-ups; `wakes.listenerState()` is the listener's state for `/healthz`. */
  readonly wakes: WakeBus;
  /**
   * Settles if this server must stop serving while it runs: another process
   * registered its replica ID (`ReplicaSupersededError`). The caller closes
   * it and exits as a failed start does; pending for as long as it serves.
   */
  readonly failed: Promise<Error>;
  /**
   * Drains, stops the agents, gives back what the store holds for this
   * server, closes. A store step that fails is logged and the rest done;
   * then it rejects, naming what was left undone.
   */
  close(): Promise<void>;
  /** Stops every agent this server runs (bounded), for a stop that cannot finish. */
  stopAgents(): Promise<void>;
  /**
   * Kills every agent process group this server started, at once and
   * synchronously (`AgentHost.killAll`), for a stop forced by the operator:
   * the process must exit right after. Says how many groups it killed.
   */
  killAgents(): number;
}

export type { NotifyOptions } from './server/notifications.js';

export interface ServerOptions extends OpenOptions {
  /** Replaces the ACP host; tests play agents with it. */
  host?: AgentHost;
  budgets?: Partial<ClarificationBudgets>;
  /** Shortens how long consent and action requests wait (tests of their timeouts). */
  userInputDeadlines?: Partial<UserInputDeadlines>;
  /** Shortens how long an MCP call without a progress token is kept before it says `waiting`. */
  mcpCallWithoutProgressMs?: number;
  /** Replaces the socket's peer address for `/metrics` access (tests of a remote peer). */
  peerAddress?: (c: Context) => string | undefined;
  /** Notifications: senders by kind (added to the built-in ones), tunables, ports. */
  notify?: NotifyOptions;
  /** How often wake subscribers resync from the store (tests shorten it). */
  wakePollIntervalMs?: number;
  /** How often running MCP calls and events sockets read their tokens again (tests lengthen it, to see announcements work). */
  credentialRecheckMs?: number;
  /** How often spent sign-in links, sessions and answer links are pruned (tests shorten it). */
  spentCredentialPruneIntervalMs?: number;
}

export async function startServer(
  config: Config,
  logger: Logger,
  options: ServerOptions = {},
): Promise<RunningServer> {
  // Before anything reads the database: a second server's recovery would run over the first's work.
  // PostgreSQL uses no data directory: there replicas share the database by session leases.
  const lock =
    config.database.driver === 'sqlite' ? lockDataDir(config.database.dataDir) : undefined;
  let store: Store;
  try {
    store = await openStore(config.database, {
      onBackgroundFailure: (error) => {
        logger.warn({ err: error }, 'background WAL checkpoints stopped; commits checkpoint again');
      },
      onIdleConnectionLost: (error) => {
        logger.warn({ err: error }, 'an idle PostgreSQL connection was lost; the pool reconnects');
      },
      onListenerDown: (error, retryMs) => {
        logger.warn(
          { err: error, retry_ms: retryMs },
          'wake listener down; polling until it is back',
        );
      },
      ...options,
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  // The registry and the turns services come later; the host reaches them through these.
  let registry: UserInputRegistry | undefined;
  // Set as the stop settles the registry's requests (`userInputPublisher`'s `waiting`).
  let stopping = false;
  let turnsRef: TurnsDeps | undefined;
  let clarificationRef: ClarificationService | undefined;
  // A request over its agent's bound is refused with a transcript note, once the turns are wired.
  const refusals = {
    sessions: () => turnsRef?.sessions,
    logger: logger.child({ component: 'acp' }),
  };
  const host =
    options.host ??
    createAcpHost({
      logger: logger.child({ component: 'acp-host' }),
      onPermissionRequest: consentHandler({ store }, () => registry, refusals),
      ...elicitationHandlers({
        store,
        clarification: () => clarificationRef,
        registry: () => registry,
        requestForm: formRequester({ store }, () => registry, refusals),
        refusals,
        logger: logger.child({ component: 'elicitation' }),
      }),
      ...config.agentTimings,
    });
  let replica: Replica | undefined;
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  // A start that fails after the wake bus began stops its polls with the store.
  let stopWakes: (() => Promise<void>) | undefined;
  // …and one that fails once listening lets go of its port and its notifier: a process
  // whose start failed must exit, for its supervisor to start it again.
  let stopListening: (() => Promise<void>) | undefined;
  let pruning: SpentCredentialPruning | undefined;
  try {
    logger.info({ driver: store.driver, schema: store.schema }, 'store ready');
    const leaseMs = config.leaseMs ?? SESSION_LEASE_MS;
    replica = await startReplica({
      store,
      target: config.database,
      id: config.replicaId ?? `clarion-${randomUUID().slice(0, 8)}`,
      leaseMs,
      // At most a third of the lease, so a short test lease still survives two late beats.
      heartbeatMs: Math.min(REPLICA_HEARTBEAT_INTERVAL_MS, Math.floor(leaseMs / 3)),
      timers: systemTimers,
      logger: logger.child({ component: 'replica' }),
      exclusive: lock !== undefined,
      unheldProfile: EXTERNAL_AGENT_PROFILE,
      onSuperseded: fail,
    });
    const running = replica;
    const scope = replica.startUpScope;
    logger.info({ replica: replica.id }, 'replica registered');
    const metrics = createMetrics({ collectDefaults: true, replica: replica.id });
    const wakes = createWakeBus({
      store,
      replicaId: replica.id,
      timers: systemTimers,
      logger: logger.child({ component: 'wake-bus' }),
      ...(options.wakePollIntervalMs ? { pollIntervalMs: options.wakePollIntervalMs } : {}),
    });
    const hub = createEventHub({
      canSeeSession: (principal, sessionId) => canSeeSession(store, principal, sessionId),
      canSeeWorkspace: (principal, workspaceId) => canSeeWorkspace(store, principal, workspaceId),
      standing: (principal) => workspaceStanding(store, principal),
      clock: store.clock,
      logger: logger.child({ component: 'events' }),
      metrics,
    });
    // Several servers share PostgreSQL: events are logged for the others and relayed from them.
    const replicated = store.driver === 'postgres';
    const relay = replicated
      ? await startEventRelay({
          store,
          bus: wakes,
          hub,
          timers: systemTimers,
          logger: logger.child({ component: 'event-relay' }),
        })
      : undefined;
    // Rules and people: news for pages no session event reaches, here and on the other replicas.
    const account = accountNews({
      hub,
      ...(replicated ? { bus: wakes } : {}),
      store,
      logger: logger.child({ component: 'account-news' }),
    });
    stopWakes = async () => {
      await relay?.stop();
      wakes.close();
    };
    // Several servers: requests are mirrored for the others, answers on them forwarded here.
    const userInputsAcross = replicated
      ? userInputReplicas({
          store,
          bus: wakes,
          registry: () => registry,
          leaseMs,
          timers: systemTimers,
          logger: logger.child({ component: 'user-input-replicas' }),
          leases: running.leases,
        })
      : undefined;
    // Every session write: clarification rows and the registry's requests make pending_action.
    const sessions = createSessionWriter({
      store,
      events: hub,
      userInputPending: userInputPending({
        registry: () => registry,
        runsHere: (sessionId) => host.isStarted(sessionId),
        ...(userInputsAcross ? { elsewhere: userInputsAcross.pendingElsewhere } : {}),
      }),
      ...(replicated ? { log: sessionEventLog(wakes) } : {}),
    });
    const elsewhere = await running.liveElsewhere();
    // Nobody is subscribed yet, so recovery's events reach no one; its revisions still count.
    await recoverAtStartUp(
      { store, sessions },
      logger.child({ component: 'recovery' }),
      scope,
      elsewhere,
    );
    await resetInterruptedSessions(store, scope);
    // The registry's requests the last run left waiting: the transcript says they ended.
    await endOrphanedUserInputs(
      { store, sessions, logger: logger.child({ component: 'recovery' }) },
      scope,
      'restart',
    );
    const boot = await bootstrapAccounts(store, {
      adminToken: config.adminToken,
      agentTokens: scope,
      othersRunning: (elsewhere?.size ?? 0) > 0,
    });
    // Start-up pruned once; a server that runs for months goes on doing so.
    pruning = startSpentCredentialPruning({
      store,
      timers: systemTimers,
      logger: logger.child({ component: 'auth' }),
      ...(options.spentCredentialPruneIntervalMs === undefined
        ? {}
        : { intervalMs: options.spentCredentialPruneIntervalMs }),
    });

    let url = '';
    // Once the stop began, this server starts no turn and no agent (`AgentLaunchDeps.stopping`).
    const draining = createDrain(systemTimers);
    const launch: AgentLaunchDeps = {
      store,
      host,
      profiles: config.agentProfiles,
      mcpUrl: () => `${url}/mcp`,
      agentCwd: process.cwd(),
      agentQuota: new AgentQuota(
        (sessionId) => host.isStarted(sessionId),
        config.agentQuota ?? DEFAULT_AGENT_QUOTA,
      ),
      idleStops: new IdleStops(systemTimers, config.agentIdleMs ?? AGENT_IDLE_MS),
      starts: new AgentStarts(),
      leases: {
        acquire: (sessionId) => running.leases.acquire(sessionId),
        release: (sessionId) => running.leases.release(sessionId),
        tellHolder: (ctx, sessionId, kind) => wakes.send(ctx, { kind, sessionId }),
        leaveQueue: (ctx) => wakes.send(ctx, { kind: 'released', replicaId: running.id }),
        confirm: (sessionId) => running.leases.confirm(sessionId),
        isFenced: (sessionId) => running.leases.isFenced(sessionId),
        liveReplicas: () => running.leases.liveReplicas(),
        unlessStarted: (sessionId, work) => running.leases.unlessStarted(sessionId, work),
      },
      stopping: () => draining.draining(),
    };
    const clarification = new ClarificationService({
      store,
      waiters: new LiveWaiters(systemTimers),
      successors: createSuccessorTurns(sessionRuntime(launch)),
      sessions,
      observer: createResponseObserver({ logger, metrics, driver: store.driver }),
      logger: logger.child({ component: 'clarification' }),
      timers: systemTimers,
      budgets: { ...DEFAULT_BUDGETS, ...options.budgets },
      leases: running.leases,
      ...(replicated
        ? { replicas: claimReplicas({ store, bus: wakes, leaseMs, timers: systemTimers }) }
        : {}),
    });
    clarificationRef = clarification;
    const userInputs = createUserInputRegistry({
      clock: store.clock,
      ids: store.ids,
      timers: systemTimers,
      publish: userInputPublisher({
        sessions,
        events: replicated
          ? loggingPublisher(store, wakes, hub, logger.child({ component: 'event-relay' }))
          : hub,
        logger: logger.child({ component: 'user-input' }),
        ...(userInputsAcross ? { mirror: userInputsAcross.mirror } : {}),
        waiting: { store, stopping: () => stopping },
      }),
      admitFollowUp: followUpAdmitter(() => turnsRef),
      keepOpen: userInputCopyKeeper(store),
      noteEnded: agentGoneNoter(sessions, logger.child({ component: 'user-input' })),
      recordDecision: decisionRecorder(sessions, store, {
        logger: logger.child({ component: 'user-input' }),
        keepRule: (tx, rule) => keepRuleWhere(tx, launch, rule),
        ruleStands: (tx, rule) => ruleStandsWhere(tx, launch, rule),
        ruleKept: (userId) => {
          account.news.consentRulesChanged(userId);
        },
      }),
      consentRules: consentRulesPort(store, launch),
      logger: logger.child({ component: 'user-input' }),
      deadlines: options.userInputDeadlines,
    });
    registry = userInputs;
    const turns: TurnsDeps = {
      ...launch,
      clarification,
      userInputs,
      ...(userInputsAcross ? { userInputsElsewhere: userInputsAcross.elsewhere } : {}),
      sessions,
      logger: logger.child({ component: 'turns' }),
      defaultProfile: DEFAULT_AGENT_PROFILE,
      cancellations: new CancelRequests(),
      unrecordedRefusals: new UnrecordedRefusals(),
      timers: systemTimers,
    };
    turnsRef = turns;
    // A session lost while this server did not run: what runs here for it ends, writing nothing.
    running.leases.onLost((sessionIds) => fenceSessions(turns, sessionIds));
    const notify = await wireNotifications({
      store,
      config,
      hub,
      clarification,
      userInputs,
      userInputsAcross,
      origin: () => config.publicOrigin ?? url,
      logger,
      options: options.notify,
      notificationsChanged: (userId) => {
        account.news.notificationsChanged(userId);
      },
    });
    const pump = new RuntimeEventPump(turns);
    const { app, mcp } = createApp({
      store,
      clarification,
      turns,
      hub,
      notifications: notify.service,
      metrics,
      logger,
      upgradeWebSocket,
      origin: () => url,
      publicOrigin: config.publicOrigin,
      hostnames: allowedHostnames(config.host, config.publicOrigin),
      ...(options.peerAddress ? { peerAddress: options.peerAddress } : {}),
      replica: {
        id: replica.id,
        leases: () => running.leases.count(),
        listener: () => wakes.listenerState(),
        lock: () => running.lockState(),
      },
      // Kept in the store on SQLite too: a restart must not cut the connected agents' sessions.
      sharedMcpSessions: true,
      ...(options.mcpCallWithoutProgressMs === undefined
        ? {}
        : { mcpCallWithoutProgressMs: options.mcpCallWithoutProgressMs }),
      ...(replicated
        ? {
            mcpSessionEnded: (id: string) =>
              wakes.send(store, { kind: 'mcp_close', mcpSessionId: id }),
            // Here at once; the other replicas' subscribers on the wake (a lost one: their TTL).
            accessChanged: (userId: string) => {
              hub.accessChanged(userId);
              wakes.send(store, { kind: 'access', userId }).catch((error: unknown) => {
                logger.warn({ err: error }, 'a membership change could not be announced');
              });
            },
            credentialsEnded: (userId: string) => {
              wakes.send(store, { kind: 'credentials', userId }).catch((error: unknown) => {
                logger.warn({ err: error }, 'a revocation could not be announced');
              });
            },
          }
        : {}),
      news: account.news,
      draining: () => draining.draining(),
      ...(options.credentialRecheckMs ? { credentialRecheckMs: options.credentialRecheckMs } : {}),
    });
    const wss = createEventsWebSocketServer();
    const server = createHttpServer(app.fetch, wss);
    draining.track(server);
    url = listenUrl(config.host, await listen(server, config.host, config.port));
    stopListening = async () => {
      notify.stopObserving();
      await notify.notifier.close();
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      terminateWebSockets(wss);
      server.closeAllConnections();
      await closed;
    };
    logger.info({ url }, 'listening');
    const exposed = exposureWarning(config.host, config.publicOrigin);
    if (exposed !== undefined) logger.warn({ host: config.host }, exposed);
    notify.notifier.start();
    // Sessions a stop of Clarion interrupted with messages waiting: their agents start again now.
    await drainQueuesAfterRestart(turns, scope);
    // Leases recovery inherited for sessions whose agent did not start here are free again.
    await replica.leases.releaseUnused();
    replica.beat(
      (taken) => recoverTakenSessions(turns, taken),
      // Its lock taken again: the queues a start refused meanwhile left run as at start-up.
      (requeued) => drainQueuesAfterRestart(turns, requeued),
    );
    if (replicated) {
      const here = replica.id;
      wakes.subscribe(holderWakes(turns, here));
      // Another replica's clean stop left queues with no holder: they run here as at start-up.
      wakes.subscribe(
        releasedQueues({
          store,
          replica: running,
          requeue: (released) => drainQueuesAfterRestart(turns, released),
          logger: logger.child({ component: 'released-queues' }),
        }),
      );
      wakes.subscribe(clarification.deliveryWakes());
      wakes.subscribe(clarification.supersededWakes());
      if (userInputsAcross) wakes.subscribe(userInputsAcross.wakes);
      // A lost wake leaves a copy to its idle close (`MCP_SESSION_IDLE_MS`); its row is gone.
      wakes.subscribe({
        kinds: ['mcp_close'],
        wake: ({ topic, origin }) => {
          if (topic.kind !== 'mcp_close' || origin === here) return;
          void mcp.closeEndedElsewhere(topic.mcpSessionId).catch((error: unknown) => {
            logger.warn({ err: error }, 'closing an mcp session closed elsewhere failed');
          });
        },
        resync: () => undefined,
      });
      // The cache's TTL covers a lost wake: nothing to look at again.
      wakes.subscribe({
        kinds: ['access'],
        wake: ({ topic, origin }) => {
          if (topic.kind === 'access' && origin !== here) hub.accessChanged(topic.userId);
        },
        resync: () => undefined,
      });
      wakes.subscribe(account.wakes);
      // The credential watch's own poll covers a lost wake.
      wakes.subscribe({
        kinds: ['credentials'],
        wake: ({ origin }) => {
          if (origin !== here) mcp.credentialsEnded();
        },
        resync: () => undefined,
      });
    }
    const statistics = systemTimers.every(STATISTICS_INTERVAL_MS, () => {
      store.refreshStatistics().catch((error: unknown) => {
        logger.warn({ err: error }, 'refreshing planner statistics failed');
      });
    });
    return {
      url,
      signInUrl: signInUrl(config.publicOrigin ?? url, boot.signInSecret),
      store,
      clarification,
      turns,
      reconcileNotices: () => notify.notifier.reconcileNow(),
      routes: app.routes.map(({ method, path }) => ({ method, path })),
      wakes,
      failed,
      stopAgents: () => host.close(),
      killAgents: () => host.killAll(),
      async close() {
        logger.info(
          { replica: running.id, drain_delay_ms: config.drainDelayMs ?? 0 },
          'stopping: /healthz says draining, no turn starts here, the agents stop, then requests in flight finish',
        );
        // No more takeovers: a session taken now would start an agent the stop then kills.
        running.quiesce();
        // Said first: a load balancer's health check takes this replica out while it still answers.
        draining.start();
        if (config.drainDelayMs !== undefined && config.drainDelayMs > 0) {
          await new Promise<void>((resolve) => {
            systemTimers.setTimeout(resolve, config.drainDelayMs ?? 0);
          });
        }
        // Live waits end now with their pending ID (collected on another replica). The agents
        // stop while the listener still answers them: an agent's own call to /mcp (an ask comes
        // back open) must never be refused while it runs. Their reports are written before the
        // store closes: a turn the stop ends says so in its transcript.
        clarification.drain();
        statistics.cancel();
        await pruning?.stop();
        notify.stopObserving();
        await notify.notifier.close();
        // What the registry's close settles stays kept: the next start says it ended unanswered.
        stopping = true;
        userInputs.close();
        launch.idleStops.close();
        await host.close();
        // Starts the stop cut short end now; let them say so before the store closes.
        await launch.starts.idle();
        // Bounded: a store that refuses every write would hold the stop for each report's
        // whole retry limit. What is not written by then, the next start or a takeover recovers.
        const reports = await withinFreshBudget(
          SHUTDOWN_REPORTS_MS,
          store.clock,
          systemTimers,
          () => pump.idle(),
        );
        if (reports === EXHAUSTED) {
          logger.warn(
            { bound_ms: SHUTDOWN_REPORTS_MS },
            'the agents’ last reports are not all written; the next start or a takeover recovers their turns',
          );
        }
        pump.stop();
        // No new connections (a balancer sends those elsewhere); the requests in flight are
        // answered: event streams close (clients reconnect elsewhere), and the rest finish
        // within a bound.
        const stopped = new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        });
        hub.closeAll();
        terminateWebSockets(wss);
        const drainMs = config.shutdownDrainMs ?? SHUTDOWN_DRAIN_MS;
        if (!(await draining.idle(drainMs))) {
          logger.warn({ bound_ms: drainMs }, 'requests still in flight at shutdown are cut');
        }
        await mcp.close();
        // Each of the store's steps is tried whatever the one before did: a failure that cut the
        // stop short would leave the store open, and the process with no way to end.
        const unfinished: { name: string; error: unknown }[] = [];
        const step = async (name: string, work: () => Promise<unknown>) => {
          try {
            await work();
            return true;
          } catch (error) {
            logger.warn({ err: error }, `${name} at the stop failed`);
            unfinished.push({ name, error });
            return false;
          }
        };
        // No agent of this server runs now; their exits revoked their own tokens, this the rest.
        // Another process that took this replica's ID holds its leases now, and their agents' tokens.
        // A takeover or the next start revokes what this leaves.
        if (running.ownsId()) {
          await step("revoking the agents' tokens", () =>
            idempotentOnNewConnection(() =>
              revokeAgentTokensIn(
                store,
                lock ? { kind: 'all' } : { kind: 'held_by', replicaId: running.id },
              ),
            ),
          );
        }
        let released = 0;
        const givenBack = await step('giving the leases back', async () => {
          // With the release's commit the others hear it: the queues left here run there.
          released = await running.stop(
            replicated
              ? (tx) => wakes.send(tx, { kind: 'released', replicaId: running.id })
              : undefined,
          );
        });
        if (givenBack) {
          logger.info(
            { replica: running.id, leases_released: released },
            lock
              ? 'agents stopped; the data stays for the next start'
              : 'agents stopped and leases given back: other replicas take these sessions at once, and run their queues',
          );
        }
        server.closeAllConnections();
        await stopped;
        await clarification.close();
        await stopWakes?.();
        await store.close();
        lock?.release();
        if (unfinished.length > 0) {
          // The causes go with it: whoever stopped the server (a test, a supervisor) sees why.
          throw new Error(
            `the stop left undone: ${unfinished.map(({ name }) => name).join('; ')}`,
            { cause: new AggregateError(unfinished.map(({ error }) => error)) },
          );
        }
      },
    };
  } catch (error) {
    await pruning?.stop();
    await stopListening?.();
    await stopWakes?.();
    await host.close();
    await replica?.stop().catch((stopError: unknown) => {
      logger.warn({ err: stopError }, 'stopping the replica after a failed start failed');
    });
    await store.close();
    lock?.release();
    throw error;
  }
}
