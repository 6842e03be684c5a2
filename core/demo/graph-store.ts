import { formatUuid } from '../canonical/index';
import { GRAPH_EDGE, GRAPH_NODE } from '../participants/index';
import type { RecordFamily } from '../participants/index';
import type { ParticipantChange } from '../project/index';
import { uuidV8Into } from './rng';
import type { Rng } from './rng';
import { writeParticipantFile } from './ipc-file-writer';
import type { StreamColumn } from './ipc-file-writer';

/** Every class a demo node may have (index = the stored class byte). */
export const DEMO_NODE_CLASSES = ['paper', 'author', 'concept', 'dataset', 'software'] as const;

/** `paper` → `Paper`. */
export function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** lowbias32 (a bijection of 32-bit integers) and its inverse. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The multiplicative inverse of an odd `a` modulo 2^32 (Newton's iteration). */
function inverseOf(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}
const MIX_INVERSE_1 = inverseOf(0x7feb352d);
const MIX_INVERSE_2 = inverseOf(0x846ca68b);

function unmix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, MIX_INVERSE_2);
  x ^= (x >>> 15) ^ (x >>> 30);
  x = Math.imul(x, MIX_INVERSE_1);
  x ^= x >>> 16;
  return x >>> 0;
}

/**
 * The UUIDs of the demo's nodes, computed from a node's index, never stored.
 *
 * Why: at 10M records the 4.2M nodes' stored UUIDs were 67 MB of the demo's
 * peak memory. Node k's first four bytes are a keyed bijection of k (its
 * identity key: distinct nodes differ there, so identity order is the order
 * of the keys, and a key names its node), the other twelve a keyed hash of
 * the key; version 8 and the RFC variant as every demo UUID.
 */
export class NodeUuids {
  private readonly keys: Uint32Array;

  /** Keys drawn from `rng` (five draws). */
  constructor(rng: Rng) {
    this.keys = Uint32Array.from({ length: 5 }, () => rng.u32());
  }

  /** Node `k`'s identity key: its UUID's first four bytes, big-endian. */
  key(k: number): number {
    return (mix((k ^ (this.keys[0] as number)) >>> 0) ^ (this.keys[1] as number)) >>> 0;
  }

  /** The node whose identity key is `key`. */
  nodeOf(key: number): number {
    return (unmix((key ^ (this.keys[1] as number)) >>> 0) ^ (this.keys[0] as number)) >>> 0;
  }

  /** Node `k`'s UUID bytes, written into `out` at `at`. */
  fill(k: number, out: Uint8Array, at: number): void {
    let w = this.key(k);
    uuidV8Into(out, at, (i) => (i === 0 ? w : (w = mix((w ^ (this.keys[1 + i] as number)) >>> 0))));
  }
}

/**
 * The demo's graph nodes as compact typed columns (3 bytes a node; UUIDs computed, see `NodeUuids`).
 *
 * Why: at millions of records, one JS string per UUID and label cell costs
 * an order of magnitude more memory than the participant bytes themselves.
 * Labels and properties are derived from (class, index, curation count,
 * year) on demand, never stored as strings.
 */
export class NodeStore {
  /** Number of nodes. */
  length = 0;
  private readonly ids: NodeUuids;
  private cls = new Uint8Array(0);
  /** 0 = no properties, else the `year` property. */
  private year = new Uint16Array(0);
  /** `created_at` of each `add` (time + index in the add). */
  private readonly batches = new Batches();
  /** The curated nodes (a few per cent): how many times, and the last time. */
  private readonly curations = new Map<number, { count: number; at: bigint }>();
  /** Identity order, kept until the next `add`. */
  private order: Uint32Array | undefined;

  /** A store whose UUIDs are keyed by five draws of `rng`. */
  constructor(rng: Rng) {
    this.ids = new NodeUuids(rng);
  }

  /** Nodes the columns hold room for (at least `length`). */
  get capacity(): number {
    return this.cls.length;
  }

  /**
   * Makes room for `total` nodes at once, so later adds up to it copy nothing.
   *
   * Why: growing copies every column (old and new held at once); room never
   * written stays untouched zero pages, which cost no resident memory.
   */
  reserve(total: number): void {
    this.cls = grown(this.cls, total, (k) => new Uint8Array(k));
    this.year = grown(this.year, total, (k) => new Uint16Array(k));
  }

  /**
   * Appends `count` nodes drawn from `rng` (per node: class, whether it has a year, the year).
   *
   * The draw order is the generator's contract: it fixes every byte of the demo for a seed.
   */
  add(rng: Rng, count: number, classes: readonly (typeof DEMO_NODE_CLASSES)[number][], createdAt: bigint): void {
    const n = this.length + count;
    this.cls = grown(this.cls, n, (k) => new Uint8Array(k));
    this.year = grown(this.year, n, (k) => new Uint16Array(k));
    this.batches.push(this.length, createdAt);
    this.order = undefined;
    for (let i = 0; i < count; i++) {
      const k = this.length;
      this.cls[k] = DEMO_NODE_CLASSES.indexOf(classes[rng.int(classes.length)] as (typeof DEMO_NODE_CLASSES)[number]);
      this.year[k] = rng.int(4) === 0 ? 1990 + rng.int(35) : 0;
      this.length++;
    }
  }

  /** Marks node `k` curated at `t`: its label gains ` (curated)` (once per curation). */
  curate(k: number, t: bigint): void {
    const c = this.curations.get(k);
    if (c === undefined) this.curations.set(k, { count: 1, at: t });
    else {
      c.count++;
      c.at = t;
    }
  }

  /** Writes node `k`'s UUID bytes into `out` at `at`. */
  fillUuid(k: number, out: Uint8Array, at: number): void {
    this.ids.fill(k, out, at);
  }

  /** Node `k`'s identity key: nodes in identity order are nodes in ascending key order (keys are distinct). */
  identityKey(k: number): number {
    return this.ids.key(k);
  }

  /** Node `k`'s UUID as lowercase RFC text. */
  uuidText(k: number): string {
    const bytes = new Uint8Array(16);
    this.ids.fill(k, bytes, 0);
    return formatUuid(bytes);
  }

  private label(k: number): string {
    return `${capitalized(DEMO_NODE_CLASSES[this.cls[k] as number] as string)} ${k}${' (curated)'.repeat(this.curations.get(k)?.count ?? 0)}`;
  }

  /** Node indices in identity order (UUID bytes ascending): the identity keys sorted, each turned back into its node. */
  identityOrder(): Uint32Array {
    if (this.order === undefined) {
      const order = new Uint32Array(this.length);
      for (let k = 0; k < this.length; k++) order[k] = this.ids.key(k);
      order.sort();
      for (let r = 0; r < order.length; r++) order[r] = this.ids.nodeOf(order[r] as number);
      this.order = order;
    }
    return this.order;
  }

  /**
   * The graph_node@1 participant written to `file` (rows in identity order, one batch, the registry's canonical bytes).
   *
   * Streamed: each column is produced window by window straight into the
   * file, so the participant is never whole in memory.
   */
  nodeChange(file: string): ParticipantChange {
    const order = this.identityOrder();
    const n = order.length;
    const columns: StreamColumn[] = [
      { kind: 'uuid', fill: (r, out, at) => this.ids.fill(order[r] as number, out, at) },
      { kind: 'utf8', get: (r) => DEMO_NODE_CLASSES[this.cls[order[r] as number] as number] as string },
      { kind: 'utf8', get: (r) => this.label(order[r] as number) },
      {
        kind: 'utf8',
        get: (r) => {
          const y = this.year[order[r] as number] as number;
          return y === 0 ? null : `{"year":${y}}`;
        },
      },
      { kind: 'timestamp', get: (r) => this.batches.at(order[r] as number) },
      { kind: 'timestamp', get: (r) => this.curations.get(order[r] as number)?.at ?? null },
    ];
    return putFile(GRAPH_NODE, file, columns, n);
  }

  /**
   * The graph_edge@1 participant of `count` edges: edge i links node s = i mod N to (s + k) mod N, k = ⌊i / N⌋ + 1.
   *
   * Identities are unique and endpoints always exist. Weights are drawn in
   * edge order (i), before the rows are laid out in identity order; the
   * order comes from the node order (sources by UUID, then each source's few
   * targets by UUID), with no row comparison sort.
   */
  edgeChange(rng: Rng, count: number, createdAt: bigint, file: string): ParticipantChange {
    const n = this.length;
    // Thousandths (the weight is round(x * 1000) / 1000), NO_WEIGHT for none: 2 bytes an edge.
    const weight = new Uint16Array(count);
    for (let i = 0; i < count; i++) weight[i] = i % 5 === 0 ? NO_WEIGHT : Math.round(rng.float() * 1000);
    const nodeOrder = this.identityOrder();
    const ids = this.ids;
    const rows = new Uint32Array(count);
    let w = 0;
    const mine: number[] = [];
    for (let r = 0; r < n; r++) {
      const s = nodeOrder[r] as number;
      mine.length = 0;
      for (let i = s; i < count; i += n) mine.push(i);
      // A source's few targets are distinct nodes: ordered by their identity keys (no rank array).
      if (mine.length > 1) mine.sort((a, b) => ids.key((s + Math.floor(a / n) + 1) % n) - ids.key((s + Math.floor(b / n) + 1) % n));
      for (const i of mine) rows[w++] = i;
    }
    const endpoint = (r: number, target: boolean): number => {
      const i = rows[r] as number;
      const src = i % n;
      return target ? (src + Math.floor(i / n) + 1) % n : src;
    };
    const columns: StreamColumn[] = [
      { kind: 'uuid', fill: (r, out, at) => ids.fill(endpoint(r, false), out, at) },
      { kind: 'uuid', fill: (r, out, at) => ids.fill(endpoint(r, true), out, at) },
      {
        kind: 'utf8',
        get: (r) => {
          const k = Math.floor((rows[r] as number) / n) + 1;
          return k === 1 ? 'cites' : `related_${k}`;
        },
      },
      {
        kind: 'float64',
        get: (r) => {
          const v = weight[rows[r] as number] as number;
          return v === NO_WEIGHT ? null : v / 1000;
        },
      },
      { kind: 'timestamp', get: (r) => createdAt + BigInt(rows[r] as number) },
    ];
    return putFile(GRAPH_EDGE, file, columns, count);
  }
}

const NO_WEIGHT = 0xffff;

/** A typed column grown to exactly `min` rows of `width` (copied once per add: a few adds per demo, no slack). */
export function grown<A extends { length: number; set(src: A): void }>(a: A, min: number, make: (n: number) => A, width = 1): A {
  if (min * width <= a.length) return a;
  const b = make(min * width);
  b.set(a);
  return b;
}

/**
 * The times of rows appended in batches: row k of the batch starting at `first` with time t has time t + (k - first).
 *
 * Why: a timestamp per record is 8 bytes a row; a batch is one entry.
 */
export class Batches {
  private readonly firsts: number[] = [];
  private readonly times: bigint[] = [];

  /** Starts a batch at row `first` with time `t`. */
  push(first: number, t: bigint): void {
    this.firsts.push(first);
    this.times.push(t);
  }

  /** The batch holding row `k`: its index and first row. */
  private find(k: number): number {
    let lo = 0;
    let hi = this.firsts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.firsts[mid] as number) <= k) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Row `k`'s index within its batch. */
  offset(k: number): number {
    return k - (this.firsts[this.find(k)] as number);
  }

  /** Row `k`'s time. */
  at(k: number): bigint {
    const b = this.find(k);
    return (this.times[b] as bigint) + BigInt(k - (this.firsts[b] as number));
  }
}

/** A `put-file` change of `family` whose `n` rows are streamed from `columns` into `file` (identity order is the caller's). */
export function putFile(family: RecordFamily, file: string, columns: readonly StreamColumn[], n: number): ParticipantChange {
  writeParticipantFile(file, family.schema, columns, n);
  return { kind: 'put-file', capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId, path: file };
}

/**
 * Indices `0..n-1` of the 16-byte keys packed in `uuids`, in ascending byte order (keys are distinct).
 *
 * Why: participants keyed by one UUID are laid out in identity order; a
 * counting sort on the first two bytes leaves buckets of a few keys, so
 * millions of keys sort with no string, and no array but the order, per key.
 */
export function uuidOrder(u: Uint8Array, n: number): Uint32Array {
  // Counting sort on the first two bytes, then each (small) bucket by its whole key: no per-key array besides the order.
  const starts = new Uint32Array(65_537);
  for (let k = 0; k < n; k++) {
    const b = (((u[k * 16] as number) << 8) | (u[k * 16 + 1] as number)) + 1;
    starts[b] = (starts[b] as number) + 1;
  }
  for (let b = 1; b <= 65_536; b++) starts[b] = (starts[b] as number) + (starts[b - 1] as number);
  const order = new Uint32Array(n);
  const next = starts.slice(0, 65_536);
  for (let k = 0; k < n; k++) {
    const b = ((u[k * 16] as number) << 8) | (u[k * 16 + 1] as number);
    order[next[b] as number] = k;
    next[b] = (next[b] as number) + 1;
  }
  const cmp = (a: number, b: number): number => compareUuids(u, a, b);
  for (let b = 0; b < 65_536; b++) {
    const from = starts[b] as number;
    const to = starts[b + 1] as number;
    if (to - from > 1) order.subarray(from, to).sort(cmp);
  }
  return order;
}

/** Byte order of the 16-byte keys `a` and `b` packed in `u`. */
function compareUuids(u: Uint8Array, a: number, b: number): number {
  for (let j = 0; j < 16; j++) {
    const d = (u[a * 16 + j] as number) - (u[b * 16 + j] as number);
    if (d !== 0) return d;
  }
  return 0;
}
