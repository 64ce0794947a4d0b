/**
 * Benchmarks 4 and 5 together, on SQLite: Clarion's full cycle at 1 and N
 * agents and LangGraph's at 1 and N threads, each on an empty store and on
 * one holding `history` finished bundles (Clarion, in filler sessions) or
 * threads (LangGraph). Clarion's engine cycle without the network
 * (`engine-cycle.ts`) is measured beside its full cycle, as the like-for-like
 * peer of LangGraph's in-process graph. All six run in this process and take
 * turns (`tournament`), so every ratio compares the same minutes.
 */
import { createFillers, loadUnrelated } from './bulk-data.js';
import { startClarion } from './clarion-instance.js';
import { engineAgents } from './engine-cycle.js';
import { LevelSamples, type Contestant, type CycleLevel } from './cycle-level.js';
import { connectAgents } from './full-cycle.js';
import { startLangGraph } from './langgraph-peer.js';
import type { BenchSizes } from './options.js';
import { ratio, round } from './stats.js';

export interface Levels {
  single: CycleLevel;
  many: CycleLevel;
}

export interface PeerResult {
  history: number;
  historyGenerationMs: { clarion: number; langgraph: number };
  clarion: { empty: Levels; withHistory: Levels };
  engine: { empty: Levels; withHistory: Levels };
  langgraph: { empty: Levels; withHistory: Levels };
  ratios: {
    clarionVsLangGraph: {
      emptySingle: number;
      emptyMany: number;
      historySingle: number;
      historyMany: number;
    };
    engineVsLangGraph: {
      emptySingle: number;
      emptyMany: number;
      historySingle: number;
      historyMany: number;
    };
    historyRetention: {
      clarionSingle: number;
      clarionMany: number;
      langgraphSingle: number;
      langgraphMany: number;
    };
  };
}

/**
 * Runs every contestant's two levels in `peerRounds` turns, each turn a
 * share of the level's cycles, the contestants' order reversed every other
 * turn: this machine's speed drifts by more than the ratios measure within
 * a minute, and taking turns lands that drift on every contestant alike.
 */
async function tournament(
  contestants: readonly Contestant[],
  sizes: BenchSizes,
): Promise<Levels[]> {
  const sides = contestants.map((contestant) => ({
    contestant,
    single: new LevelSamples(1),
    many: new LevelSamples(sizes.concurrency),
  }));
  const share = (cycles: number) => Math.max(1, Math.round(cycles / sizes.peerRounds));
  for (let turn = 0; turn < sizes.peerRounds; turn++) {
    const order = turn % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) await side.single.pass(side.contestant, share(sizes.cyclesSingle));
    for (const side of order) await side.many.pass(side.contestant, share(sizes.cyclesPerAgent));
  }
  return sides.map((side) => ({ single: side.single.level(), many: side.many.level() }));
}

/** Starts what `measurePeer` compares, closing what started when a later start fails. */
async function startContestants(sizes: BenchSizes, closers: (() => Promise<void>)[]) {
  const started = async <T extends { close(): Promise<void> }>(thing: Promise<T>) => {
    const value = await thing;
    closers.push(() => value.close());
    return value;
  };
  const empty = await started(startClarion('sqlite', undefined));
  const full = await started(startClarion('sqlite', undefined));
  await createFillers(empty.server.store, sizes.fillerSessions);
  await createFillers(full.server.store, sizes.fillerSessions);
  const clarionGenerationMs = await loadUnrelated(full.server.store, {
    from: 0,
    to: sizes.history,
    seed: 13,
    questionEvery: 1,
  });
  const langgraphEmpty = await started(startLangGraph());
  const langgraphFull = await started(startLangGraph());
  const langgraphGenerationMs = await langgraphFull.addHistory(sizes.history);
  const contestants = [
    await started(connectAgents(empty, sizes.concurrency)),
    await started(connectAgents(full, sizes.concurrency)),
    await started(engineAgents(empty, sizes.concurrency)),
    await started(engineAgents(full, sizes.concurrency)),
    langgraphEmpty,
    langgraphFull,
  ];
  return {
    contestants,
    generationMs: { clarion: round(clarionGenerationMs, 0), langgraph: langgraphGenerationMs },
  };
}

export async function measurePeer(sizes: BenchSizes): Promise<PeerResult> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const { contestants, generationMs } = await startContestants(sizes, closers);
    // One untimed tournament first: V8 is still optimizing Clarion's code hundreds of
    // cycles in, and a short warm-up let whichever level ran later look faster.
    await tournament(contestants, sizes);
    const [clarionEmpty, clarionFull, engineEmpty, engineFull, langgraphEmpty, langgraphFull] =
      (await tournament(contestants, sizes)) as [Levels, Levels, Levels, Levels, Levels, Levels];
    return peerResult(sizes, generationMs, {
      clarion: { empty: clarionEmpty, withHistory: clarionFull },
      engine: { empty: engineEmpty, withHistory: engineFull },
      langgraph: { empty: langgraphEmpty, withHistory: langgraphFull },
    });
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

function peerResult(
  sizes: BenchSizes,
  historyGenerationMs: PeerResult['historyGenerationMs'],
  sides: Pick<PeerResult, 'clarion' | 'engine' | 'langgraph'>,
): PeerResult {
  const { clarion, engine, langgraph } = sides;
  const cps = (levels: Levels, which: keyof Levels) => levels[which].perSecond;
  return {
    history: sizes.history,
    historyGenerationMs,
    ...sides,
    ratios: {
      clarionVsLangGraph: {
        emptySingle: ratio(cps(clarion.empty, 'single'), cps(langgraph.empty, 'single')),
        emptyMany: ratio(cps(clarion.empty, 'many'), cps(langgraph.empty, 'many')),
        historySingle: ratio(
          cps(clarion.withHistory, 'single'),
          cps(langgraph.withHistory, 'single'),
        ),
        historyMany: ratio(cps(clarion.withHistory, 'many'), cps(langgraph.withHistory, 'many')),
      },
      engineVsLangGraph: {
        emptySingle: ratio(cps(engine.empty, 'single'), cps(langgraph.empty, 'single')),
        emptyMany: ratio(cps(engine.empty, 'many'), cps(langgraph.empty, 'many')),
        historySingle: ratio(
          cps(engine.withHistory, 'single'),
          cps(langgraph.withHistory, 'single'),
        ),
        historyMany: ratio(cps(engine.withHistory, 'many'), cps(langgraph.withHistory, 'many')),
      },
      historyRetention: {
        clarionSingle: ratio(cps(clarion.withHistory, 'single'), cps(clarion.empty, 'single')),
        clarionMany: ratio(cps(clarion.withHistory, 'many'), cps(clarion.empty, 'many')),
        langgraphSingle: ratio(
          cps(langgraph.withHistory, 'single'),
          cps(langgraph.empty, 'single'),
        ),
        langgraphMany: ratio(cps(langgraph.withHistory, 'many'), cps(langgraph.empty, 'many')),
      },
    },
  };
}
