// Logical checkpoint diff: time to the first record page (10k and large),
// whole record diff and its peak memory, beside sqldiff, git and DuckDB on the
// same two tables, in one run. Also: the time to read both large participant
// objects whole (what a first page cost before windowed reads), first pages
// in a fresh process (both objects verified, nothing memoized), and peak
// memory of diffs with the same 200 changes among 10,000 and among 1,000,000
// records (memory must not grow with unchanged records).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Table } from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Checkpoints, checkpointPins } from '../core/checkpoints/checkpoints';
import { diffAllRecordsCheckpoints, diffCheckpoints, diffStatCheckpoints, projectShell } from '../core/diff/index';
import { createProject, readObjectVerifiedAsync } from '../core/project/index';
import { registryCatalog } from '../core/participants/index';
import { benchNodes, nodeCsv, nodeParticipantBytes, sparseEdit } from './diff-data';
import { defineBench } from './harness';
import type { BenchSize } from './harness';
import { writeSqliteCopy } from './sqlite-diff-peer';

const SMALL = 10_000;
/** The "large" workspace: 1,000,000 records for `--size large`, 100,000 for the default quick run. */
const LARGE: Readonly<Record<BenchSize, number>> = { tiny: 8_000, small: 100_000, large: 1_000_000 };
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Side {
  readonly cps: Checkpoints;
  readonly dir: string;
  readonly changes: number;
}

interface State {
  readonly small: Side;
  readonly large: Side;
  readonly sqlite: readonly [string, string];
  readonly csv: readonly [string, string];
  readonly parquet: readonly [string, string];
  readonly duck: DuckDBConnection;
  readonly largeRecords: number;
}

let op = 0;
function opKey(): string {
  op++;
  return `018f0f4e-7b8c-7000-8000-${op.toString(16).padStart(12, '0')}`;
}

/** Changes of the `few` checkpoint of the large workspace: as many as the 10k diff has (100 modified, 50 removed, 50 added). */
const FEW_CHANGES = 200;

async function workspaceOf(dir: string, n: number, few = false): Promise<{ side: Side; nodes: ReturnType<typeof benchNodes> }> {
  const nodes = benchNodes(n);
  const project = await createProject<Table>(join(dir, 'ws'), { catalog: registryCatalog, pins: checkpointPins(join(dir, 'ws')) });
  const cps = new Checkpoints(project);
  const put = (bytes: Uint8Array): { kind: 'put'; capabilityId: string; recordFamilyId: string; bytes: Uint8Array } => ({
    kind: 'put',
    capabilityId: 'graph',
    recordFamilyId: 'node',
    bytes,
  });
  await project.publish({ parent: null, changes: [put(nodeParticipantBytes(nodes.from))] });
  await cps.checkpoint({ name: 'from', idempotencyKey: opKey() });
  await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [put(nodeParticipantBytes(nodes.to))] });
  await cps.checkpoint({ name: 'to', idempotencyKey: opKey() });
  if (few) {
    // 1,000,000 records with only FEW_CHANGES changed: memory beside the 10k diff (same changes, 100× the unchanged records).
    await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [put(nodeParticipantBytes(sparseEdit(nodes.from, FEW_CHANGES)))] });
    await cps.checkpoint({ name: 'few', idempotencyKey: opKey() });
  }
  const changes = Math.floor(n / 100) + 2 * Math.floor(n / 200) + (n % 200 > 7 ? 1 : 0) + (n % 200 > 11 ? 1 : 0);
  return { side: { cps, dir: join(dir, 'ws'), changes }, nodes };
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t0 };
}

async function timedAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

/** Drops the derived change-list cache, so the next diff reads and merges both participants (cold). */
function coldCache(side: Side): void {
  rmSync(join(side.dir, 'cache', 'diff', 'changes'), { recursive: true, force: true });
}

/**
 * Reading both "graph/node" objects the way a cold diff does (verified,
 * chunked, pausing between chunks; the per-process verified memo applies):
 * the floor under a first page with no derived change list.
 */
async function readBothObjects(side: Side): Promise<{ ms: number; bytes: number }> {
  const views = [side.cps.openCheckpoint('from'), side.cps.openCheckpoint('to')];
  try {
    const entries = views.map((v) => v.participants.find((p) => p.capabilityId === 'graph' && p.recordFamilyId === 'node'));
    const t0 = performance.now();
    let bytes = 0;
    for (const e of entries) {
      if (e === undefined) throw new Error('diff bench: no graph/node participant');
      bytes += (await readObjectVerifiedAsync(side.cps.project.root, e, side.cps.project.caches.verifiedObjects, () => new Promise<void>((r) => setImmediate(r)))).length;
    }
    return { ms: performance.now() - t0, bytes };
  } finally {
    for (const v of views) v.release();
  }
}

async function firstPage(side: Side): Promise<number> {
  const { value, ms } = await timedAsync(() => diffCheckpoints({ from: 'from', to: 'to', scope: 'graph', detail: 'records', limit: 100 }, projectShell(side.cps)));
  if (value.table.numRows !== 100 || value.nextPageToken === null) throw new Error('diff bench: first page is not a full page');
  return ms;
}

/**
 * One diff from `from` to `to` in a fresh process (bench/diff-rss-child.ts):
 * no verified-object memo, so both objects are hashed before use; no
 * change-list cache. Its time (inside the child) and peak RSS.
 */
function fresh(side: Side, to: string, mode: 'full' | 'page', rows: number): { ms: number; max_rss_mb: number; rss_before_mb: number } {
  coldCache(side);
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'diff-rss-child.ts'), side.dir, 'from', to, mode], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`diff bench child failed: ${child.stderr}`);
  const out = JSON.parse(child.stdout) as { rows: number; ms: number; max_rss_mb: number; rss_before_mb: number };
  if (out.rows !== rows) throw new Error(`diff bench child: ${out.rows} rows, expected ${rows}`);
  return out;
}

/** Bytes of the graph/node objects of the named checkpoints (what their indexes index). */
function objectSizes(side: Side, names: readonly string[]): number {
  let n = 0;
  for (const name of names) {
    const v = side.cps.openCheckpoint(name);
    try {
      n += v.participants.find((p) => p.capabilityId === 'graph' && p.recordFamilyId === 'node')?.byteLength ?? 0;
    } finally {
      v.release();
    }
  }
  return n;
}

function duckSql(a: string, b: string): string {
  const cols = ['class_id', 'label', 'properties', 'created_at', 'updated_at'];
  return `SELECT coalesce(f.node_uuid, t.node_uuid) AS node_uuid,
    CASE WHEN f.node_uuid IS NULL THEN 'added' WHEN t.node_uuid IS NULL THEN 'removed' ELSE 'modified' END AS change_kind
  FROM read_parquet('${a}') f FULL OUTER JOIN read_parquet('${b}') t ON f.node_uuid = t.node_uuid
  WHERE f.node_uuid IS NULL OR t.node_uuid IS NULL OR ${cols.map((c) => `f.${c} IS DISTINCT FROM t.${c}`).join(' OR ')}
  ORDER BY 1`;
}

export const benchmarks = [
  defineBench<State>({
    id: 'diff',
    results: {
      'diff.first_page_ms.small': 'ms',
      'diff.first_page_ms.large': 'ms',
      'diff.first_page_cached_ms.small': 'ms',
      'diff.first_page_cached_ms.large': 'ms',
      'diff.full_ms.large': 'ms',
      'diff.full_merge_ms.large': 'ms',
      'diff.few_changes_ms.large': 'ms',
      'diff.few_changes_merge_ms.large': 'ms',
      'diff.index_first_build_ms.large': 'ms',
      'diff.index_bytes.large': 'bytes',
      'diff.index_objects_bytes.large': 'bytes',
      'diff.stat_ms.large': 'ms',
      'diff.first_page_display_ms.large': 'ms',
      'diff.jump_last_page_ms.large': 'ms',
      'diff.peak_rss_mb.large': 'MB',
      'diff.peak_rss_mb.small': 'MB',
      'diff.peak_rss_mb.large_few_changes': 'MB',
      'diff.rss_growth_mb.large': 'MB',
      'diff.rss_growth_mb.small': 'MB',
      'diff.rss_growth_mb.large_few_changes': 'MB',
      'diff.fresh_first_page_ms.small': 'ms',
      'diff.fresh_first_page_ms.large': 'ms',
      'diff.objects_mb.large': 'MB',
      'diff.objects_read_ms.large': 'ms',
      'diff.large_records': 'records',
      'peer.sqldiff_ms.large': 'ms',
      'peer.git_diff_ms.large': 'ms',
      'peer.duckdb_ms.large': 'ms',
    },
    ratios: [
      // Targets: stat ≤ 1.2× full, display page ≤ 1.3× plain page, jump to the last page ≤ 2× a cached first page.
      { id: 'diff.ratio.stat_vs_full', numerator: 'diff.stat_ms.large', denominator: 'diff.full_ms.large' },
      { id: 'diff.ratio.first_page_display_vs_first_page', numerator: 'diff.first_page_display_ms.large', denominator: 'diff.first_page_ms.large' },
      { id: 'diff.ratio.jump_last_page_vs_first_page_cached', numerator: 'diff.jump_last_page_ms.large', denominator: 'diff.first_page_cached_ms.large' },
      { id: 'diff.ratio.first_page_large_vs_small', numerator: 'diff.first_page_ms.large', denominator: 'diff.first_page_ms.small' },
      { id: 'diff.ratio.first_page_large_vs_objects_read', numerator: 'diff.first_page_ms.large', denominator: 'diff.objects_read_ms.large' },
      { id: 'diff.ratio.first_page_cached_large_vs_small', numerator: 'diff.first_page_cached_ms.large', denominator: 'diff.first_page_cached_ms.small' },
      { id: 'diff.ratio.full_vs_duckdb', numerator: 'diff.full_ms.large', denominator: 'peer.duckdb_ms.large' },
      // Record index targets: few changes ≤ 0.1× the whole-family merge of the same pair; index ≤ 5% of the objects it indexes.
      { id: 'diff.ratio.few_changes_vs_merge', numerator: 'diff.few_changes_ms.large', denominator: 'diff.few_changes_merge_ms.large' },
      { id: 'diff.ratio.full_vs_full_merge', numerator: 'diff.full_ms.large', denominator: 'diff.full_merge_ms.large' },
      { id: 'diff.ratio.index_first_build_vs_full_merge', numerator: 'diff.index_first_build_ms.large', denominator: 'diff.full_merge_ms.large' },
      { id: 'diff.ratio.index_bytes_vs_objects', numerator: 'diff.index_bytes.large', denominator: 'diff.index_objects_bytes.large' },
      { id: 'diff.ratio.peak_rss_large_few_vs_small', numerator: 'diff.peak_rss_mb.large_few_changes', denominator: 'diff.peak_rss_mb.small' },
      { id: 'diff.ratio.fresh_first_page_large_vs_small', numerator: 'diff.fresh_first_page_ms.large', denominator: 'diff.fresh_first_page_ms.small' },
      { id: 'diff.ratio.sqldiff_vs_full', numerator: 'peer.sqldiff_ms.large', denominator: 'diff.full_ms.large' },
      { id: 'diff.ratio.git_vs_full', numerator: 'peer.git_diff_ms.large', denominator: 'diff.full_ms.large' },
    ],
    runs: 5,
    async setup(ctx) {
      const n = LARGE[ctx.size];
      const t0 = performance.now();
      mkdirSync(join(ctx.tmpDir, 'small'));
      mkdirSync(join(ctx.tmpDir, 'large'));
      const small = (await workspaceOf(join(ctx.tmpDir, 'small'), SMALL)).side;
      const { side: large, nodes } = await workspaceOf(join(ctx.tmpDir, 'large'), n, true);
      const peer = (name: string): string => join(ctx.tmpDir, name);
      const sqlite = [peer('from.db'), peer('to.db')] as const;
      writeSqliteCopy(sqlite[0], nodes.from);
      writeSqliteCopy(sqlite[1], nodes.to);
      const csv = [peer('from.csv'), peer('to.csv')] as const;
      writeFileSync(csv[0], nodeCsv(nodes.from));
      writeFileSync(csv[1], nodeCsv(nodes.to));
      const parquet = [peer('from.parquet'), peer('to.parquet')] as const;
      const duck = await (await DuckDBInstance.create(':memory:')).connect();
      for (let k = 0; k < 2; k++) {
        await duck.run(`COPY (SELECT * FROM read_csv('${csv[k]}', header = true, all_varchar = false)) TO '${parquet[k]}' (FORMAT parquet)`);
      }
      console.error(`diff bench: generated ${SMALL} and ${n} records in ${Math.round(performance.now() - t0)} ms`);
      return { small, large, sqlite, csv, parquet, duck, largeRecords: n };
    },
    async run(s) {
      // Cold: no derived change list; both participants are read (the process's verified-object memo and
      // sorted-layout memo are warm after the warm-up run, so the bytes are not re-hashed) and merged
      // only until the page is full. The RSS child below is a fresh process (nothing memoized).
      coldCache(s.small);
      const pageSmall = await firstPage(s.small);
      coldCache(s.large);
      const pageLarge = await firstPage(s.large);
      // Warm: the change-list prefix the cold page stored under cache/ answers the same page without reading.
      const cachedSmall = await firstPage(s.small);
      const cachedLarge = await firstPage(s.large);
      coldCache(s.large);
      const full = await timedAsync(() => diffAllRecordsCheckpoints({ from: 'from', to: 'to', scope: 'graph' }, projectShell(s.large.cps)));
      if (full.value.numRows !== s.large.changes) throw new Error(`diff bench: ${full.value.numRows} changes, expected ${s.large.changes}`);

      // Exact statistics (counts and changed cells per field) from a cold cache, beside the full diff.
      coldCache(s.large);
      const stat = await timedAsync(() => diffStatCheckpoints({ from: 'from', to: 'to', scope: 'graph' }, projectShell(s.large.cps)));
      const node = stat.value.families.find((f) => f.record_family_id === 'node');
      if (node === undefined || node.added + node.removed + node.modified !== s.large.changes) throw new Error('diff bench: stat counts differ from the change count');
      // The first display page (display values and changed fields of node rows), cold, beside the plain first page.
      coldCache(s.large);
      const display = await timedAsync(() =>
        diffCheckpoints({ from: 'from', to: 'to', scope: 'graph', detail: 'records', record_family_id: 'node', display: true, limit: 100 }, projectShell(s.large.cps)),
      );
      if (display.value.table.numRows !== 100 || display.value.table.getChild('display') === null) throw new Error('diff bench: display page is not a full page');
      // A jump to the last page once the change list is stored (the stat above stores it; recompute it after the cold display page).
      await diffStatCheckpoints({ from: 'from', to: 'to', scope: 'graph' }, projectShell(s.large.cps));
      const jump = await timedAsync(() =>
        diffCheckpoints({ from: 'from', to: 'to', scope: 'graph', detail: 'records', record_family_id: 'node', display: true, limit: 100, position: s.large.changes - 100 }, projectShell(s.large.cps)),
      );
      if (jump.value.table.numRows !== 100 || jump.value.nextPageToken !== null) throw new Error('diff bench: the jump did not land on the last page');

      // Record index (issue: pay for the change): the same two pairs merged whole (the index store blocked, so
      // nothing is read from or written to it), the first diff that builds the indexes, then the diffs through them.
      const indexDir = join(s.large.dir, 'cache', 'index');
      const allRecords = (to: string): Promise<Table> => diffAllRecordsCheckpoints({ from: 'from', to, scope: 'graph' }, projectShell(s.large.cps));
      rmSync(indexDir, { recursive: true, force: true });
      writeFileSync(indexDir, '');
      coldCache(s.large);
      const fewMerge = await timedAsync(() => allRecords('few'));
      coldCache(s.large);
      const fullMerge = await timedAsync(() => allRecords('to'));
      rmSync(indexDir, { force: true });
      coldCache(s.large);
      const firstBuild = await timedAsync(() => allRecords('few'));
      coldCache(s.large);
      const few = await timedAsync(() => allRecords('few'));
      if (few.value.numRows !== fewMerge.value.numRows || firstBuild.value.numRows !== fewMerge.value.numRows) throw new Error('diff bench: the indexed diff and the merge disagree on the change count');
      coldCache(s.large);
      await allRecords('to'); // rebuilds the "to" index for the next run's full diff (not measured)
      const indexBytes = readdirSync(indexDir).reduce((n, f) => n + statSync(join(indexDir, f)).size, 0);
      const objectBytes = objectSizes(s.large, ['from', 'to', 'few']);

      const rss = fresh(s.large, 'to', 'full', s.large.changes);
      const rssSmall = fresh(s.small, 'to', 'full', s.small.changes);
      const rssFew = fresh(s.large, 'few', 'full', s.small.changes);
      const freshSmall = fresh(s.small, 'to', 'page', 100);
      const freshLarge = fresh(s.large, 'to', 'page', 100);

      const read = await readBothObjects(s.large);

      const sq = timed(() => spawnSync('sqldiff', ['--primarykey', s.sqlite[0], s.sqlite[1]], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      let sqldiffMs = Number.NaN;
      if (sq.value.error === undefined && sq.value.status === 0) {
        const statements = sq.value.stdout.split('\n').filter((l) => l.length > 0).length;
        if (statements !== s.large.changes) throw new Error(`diff bench: sqldiff printed ${statements} statements, expected ${s.large.changes}`);
        sqldiffMs = sq.ms;
      } else console.error('diff bench: sqldiff unavailable (Debian package sqlite3-tools); peer.sqldiff_ms.large = NaN');

      const git = timed(() => spawnSync('git', ['diff', '--no-index', '--stat', s.csv[0], s.csv[1]], { encoding: 'utf8', maxBuffer: 1 << 24 }));
      if (git.value.status !== 1) throw new Error('diff bench: git diff --no-index found no difference');

      const duck = await timedAsync(async () => (await s.duck.runAndReadAll(duckSql(s.parquet[0], s.parquet[1]))).getRows());
      if (duck.value.length !== s.large.changes) throw new Error(`diff bench: duckdb found ${duck.value.length} changes`);

      return {
        'diff.first_page_ms.small': pageSmall,
        'diff.first_page_ms.large': pageLarge,
        'diff.first_page_cached_ms.small': cachedSmall,
        'diff.first_page_cached_ms.large': cachedLarge,
        'diff.full_ms.large': full.ms,
        'diff.full_merge_ms.large': fullMerge.ms,
        'diff.few_changes_ms.large': few.ms,
        'diff.few_changes_merge_ms.large': fewMerge.ms,
        'diff.index_first_build_ms.large': firstBuild.ms,
        'diff.index_bytes.large': indexBytes,
        'diff.index_objects_bytes.large': objectBytes,
        'diff.stat_ms.large': stat.ms,
        'diff.first_page_display_ms.large': display.ms,
        'diff.jump_last_page_ms.large': jump.ms,
        'diff.peak_rss_mb.large': rss.max_rss_mb,
        'diff.peak_rss_mb.small': rssSmall.max_rss_mb,
        'diff.peak_rss_mb.large_few_changes': rssFew.max_rss_mb,
        'diff.rss_growth_mb.large': rss.max_rss_mb - rss.rss_before_mb,
        'diff.rss_growth_mb.small': rssSmall.max_rss_mb - rssSmall.rss_before_mb,
        'diff.rss_growth_mb.large_few_changes': rssFew.max_rss_mb - rssFew.rss_before_mb,
        'diff.fresh_first_page_ms.small': freshSmall.ms,
        'diff.fresh_first_page_ms.large': freshLarge.ms,
        'diff.objects_mb.large': read.bytes / (1024 * 1024),
        'diff.objects_read_ms.large': read.ms,
        'diff.large_records': s.largeRecords,
        'peer.sqldiff_ms.large': sqldiffMs,
        'peer.git_diff_ms.large': git.ms,
        'peer.duckdb_ms.large': duck.ms,
      };
    },
    teardown(s) {
      s.duck.closeSync();
    },
  }),
];
