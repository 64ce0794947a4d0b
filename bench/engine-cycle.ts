/**
 * Clarion's ask → answer → continue cycle without the network: the
 * like-for-like counterpart of the in-process LangGraph graph. An agent's
 * `ask` writes its bundle and waits live; the person's answer goes through
 * the resolver (identity, claim, delivery to the waiter, hand-off
 * confirmed); the ask returns it. The engine is assembled as `startServer`
 * assembles it, over the instance's own store, so the transactions and
 * events are the product's; only HTTP, MCP and the WebSocket are left out.
 */
import { unavailableRuntime } from '../src/agents/unavailable-runtime.js';
import type { Principal } from '../src/auth/principal.js';
import { ClarificationService, DEFAULT_BUDGETS, LiveWaiters } from '../src/clarification/index.js';
import type { ClarionEvent, EventPublisher } from '../src/events/types.js';
import { silentLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { createResponseObserver } from '../src/observability/response-observer.js';
import { systemTimers } from '../src/support/timers.js';
import { ANSWER, askArgs, type ClarionInstance } from './clarion-instance.js';
import type { Agents } from './full-cycle.js';
import { elapsedMs, round, runPool, summarize } from './stats.js';

/** Hands each session's next new question to whoever waits for it. */
class QuestionHandOff implements EventPublisher {
  private readonly waiting = new Map<string, (pendingId: string) => void>();

  next(sessionId: string): Promise<string> {
    return new Promise((resolve) => this.waiting.set(sessionId, resolve));
  }

  publish(event: ClarionEvent): void {
    if (event.type !== 'message.added') return;
    const pendingId = event.message.metadata.pending_id;
    const waiter = this.waiting.get(event.session_id);
    if (typeof pendingId !== 'string' || !waiter) return;
    this.waiting.delete(event.session_id);
    waiter(pendingId);
  }
}

export async function engineAgents(instance: ClarionInstance, count: number): Promise<Agents> {
  const { store } = instance.server;
  const sessions = await instance.seedSessions(count);
  const handOff = new QuestionHandOff();
  const engine = new ClarificationService({
    store,
    waiters: new LiveWaiters(systemTimers),
    runtime: unavailableRuntime,
    events: handOff,
    observer: createResponseObserver({
      logger: silentLogger,
      metrics: createMetrics(),
      driver: store.driver,
    }),
    logger: silentLogger,
    timers: systemTimers,
    budgets: DEFAULT_BUDGETS,
  });
  const person: Principal = { kind: 'user', userId: instance.adminUserId, isAdmin: true };
  let tag = 0;

  /** One cycle in `sessionId`; true when the ask returned the person's answer. */
  async function cycle(sessionId: string): Promise<boolean> {
    const asked = handOff.next(sessionId);
    const waiting = engine.ask(sessionId, askArgs(`engine ${String(tag++)}`));
    const answered = await engine.respond(person, await asked, ANSWER);
    const outcome = await waiting;
    return answered.ok && outcome.ok && outcome.outcome === 'answered';
  }

  return {
    async level(agents, cyclesPerAgent) {
      const ms: number[] = [];
      let failures = 0;
      const started = performance.now();
      await runPool(agents, agents, async (lane) => {
        const sessionId = sessions[lane];
        if (sessionId === undefined) throw new Error(`no session for lane ${String(lane)}`);
        for (let i = 0; i < cyclesPerAgent; i++) {
          const t0 = performance.now();
          const ok = await cycle(sessionId);
          ms.push(elapsedMs(t0));
          if (!ok) failures++;
        }
      });
      const wallMs = elapsedMs(started);
      return {
        agents,
        cycles: ms.length,
        perSecond: round((ms.length / wallMs) * 1000, 1),
        latency: summarize(ms),
        failures,
      };
    },
    close: () => engine.close(),
  };
}
