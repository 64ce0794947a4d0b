/**
 * The ACP host driving the real, built demo agent (`npm run build` first):
 * acceptance before the turn's end, coalesced output, busy refusal, process
 * death mid-turn, stop, permission round trips, a cancel bounded against a
 * stopped agent, a turn ended by stopping an agent that ignores its cancel
 * or never takes its prompt, and `/ask` against a minimal real MCP server that stands in
 * for Clarion's.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentHostError,
  createAcpHost,
  type AcpHost,
  type AcpHostOptions,
} from '../../src/agents/acp-host/index.js';
import type { RuntimeEvent, SessionLaunch } from '../../src/agents/runtime.js';
import { normalizeAsk } from '../../src/clarification/questions.js';
import { writeFixtures } from './supervisor-fixtures.js';
import { groupGone } from './supervisor-support.js';
import { BUILT_DEMO_AGENT, builtPath } from '../../src/support/index.js';
import { PENDING_ID_PROGRESS_META } from '../../src/wire/index.js';

const DEMO_AGENT = builtPath(BUILT_DEMO_AGENT);
const TOKEN = 'session-token-1';

type Predicate = (event: RuntimeEvent) => boolean;

class EventLog {
  readonly events: RuntimeEvent[] = [];
  private readonly waiters: { predicate: Predicate; resolve: (event: RuntimeEvent) => void }[] = [];

  readonly listener = (event: RuntimeEvent) => {
    this.events.push(event);
    for (const waiter of [...this.waiters]) {
      if (!waiter.predicate(event)) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  };

  waitFor(predicate: Predicate, timeoutMs = 15_000): Promise<RuntimeEvent> {
    const seen = this.events.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no matching event; saw ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }

  turnEnded(turnId: string): Promise<RuntimeEvent> {
    return this.waitFor((event) => event.type === 'turn_ended' && event.turnId === turnId);
  }

  texts(turnId: string): string[] {
    return this.events.flatMap((event) =>
      event.type === 'agent_output' && event.turnId === turnId && event.kind === 'text'
        ? [event.content]
        : [],
    );
  }
}

/** A stand-in for Clarion's MCP server: checks the bearer token and answers as told. */
class FakeClarionMcp {
  server: Server | undefined;
  url = '';
  readonly calls: { tool: string; args: unknown }[] = [];
  readonly authHeaders: (string | undefined)[] = [];
  /**
   * The next `ask_user_question` result, or `'hang'` to wait until the caller aborts, having
   * said as Clarion does that the question is written (its progress names a pending ID).
   */
  askResult: Record<string, unknown> | 'hang' = { status: 'skipped', reason: '' };
  /** How long a hanging ask takes to write its question. */
  announceAfterMs = 0;
  aborted = 0;
  /** What a hanging ask saw, in order. */
  readonly hung: ('announced' | 'aborted')[] = [];

  /** Stateful, so a client's cancellation reaches the call it cancels. */
  private readonly transports = new Map<string, StreamableHTTPServerTransport>();

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.authHeaders.push(req.headers.authorization);
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      this.route(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/mcp`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? this.transports.get(sessionId) : undefined;
    if (known) {
      await known.handleRequest(req, res);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A stream, so a call's progress reaches the client before its result.
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        this.transports.set(id, transport);
      },
    });
    await this.build().connect(transport);
    await transport.handleRequest(req, res);
  }

  async close(): Promise<void> {
    await Promise.all([...this.transports.values()].map((transport) => transport.close()));
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }

  private build(): McpServer {
    const mcp = new McpServer({ name: 'fake-clarion', version: '0.0.0' });
    mcp.registerTool(
      'ask_user_question',
      {
        description: 'Ask the person.',
        inputSchema: { questions: z.array(z.unknown()), context: z.string().optional() },
      },
      async (args, extra) => {
        this.calls.push({ tool: 'ask_user_question', args });
        const result = this.askResult;
        if (result === 'hang') {
          const aborted = new Promise<void>((resolve) => {
            extra.signal.addEventListener('abort', () => {
              this.aborted += 1;
              this.hung.push('aborted');
              resolve();
            });
          });
          const progressToken = extra._meta?.progressToken;
          setTimeout(() => {
            if (extra.signal.aborted || progressToken === undefined) return;
            this.hung.push('announced');
            void extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: 1, _meta: { [PENDING_ID_PROGRESS_META]: 'p-1' } },
            });
          }, this.announceAfterMs);
          await aborted;
          return { content: [{ type: 'text', text: 'aborted' }], isError: true };
        }
        return {
          content: [{ type: 'text', text: JSON.stringify(result) }],
          structuredContent: result,
        };
      },
    );
    return mcp;
  }
}

let host: AcpHost | undefined;
let mcp: FakeClarionMcp | undefined;

function startHost(options: AcpHostOptions = {}): { host: AcpHost; log: EventLog } {
  const log = new EventLog();
  host = createAcpHost({ stopGraceMs: 2_000, ...options });
  host.subscribe(log.listener);
  return { host, log };
}

function launch(sessionId: string, mcpUrl = 'http://127.0.0.1:9/mcp'): SessionLaunch {
  return {
    sessionId,
    taskId: 'task-1',
    profile: { name: 'demo', command: process.execPath, args: [DEMO_AGENT], env: {} },
    mcp: { url: mcpUrl, token: TOKEN },
    cwd: tmpdir(),
  };
}

function prompt(target: AcpHost, sessionId: string, turnId: string, text: string): Promise<void> {
  return target.prompt({ sessionId, turnId, text, signal: new AbortController().signal });
}

async function rejection(promise: Promise<unknown>): Promise<AgentHostError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AgentHostError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** Resolves once the process is stopped (SIGSTOP), where `/proc` says so; elsewhere at once. */
async function stoppedState(pid: number): Promise<void> {
  const stat = `/proc/${String(pid)}/stat`;
  if (!existsSync(stat)) return;
  const deadline = Date.now() + 5_000;
  // The state follows the command name's closing parenthesis.
  while (!/\) T /.test(readFileSync(stat, 'utf8'))) {
    if (Date.now() > deadline) throw new Error(`process ${String(pid)} did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A permission handler that answers only when the test says so. */
function heldPermission() {
  let release: (response: RequestPermissionResponse) => void = () => undefined;
  let markAsked: (sessionId: string) => void = () => undefined;
  const asked = new Promise<string>((resolve) => {
    markAsked = resolve;
  });
  const handler = (sessionId: string): Promise<RequestPermissionResponse> => {
    markAsked(sessionId);
    return new Promise((resolve) => {
      release = resolve;
    });
  };
  return {
    handler,
    asked,
    release: (response: RequestPermissionResponse) => {
      release(response);
    },
  };
}

beforeAll(() => {
  if (!existsSync(DEMO_AGENT)) throw new Error(`${DEMO_AGENT} is missing: run npm run build first`);
});

afterEach(async () => {
  await host?.close();
  host = undefined;
  await mcp?.close();
  mcp = undefined;
});

describe('ACP host with the demo agent', () => {
  it('accepts a plain prompt before the turn ends and streams a reply that quotes it', async () => {
    const { host, log } = startHost();
    await host.start(launch('s1'));
    expect(log.events[0]).toMatchObject({ type: 'agent_session', sessionId: 's1' });
    expect(host.readiness('s1')).toEqual({ ready: true });
    expect(host.isStarted('s1')).toBe(true);

    const text = 'hello  there, "world"\nsecond line';
    await prompt(host, 's1', 'turn-1', text);
    expect(log.events.some((event) => event.type === 'turn_ended')).toBe(false);
    expect(host.readiness('s1')).toEqual({
      ready: false,
      reason: 'the agent is busy with a turn',
      busy: true,
    });

    expect(await log.turnEnded('turn-1')).toEqual({
      type: 'turn_ended',
      sessionId: 's1',
      turnId: 'turn-1',
      stopReason: 'end_turn',
    });
    // Two streamed chunks, one transcript event, verbatim.
    expect(log.texts('turn-1')).toEqual([`You said: ${text}`]);
    const outputIndex = log.events.findIndex((event) => event.type === 'agent_output');
    const endIndex = log.events.findIndex((event) => event.type === 'turn_ended');
    expect(outputIndex).toBeLessThan(endIndex);
    expect(host.readiness('s1')).toEqual({ ready: true });

    await prompt(host, 's1', 'turn-2', 'again');
    await log.turnEnded('turn-2');
    expect(log.texts('turn-2')).toEqual(['You said: again']);
  });

  it('refuses prompts for sessions that are not started, and a second start', async () => {
    const { host } = startHost();
    expect(host.readiness('nope')).toMatchObject({ ready: false });
    expect((await rejection(prompt(host, 'nope', 't', 'hi'))).code).toBe('not_started');
    await host.start(launch('s1'));
    expect((await rejection(host.start(launch('s1')))).code).toBe('already_started');
  });

  it('refuses a prompt while a turn runs, and quotes the permission option that came back', async () => {
    const held = heldPermission();
    const { host, log } = startHost({ onPermissionRequest: held.handler });
    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-1', '/permission');
    expect(await held.asked).toBe('s1');

    expect(host.readiness('s1')).toMatchObject({ ready: false });
    expect((await rejection(prompt(host, 's1', 'turn-2', 'hi'))).code).toBe('busy');

    held.release({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'end_turn' });
    expect(log.texts('turn-1').join('')).toBe('Permission answer: "allow-once" (Allow once).');
    expect(log.events.some((event) => 'turnId' in event && event.turnId === 'turn-2')).toBe(false);
    expect(host.readiness('s1')).toEqual({ ready: true });
  });

  it('answers permission requests cancelled by default', async () => {
    const { host, log } = startHost();
    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-1', '/permission');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1').join('')).toBe('The permission request was cancelled.');
  });

  it('fails the running turn before reporting the exit when the agent dies', async () => {
    const held = heldPermission();
    const { host, log } = startHost({ onPermissionRequest: held.handler });
    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-1', '/permission');
    await held.asked;

    const pid = host.pid('s1');
    expect(pid).toBeTypeOf('number');
    process.kill(pid ?? 0, 'SIGKILL');

    const exited = await log.waitFor((event) => event.type === 'agent_exited');
    expect(exited).toEqual({
      type: 'agent_exited',
      sessionId: 's1',
      code: null,
      signal: 'SIGKILL',
      failure: { code: 'exited', message: 'the agent exited (signal SIGKILL)' },
      stoppedToEndTurn: false,
    });
    const tail = log.events.filter(
      (event) => event.type === 'turn_ended' || event.type === 'agent_exited',
    );
    expect(tail).toEqual([
      {
        type: 'turn_ended',
        sessionId: 's1',
        turnId: 'turn-1',
        stopReason: 'failed',
        // The exit, not the connection it broke, is why the turn failed.
        error: 'agent process exited (signal SIGKILL)',
        // Nobody stopped it: what the turn waited on ended with it.
        agentExited: true,
      },
      exited,
    ]);
    expect(host.readiness('s1')).toMatchObject({ ready: false });
    expect(host.isStarted('s1')).toBe(false);
    expect((await rejection(prompt(host, 's1', 'turn-2', 'hi'))).code).toBe('not_started');
  });

  it('stops an agent, reports its exit, and can start the session again', async () => {
    const { host, log } = startHost();
    await host.start(launch('s1'));
    await host.stop('s1');
    expect(log.events.at(-1)).toMatchObject({
      type: 'agent_exited',
      sessionId: 's1',
      signal: 'SIGTERM',
      // Stopped on purpose: no failure of the session, nor the host's stop to end a turn.
      failure: null,
      stoppedToEndTurn: false,
    });
    expect(host.pid('s1')).toBeUndefined();
    expect(host.readiness('s1')).toMatchObject({ ready: false });
    await host.stop('s1');

    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-1', 'back');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1')).toEqual(['You said: back']);
  });

  it('keeps going when a listener throws', async () => {
    const { host, log } = startHost();
    host.subscribe(() => {
      throw new Error('listener bug');
    });
    const unsubscribed: RuntimeEvent[] = [];
    const unsubscribe = host.subscribe((event) => unsubscribed.push(event));
    unsubscribe();
    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-1', 'still here');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1')).toEqual(['You said: still here']);
    expect(unsubscribed).toEqual([]);
  });

  it('closes with a start still spawning: waits for it, leaves its agent stopped, and refuses a start after', async () => {
    const { host, log } = startHost();
    const pids = new Set<number>();
    let watching = true;
    // Every turn of the event loop: the agent's pid is known only between its spawn and its exit.
    const watch = () => {
      const pid = host.pid('s1');
      if (pid !== undefined) pids.add(pid);
      if (watching) setImmediate(watch);
    };
    watch();
    let settled = false;
    const starting = rejection(host.start(launch('s1'))).finally(() => {
      settled = true;
    });
    try {
      // In the same turn: the start has no process yet for the close's stop to end.
      await host.close();
      expect(settled).toBe(true);
      expect([...pids].filter((pid) => !groupGone(pid))).toEqual([]);
    } finally {
      watching = false;
      for (const pid of [...pids].filter((pid) => !groupGone(pid))) process.kill(-pid, 'SIGKILL');
    }
    // Stopped on purpose: abandoned, no failure of the session.
    const refused = await starting;
    expect(refused.failure).toBeUndefined();
    expect(pids.size).toBe(1);
    expect(log.events).toContainEqual(
      expect.objectContaining({ type: 'agent_exited', sessionId: 's1', failure: null }),
    );

    expect((await rejection(host.start(launch('s2')))).code).toBe('closed');
    expect(host.isStarted('s2')).toBe(false);
    expect(host.pid('s2')).toBeUndefined();
  });

  it('refuses to start an agent whose command does not exist', async () => {
    const { host } = startHost();
    const bad = {
      ...launch('s1'),
      profile: { name: 'bad', command: '/nonexistent/agent', args: [], env: {} },
    };
    expect((await rejection(host.start(bad))).code).toBe('spawn_failed');
    expect(host.isStarted('s1')).toBe(false);
  });

  it('cancels a turn that waits on a question', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = 'hang';
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/ask');
    await log.waitFor((event) => event.type === 'agent_output' && event.kind === 'tool_call');
    await host.cancel('s1');
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'cancelled' });
  });

  it('returns from a cancel within its bound when the agent stopped reading a large prompt', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const { host, log } = startHost({ logger, cancelSendMaxMs: 300 });
    await host.start(launch('s1'));
    const pid = host.pid('s1') ?? 0;
    process.kill(pid, 'SIGSTOP');
    try {
      await stoppedState(pid);
      // Far past a pipe's 64 KiB: the prompt's write waits for a reader that never comes,
      // and the SDK's next message, the cancel, waits behind it.
      const accepted = prompt(host, 's1', 'turn-1', '漢'.repeat(100_000));
      const started = Date.now();
      const outcome = await Promise.race([
        host.cancel('s1').then(() => 'returned' as const),
        new Promise<'hung'>((resolve) => {
          setTimeout(() => {
            resolve('hung');
          }, 5_000).unref();
        }),
      ]);
      expect(outcome).toBe('returned');
      expect(Date.now() - started).toBeLessThan(5_000);
      const warned = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(warned).toContainEqual(
        expect.objectContaining({
          sessionId: 's1',
          msg: 'the agent did not take the cancel in time; not waiting for it',
        }),
      );
      // The agent was left running: once it reads again it takes the prompt and the turn ends.
      process.kill(pid, 'SIGCONT');
      await accepted;
      expect(await log.turnEnded('turn-1')).toMatchObject({ type: 'turn_ended', sessionId: 's1' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });
});

describe('a turn whose end was asked for and does not come', () => {
  let dir: string | undefined;

  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function deafLaunch(sessionId: string): SessionLaunch {
    dir = mkdtempSync(join(tmpdir(), 'clarion-deaf-'));
    const { deaf } = writeFixtures(dir);
    return {
      ...launch(sessionId),
      profile: {
        name: 'deaf',
        command: process.execPath,
        args: [deaf],
        env: { PID_FILE: join(dir, 'pids') },
      },
    };
  }

  it('stops an agent that ignores the cancel once the grace passed, and ends the turn cancelled', async () => {
    const { host, log } = startHost({ cancelGraceMs: 500, stopGraceMs: 500 });
    const deaf = deafLaunch('s1');
    await host.start(deaf);
    const pid = host.pid('s1');
    await prompt(host, 's1', 'turn-1', '/hang');
    const started = Date.now();
    await host.cancel('s1');
    // Within the grace the agent may still end the turn itself.
    expect(host.isStarted('s1')).toBe(true);
    const exited = await log.waitFor((event) => event.type === 'agent_exited', 5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    const tail = log.events.filter(
      (event) => event.type === 'turn_ended' || event.type === 'agent_exited',
    );
    // Stopped on purpose: the turn is cancelled, the session has no failure.
    expect(tail).toEqual([
      { type: 'turn_ended', sessionId: 's1', turnId: 'turn-1', stopReason: 'cancelled' },
      {
        type: 'agent_exited',
        sessionId: 's1',
        code: null,
        signal: 'SIGTERM',
        failure: null,
        stoppedToEndTurn: true,
      },
    ]);
    expect(exited).toBe(tail[1]);
    expect(host.pid('s1')).toBeUndefined();
    expect(() => process.kill(pid ?? 0, 0)).toThrow();

    // A new agent takes the next prompt.
    await host.start(deaf);
    await prompt(host, 's1', 'turn-2', 'back');
    await log.turnEnded('turn-2');
    expect(log.texts('turn-2')).toEqual(['You said: back']);
  });

  it('leaves an agent that ends its turn within the grace running', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = 'hang';
    // A grace a loaded machine's agent ends its turn well within (500 ms failed in a clean run).
    const cancelGraceMs = 2_000;
    const { host, log } = startHost({ cancelGraceMs });
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/ask');
    await log.waitFor((event) => event.type === 'agent_output' && event.kind === 'tool_call');
    await host.cancel('s1');
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'cancelled' });
    // Past the grace: a host that stopped the agent anyway would have done so by now.
    await new Promise((resolve) => setTimeout(resolve, cancelGraceMs + 300));
    expect(host.isStarted('s1')).toBe(true);
    expect(log.events.some((event) => event.type === 'agent_exited')).toBe(false);
  });

  it('stops an agent that has not taken a prompt within the grace after its caller gave up', async () => {
    const { host, log } = startHost({ cancelGraceMs: 300, stopGraceMs: 300 });
    await host.start(launch('s1'));
    const pid = host.pid('s1') ?? 0;
    process.kill(pid, 'SIGSTOP');
    try {
      await stoppedState(pid);
      const gaveUp = new AbortController();
      // Far past a pipe's 64 KiB: the write waits for a reader that never comes.
      const accepted = host.prompt({
        sessionId: 's1',
        turnId: 'turn-1',
        text: '漢'.repeat(100_000),
        signal: gaveUp.signal,
      });
      gaveUp.abort();
      expect((await rejection(accepted)).code).toBe('aborted');
      // Still the agent's turn, which a message sent now waits behind.
      expect(host.readiness('s1')).toEqual({
        ready: false,
        reason: 'the agent is busy with a turn',
        busy: true,
      });
      // SIGTERM waits on a stopped process; the SIGKILL after the stop's grace does not.
      const exited = await log.waitFor((event) => event.type === 'agent_exited', 5_000);
      expect(exited).toMatchObject({ signal: 'SIGKILL', failure: null, stoppedToEndTurn: true });
      // The turn was never the agent's: nothing reports its end.
      expect(log.events.some((event) => event.type === 'turn_ended')).toBe(false);
      expect(host.readiness('s1')).toEqual({
        ready: false,
        reason: 'no agent is running for this session',
      });
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone, as it should be.
      }
    }
    await host.start(launch('s1'));
    await prompt(host, 's1', 'turn-2', 'again');
    await log.turnEnded('turn-2');
    expect(log.texts('turn-2')).toEqual(['You said: again']);
  });

  it('refuses a prompt not taken when the cancel grace passed, saying it stopped the agent', async () => {
    // The cancel waits behind the prompt longer than the grace: the stop breaks that wait.
    const { host, log } = startHost({
      cancelGraceMs: 300,
      stopGraceMs: 300,
      cancelSendMaxMs: 5_000,
    });
    await host.start(launch('s1'));
    const pid = host.pid('s1') ?? 0;
    process.kill(pid, 'SIGSTOP');
    try {
      await stoppedState(pid);
      // Far past a pipe's 64 KiB: the write waits for a reader that never comes.
      const accepted = prompt(host, 's1', 'turn-1', '漢'.repeat(100_000));
      // No error: the connection broke because the host stopped the agent to end this turn.
      await host.cancel('s1');
      const refused = await rejection(accepted);
      expect(refused).toMatchObject({ code: 'not_accepted', stoppedToEndTurn: true });
      const exited = await log.waitFor((event) => event.type === 'agent_exited', 5_000);
      expect(exited).toMatchObject({ failure: null, stoppedToEndTurn: true });
      // The turn was never the agent's: nothing reports its end.
      expect(log.events.some((event) => event.type === 'turn_ended')).toBe(false);
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone, as it should be.
      }
    }
  });
});

describe('the demo agent asking through MCP', () => {
  it('asks one question with the bearer token and quotes the chosen label', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = {
      status: 'answered',
      answers: { q1: { selected: [{ id: 'generated', label: 'Generated' }], custom_text: '' } },
    };
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/ask');
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'end_turn' });
    expect(log.texts('turn-1')).toEqual(['Answer to q1: "Generated"']);

    expect(mcp.authHeaders.length).toBeGreaterThan(0);
    expect(new Set(mcp.authHeaders)).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(mcp.calls).toHaveLength(1);
    const asked = normalizeAsk(mcp.calls[0]?.args);
    expect(asked.ok && asked.value.questions.map((question) => question.options.length)).toEqual([
      3,
    ]);
    const toolCalls = log.events.filter(
      (event) => event.type === 'agent_output' && event.kind === 'tool_call',
    );
    expect(
      toolCalls.map((event) => event.type === 'agent_output' && event.metadata.status),
    ).toEqual(['in_progress', 'completed']);
  });

  it('asks three questions and quotes every label and custom text', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = {
      status: 'answered',
      answers: {
        q1: { selected: [{ id: 'hosted', label: 'Hosted' }], custom_text: '' },
        q2: {
          selected: [
            { id: 'lint', label: 'Lint' },
            { id: 'tests', label: 'Tests' },
          ],
          custom_text: 'and e2e',
        },
        q3: { selected: [], custom_text: 'Node 22 only' },
      },
    };
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/ask-multi');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1')).toEqual([
      'Answer to q1: "Hosted"\nAnswer to q2: "Lint", "Tests" and wrote "and e2e"\nAnswer to q3: wrote "Node 22 only"',
    ]);
    const asked = normalizeAsk(mcp.calls[0]?.args);
    expect(asked.ok && asked.value.questions).toHaveLength(3);
    expect(asked.ok && asked.value.context).not.toBe('');
  });

  it('says it will continue later when the question stays open', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = { status: 'open', pending_id: 'p-1', message: 'The question stays open.' };
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/ask');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1')).toEqual(['I will continue when you answer.']);
  });

  it('gives up its own wait after two seconds on /ask-detach, ending the call on the server', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = 'hang';
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    const started = Date.now();
    await prompt(host, 's1', 'turn-1', '/ask-detach');
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'end_turn' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(log.texts('turn-1')).toEqual(['I will continue when you answer.']);
    await expect.poll(() => mcp?.aborted).toBe(1);
  });

  it('on /ask-detach, never gives up its call before Clarion said the question is written', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    mcp.askResult = 'hang';
    mcp.announceAfterMs = 300;
    const { host, log } = startHost();
    const base = launch('s1', mcp.url);
    await host.start({
      ...base,
      profile: { ...base.profile, env: { CLARION_DEMO_DETACH_AFTER_MS: '1' } },
    });
    await prompt(host, 's1', 'turn-1', '/ask-detach');
    expect(await log.turnEnded('turn-1')).toMatchObject({ stopReason: 'end_turn' });
    expect(log.texts('turn-1')).toEqual(['I will continue when you answer.']);
    await expect.poll(() => mcp?.hung).toEqual(['announced', 'aborted']);
  });

  it('refuses to start with a CLARION_DEMO_DETACH_AFTER_MS that is not a number of milliseconds, saying so', async () => {
    const { host } = startHost();
    const base = launch('s1');
    const bad = {
      ...base,
      profile: { ...base.profile, env: { CLARION_DEMO_DETACH_AFTER_MS: 'soon' } },
    };
    const refused = await rejection(host.start(bad));
    expect(refused.code).toBe('handshake_failed');
    expect(refused.failure?.message).toContain('exited while starting');
    expect(refused.failure?.message).toContain(
      'CLARION_DEMO_DETACH_AFTER_MS must be a whole number of milliseconds from 1 to 3600000, not "soon"',
    );
    expect(host.isStarted('s1')).toBe(false);
  });

  it('reports that it cannot reach Clarion with a wrong token', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    const { host, log } = startHost();
    const wrong = { ...launch('s1', mcp.url), mcp: { url: mcp.url, token: 'wrong' } };
    await host.start(wrong);
    await prompt(host, 's1', 'turn-1', '/ask');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1').join('')).toMatch(/^I could not reach Clarion: /);
    expect(mcp.calls).toEqual([]);
  });

  it('says a user action is not available when the server lacks the tool', async () => {
    mcp = new FakeClarionMcp();
    await mcp.listen();
    const { host, log } = startHost();
    await host.start(launch('s1', mcp.url));
    await prompt(host, 's1', 'turn-1', '/action');
    await log.turnEnded('turn-1');
    expect(log.texts('turn-1')).toEqual([
      'Requesting an action is not available on this Clarion server.',
    ]);
  });
});
