import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_SIZES } from './harness';
import type { BenchResult, BenchSpec, RunSize } from './harness';
import { BENCH_DIR, findBenchFiles, matches, runSpec } from './runner';


interface Args {
  readonly size: RunSize;
  readonly only: string | null;
}

function parseArgs(argv: readonly string[]): Args {
  let size: RunSize = 'small';
  let only: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--size') {
      const v = argv[++i];
      if (!(BENCH_SIZES as readonly string[]).includes(v ?? '')) throw new Error(`--size must be one of ${BENCH_SIZES.join(', ')}`);
      size = v as RunSize;
    } else if (a === '--only') {
      only = argv[++i] ?? null;
      if (only === null) throw new Error('--only needs a prefix');
    } else if (a?.startsWith('--size=')) {
      return parseArgs([...argv.slice(0, i), '--size', a.slice(7), ...argv.slice(i + 1)]);
    } else if (a?.startsWith('--only=')) {
      return parseArgs([...argv.slice(0, i), '--only', a.slice(7), ...argv.slice(i + 1)]);
    } else {
      throw new Error(`unknown argument: ${String(a)}`);
    }
  }
  if (size === 'huge' && process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false') {
    throw new Error('--size huge (10M records) is run by hand, never in CI');
  }
  return { size, only };
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(4);
}

function printTable(results: readonly BenchResult[]): void {
  const head = ['id', 'unit', 'median', 'min', 'max', 'runs'];
  const rows = results.map((r) => [r.id, r.unit, fmt(r.median), fmt(r.min), fmt(r.max), String(r.runs)]);
  const widths = head.map((h, k) => Math.max(h.length, ...rows.map((r) => (r[k] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((c, k) => (k < 2 ? c.padEnd(widths[k] as number) : c.padStart(widths[k] as number))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

async function mainBench(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  const specs: BenchSpec[] = [];
  let failed = 0;
  for (const file of findBenchFiles()) {
    // A file that does not load is reported (and fails the run) without hiding the others' figures.
    let mod: { benchmarks?: readonly BenchSpec[] };
    try {
      mod = (await import(pathToFileURL(file).href)) as { benchmarks?: readonly BenchSpec[] };
    } catch (e) {
      failed++;
      console.error(`benchmark file ${relative(BENCH_DIR, file)} failed to load: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (!Array.isArray(mod.benchmarks)) throw new Error(`${relative(BENCH_DIR, file)} does not export benchmarks`);
    specs.push(...mod.benchmarks.filter((s) => matches(s, args.only, args.size)));
  }
  if (specs.length === 0) {
    console.error(`no benchmark matches ${args.only ?? '(all)'}`);
    return 1;
  }
  const results: BenchResult[] = [];
  for (const spec of specs) {
    console.error(`running ${spec.id} (${args.size}) …`);
    try {
      results.push(...(await runSpec(spec, args.size)));
    } catch (e) {
      failed++;
      console.error(`benchmark ${spec.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }
  printTable(results);
  const cpuList = cpus();
  const out = {
    machine: { cpus: cpuList.length, model: cpuList[0]?.model ?? 'unknown', node: process.version, platform: process.platform, totalmem: totalmem() },
    size: args.size,
    results,
  };
  const dir = join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.error(`wrote ${relative(process.cwd(), join(dir, 'latest.json'))}`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await mainBench(process.argv.slice(2));
