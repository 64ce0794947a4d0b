/**
 * Clarion's counters, gauges and histograms (DESIGN §9), on a registry of
 * their own so every test can build a fresh set and nothing leaks into
 * prom-client's global default registry.
 *
 * Invariant: every label value comes from a closed vocabulary declared here.
 * Pending IDs, session IDs and other identities are never labels (DESIGN §8):
 * a value outside the vocabulary is not recorded at all, so a caller's mistake
 * cannot turn into unbounded label cardinality.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ResponsePhase } from './response-observer.js';

export const RESPONSE_PHASES = [
  'identity',
  'claim',
  'delivery',
] as const satisfies readonly ResponsePhase[];

/** How one `POST …/respond` ended, as the resolver reports it. */
export const RESPONSE_OUTCOMES = [
  'claimed',
  'replayed',
  'invalid',
  'not_found',
  'not_active',
  /** The caller is an agent: only a person decides, so it was refused before any read. */
  'person_required',
  'unavailable',
  /** The caller disconnected before the claim; nothing was written or answered. */
  'caller_gone',
  'internal',
] as const;
export type ResponseOutcome = (typeof RESPONSE_OUTCOMES)[number];

/** The shape of the resolver's result this file needs, without depending on `clarification/`. */
export type RespondResultLike = { ok: true; claimed: boolean } | { ok: false; code: string };

/** The outcome label of one resolver result; codes this file does not know count as `internal`. */
export function responseOutcomeOf(result: RespondResultLike): ResponseOutcome {
  if (result.ok) return result.claimed ? 'claimed' : 'replayed';
  switch (result.code) {
    case 'invalid_request':
      return 'invalid';
    case 'not_found':
    case 'not_active':
    case 'person_required':
    case 'caller_gone':
      return result.code;
    case 'temporarily_unavailable':
    case 'storage_unavailable':
      return 'unavailable';
    default:
      return 'internal';
  }
}

/** Bounds for phase durations: sub-millisecond claims up to the 30 s delivery budget. */
const PHASE_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

export interface MetricsOptions {
  /** Also collect prom-client's process and runtime metrics (production only; tests skip them). */
  readonly collectDefaults?: boolean;
  /** Labels every series with this replica's ID, so replicas on one database stay apart (issue 16). */
  readonly replica?: string;
}

export interface ClarionMetrics {
  readonly registry: Registry;
  /** The pre-claim budget ran out in `phase`. */
  responseTimeout(phase: ResponsePhase): void;
  /** One response finished with `outcome`. */
  responseOutcome(outcome: ResponseOutcome): void;
  /** How long `phase` of one response took. */
  observePhase(phase: ResponsePhase, durationMs: number): void;
  /** The event hub accepted one event for publication. */
  eventPublished(): void;
  /** The event hub now has `count` connected subscribers. */
  subscribersChanged(count: number): void;
  /** The event hub disconnected a subscriber that could not keep up. */
  slowConsumerClosed(): void;
}

const PHASE_SET: ReadonlySet<string> = new Set(RESPONSE_PHASES);
const OUTCOME_SET: ReadonlySet<string> = new Set(RESPONSE_OUTCOMES);

export function createMetrics(options: MetricsOptions = {}): ClarionMetrics {
  const registry = new Registry();
  if (options.replica !== undefined) registry.setDefaultLabels({ replica: options.replica });
  if (options.collectDefaults === true) collectDefaultMetrics({ register: registry });

  const timeouts = new Counter({
    name: 'clarification_response_timeout_total',
    help: 'Responses whose pre-claim budget ran out, by the phase it ran out in.',
    labelNames: ['phase'] as const,
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'clarification_responses_total',
    help: 'Clarification responses by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const phaseDuration = new Histogram({
    name: 'clarification_response_phase_duration_seconds',
    help: 'Duration of each phase of a clarification response.',
    labelNames: ['phase'] as const,
    buckets: PHASE_BUCKETS_S,
    registers: [registry],
  });
  const subscribers = new Gauge({
    name: 'events_subscribers',
    help: 'Connected event subscribers (WebSocket connections).',
    registers: [registry],
  });
  const published = new Counter({
    name: 'events_published_total',
    help: 'Events handed to the hub for publication.',
    registers: [registry],
  });
  const slowConsumers = new Counter({
    name: 'events_slow_consumers_closed_total',
    help: 'Subscribers disconnected because their send buffer grew past the bound.',
    registers: [registry],
  });

  // Zero series exist from the start, so a dashboard reads 0 rather than "no data".
  for (const phase of RESPONSE_PHASES) {
    timeouts.labels(phase).inc(0);
    phaseDuration.zero({ phase });
  }
  for (const outcome of RESPONSE_OUTCOMES) outcomes.labels(outcome).inc(0);

  return {
    registry,
    responseTimeout(phase) {
      if (PHASE_SET.has(phase)) timeouts.labels(phase).inc();
    },
    responseOutcome(outcome) {
      if (OUTCOME_SET.has(outcome)) outcomes.labels(outcome).inc();
    },
    observePhase(phase, durationMs) {
      if (PHASE_SET.has(phase) && Number.isFinite(durationMs)) {
        phaseDuration.labels(phase).observe(Math.max(0, durationMs) / 1000);
      }
    },
    eventPublished() {
      published.inc();
    },
    subscribersChanged(count) {
      subscribers.set(count);
    },
    slowConsumerClosed() {
      slowConsumers.inc();
    },
  };
}
