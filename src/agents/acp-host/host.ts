/**
 * The ACP host: Clarion's `AgentHost` for real agents (DESIGN §6). Owns one
 * child process and one ACP connection per started session, the session's
 * current turn, and the coalescing of its streamed output.
 *
 * Invariants:
 * - At most one turn per session. `prompt` resolves once `session/prompt`
 *   has been written to the agent's stdin (acceptance), never on its
 *   response; the response ends the turn with `turn_ended`.
 * - Every accepted turn ends exactly once: by the agent's response, or as
 *   `failed` when the connection breaks or the process exits, and then
 *   before `agent_exited`, naming the exit code or signal (and saying
 *   `agentExited` when nobody stopped it on purpose).
 * - Nothing here waits on an agent without a bound: start by
 *   `startTimeoutMs`, cancel by `cancelSendMaxMs`, stop and close by the
 *   process supervisor's grace and kill wait (`agent-process.ts`).
 * - No turn outlives its end being asked for by more than `cancelGraceMs`:
 *   a turn still running that long after a cancel, or still not accepted
 *   that long after its caller gave up waiting, is ended by stopping the
 *   agent (a deliberate stop, no failure). Its exit ends it as for any exit,
 *   but a cancelled turn ends `cancelled`, and a prompt not taken yet is
 *   refused saying `stoppedToEndTurn`, as the exit says; the next prompt
 *   starts a new agent.
 * - `agent_exited` carries a failure only for an agent that was running and
 *   was not stopped on purpose; a start that fails throws its failure instead.
 * - Output of a turn is emitted before its `turn_ended`, in arrival order.
 * - `readiness` answers from memory, so a refusal has sent nothing.
 * - No agent outlives `close`: from its first step every start is refused
 *   (`closed`), a start already opening is stopped and waited for (bounded
 *   by the start's own bounds), so once it resolves no process of this host
 *   runs. `killAll` is its forced form: synchronous, SIGKILL to every group
 *   spawned and not yet seen gone, for a process about to exit.
 *
 * Opening the agent's ACP session is `handshake.ts`; what the agent asks of a
 * person in a turn goes to Clarion's handlers through `agent-requests.ts`.
 */
import {
  AGENT_CANCEL_GRACE_MS,
  AGENT_CANCEL_SEND_MAX_MS,
  AGENT_KILL_WAIT_MS,
  AGENT_OUTPUT_FLUSH_INTERVAL_MS,
  AGENT_PIPE_DRAIN_MS,
  AGENT_START_TIMEOUT_MS,
  AGENT_STOP_GRACE_MS,
  OPEN_USER_INPUTS_PER_AGENT,
} from '../../tunables.js';
import { setMaxListeners } from 'node:events';
import {
  client,
  methods,
  RequestError,
  type AnyMessage,
  type ClientConnection,
} from '@agentclientprotocol/sdk';
import { silentLogger, type Logger } from '../../observability/index.js';
import { BUILT_CLI, builtPath, systemTimers, type Timers } from '../../support/index.js';
import type {
  AgentFailure,
  AgentHost,
  PromptRequest,
  Readiness,
  RuntimeEvent,
  SessionLaunch,
  StopReason,
} from '../runtime.js';
import {
  askElicitation,
  askPermission,
  cancelEveryPermission,
  type ElicitationCompleteHandler,
  type ElicitationHandler,
  type PermissionHandler,
} from './agent-requests.js';
import { spawnAgent, type AgentExit, type AgentProcess } from './agent-process.js';
import { signalGroup } from './process-group.js';
import { AgentHostError, errorText } from './errors.js';
import { acpErrorText, agentFailure, exitText } from './failures.js';
import { AUTH_REQUIRED_CODE, openAgentSession } from './handshake.js';
import { RuntimeListeners } from './listeners.js';
import type { StdioBridge } from './mcp-servers.js';
import { OutputCoalescer } from './output-coalescer.js';
import { rawEnumNames, withEnumNames } from './elicitation.js';
import { describeUpdate } from './session-updates.js';
import { mapStopReason } from './stop-reasons.js';

/**
 * Listeners a turn's cancel signal may have: one per request its agent may
 * hold open, and Node's default of 10 for everything else that waits on it.
 */
const TURN_SIGNAL_LISTENERS = OPEN_USER_INPUTS_PER_AGENT + 10;

export interface AcpHostOptions {
  logger?: Logger;
  timers?: Timers;
  /** The command an agent without HTTP MCP runs to reach Clarion's MCP server. */
  stdioBridge?: StdioBridge;
  onPermissionRequest?: PermissionHandler;
  /** Without one, Clarion advertises no elicitation and agents ask their own way. */
  onElicitation?: ElicitationHandler;
  onElicitationComplete?: ElicitationCompleteHandler;
  flushIntervalMs?: number;
  /** Bounds `initialize` plus `session/new` or `session/load`. */
  startTimeoutMs?: number;
  /** How long `stop` waits after SIGTERM to the agent's group before SIGKILL. */
  stopGraceMs?: number;
  /** How long a stop still waits after SIGKILL. */
  killWaitMs?: number;
  /** How long an exited agent's pipes may stay open before they are destroyed. */
  pipeDrainMs?: number;
  /** How long `cancel` waits for `session/cancel` to be written to the agent's stdin. */
  cancelSendMaxMs?: number;
  /**
   * How long a cancelled turn (or a prompt whose caller gave up waiting for
   * its acceptance) may go on before the agent is stopped to end it.
   */
  cancelGraceMs?: number;
  clientInfo?: { name: string; version: string };
}

export interface AcpHost extends AgentHost {
  /** The agent process ID of a session, for diagnostics and fault tests. */
  pid(sessionId: string): number | undefined;
}

/** `node <clarion cli> mcp-stdio`: the built command, whichever way this module runs. */
export function defaultStdioBridge(): StdioBridge {
  return { command: process.execPath, args: [builtPath(BUILT_CLI), 'mcp-stdio'] };
}

interface Turn {
  readonly turnId: string;
  accepted: boolean;
  readonly acceptance: Deferred;
  /** Aborted by `cancel`, so a pending permission question can answer `cancelled`. */
  readonly cancelled: AbortController;
  /**
   * Aborted as the turn ends: a request of the turn still opening in the
   * registry then missed the end that settles the open ones.
   */
  readonly ended: AbortController;
  /** When the agent is stopped if the turn has not ended (`boundTurn`); cleared as it ends. */
  deadline: { cancel(): void } | undefined;
  /** What armed the deadline: a cancel's stands, an acceptance's gives way to a cancel's. */
  deadlineFor: 'cancel' | 'acceptance' | undefined;
  /** Set when Clarion stops the agent to end a cancelled turn: its exit ends it so. */
  endsOnExit: StopReason | undefined;
}

interface HostedSession {
  readonly launch: SessionLaunch;
  phase: 'starting' | 'open' | 'exited';
  process: AgentProcess | undefined;
  connection: ClientConnection | undefined;
  agentSessionId: string | undefined;
  turn: Turn | undefined;
  readonly output: OutputCoalescer;
  /** Set by `stop`: the exit that follows is no failure of the session. */
  stopRequested: boolean;
  /** Set when the host stops the agent to end a turn that did not end (`boundTurn`). */
  stoppedToEndTurn: boolean;
  /** Why Clarion stopped a running agent that cannot work (no credentials). */
  failure: AgentFailure | undefined;
  /** The `enumNames` the SDK's parse drops, by the ID of the form request that gave them. */
  readonly enumNames: Map<string | number | null, Record<string, unknown>>;
}

export function createAcpHost(options: AcpHostOptions = {}): AcpHost {
  const logger = options.logger ?? silentLogger;
  const timers = options.timers ?? systemTimers;
  const stdioBridge = options.stdioBridge ?? defaultStdioBridge();
  const onPermissionRequest = options.onPermissionRequest ?? cancelEveryPermission;
  const flushIntervalMs = options.flushIntervalMs ?? AGENT_OUTPUT_FLUSH_INTERVAL_MS;
  const startTimeoutMs = options.startTimeoutMs ?? AGENT_START_TIMEOUT_MS;
  const stopGraceMs = options.stopGraceMs ?? AGENT_STOP_GRACE_MS;
  const killWaitMs = options.killWaitMs ?? AGENT_KILL_WAIT_MS;
  const pipeDrainMs = options.pipeDrainMs ?? AGENT_PIPE_DRAIN_MS;
  const cancelSendMaxMs = options.cancelSendMaxMs ?? AGENT_CANCEL_SEND_MAX_MS;
  const cancelGraceMs = options.cancelGraceMs ?? AGENT_CANCEL_GRACE_MS;
  /** Set by `close`: no start begins after it (`closed`). */
  let closed = false;
  /** Read through a call: TypeScript would keep `closed` narrowed across a start's awaits. */
  const isClosed = () => closed;
  /** Group sweeps after exits, so `close` leaves no agent's process behind. */
  const sweeps = new Set<Promise<void>>();
  /**
   * Every agent's process group from its spawn until its stop saw it gone:
   * what `killAll` signals. Kept apart from `sessions`, which forgets an
   * agent at its exit while its wrapper's children may still run.
   */
  const groups = new Set<number>();
  const clientInfo = options.clientInfo ?? { name: 'clarion', version: '0.1.0' };
  const sessions = new Map<string, HostedSession>();
  const listeners = new RuntimeListeners(logger);
  const emit = (event: RuntimeEvent) => {
    listeners.emit(event);
  };

  function onIncoming(hosted: HostedSession, message: AnyMessage): void {
    if ('method' in message && 'id' in message) {
      if (message.method !== methods.client.elicitation.create) return;
      const names = rawEnumNames(message.params);
      if (names) hosted.enumNames.set(message.id, names);
      return;
    }
    // Updates are read here, in arrival order, rather than in an SDK
    // notification handler: the SDK dispatches notifications through an async
    // handler chain but settles responses at once, so an update sent just
    // before the prompt's response could otherwise land after the turn ended.
    if (!('method' in message) || message.method !== methods.client.session.update) return;
    const sessionId = hosted.launch.sessionId;
    const described = describeUpdate(message.params);
    if (!described.ok) {
      logger.debug(
        { sessionId, reason: described.reason, update: described.updateKind },
        'ignored agent update',
      );
      return;
    }
    const turn = hosted.turn;
    if (!turn) {
      // `session/load` replays history, and agents may chatter between
      // turns; neither belongs to a turn Clarion started.
      logger.debug({ sessionId, kind: described.piece.kind }, 'agent update outside a turn');
      return;
    }
    hosted.output.push(turn.turnId, described.piece);
  }

  function onWritten(hosted: HostedSession, message: AnyMessage): void {
    if (!('method' in message) || message.method !== methods.agent.session.prompt) return;
    accept(hosted.turn);
  }

  function accept(turn: Turn | undefined): void {
    if (!turn || turn.accepted) return;
    turn.accepted = true;
    turn.acceptance.resolve();
  }

  /** Ends `turn` if it is still the session's turn; the first ending wins. */
  function endTurn(
    hosted: HostedSession,
    turn: Turn,
    stopReason: StopReason,
    error?: string,
    agentExited = false,
  ): void {
    if (hosted.turn !== turn) return;
    hosted.turn = undefined;
    turn.ended.abort();
    turn.deadline?.cancel();
    turn.deadline = undefined;
    if (!turn.accepted) {
      turn.acceptance.reject(
        new AgentHostError(
          'not_accepted',
          `the agent did not receive the prompt: ${error ?? stopReason}`,
          { stoppedToEndTurn: hosted.stoppedToEndTurn },
        ),
      );
      return;
    }
    hosted.output.flush();
    const sessionId = hosted.launch.sessionId;
    emit({
      type: 'turn_ended',
      sessionId,
      turnId: turn.turnId,
      stopReason,
      ...(error === undefined ? {} : { error }),
      ...(agentExited ? { agentExited } : {}),
    });
  }

  function onExit(hosted: HostedSession, agentProcess: AgentProcess, exit: AgentExit): void {
    const starting = hosted.phase === 'starting';
    hosted.phase = 'exited';
    const sessionId = hosted.launch.sessionId;
    const how = exitText(exit);
    // Whatever the wrapper left in its group goes too (bounded); `close` waits for it.
    const sweep = agentProcess.stop();
    sweeps.add(sweep);
    void sweep.finally(() => {
      sweeps.delete(sweep);
      groups.delete(agentProcess.pid);
    });
    const failure =
      hosted.failure ??
      (hosted.stopRequested || starting
        ? null
        : agentFailure('exited', `the agent exited (${how})`, agentProcess.stderrTail()));
    if (failure) {
      logger.warn(
        { sessionId, code: exit.code, signal: exit.signal, failure: failure.message },
        'agent failed',
      );
    } else {
      logger.info({ sessionId, code: exit.code, signal: exit.signal }, 'agent exited');
    }
    const turn = hosted.turn;
    if (turn?.endsOnExit) endTurn(hosted, turn, turn.endsOnExit);
    else if (turn) {
      // Not stopped on purpose (then `failure` is null): what the turn waited on ended with it.
      endTurn(hosted, turn, 'failed', `agent process exited (${how})`, failure !== null);
    }
    hosted.output.flush();
    hosted.connection?.close(new Error('agent process exited'));
    if (sessions.get(sessionId) === hosted) sessions.delete(sessionId);
    emit({
      type: 'agent_exited',
      sessionId,
      code: exit.code,
      signal: exit.signal,
      failure,
      stoppedToEndTurn: hosted.stoppedToEndTurn,
    });
  }

  /** A request of the agent's, as asked in the session's current turn (if any). */
  function askedIn(hosted: HostedSession, requestSignal: AbortSignal) {
    const turn = hosted.turn;
    return {
      sessionId: hosted.launch.sessionId,
      turn: turn && {
        turnId: turn.turnId,
        cancelled: turn.cancelled.signal,
        ended: turn.ended.signal,
      },
      requestSignal,
      logger,
    };
  }

  async function start(launch: SessionLaunch): Promise<void> {
    const { sessionId, profile } = launch;
    // Its close already stopped what it found: an agent spawned now would run on unseen.
    if (closed) {
      throw new AgentHostError(
        'closed',
        `the agent host is closed; session ${sessionId} not started`,
      );
    }
    if (sessions.has(sessionId)) {
      throw new AgentHostError('already_started', `session ${sessionId} already has an agent`);
    }
    const hosted: HostedSession = {
      launch,
      phase: 'starting',
      process: undefined,
      connection: undefined,
      agentSessionId: undefined,
      turn: undefined,
      stopRequested: false,
      stoppedToEndTurn: false,
      failure: undefined,
      enumNames: new Map(),
      output: new OutputCoalescer({
        timers,
        flushIntervalMs,
        emit: (output) => {
          emit({ type: 'agent_output', sessionId, ...output });
        },
      }),
    };
    sessions.set(sessionId, hosted);
    let agentProcess: AgentProcess;
    try {
      agentProcess = await spawnAgent({
        command: profile.command,
        args: profile.args,
        env: profile.env,
        ...(profile.passEnv ? { passEnv: profile.passEnv } : {}),
        cwd: launch.cwd,
        logger: logger.child({ sessionId, profile: profile.name }),
        timers,
        stopGraceMs,
        killWaitMs,
        pipeDrainMs,
        onIncoming: (message) => {
          onIncoming(hosted, message);
        },
        onWritten: (message) => {
          onWritten(hosted, message);
        },
        onSpawned: (pgid) => {
          groups.add(pgid);
        },
      });
    } catch (error) {
      sessions.delete(sessionId);
      const reason = errorText(error);
      logger.warn({ sessionId, err: reason }, 'agent could not be started');
      throw new AgentHostError('spawn_failed', reason, {
        cause: error,
        failure: agentFailure('spawn_failed', reason, []),
      });
    }
    hosted.process = agentProcess;
    void agentProcess.exited.then((exit) => {
      onExit(hosted, agentProcess, exit);
    });
    // A close that began as the process spawned found none to stop: it ends here, as a stop.
    if (isClosed()) hosted.stopRequested = true;
    if (hosted.stopRequested) {
      throw await startFailed(hosted, agentProcess, 'it was stopped while starting', undefined);
    }
    const connection = client({ name: clientInfo.name })
      .onRequest(methods.client.session.requestPermission, (context) =>
        askPermission(onPermissionRequest, {
          ...askedIn(hosted, context.signal),
          request: context.params,
        }),
      )
      .onRequest(methods.client.elicitation.create, (context) => {
        const names = hosted.enumNames.get(context.requestId);
        hosted.enumNames.delete(context.requestId);
        return askElicitation(options.onElicitation, {
          ...askedIn(hosted, context.signal),
          request: withEnumNames(context.params, names),
        });
      })
      .onNotification(methods.client.elicitation.complete, (context) => {
        options.onElicitationComplete?.(hosted.launch.sessionId, context.params);
      })
      .connect(agentProcess.stream);
    hosted.connection = connection;
    let loaded: boolean;
    try {
      ({ agentSessionId: hosted.agentSessionId, loaded } = await withDeadline(
        openAgentSession(connection, launch, {
          elicitation: options.onElicitation !== undefined,
          clientInfo,
          stdioBridge,
        }),
        startTimeoutMs,
        `the agent did not open a session within ${startTimeoutMs} ms`,
      ));
    } catch (error) {
      throw await startFailed(hosted, agentProcess, errorText(error), error);
    }
    // A stop may have come in while the handshake ran.
    if (agentProcess.hasExited() || stopWasRequested(hosted)) {
      throw await startFailed(hosted, agentProcess, 'the connection closed', undefined);
    }
    hosted.phase = 'open';
    emit({ type: 'agent_session', sessionId, agentSessionId: hosted.agentSessionId, loaded });
  }

  /**
   * A start that did not come up: stops what is left of the agent and says
   * why, preferring the exit (code or signal) over the broken connection it
   * caused, and quoting the agent's stderr.
   */
  async function startFailed(
    hosted: HostedSession,
    agentProcess: AgentProcess,
    reason: string,
    cause: unknown,
  ): Promise<AgentHostError> {
    const name = hosted.launch.profile.name;
    // Give an exit that broke the connection the moment to be seen, so its code is the reason.
    await Promise.race([agentProcess.exited, delay(pipeDrainMs)]);
    const exit = agentProcess.hasExited() ? await agentProcess.exited : undefined;
    await stopHosted(hosted);
    const said =
      exit && !hosted.stopRequested
        ? `agent ${name} exited while starting (${exitText(exit)})`
        : `agent ${name} did not start: ${reason}`;
    // Stopped on purpose (a delete, shutdown): the start is abandoned, nothing failed.
    if (hosted.stopRequested) return new AgentHostError('handshake_failed', said, { cause });
    const failure = agentFailure('start_failed', said, agentProcess.stderrTail());
    logger.warn(
      { sessionId: hosted.launch.sessionId, failure: failure.message },
      'agent failed to start',
    );
    return new AgentHostError('handshake_failed', said, { cause, failure });
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      timers.setTimeout(resolve, ms);
    });
  }

  /**
   * `work`'s outcome, or `late()`'s once `ms` pass first; `work` is then left
   * to settle unwatched (its later rejection goes nowhere).
   */
  function within<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = timers.setTimeout(() => {
        try {
          resolve(late());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(errorText(error)));
        }
      }, ms);
      work.then(
        (value) => {
          timer.cancel();
          resolve(value);
        },
        (error: unknown) => {
          timer.cancel();
          reject(error instanceof Error ? error : new Error(errorText(error)));
        },
      );
    });
  }

  function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
    return within(work, ms, () => {
      throw new Error(message);
    });
  }

  /**
   * Ends the agent's process group, bounded by the supervisor. The exit
   * handler was attached to `exited` first, so once the agent exited it has
   * run (and `agent_exited` was emitted) before this resolves.
   */
  async function stopHosted(hosted: HostedSession): Promise<void> {
    await hosted.process?.stop();
  }

  function readiness(sessionId: string): Readiness {
    const hosted = sessions.get(sessionId);
    if (!hosted) return { ready: false, reason: 'no agent is running for this session' };
    if (hosted.phase === 'starting') return { ready: false, reason: 'the agent is starting' };
    if (hosted.phase === 'exited' || hosted.process?.hasExited() !== false) {
      return { ready: false, reason: 'the agent process has exited' };
    }
    if (hosted.turn) return { ready: false, reason: 'the agent is busy with a turn', busy: true };
    return { ready: true };
  }

  function prompt(request: PromptRequest): Promise<void> {
    const hosted = sessions.get(request.sessionId);
    const ready = readiness(request.sessionId);
    if (!ready.ready || !hosted?.connection || hosted.agentSessionId === undefined) {
      const reason = ready.ready ? 'the agent session is not open' : ready.reason;
      const code = hosted?.turn ? 'busy' : 'not_started';
      return Promise.reject(new AgentHostError(code, reason));
    }
    if (request.signal.aborted) {
      return Promise.reject(
        new AgentHostError('aborted', 'the prompt was aborted before it was sent'),
      );
    }
    const cancelled = new AbortController();
    // Each request the agent holds open listens for the turn's cancel, and the bound lets it
    // hold more than Node's default before calling that a leak.
    setMaxListeners(TURN_SIGNAL_LISTENERS, cancelled.signal);
    const turn: Turn = {
      turnId: request.turnId,
      accepted: false,
      acceptance: deferred(),
      cancelled,
      ended: new AbortController(),
      deadline: undefined,
      deadlineFor: undefined,
      endsOnExit: undefined,
    };
    hosted.turn = turn;
    hosted.connection.agent
      .request(methods.agent.session.prompt, {
        sessionId: hosted.agentSessionId,
        prompt: [{ type: 'text', text: request.text }],
      })
      .then(
        (response) => {
          // A response proves receipt even if the write callback has not run yet.
          accept(turn);
          const mapped = mapStopReason(response.stopReason);
          endTurn(hosted, turn, mapped.stopReason, mapped.error);
        },
        (error: unknown) => {
          // An error response from the agent also proves it received the prompt.
          if (error instanceof RequestError) {
            accept(turn);
            endTurn(hosted, turn, 'failed', errorText(error));
            // Without credentials every prompt fails alike: the session fails, a restart retries.
            if (error.code === AUTH_REQUIRED_CODE) void failRunning(hosted, error);
            return;
          }
          // A closed connection is the symptom; the exit that follows is the cause and
          // ends the turn first with its code or signal, if it comes within the drain.
          void Promise.race([hosted.process?.exited, delay(pipeDrainMs)]).then(() => {
            endTurn(hosted, turn, 'failed', errorText(error));
          });
        },
      );
    return new Promise<void>((resolve, reject) => {
      // Abort only gives up the wait: once queued the prompt may still reach
      // the agent, so the turn stays tracked and still ends by event; an agent
      // that has not taken it within the grace is stopped (`boundTurn`).
      const onAbort = () => {
        boundTurn(hosted, turn, 'acceptance');
        reject(new AgentHostError('aborted', 'gave up waiting for the agent to accept the prompt'));
      };
      request.signal.addEventListener('abort', onAbort, { once: true });
      turn.acceptance.promise.then(
        () => {
          request.signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (error: unknown) => {
          request.signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(errorText(error)));
        },
      );
    });
  }

  async function failRunning(hosted: HostedSession, error: RequestError): Promise<void> {
    const name = hosted.launch.profile.name;
    const reason = `agent ${name} cannot work: ${acpErrorText('session/prompt', error)}`;
    hosted.failure = agentFailure('start_failed', reason, hosted.process?.stderrTail() ?? []);
    await stopHosted(hosted);
  }

  async function cancel(sessionId: string): Promise<void> {
    const hosted = sessions.get(sessionId);
    if (!hosted?.connection || hosted.agentSessionId === undefined || hosted.phase !== 'open') {
      logger.debug({ sessionId }, 'cancel without a running agent');
      return;
    }
    const turn = hosted.turn;
    if (turn) {
      turn.cancelled.abort();
      boundTurn(hosted, turn, 'cancel');
    }
    // The SDK writes one message at a time, each once the agent's stdin took
    // it: behind a large prompt, an agent that stopped reading (wedged,
    // stopped) would hold this cancel, and the person's request, for ever.
    const sent = await within(
      hosted.connection.agent
        .notify(methods.agent.session.cancel, { sessionId: hosted.agentSessionId })
        .then(
          () => 'sent' as const,
          (error: unknown) => {
            // The connection broke under it (the agent exited, or was stopped to end this very
            // turn while the cancel waited behind a write): the exit ends the turn, nothing failed.
            logger.info({ sessionId, err: errorText(error) }, 'the cancel did not reach the agent');
            return 'broken' as const;
          },
        ),
      cancelSendMaxMs,
      () => 'late' as const,
    );
    if (sent !== 'late') return;
    // The notification stays queued (it goes if the agent reads again): the
    // turn ends by the agent's report, or by the stop its deadline brings.
    logger.warn(
      { sessionId, waitedMs: cancelSendMaxMs },
      'the agent did not take the cancel in time; not waiting for it',
    );
  }

  /**
   * Arms the turn's deadline: once `cancelGraceMs` passed, a turn that has not
   * ended is ended by stopping the agent, bounded by the stop's grace and kill
   * wait. After a cancel it ends `cancelled` (a later cancel arms nothing
   * more); after its caller gave up waiting for acceptance, only a prompt the
   * agent still has not taken stops it (one taken late is a turn like any
   * other, and a cancel bounds it), and the exit fails the turn.
   */
  function boundTurn(hosted: HostedSession, turn: Turn, why: 'cancel' | 'acceptance'): void {
    if (turn.deadlineFor === 'cancel' || (why === 'acceptance' && turn.deadlineFor)) return;
    // A cancel's grace runs from the cancel, even when an acceptance deadline came first.
    turn.deadline?.cancel();
    turn.deadlineFor = why;
    turn.deadline = timers.setTimeout(() => {
      turn.deadline = undefined;
      if (hosted.turn !== turn || hosted.phase !== 'open') return;
      const cancelled = why === 'cancel';
      if (!cancelled && turn.accepted) return;
      const sessionId = hosted.launch.sessionId;
      logger.warn(
        { sessionId, turnId: turn.turnId, waitedMs: cancelGraceMs },
        cancelled
          ? 'the agent did not end its turn after the cancel; stopping it'
          : 'the agent did not take the prompt in time; stopping it',
      );
      if (cancelled) turn.endsOnExit = 'cancelled';
      hosted.stopRequested = true;
      hosted.stoppedToEndTurn = true;
      stopHosted(hosted).catch((error: unknown) => {
        logger.warn({ sessionId, err: errorText(error) }, 'stopping the agent failed');
      });
    }, cancelGraceMs);
  }

  async function stop(sessionId: string): Promise<void> {
    const hosted = sessions.get(sessionId);
    if (!hosted) return;
    hosted.stopRequested = true;
    // A stop from outside (delete, shutdown) ends the turn as every stop does, and the queue
    // is not the host's to go on with.
    hosted.stoppedToEndTurn = false;
    if (hosted.turn) hosted.turn.endsOnExit = undefined;
    await stopHosted(hosted);
  }

  /** Starts in flight by session: a second caller waits for the first instead of being refused. */
  const opening = new Map<string, Promise<void>>();

  function startOnce(launch: SessionLaunch): Promise<void> {
    const { sessionId } = launch;
    if (sessions.has(sessionId)) return start(launch);
    const started = start(launch);
    opening.set(sessionId, started);
    const forget = () => {
      if (opening.get(sessionId) === started) opening.delete(sessionId);
    };
    started.then(forget, forget);
    return started;
  }

  /**
   * The host alone cannot start an agent without its launch; it waits for a
   * start in flight (bounded by the start timeout) and says where that left it.
   */
  async function prepare(sessionId: string): Promise<Readiness> {
    const started = opening.get(sessionId);
    if (started) await started.catch(() => undefined);
    return readiness(sessionId);
  }

  return {
    start: startOnce,
    readiness,
    prepare,
    prompt,
    cancel,
    stop,
    subscribe: (listener) => listeners.subscribe(listener),
    close: async () => {
      closed = true;
      await Promise.all([...sessions.keys()].map((sessionId) => stop(sessionId)));
      // A start still spawning had no process to stop yet: it stops its own once spawned
      // (`startFailed`, bounded by the start's own bounds), and only then is none left.
      await Promise.all([...opening.values()].map((started) => started.catch(() => undefined)));
      await Promise.all([...sweeps]);
    },
    killAll: () => {
      closed = true;
      let signalled = 0;
      for (const pgid of groups) if (signalGroup(pgid, 'SIGKILL')) signalled += 1;
      return signalled;
    },
    isStarted: (sessionId) => {
      const hosted = sessions.get(sessionId);
      return (
        hosted !== undefined && hosted.phase !== 'exited' && hosted.process?.hasExited() !== true
      );
    },
    pid: (sessionId) => sessions.get(sessionId)?.process?.pid,
  };
}

function stopWasRequested(hosted: HostedSession): boolean {
  return hosted.stopRequested;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when a prompt is refused after its caller gave up.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
