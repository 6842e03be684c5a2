// Workspaces of the UI benchmark: the demo (through `gf demo create`, timed)
// and a two-checkpoint graph workspace whose checkpoints differ in at least
// 20,000 records (built from columns, like bench/diff.bench.ts).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { sha256, uuidV8 } from '../../core/canonical';
import { Checkpoints, checkpointPins } from '../../core/checkpoints/checkpoints';
import { GRAPH_NODE, encodeRecords } from '../../core/participants/index';
import { createProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import { benchNodes, nodeParticipantBytes } from '../diff-data';
import type { BenchSize } from '../harness';

/** Names of the two checkpoints of the diff workspace. */
export const DIFF_FROM = 'ui bench from';
export const DIFF_TO = 'ui bench to';

/** A built diff workspace. */
export interface DiffWorkspace {
  readonly dir: string;
  /** Graph records in each checkpoint (about). */
  readonly records: number;
  /** Changed graph/node records between the two checkpoints. */
  readonly changes: number;
}

const T0 = 1_700_000_000_000_000n;
const enc = new TextEncoder();
const uuid = (label: string): string => uuidV8(sha256(enc.encode(label)));

/** Runs `gf demo create DIR --records N` as a child process and returns its wall time. */
export function createDemo(root: string, dir: string, records: number): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [join(root, 'bin/gf.mjs'), 'demo', 'create', dir, '--records', String(records)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  return performance.now() - t0;
}

/**
 * `small`: 24,000 nodes, of which 6,000 removed, 12,000 modified, plus 6,000
 * added (24,000 changes). `large`: 1,000,000 nodes with 1% modified, 0.5%
 * added, 0.5% removed (20,002 changes), from bench/diff-data.ts.
 */
function participants(size: BenchSize): { readonly from: Uint8Array; readonly to: Uint8Array; readonly records: number; readonly changes: number } {
  if (size === 'large') {
    const n = 1_000_000;
    const nodes = benchNodes(n);
    const changes = Math.floor(n / 100) + 2 * Math.floor(n / 200) + (n % 200 > 7 ? 1 : 0) + (n % 200 > 11 ? 1 : 0);
    return { from: nodeParticipantBytes(nodes.from), to: nodeParticipantBytes(nodes.to), records: n, changes };
  }
  // `tiny` (npm test's one-run check of the spec): the same shape at 400 nodes.
  const n = size === 'tiny' ? 400 : 24_000;
  const node = (i: number, edited: boolean) => ({
    node_uuid: uuid(`ui-bench-node-${i}`),
    class_id: 'paper',
    label: edited ? `Paper ${i} (edited)` : `Paper ${i}`,
    properties: null,
    created_at: T0 + BigInt(i),
    updated_at: edited ? T0 + BigInt(i) + 5n : null,
  });
  const from = Array.from({ length: n }, (_, i) => node(i, false));
  const to: ReturnType<typeof node>[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 4 === 0) continue; // removed
    to.push(node(i, i % 4 !== 1)); // 1: unchanged, 2 and 3: modified
    if (i % 4 === 3) to.push(node(n + i, false)); // added
  }
  return { from: encodeRecords(GRAPH_NODE, from), to: encodeRecords(GRAPH_NODE, to), records: n, changes: n / 4 + n / 2 + n / 4 };
}

/** Builds the diff workspace in `dir` with checkpoints `DIFF_FROM` and `DIFF_TO`. */
export async function createDiffWorkspace(dir: string, size: BenchSize): Promise<DiffWorkspace> {
  const p = participants(size);
  const project = await createProject<Table>(dir, { catalog: registryCatalog, pins: checkpointPins(dir) });
  const cps = new Checkpoints(project);
  const put = (bytes: Uint8Array) => ({ kind: 'put' as const, capabilityId: 'graph', recordFamilyId: 'node', bytes });
  await project.publish({ parent: null, changes: [put(p.from)] });
  await cps.checkpoint({ name: DIFF_FROM, idempotencyKey: uuid('ui-bench-from') });
  await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [put(p.to)] });
  await cps.checkpoint({ name: DIFF_TO, idempotencyKey: uuid('ui-bench-to') });
  return { dir, records: p.records, changes: p.changes };
}
