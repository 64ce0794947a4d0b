/**
 * Benchmarks 4 and 5 together, on SQLite: Clarion's full cycle at 1 and N
 * agents, then LangGraph's at 1 and N threads, each again after `history`
 * finished bundles (Clarion, in filler sessions) or threads (LangGraph) are
 * stored. Both sides run in this process, one after the other. Clarion's
 * engine cycle without the network (`engine-cycle.ts`) is measured beside
 * its full cycle, as the like-for-like peer of LangGraph's in-process graph.
 */
import { createFillers, loadUnrelated } from './bulk-data.js';
import { startClarion } from './clarion-instance.js';
import { engineAgents } from './engine-cycle.js';
import type { CycleLevel } from './cycle-level.js';
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

async function levels(
  run: (count: number, cycles: number) => Promise<CycleLevel>,
  sizes: BenchSizes,
): Promise<Levels> {
  return {
    single: await run(1, sizes.cyclesSingle),
    many: await run(sizes.concurrency, sizes.cyclesPerAgent),
  };
}

async function measureClarion(sizes: BenchSizes) {
  const instance = await startClarion('sqlite', undefined);
  try {
    await createFillers(instance.server.store, sizes.fillerSessions);
    const agents = await connectAgents(instance, sizes.concurrency);
    const engine = await engineAgents(instance, sizes.concurrency);
    try {
      const run = (count: number, cycles: number) => agents.level(count, cycles);
      const runEngine = (count: number, cycles: number) => engine.level(count, cycles);
      // One untimed pass of both levels per side: V8 is still optimizing Clarion's
      // code hundreds of cycles in, and a short warm-up let whichever level ran
      // later (the history levels) look faster than the empty ones.
      await levels(run, sizes);
      await levels(runEngine, sizes);
      const empty = await levels(run, sizes);
      const engineEmpty = await levels(runEngine, sizes);
      const generationMs = await loadUnrelated(instance.server.store, {
        from: 0,
        to: sizes.history,
        seed: 13,
        questionEvery: 1,
      });
      const withHistory = await levels(run, sizes);
      const engineWithHistory = await levels(runEngine, sizes);
      return {
        empty,
        withHistory,
        engine: { empty: engineEmpty, withHistory: engineWithHistory },
        generationMs: round(generationMs, 0),
      };
    } finally {
      await engine.close();
      await agents.close();
    }
  } finally {
    await instance.close();
  }
}

async function measureLangGraph(sizes: BenchSizes) {
  const peer = await startLangGraph();
  try {
    const run = (count: number, cycles: number) => peer.level(count, cycles);
    await levels(run, sizes); // untimed warm-up, as Clarion's
    const empty = await levels(run, sizes);
    const generationMs = await peer.addHistory(sizes.history);
    const withHistory = await levels(run, sizes);
    return { empty, withHistory, generationMs };
  } finally {
    await peer.close();
  }
}

export async function measurePeer(sizes: BenchSizes): Promise<PeerResult> {
  const clarion = await measureClarion(sizes);
  const langgraph = await measureLangGraph(sizes);
  const cps = (levels: Levels, which: keyof Levels) => levels[which].perSecond;
  return {
    history: sizes.history,
    historyGenerationMs: { clarion: clarion.generationMs, langgraph: langgraph.generationMs },
    clarion: { empty: clarion.empty, withHistory: clarion.withHistory },
    engine: clarion.engine,
    langgraph: { empty: langgraph.empty, withHistory: langgraph.withHistory },
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
        emptySingle: ratio(cps(clarion.engine.empty, 'single'), cps(langgraph.empty, 'single')),
        emptyMany: ratio(cps(clarion.engine.empty, 'many'), cps(langgraph.empty, 'many')),
        historySingle: ratio(
          cps(clarion.engine.withHistory, 'single'),
          cps(langgraph.withHistory, 'single'),
        ),
        historyMany: ratio(
          cps(clarion.engine.withHistory, 'many'),
          cps(langgraph.withHistory, 'many'),
        ),
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
