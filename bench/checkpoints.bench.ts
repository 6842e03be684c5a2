import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { sha256, uuidV8 } from '../core/canonical';
import { Checkpoints, checkpointPins } from '../core/checkpoints/checkpoints';
import { encodeChecksum } from '../core/checkpoints/registry-format';
import { isPlan, planCreate, prepareCreate } from '../core/checkpoints/registry-core';
import type { RegistryDoc } from '../core/checkpoints/registry-format';
import { DEFAULT_CONFIGURATION, GRAPH_EDGE, GRAPH_NODE, configurationDocumentBytes, encodeRecords } from '../core/participants/index';
import { createProject } from '../core/project/index';
import { VERIFIED_MEMO_MIN_AGE_NS } from '../core/project/verified-objects';
import { registryCatalog } from '../core/participants/index';
import { atomicReplace } from '../core/project/durable-fs';
import { defineBench } from './harness';
import type { BenchSize } from './harness';

/** Graph records (nodes + edges) of the two workspaces compared in one run. */
const RECORDS: Readonly<Record<BenchSize, { readonly small: number; readonly large: number }>> = {
  tiny: { small: 50, large: 200 },
  small: { small: 1_000, large: 100_000 },
  large: { small: 1_000, large: 1_000_000 },
};

const T0 = 1_700_000_000_000_000n;
const enc = new TextEncoder();
const uuid = (label: string): string => uuidV8(sha256(enc.encode(label)));

/** A workspace with `records` graph records (3/4 nodes, 1/4 edges) in one generation, with checkpoint pins. */
async function workspace(dir: string, records: number): Promise<Checkpoints> {
  const nodes = Math.max(2, Math.round((records * 3) / 4));
  const edges = records - nodes;
  const nodeUuids = Array.from({ length: nodes }, (_, i) => uuid(`bench-node-${i}`));
  const nodeRecs = nodeUuids.map((u, i) => ({ node_uuid: u, class_id: 'paper', label: `Paper ${i}`, properties: null, created_at: T0 + BigInt(i), updated_at: null }));
  const edgeRecs = Array.from({ length: edges }, (_, i) => ({
    source_node_uuid: nodeUuids[i % nodes] as string,
    target_node_uuid: nodeUuids[(i * 7 + 1) % nodes] as string,
    kind: `cites-${Math.floor(i / nodes)}`,
    weight: 1,
    created_at: T0,
  }));
  const project = await createProject<Table>(dir, { catalog: registryCatalog, pins: checkpointPins(dir) });
  await project.publish({
    parent: null,
    changes: [
      { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, nodeRecs) },
      { kind: 'put', capabilityId: 'graph', recordFamilyId: 'edge', bytes: encodeRecords(GRAPH_EDGE, edgeRecs) },
      { kind: 'put', capabilityId: 'workspace', recordFamilyId: 'configuration', bytes: configurationDocumentBytes(DEFAULT_CONFIGURATION) },
    ],
  });
  return new Checkpoints(project);
}

/** A project whose registry already holds `count` active checkpoints (written by the pure core; listing and opening are measured). */
async function listed(dir: string, count: number): Promise<Checkpoints> {
  const cps = await workspace(dir, 10);
  const cur = cps.project.current();
  if (cur === null) throw new Error('no generation');
  let doc: RegistryDoc | null = null;
  for (let i = 0; i < count; i++) {
    const req = prepareCreate({ name: `checkpoint ${String(i).padStart(4, '0')}`, description: `bench row ${i}`, idempotencyKey: uuid(`list-${i}`) });
    const plan = planCreate(doc, req, { generationUuid: cur.generationUuid, manifestSha256: cur.manifestSha256 }, 1_750_000_000_000_000 + i);
    if (!isPlan(plan)) throw new Error('replay');
    doc = plan.next;
  }
  const { encodeRegistry } = await import('../core/checkpoints/registry-format');
  const bytes = encodeRegistry(doc as RegistryDoc);
  const reg = path.join(dir, 'checkpoints');
  fs.mkdirSync(reg);
  fs.writeFileSync(path.join(reg, 'registry.json'), bytes);
  fs.writeFileSync(path.join(reg, 'registry.json.sha256'), encodeChecksum(bytes));
  return cps;
}

interface State {
  readonly small: Checkpoints;
  readonly large: Checkpoints;
  readonly list: Checkpoints;
  readonly few: Checkpoints;
  readonly replaceDir: string;
  readonly replaceBytes: Uint8Array;
  readonly records: { readonly small: number; readonly large: number };
  run: number;
}

async function timed(f: () => unknown): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

export const benchmarks = [
  defineBench<State>({
    id: 'checkpoint',
    results: {
      'checkpoint.create_ms.small': 'ms',
      'checkpoint.create_ms.large': 'ms',
      'fs.atomic_replace_ms': 'ms',
      'checkpoint.list_1024_ms': 'ms',
      'checkpoint.open_ms.few': 'ms',
      'checkpoint.open_ms.1024': 'ms',
      'checkpoint.records.small': 'records',
      'checkpoint.records.large': 'records',
    },
    ratios: [
      { id: 'checkpoint.create_large_over_small', numerator: 'checkpoint.create_ms.large', denominator: 'checkpoint.create_ms.small' },
      { id: 'checkpoint.create_over_atomic_replace', numerator: 'checkpoint.create_ms.small', denominator: 'fs.atomic_replace_ms' },
      // Opening a checkpoint (what every diff page does twice) among 1,024 checkpoints, beside among 2: the registry read must not grow with it.
      { id: 'checkpoint.open_1024_over_few', numerator: 'checkpoint.open_ms.1024', denominator: 'checkpoint.open_ms.few' },
    ],
    runs: 7,
    async setup({ size, tmpDir }) {
      const records = RECORDS[size];
      const small = await workspace(path.join(tmpDir, 'small'), records.small);
      const large = await workspace(path.join(tmpDir, 'large'), records.large);
      const list = await listed(path.join(tmpDir, 'list'), 1024);
      const few = await listed(path.join(tmpDir, 'few'), 2);
      // Opens are measured on registries at rest (browsing, not right after a write): past the racy-clean age, a
      // registry read may be answered from what the store last validated. Wait until both are that old.
      const restedAt = Date.now() + Number(VERIFIED_MEMO_MIN_AGE_NS / 1_000_000n) + 50;
      while (Date.now() < restedAt) await new Promise((r) => setTimeout(r, restedAt - Date.now()));
      // A plain atomic replacement of a registry-sized file, in the same file system: the protocol's unit cost.
      const replaceDir = path.join(tmpDir, 'replace');
      fs.mkdirSync(replaceDir);
      const replaceBytes = fs.readFileSync(path.join(tmpDir, 'small', 'CURRENT'));
      fs.writeFileSync(path.join(replaceDir, 'target'), replaceBytes);
      return { small, large, list, few, replaceDir, replaceBytes, records, run: 0 };
    },
    async run(state) {
      const n = state.run++;
      // Alternate the order so neither workspace always runs on a warmer cache.
      const order = n % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      const ms: Record<string, number> = {};
      for (const which of order) {
        const cps = state[which];
        ms[which] = await timed(() => cps.checkpoint({ name: `run ${n}`, idempotencyKey: uuid(`${which}-${n}`) }));
      }
      const replace = await timed(() => atomicReplace(path.join(state.replaceDir, 'target'), 'target', `tmp-${n}`, state.replaceBytes));
      const list = await timed(() => {
        const page = state.list.listCheckpoints({ limit: 10_000 });
        if (page.rows.length !== 1024) throw new Error('expected 1,024 rows');
      });
      // Median of 9 opens each (one open is well under a millisecond), the two registries alternating.
      const opens: Record<'few' | '1024', number[]> = { few: [], '1024': [] };
      for (let k = 0; k < 9; k++) {
        for (const which of k % 2 === 0 ? (['few', '1024'] as const) : (['1024', 'few'] as const)) {
          const cps = which === 'few' ? state.few : state.list;
          opens[which].push(await timed(() => cps.openCheckpoint('checkpoint 0001').release()));
        }
      }
      const median = (xs: number[]): number => xs.sort((a, b) => a - b)[xs.length >> 1] as number;
      return {
        'checkpoint.open_ms.few': median(opens.few),
        'checkpoint.open_ms.1024': median(opens['1024']),
        'checkpoint.create_ms.small': ms.small as number,
        'checkpoint.create_ms.large': ms.large as number,
        'fs.atomic_replace_ms': replace,
        'checkpoint.list_1024_ms': list,
        'checkpoint.records.small': state.records.small,
        'checkpoint.records.large': state.records.large,
      };
    },
  }),
];
