import { hash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Dictionary,
  Field,
  FixedSizeBinary,
  Float64,
  Int32,
  Map_,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  Utf8,
  makeData,
  makeVector,
  tableFromIPC,
  tableToIPC,
} from 'apache-arrow';
import { projectDomain, recordFingerprints, rowCanonicalBytes } from '../core/canonical';
import type { RowBytes } from '../core/canonical';
import { defineBench, perSecond } from './harness';
import type { BenchSize } from './harness';

const ROWS: Readonly<Record<BenchSize, number>> = { tiny: 500, small: 50_000, large: 1_000_000 };
const BATCH_ROWS = 65_536;
const KINDS = ['person', 'paper', 'dataset', 'organisation', 'concept', 'method', 'venue', 'grant'];
const PROP_KEYS = ['source', 'lang', 'doi', 'orcid', 'note'];

/** Deterministic PRNG (mulberry32), so every run measures the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const utf8 = new TextEncoder();

function strings(values: readonly string[]): { offsets: Int32Array; data: Uint8Array } {
  const parts = values.map((v) => utf8.encode(v));
  const offsets = new Int32Array(parts.length + 1);
  let n = 0;
  parts.forEach((p, k) => {
    n += p.length;
    offsets[k + 1] = n;
  });
  const data = new Uint8Array(n);
  parts.forEach((p, k) => data.set(p, offsets[k] as number));
  return { offsets, data };
}

/** A graph-node-like participant: uuid, label, dictionary kind, UTC timestamp, weight, nullable properties map. */
function graphNodeSchema(): Schema {
  const entries = new Field('entries', new Struct([new Field('key', new Utf8(), false), new Field('value', new Utf8(), true)]), false);
  return new Schema([
    new Field('node_uuid', new FixedSizeBinary(16), false),
    new Field('label', new Utf8(), false),
    new Field('kind', new Dictionary(new Utf8(), new Int32()), false),
    new Field('created_at', new TimestampMicrosecond('UTC'), false),
    new Field('weight', new Float64(), true),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    new Field('properties', new Map_(entries as Field<any>), true),
  ]);
}

const kindStrings = strings(KINDS);
/** One dictionary shared by every batch (the Arrow file format has no replacement dictionaries). */
const KIND_DICTIONARY = makeVector(
  makeData({ type: new Utf8(), length: KINDS.length, nullCount: 0, valueOffsets: kindStrings.offsets, data: kindStrings.data }),
);

function buildBatch(schema: Schema, start: number, length: number, rand: () => number): RecordBatch {
  const f = schema.fields;
  const uuids = new Uint8Array(length * 16);
  for (let k = 0; k < uuids.length; k++) uuids[k] = Math.floor(rand() * 256);
  for (let r = 0; r < length; r++) {
    uuids[r * 16 + 6] = ((uuids[r * 16 + 6] as number) & 0x0f) | 0x70;
    uuids[r * 16 + 8] = ((uuids[r * 16 + 8] as number) & 0x3f) | 0x80;
  }
  const labels = strings(Array.from({ length }, (_, r) => `node ${start + r} ${rand().toString(36).slice(2, 2 + Math.floor(rand() * 12))}`));
  const kindIdx = Int32Array.from({ length }, () => Math.floor(rand() * KINDS.length));
  const created = BigInt64Array.from({ length }, (_, r) => 1_700_000_000_000_000n + BigInt(start + r) * 1_000_003n);
  const weightNulls = new Uint8Array(Math.ceil(length / 8)).fill(0xff);
  const weights = Float64Array.from({ length }, (_, r) => {
    if (r % 17 === 0) {
      weightNulls[r >> 3] = (weightNulls[r >> 3] as number) & ~(1 << (r & 7));
      return 0;
    }
    return rand() * 100;
  });
  const mapNulls = new Uint8Array(Math.ceil(length / 8)).fill(0xff);
  const mapOffsets = new Int32Array(length + 1);
  const keys: string[] = [];
  const values: string[] = [];
  let mapNullCount = 0;
  for (let r = 0; r < length; r++) {
    if (r % 5 === 4) {
      mapNulls[r >> 3] = (mapNulls[r >> 3] as number) & ~(1 << (r & 7));
      mapNullCount++;
    } else {
      const n = Math.floor(rand() * 4);
      const first = Math.floor(rand() * PROP_KEYS.length);
      for (let j = 0; j < n; j++) {
        keys.push(PROP_KEYS[(first + j) % PROP_KEYS.length] as string);
        values.push(`v${Math.floor(rand() * 1000)}`);
      }
    }
    mapOffsets[r + 1] = keys.length;
  }
  const k = strings(keys);
  const v = strings(values);
  const mapType = f[5]?.type as Map_;
  const entryType = mapType.children[0]?.type as Struct;
  const entriesData = makeData({
    type: entryType,
    length: keys.length,
    nullCount: 0,
    children: [
      makeData({ type: new Utf8(), length: keys.length, nullCount: 0, valueOffsets: k.offsets, data: k.data }),
      makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: v.offsets, data: v.data }),
    ],
  });
  const weightNullCount = Math.floor((length - 1) / 17) + 1;
  const children = [
    makeData({ type: f[0]?.type as FixedSizeBinary, length, nullCount: 0, data: uuids }),
    makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets: labels.offsets, data: labels.data }),
    makeData({ type: f[2]?.type as Dictionary<Utf8, Int32>, length, nullCount: 0, data: kindIdx, dictionary: KIND_DICTIONARY }),
    makeData({ type: f[3]?.type as TimestampMicrosecond, length, nullCount: 0, data: created }),
    makeData({ type: new Float64(), length, nullCount: weightNullCount, nullBitmap: weightNulls, data: weights }),
    makeData({ type: mapType, length, nullCount: mapNullCount, nullBitmap: mapNulls, valueOffsets: mapOffsets, child: entriesData }),
  ];
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

interface State {
  readonly table: Table;
  readonly rows: RowBytes;
}

/** Record fingerprints of a graph-node participant beside bare SHA-256 over the same row bytes. */
export const benchmarks = [
  defineBench<State>({
    id: 'canonical',
    results: {
      'canonical.fingerprint_rows_per_s': 'rows/s',
      'canonical.raw_sha256_rows_per_s': 'rows/s',
    },
    ratios: [
      {
        id: 'canonical.fingerprint_over_raw_sha256',
        numerator: 'canonical.fingerprint_rows_per_s',
        denominator: 'canonical.raw_sha256_rows_per_s',
      },
    ],
    runs: 5,
    setup: ({ size, tmpDir }) => {
      const total = ROWS[size];
      const schema = graphNodeSchema();
      const rand = prng(42);
      const batches: RecordBatch[] = [];
      for (let start = 0; start < total; start += BATCH_ROWS) batches.push(buildBatch(schema, start, Math.min(BATCH_ROWS, total - start), rand));
      // The measured table is read back from an Arrow IPC file, as a participant would be.
      const file = join(tmpDir, 'graph-node.arrow');
      writeFileSync(file, tableToIPC(new Table(schema, batches), 'file'));
      const table = tableFromIPC(readFileSync(file));
      return { table, rows: rowCanonicalBytes(table) };
    },
    run: ({ table, rows }) => {
      const domain = projectDomain('graph_node');
      const n = table.numRows;
      const t0 = performance.now();
      const fps = recordFingerprints(table, domain);
      const t1 = performance.now();
      const { bytes, offsets } = rows;
      let x = 0;
      for (let r = 0; r < n; r++) x ^= hash('sha256', bytes.subarray(offsets[r] as number, offsets[r + 1] as number), 'buffer')[0] as number;
      const t2 = performance.now();
      if (fps.length !== n * 32 || x < 0) throw new Error('benchmark produced no output');
      return {
        'canonical.fingerprint_rows_per_s': perSecond(n, t1 - t0),
        'canonical.raw_sha256_rows_per_s': perSecond(n, t2 - t1),
      };
    },
  }),
] as const;
