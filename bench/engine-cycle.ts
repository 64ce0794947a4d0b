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
import { createSessionWriter } from '../src/events/session-writer.js';
import { silentLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { createResponseObserver } from '../src/observability/response-observer.js';
import type { Store } from '../src/store/index.js';
import { systemTimers } from '../src/support/timers.js';
import { createSuccessorTurns } from '../src/turns/successor-turn.js';
import { ANSWER, askArgs, type ClarionInstance } from './clarion-instance.js';
import type { Contestant } from './cycle-level.js';

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

/**
 * The clarification service as `startServer` builds it, without agents to
 * resume (a detached answer is refused and restored) and without metrics
 * anyone reads.
 */
export function clarificationEngine(store: Store, events: EventPublisher) {
  return new ClarificationService({
    store,
    waiters: new LiveWaiters(systemTimers),
    successors: createSuccessorTurns(unavailableRuntime),
    sessions: createSessionWriter({ store, events, userInputPending: () => null }),
    observer: createResponseObserver({
      logger: silentLogger,
      metrics: createMetrics(),
      driver: store.driver,
    }),
    logger: silentLogger,
    timers: systemTimers,
    budgets: DEFAULT_BUDGETS,
  });
}

export async function engineAgents(instance: ClarionInstance, count: number): Promise<Contestant> {
  const { store } = instance.server;
  const sessions = await instance.seedSessions(count);
  const handOff = new QuestionHandOff();
  const engine = clarificationEngine(store, handOff);
  const person: Principal = {
    kind: 'user',
    userId: instance.adminUserId,
    name: 'Test user',
    isAdmin: true,
  };
  let tag = 0;

  /** One cycle in `sessionId`; true when the ask returned the person's answer. */
  async function cycle(sessionId: string): Promise<boolean> {
    const asked = handOff.next(sessionId);
    const waiting = engine.ask(sessionId, askArgs(`engine ${String(tag++)}`));
    const answered = await engine.respond(
      { principal: person, surface: 'rest' },
      await asked,
      ANSWER,
    );
    const outcome = await waiting;
    return answered.ok && outcome.ok && outcome.outcome === 'answered';
  }

  return {
    cycle(agent) {
      const sessionId = sessions[agent];
      if (sessionId === undefined) throw new Error(`no session for agent ${String(agent)}`);
      return cycle(sessionId);
    },
    otherFailures: () => 0,
    close: () => engine.close(),
  };
}
