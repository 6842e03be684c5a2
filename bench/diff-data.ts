// Generated graph/node participants for the diff benchmark: a "from" table of
// N records and a "to" table with 1% modified, 0.5% added and 0.5% removed.
import { FixedSizeBinary, RecordBatch, Struct, Table, TimeUnit, Timestamp, makeData, tableToIPC } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { GRAPH_NODE, utf8Column } from '../core/participants/index';

const CLASSES = ['Paper', 'Person', 'Dataset', 'Organisation', 'Concept', 'Method', 'Venue', 'Grant'];
const T0 = 1_750_000_000_000_000n;

/** One logical node record of the benchmark (key orders the UUIDs). */
export interface BenchNode {
  readonly key: number;
  readonly uuid: Uint8Array;
  readonly classId: string;
  readonly label: string;
  readonly properties: string | null;
  readonly createdAt: bigint;
  readonly updatedAt: bigint | null;
}

function mix(x: number): number {
  let h = Math.imul(x ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A UUIDv4-shaped id whose first six bytes are `key` big-endian, so ids sort like keys. */
function uuidOfKey(key: number): Uint8Array {
  const u = new Uint8Array(16);
  let k = key;
  for (let i = 5; i >= 0; i--) {
    u[i] = k % 256;
    k = Math.floor(k / 256);
  }
  const a = mix(key);
  const b = mix(key + 0x51ed27);
  u[6] = 0x40 | (a & 0x0f);
  u[7] = (a >>> 8) & 0xff;
  u[8] = 0x80 | ((a >>> 16) & 0x3f);
  u[9] = (a >>> 24) & 0xff;
  for (let i = 10; i < 16; i++) u[i] = (b >>> ((i % 4) * 8)) & 0xff;
  return u;
}

function node(key: number, edited: boolean): BenchNode {
  return {
    key,
    uuid: uuidOfKey(key),
    classId: CLASSES[key % CLASSES.length] as string,
    label: edited ? `Node ${key} (edited)` : `Node ${key}`,
    properties: key % 3 === 0 ? `{"year":${2000 + (key % 25)}}` : null,
    createdAt: T0 + BigInt(key),
    updatedAt: edited ? T0 + BigInt(key) + 5n : null,
  };
}

/** The two record lists (sorted by UUID): `n` records each, 1% modified, 0.5% added, 0.5% removed. */
export function benchNodes(n: number): { readonly from: BenchNode[]; readonly to: BenchNode[] } {
  const from: BenchNode[] = [];
  const to: BenchNode[] = [];
  for (let k = 0; k < n; k++) {
    const key = 2 * k;
    from.push(node(key, false));
    if (k % 200 !== 7) to.push(node(key, k % 100 === 3));
    if (k % 200 === 11) to.push(node(key + 1, false));
  }
  return { from, to };
}

/**
 * A copy of `from` (sorted by UUID, as `benchNodes` makes it) with about
 * `changes` changed records spread evenly: half modified, a quarter
 * removed, a quarter added.
 */
export function sparseEdit(from: readonly BenchNode[], changes: number): BenchNode[] {
  const period = Math.max(2, Math.floor(from.length / Math.max(1, changes / 2)));
  const to: BenchNode[] = [];
  from.forEach((n, k) => {
    if (k % (2 * period) !== 7) to.push(k % period === 3 ? node(n.key, true) : n);
    if (k % (2 * period) === 11) to.push(node(n.key + 1, false));
  });
  return to;
}

function timestampColumn(values: readonly (bigint | null)[]): Data {
  const data = BigInt64Array.from(values, (v) => v ?? 0n);
  const nulls = values.filter((v) => v === null).length;
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
  });
  return makeData({
    type: new Timestamp(TimeUnit.MICROSECOND, 'UTC'),
    length: values.length,
    data,
    nullCount: nulls,
    ...(nulls > 0 ? { nullBitmap: bitmap } : {}),
  });
}

/** The graph/node participant bytes of `nodes` (canonical physical form: one batch, sorted, no dictionaries). */
export function nodeParticipantBytes(nodes: readonly BenchNode[]): Uint8Array {
  const uuids = new Uint8Array(nodes.length * 16);
  nodes.forEach((n, i) => uuids.set(n.uuid, i * 16));
  const children = [
    makeData({ type: new FixedSizeBinary(16), length: nodes.length, data: uuids, nullCount: 0 }),
    utf8Column(nodes.map((n) => n.classId)),
    utf8Column(nodes.map((n) => n.label)),
    utf8Column(nodes.map((n) => n.properties)),
    timestampColumn(nodes.map((n) => n.createdAt)),
    timestampColumn(nodes.map((n) => n.updatedAt)),
  ];
  const schema = GRAPH_NODE.schema;
  const struct = makeData({ type: new Struct(schema.fields), length: nodes.length, nullCount: 0, children });
  return tableToIPC(new Table([new RecordBatch(schema, struct)]), 'file');
}

/** CSV lines of `nodes` in UUID order (uuid hex, class, label, properties, created, updated). */
export function nodeCsv(nodes: readonly BenchNode[]): string {
  const q = (s: string | null): string => (s === null ? '' : `"${s.replace(/"/g, '""')}"`);
  const lines = ['node_uuid,class_id,label,properties,created_at,updated_at'];
  for (const n of nodes) {
    lines.push(`${Buffer.from(n.uuid).toString('hex')},${n.classId},${q(n.label)},${q(n.properties)},${n.createdAt},${n.updatedAt ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}
