import { FixedSizeBinary, Float64, TimeUnit, Timestamp, Utf8, makeData, tableToIPC } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { formatUuid } from '../canonical/index';
import { GRAPH_EDGE, GRAPH_NODE } from '../participants/index';
import type { RecordFamily } from '../participants/index';
import { tableOfColumns } from '../participants/columns';
import type { ParticipantChange } from '../project/index';
import type { Rng } from './rng';

/** Every class a demo node may have (index = the stored class byte). */
export const DEMO_NODE_CLASSES = ['paper', 'author', 'concept', 'dataset', 'software'] as const;

/** `paper` → `Paper`. */
export function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The demo's graph nodes as compact typed columns (about 40 bytes a node).
 *
 * Why: at millions of records, one JS string per UUID and label cell costs
 * an order of magnitude more memory than the participant bytes themselves.
 * Labels and properties are derived from (class, index, curation count,
 * year) on demand, never stored as strings.
 */
export class NodeStore {
  private cap = 0;
  /** Number of nodes. */
  length = 0;
  private uuids = new Uint8Array(0);
  private cls = new Uint8Array(0);
  /** 0 = no properties, else the `year` property. */
  private year = new Uint16Array(0);
  private curated = new Uint8Array(0);
  private created = new BigInt64Array(0);
  private updated = new BigInt64Array(0);
  private hasUpdated = new Uint8Array(0);

  private grow(min: number): void {
    if (min <= this.cap) return;
    const cap = Math.max(min, Math.ceil(this.cap * 1.5), 16);
    const copy = <A extends { set(src: A): void }>(a: A, make: (n: number) => A, width = 1): A => {
      const b = make(cap * width);
      b.set(a);
      return b;
    };
    this.uuids = copy(this.uuids, (n) => new Uint8Array(n), 16);
    this.cls = copy(this.cls, (n) => new Uint8Array(n));
    this.year = copy(this.year, (n) => new Uint16Array(n));
    this.curated = copy(this.curated, (n) => new Uint8Array(n));
    this.created = copy(this.created, (n) => new BigInt64Array(n));
    this.updated = copy(this.updated, (n) => new BigInt64Array(n));
    this.hasUpdated = copy(this.hasUpdated, (n) => new Uint8Array(n));
    this.cap = cap;
  }

  /**
   * Appends `count` nodes drawn from `rng` (per node: class, UUID, whether it has a year, the year).
   *
   * The draw order is the generator's contract: it fixes every byte of the demo for a seed.
   */
  add(rng: Rng, count: number, classes: readonly (typeof DEMO_NODE_CLASSES)[number][], createdAt: bigint): void {
    this.grow(this.length + count);
    for (let i = 0; i < count; i++) {
      const k = this.length;
      this.cls[k] = DEMO_NODE_CLASSES.indexOf(classes[rng.int(classes.length)] as (typeof DEMO_NODE_CLASSES)[number]);
      rng.uuidInto(this.uuids, k * 16);
      this.year[k] = rng.int(4) === 0 ? 1990 + rng.int(35) : 0;
      this.created[k] = createdAt + BigInt(i);
      this.length++;
    }
  }

  /** Marks node `k` curated at `t`: its label gains ` (curated)` (once per curation). */
  curate(k: number, t: bigint): void {
    this.curated[k] = (this.curated[k] as number) + 1;
    this.updated[k] = t;
    this.hasUpdated[k] = 1;
  }

  /** Node `k`'s UUID as lowercase RFC text. */
  uuidText(k: number): string {
    return formatUuid(this.uuids.subarray(k * 16, k * 16 + 16));
  }

  private label(k: number): string {
    return `${capitalized(DEMO_NODE_CLASSES[this.cls[k] as number] as string)} ${k}${' (curated)'.repeat(this.curated[k] as number)}`;
  }

  /** Node indices in identity order (UUID bytes ascending). */
  identityOrder(): Uint32Array {
    const n = this.length;
    const u = this.uuids;
    const hi = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const o = k * 16;
      hi[k] = ((u[o] as number) * 2 ** 40) + ((u[o + 1] as number) * 2 ** 32) + (((u[o + 2] as number) << 24) >>> 0) + ((u[o + 3] as number) << 16) + ((u[o + 4] as number) << 8) + (u[o + 5] as number);
    }
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = k;
    order.sort((a, b) => {
      const d = (hi[a] as number) - (hi[b] as number);
      if (d !== 0) return d;
      for (let j = 6; j < 16; j++) {
        const e = (u[a * 16 + j] as number) - (u[b * 16 + j] as number);
        if (e !== 0) return e;
      }
      return 0;
    });
    return order;
  }

  /** The graph_node@1 participant: rows in identity order, one batch, the registry's canonical bytes. */
  nodeChange(): ParticipantChange {
    const order = this.identityOrder();
    const n = order.length;
    const columns = [
      uuidColumn(this.uuids, order),
      utf8Column(n, (r) => DEMO_NODE_CLASSES[this.cls[order[r] as number] as number] as string),
      utf8Column(n, (r) => this.label(order[r] as number)),
      utf8Column(n, (r) => {
        const y = this.year[order[r] as number] as number;
        return y === 0 ? null : `{"year":${y}}`;
      }),
      timestampColumn(n, (r) => this.created[order[r] as number] as bigint),
      timestampColumn(n, (r) => {
        const k = order[r] as number;
        return this.hasUpdated[k] === 1 ? (this.updated[k] as bigint) : null;
      }),
    ];
    return putData(GRAPH_NODE, columns, n);
  }

  /**
   * The graph_edge@1 participant of `count` edges: edge i links node s = i mod N to (s + k) mod N, k = ⌊i / N⌋ + 1.
   *
   * Identities are unique and endpoints always exist. Weights are drawn in
   * edge order (i), before the rows are laid out in identity order; the
   * order comes from the node order (sources by UUID, then each source's few
   * targets by UUID), with no row comparison sort.
   */
  edgeChange(rng: Rng, count: number, createdAt: bigint): ParticipantChange {
    const n = this.length;
    const weight = new Float64Array(count);
    for (let i = 0; i < count; i++) weight[i] = i % 5 === 0 ? Number.NaN : Math.round(rng.float() * 1000) / 1000;
    const nodeOrder = this.identityOrder();
    const rank = new Uint32Array(n);
    for (let r = 0; r < n; r++) rank[nodeOrder[r] as number] = r;
    const rows = new Uint32Array(count);
    let w = 0;
    const mine: number[] = [];
    for (let r = 0; r < n; r++) {
      const s = nodeOrder[r] as number;
      mine.length = 0;
      for (let i = s; i < count; i += n) mine.push(i);
      mine.sort((a, b) => (rank[(s + Math.floor(a / n) + 1) % n] as number) - (rank[(s + Math.floor(b / n) + 1) % n] as number));
      for (const i of mine) rows[w++] = i;
    }
    const src = new Uint32Array(count);
    const dst = new Uint32Array(count);
    for (let r = 0; r < count; r++) {
      const i = rows[r] as number;
      const s = i % n;
      src[r] = s;
      dst[r] = (s + Math.floor(i / n) + 1) % n;
    }
    const columns = [
      uuidColumn(this.uuids, src),
      uuidColumn(this.uuids, dst),
      utf8Column(count, (r) => {
        const k = Math.floor((rows[r] as number) / n) + 1;
        return k === 1 ? 'cites' : `related_${k}`;
      }),
      float64Column(count, (r) => {
        const v = weight[rows[r] as number] as number;
        return Number.isNaN(v) ? null : v;
      }),
      timestampColumn(count, (r) => createdAt + BigInt(rows[r] as number)),
    ];
    return putData(GRAPH_EDGE, columns, count);
  }
}

// Each builder gives exactly the buffers `buildColumn` gives for the same cells
// (one chunk, a validity bitmap only when a null is present, nulls zero-filled).

function validity(n: number, isNull: (r: number) => boolean): { nullCount: number; nullBitmap?: Uint8Array } {
  let nullCount = 0;
  let bitmap: Uint8Array | undefined;
  for (let r = 0; r < n; r++) {
    if (!isNull(r)) continue;
    if (bitmap === undefined) {
      bitmap = new Uint8Array(Math.ceil(n / 8)).fill(0xff);
      const tail = n & 7;
      if (tail !== 0) bitmap[bitmap.length - 1] = (1 << tail) - 1;
    }
    bitmap[r >> 3] = (bitmap[r >> 3] as number) & ~(1 << (r & 7));
    nullCount++;
  }
  return bitmap === undefined ? { nullCount } : { nullCount, nullBitmap: bitmap };
}

function uuidColumn(uuids: Uint8Array, rows: Uint32Array): Data {
  const n = rows.length;
  const data = new Uint8Array(n * 16);
  for (let r = 0; r < n; r++) {
    const k = rows[r] as number;
    data.set(uuids.subarray(k * 16, k * 16 + 16), r * 16);
  }
  return makeData({ type: new FixedSizeBinary(16), data, length: n, nullCount: 0 });
}

const ENCODER = new TextEncoder();

function utf8Column(n: number, get: (r: number) => string | null): Data {
  const valueOffsets = new Int32Array(n + 1);
  let nulls = 0;
  let total = 0;
  for (let r = 0; r < n; r++) {
    const v = get(r);
    if (v === null) nulls++;
    else total += Buffer.byteLength(v, 'utf8');
    valueOffsets[r + 1] = total;
  }
  const data = new Uint8Array(total);
  for (let r = 0; r < n; r++) {
    const v = get(r);
    if (v !== null) ENCODER.encodeInto(v, data.subarray(valueOffsets[r] as number, valueOffsets[r + 1] as number));
  }
  const valid = nulls === 0 ? { nullCount: 0 } : validity(n, (r) => valueOffsets[r] === valueOffsets[r + 1] && get(r) === null);
  return makeData({ type: new Utf8(), data, valueOffsets, length: n, ...valid });
}

function float64Column(n: number, get: (r: number) => number | null): Data {
  const data = new Float64Array(n);
  for (let r = 0; r < n; r++) data[r] = get(r) ?? 0;
  return makeData({ type: new Float64(), data, length: n, ...validity(n, (r) => get(r) === null) });
}

function timestampColumn(n: number, get: (r: number) => bigint | null): Data {
  const data = new BigInt64Array(n);
  for (let r = 0; r < n; r++) data[r] = get(r) ?? 0n;
  return makeData({ type: new Timestamp(TimeUnit.MICROSECOND, 'UTC'), data, length: n, ...validity(n, (r) => get(r) === null) });
}

function putData(family: RecordFamily, columns: readonly Data[], n: number): ParticipantChange {
  const bytes = tableToIPC(tableOfColumns(family.schema, columns, n), 'file');
  return { kind: 'put', capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId, bytes };
}
