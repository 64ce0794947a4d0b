/**
 * Keeps the benchmark harness from rotting: runs every benchmark of
 * `npm run bench` in `--quick` mode (tiny sizes, PostgreSQL from the test
 * run's global setup) and checks that each produced a well-formed result.
 * The numbers themselves mean nothing at these sizes.
 */
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { flatnessFailures } from '../../bench/flatness.js';
import { runBench } from '../../bench/harness.js';
import type { LatencySummary } from '../../bench/stats.js';

function expectLatency(latency: LatencySummary, samples: number): void {
  expect(latency.samples).toBe(samples);
  for (const value of [latency.p50Ms, latency.p99Ms, latency.meanMs]) {
    expect(Number.isFinite(value) && value > 0).toBe(true);
  }
  expect(latency.p99Ms).toBeGreaterThanOrEqual(latency.p50Ms);
}

const finitePositive = (value: number) => Number.isFinite(value) && value > 0;

describe('the benchmark harness in quick mode', () => {
  it('measures every benchmark and fills the goal table', { timeout: 180_000 }, async () => {
    const results = await runBench({ quick: true, pgAdminUrl: inject('pgAdminUrl') });
    const { sizes } = results.meta;

    for (const driver of ['sqlite', 'postgres'] as const) {
      const flat = results.flatness[driver];
      if (!flat) throw new Error(`no flatness result for ${driver}`);
      for (const scenario of [flat.large, flat.bareIndexOnly]) {
        expectLatency(scenario.latency, sizes.flatSamples);
        expectLatency(scenario.baseline.latency, sizes.flatSamples);
      }
      expectLatency(flat.sessionIndexOnly.latency, sizes.scanSamples);
      expectLatency(flat.sessionIndexOnly.baseline.latency, sizes.scanSamples);
      expect(flatnessFailures(flat)).toBe(0);
      expect(flat.large.claimPlan.length).toBeGreaterThan(0);
      expect(flat.large.claimAccess).toBe('seek');
      expect(flat.sessionIndexOnly.claimAccess).not.toBe('seek');
      for (const pair of Object.values(flat.ratios)) {
        expect(finitePositive(pair.p50) && finitePositive(pair.p99)).toBe(true);
      }
    }

    const floor = results.floor;
    if (!floor) throw new Error('no floor result');
    const perLevel = sizes.floorBatch * sizes.floorRounds;
    // Clarion and both floors, the same-work floor included: a side missing or measuring
    // nothing fails here, as does a ratio against either floor that is not a positive number.
    for (const side of [floor.clarion, floor.sameWork, floor.bare]) {
      for (const level of [side.single, side.many]) {
        expect(level.responds).toBe(perLevel);
        expect(level.failures).toBe(0);
        expect(finitePositive(level.perSecond)).toBe(true);
        expect(finitePositive(level.cpuMsPerRespond)).toBe(true);
        expectLatency(level.latency, perLevel);
      }
    }
    for (const ratios of [floor.ratios.sameWork, floor.ratios.bare]) {
      expect(Object.values(ratios).every(finitePositive)).toBe(true);
    }
    const floorMetrics = results.rows
      .filter((row) => row.benchmark === '3 floor')
      .map((row) => row.metric);
    expect(floorMetrics).toContain('respond CPU vs same-work floor');
    expect(floorMetrics).toContain('respond CPU vs bare floor');

    const peer = results.peer;
    if (!peer) throw new Error('no peer result');
    for (const side of [peer.clarion, peer.engine, peer.langgraph]) {
      for (const levels of [side.empty, side.withHistory]) {
        expect(levels.single.cycles).toBe(sizes.cyclesSingle);
        expect(levels.many.cycles).toBe(sizes.concurrency * sizes.cyclesPerAgent);
        expect(levels.single.failures + levels.many.failures).toBe(0);
        expectLatency(levels.many.latency, sizes.concurrency * sizes.cyclesPerAgent);
      }
    }
    expect(Object.values(peer.ratios.clarionVsLangGraph).every(finitePositive)).toBe(true);
    expect(Object.values(peer.ratios.engineVsLangGraph).every(finitePositive)).toBe(true);

    for (const driver of ['sqlite', 'postgres'] as const) {
      const pending = results.pending[driver];
      if (!pending) throw new Error(`no pending-scale result for ${driver}`);
      for (const [level, held, waiters] of [
        [pending.few, sizes.pendingFew, sizes.pendingFew],
        [pending.many, sizes.pendingMany, sizes.waitersMany],
      ] as const) {
        expect(level.pending).toBe(held);
        expect(level.waiters).toBe(waiters);
        expect(level.counted).toBe(held);
        expect(level.inboxPageMs).toBeGreaterThan(0);
        expect(level.failures).toBe(0);
        expectLatency(level.latency, sizes.pendingSamples);
        expect(finitePositive(level.rssMiB.max) && level.rssMiB.peak >= level.rssMiB.max).toBe(
          true,
        );
      }
      expect(finitePositive(pending.ratios.p50) && finitePositive(pending.ratios.p99)).toBe(true);
    }

    const load = results.load;
    if (!load) throw new Error('no load result');
    expect(load.agents).toBe(sizes.loadAgents);
    expect(load.answered).toBeGreaterThan(0);
    expect(load.raced).toBeGreaterThan(0);
    expect(load.answered).toBe(load.asks);
    expect([
      load.lost,
      load.doubles,
      load.inconsistent,
      load.serverErrors,
      load.otherFailures,
    ]).toEqual([0, 0, 0, 0, 0]);
    expect(load.leftover).toEqual({ pendingRows: 0, deliveryIntents: 0 });
    expect(load.resumed).toBe(0);
    expect(load.unexpected).toEqual([]);
    expect(Number.isFinite(load.rss.lastVsFirst)).toBe(true);
    const { askToSeen, seenToAgent, respond } = load.stages;
    expect(load.warmupMs).toBe(sizes.loadWarmupMs);
    expect(load.measuredAnswered).toBeGreaterThan(0);
    expect(load.measuredAnswered).toBeLessThan(load.answered);
    expect(finitePositive(load.rss.warmupStartMiB)).toBe(true);
    for (const stage of [askToSeen, seenToAgent, respond]) {
      expectLatency(stage, load.measuredAnswered);
    }
    expect(load.slowest.length).toBeGreaterThan(0);
    expect(load.walMaxMiB).toBeGreaterThan(0);
    expectLatency(load.platform.idle, sizes.acceptBurst);
    expectLatency(load.platform.busy, sizes.acceptBurst);

    const replicas = results.replicas;
    if (!replicas) throw new Error('no replicas result');
    expect([...new Set(replicas.phases.map((phase) => phase.replicas))].sort()).toEqual([1, 2]);
    for (const phase of replicas.phases) {
      expect(phase.responds).toBe(sizes.replicaResponds);
      expect([phase.failures, phase.leftPending]).toEqual([0, 0]);
      expect(finitePositive(phase.perSecond)).toBe(true);
    }
    expectLatency(replicas.latency.same.answer, sizes.replicaLatencySamples);
    expectLatency(replicas.latency.cross.answer, sizes.replicaLatencySamples);
    expect(replicas.latency.failures).toBe(0);
    expect(finitePositive(replicas.ratios.throughput)).toBe(true);
    expect(finitePositive(replicas.ratios.answerP99)).toBe(true);

    // Every benchmark of the issues has a row.
    const benchmarks = new Set(results.rows.map((row) => row.benchmark.split(' ')[0]));
    expect([...benchmarks].sort()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    for (const row of results.rows) {
      expect(typeof row.value === 'string' || Number.isFinite(row.value)).toBe(true);
    }
  });
});
