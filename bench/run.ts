/**
 * `npm run bench [-- --quick] [-- --only=flatness,floor,peer,pending,load,replicas]`: runs the
 * benchmarks, prints the table of ratios against goals, and writes
 * bench/results/latest.json (or latest-quick.json for a quick run, so a
 * smoke run never overwrites a full one).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCHMARKS, runBench, type BenchmarkName } from './harness.js';
import { markdownTable } from './report.js';

function parseOnly(args: readonly string[]): BenchmarkName[] | undefined {
  const flag = args.find((arg) => arg.startsWith('--only='));
  if (!flag) return undefined;
  const names = flag.slice('--only='.length).split(',');
  const known = new Set<string>(BENCHMARKS);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}`);
  return names as BenchmarkName[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const only = parseOnly(args);
  const results = await runBench({
    quick,
    ...(only ? { only } : {}),
    command: ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' '),
    log: (line) => process.stderr.write(`[bench] ${line}\n`),
  });
  // dist/bench/run.js → <repo>/bench/results
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const out = join(repo, 'bench', 'results', quick ? 'latest-quick.json' : 'latest.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${markdownTable(results.rows)}\n\n`);
  process.stdout.write(`total ${Math.round(results.meta.durationMs / 1000)} s; wrote ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
