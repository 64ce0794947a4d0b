/**
 * Sizes of a full run and of the `--quick` smoke run. Data set sizes are what
 * the issue names; a run that takes too long scales sample counts, never data.
 */
export interface BenchSizes {
  /** Unrelated messages for the baseline and the large data set. */
  small: number;
  large: number;
  /** Sessions the unrelated messages are spread over. */
  fillerSessions: number;
  warmup: number;
  /** Sequential respond samples per flatness scenario. */
  flatSamples: number;
  /** Samples with only the session-leading index: each one scans the table. */
  scanSamples: number;
  /** The "many" of "1 and 32 concurrent". */
  concurrency: number;
  /** Floor benchmark: bundles per round (one per session), untimed warm-up rounds, rounds per concurrency. */
  floorBatch: number;
  floorWarmupRounds: number;
  floorRounds: number;
  /** Full cycles per agent: with one agent, and with `concurrency` agents. */
  cyclesSingle: number;
  cyclesPerAgent: number;
  /** Turns the cycle contestants take at each level, each running its share of the cycles. */
  peerRounds: number;
  /** Finished bundles (Clarion) and threads (LangGraph) stored for the history run. */
  history: number;
  /** Pending bundles held at the baseline (each with a live waiter) and at scale. */
  pendingFew: number;
  pendingMany: number;
  /** Live waiters at scale (agents blocked in `ask_user_question`); the other bundles are detached. */
  waitersMany: number;
  /** Sequential respond samples at each pending level. */
  pendingSamples: number;
  /** Load before `loadMs` that only the audit counts (see `load.ts`). */
  loadWarmupMs: number;
  /** Load: how long agents keep asking, and how many agents and responders take part. */
  loadMs: number;
  loadAgents: number;
  loadResponders: number;
  /** Platform check beside the load: new connections in one burst, and the busy server's turn. */
  acceptBurst: number;
  acceptTurnMs: number;
  /** Replicas: responds per throughput phase (untimed warm-up, then timed), and 1/2 rounds (ABBA). */
  replicaWarmup: number;
  replicaResponds: number;
  replicaRounds: number;
  /** Replicas: answer-latency samples of each kind (same, cross replica), after warm-up ones. */
  replicaLatencyWarmup: number;
  replicaLatencySamples: number;
}

export const FULL: BenchSizes = {
  small: 1_000,
  large: 1_000_000,
  fillerSessions: 1_000,
  warmup: 30,
  flatSamples: 2_000,
  scanSamples: 12,
  concurrency: 32,
  floorBatch: 256,
  floorWarmupRounds: 10,
  floorRounds: 4,
  cyclesSingle: 600,
  cyclesPerAgent: 30,
  peerRounds: 6,
  history: 100_000,
  pendingFew: 10,
  pendingMany: 10_000,
  waitersMany: 1_000,
  pendingSamples: 600,
  loadWarmupMs: 60_000,
  loadMs: 120_000,
  loadAgents: 100,
  loadResponders: 100,
  acceptBurst: 100,
  acceptTurnMs: 50,
  replicaWarmup: 200,
  replicaResponds: 1_600,
  replicaRounds: 2,
  replicaLatencyWarmup: 20,
  replicaLatencySamples: 200,
};

export const QUICK: BenchSizes = {
  small: 100,
  large: 2_000,
  fillerSessions: 4,
  warmup: 2,
  flatSamples: 8,
  scanSamples: 2,
  concurrency: 4,
  floorBatch: 8,
  floorWarmupRounds: 1,
  floorRounds: 1,
  cyclesSingle: 4,
  cyclesPerAgent: 2,
  peerRounds: 2,
  history: 500,
  pendingFew: 2,
  pendingMany: 24,
  waitersMany: 4,
  pendingSamples: 6,
  loadWarmupMs: 500,
  loadMs: 1_000,
  loadAgents: 4,
  loadResponders: 4,
  acceptBurst: 8,
  acceptTurnMs: 10,
  replicaWarmup: 8,
  replicaResponds: 64,
  replicaRounds: 1,
  replicaLatencyWarmup: 2,
  replicaLatencySamples: 8,
};
