// A checkpoint's graph read for pictures: the `graph/node` and `graph/edge`
// participants of one pinned generation as raw UUID columns (never one JS
// object per record), with the two lookups a neighbourhood needs: a node by
// UUID (binary search: nodes are stored in identity order) and the edges of a
// node (outgoing by binary search: edges are stored in (source, target, kind)
// order; incoming through a hash index on the target, built once per view,
// O(edges), so a lookup costs the same at 1M edges as at 10M).
import type { Data, Table, Vector } from 'apache-arrow';
import { uuidText } from '../contract/arrow-text';
import { GfError } from '../errors';
import { lowerBound } from '../diff/merge-raw-rows';

/** What a graph index reads from: a pinned generation's decoded participants (a checkpoint view, a diff endpoint's tables). */
export interface GraphSource {
  /** The decoded participant of a family (`<capability>/<family>`), or undefined when the generation has none. */
  readTable(familyKey: string): Table | undefined;
}

const EMPTY = new Uint8Array(0);

/** A FixedSizeBinary(16) column's bytes, row-major (copied only when the table has several batches or a sliced buffer). */
function uuidBytes(table: Table, name: string): Uint8Array {
  const vector = table.getChild(name);
  if (vector === null) throw new Error(`invariant violated: graph participant without ${name}`);
  const parts = (vector as Vector).data.map((d: Data) => {
    const values = d.values as Uint8Array;
    return values.length === d.length * 16 ? values : values.subarray(d.offset * 16, (d.offset + d.length) * 16);
  });
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(table.numRows * 16);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Compares the 16 bytes of `a` at row `i` with those of `b` at row `j`. */
export function compareUuidAt(a: Uint8Array, i: number, b: Uint8Array, j: number): number {
  const x = i * 16;
  const y = j * 16;
  for (let k = 0; k < 16; k++) {
    const d = (a[x + k] as number) - (b[y + k] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** The 16 bytes of canonical UUID text. */
export function uuidBytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replaceAll('-', ''), 'hex'));
}

/** A 32-bit mix of one 16-byte key (FNV-1a), for the incoming-edge buckets. */
function hash16(b: Uint8Array, row: number): number {
  let h = 0x811c9dc5;
  const at = row * 16;
  for (let k = 0; k < 16; k++) h = Math.imul(h ^ (b[at + k] as number), 0x01000193);
  return h >>> 0;
}

/** The edges that end at each node: edge rows grouped by a hash of the target (compressed rows: offsets, then rows). */
interface IncomingIndex {
  readonly mask: number;
  readonly offsets: Uint32Array;
  readonly rows: Uint32Array;
}

function buildIncoming(targets: Uint8Array, edges: number): IncomingIndex {
  let buckets = 1;
  while (buckets < Math.max(1, edges >>> 2)) buckets <<= 1;
  const mask = buckets - 1;
  const offsets = new Uint32Array(buckets + 1);
  const bucketOf = new Uint32Array(edges);
  for (let r = 0; r < edges; r++) {
    const b = hash16(targets, r) & mask;
    bucketOf[r] = b;
    offsets[b + 1] = (offsets[b + 1] as number) + 1;
  }
  for (let b = 0; b < buckets; b++) offsets[b + 1] = (offsets[b + 1] as number) + (offsets[b] as number);
  const fill = offsets.slice(0, buckets);
  const rows = new Uint32Array(edges);
  for (let r = 0; r < edges; r++) {
    const b = bucketOf[r] as number;
    rows[fill[b] as number] = r;
    fill[b] = (fill[b] as number) + 1;
  }
  return { mask, offsets, rows };
}

/**
 * One generation's graph, read for pictures.
 *
 * Node rows are in UUID order, so "neighbours by UUID" is "neighbours by row".
 */
export class GraphIndex {
  readonly nodes: number;
  readonly edges: number;
  readonly #nodeIds: Uint8Array;
  readonly #labels: Vector | null;
  readonly #classes: Vector | null;
  readonly #sources: Uint8Array;
  readonly #targets: Uint8Array;
  readonly #kinds: Vector | null;
  #incoming: IncomingIndex | undefined;

  constructor(nodes: Table | undefined, edges: Table | undefined) {
    this.nodes = nodes?.numRows ?? 0;
    this.edges = edges?.numRows ?? 0;
    this.#nodeIds = nodes === undefined ? EMPTY : uuidBytes(nodes, 'node_uuid');
    this.#labels = nodes?.getChild('label') ?? null;
    this.#classes = nodes?.getChild('class_id') ?? null;
    this.#sources = edges === undefined ? EMPTY : uuidBytes(edges, 'source_node_uuid');
    this.#targets = edges === undefined ? EMPTY : uuidBytes(edges, 'target_node_uuid');
    this.#kinds = edges?.getChild('kind') ?? null;
  }

  /** The graph of a pinned generation (no graph participants: an empty graph). */
  static of(source: GraphSource): GraphIndex {
    return new GraphIndex(source.readTable('graph/node'), source.readTable('graph/edge'));
  }

  /** Builds the incoming-edge index now (a view does it once, before its first neighbourhood). */
  warm(): this {
    this.#incoming ??= buildIncoming(this.#targets, this.edges);
    return this;
  }

  /** The node row of a UUID's 16 bytes, or -1. */
  nodeRow(uuid: Uint8Array): number {
    const at = lowerBound(this.nodes, (r) => compareUuidAt(this.#nodeIds, r, uuid, 0), true);
    return at < this.nodes && compareUuidAt(this.#nodeIds, at, uuid, 0) === 0 ? at : -1;
  }

  nodeUuid(row: number): string {
    return uuidText(this.#nodeIds.subarray(row * 16, row * 16 + 16));
  }
  nodeLabel(row: number): string | null {
    return (this.#labels?.get(row) as string | null | undefined) ?? null;
  }
  nodeClass(row: number): string | null {
    return (this.#classes?.get(row) as string | null | undefined) ?? null;
  }
  edgeSource(row: number): string {
    return uuidText(this.#sources.subarray(row * 16, row * 16 + 16));
  }
  edgeTarget(row: number): string {
    return uuidText(this.#targets.subarray(row * 16, row * 16 + 16));
  }
  edgeRelation(row: number): string {
    return String(this.#kinds?.get(row) ?? '');
  }

  /** The node row of an edge's source (-1 when the node is not in this generation). */
  sourceNodeRow(edge: number): number {
    return this.nodeRow(this.#sources.subarray(edge * 16, edge * 16 + 16));
  }
  /** The node row of an edge's target (-1 when the node is not in this generation). */
  targetNodeRow(edge: number): number {
    return this.nodeRow(this.#targets.subarray(edge * 16, edge * 16 + 16));
  }

  /** Edge rows leaving node `row` (a contiguous run: edges are stored by source). */
  outgoing(row: number): { readonly start: number; readonly end: number } {
    const start = lowerBound(this.edges, (r) => compareUuidAt(this.#sources, r, this.#nodeIds, row), true);
    let end = start;
    while (end < this.edges && compareUuidAt(this.#sources, end, this.#nodeIds, row) === 0) end++;
    return { start, end };
  }

  /** Edge rows ending at node `row`, in edge order. */
  incoming(row: number): number[] {
    const ix = this.warm().#incoming as IncomingIndex;
    const b = hash16(this.#nodeIds, row) & ix.mask;
    const out: number[] = [];
    for (let k = ix.offsets[b] as number; k < (ix.offsets[b + 1] as number); k++) {
      const e = ix.rows[k] as number;
      if (compareUuidAt(this.#targets, e, this.#nodeIds, row) === 0) out.push(e);
    }
    return out;
  }

  /** Edge rows whose source and target are exactly these UUIDs (any relation). */
  edgesBetween(source: Uint8Array, target: Uint8Array): number[] {
    const s = this.nodeRow(source);
    if (s < 0) return [];
    const { start, end } = this.outgoing(s);
    const out: number[] = [];
    for (let e = start; e < end; e++) if (compareUuidAt(this.#targets, e, target, 0) === 0) out.push(e);
    return out;
  }

  /**
   * Nodes whose label contains `text` (case-insensitive) or whose UUID starts
   * with it, in node order, at most `limit`: one pass over the labels.
   */
  find(text: string, limit: number): number[] {
    const needle = text.normalize('NFC').toLowerCase();
    const out: number[] = [];
    const hex = needle.replaceAll('-', '');
    if (/^[0-9a-f]{1,32}$/.test(hex)) {
      const low = uuidBytesOf(hex.padEnd(32, '0'));
      for (let r = lowerBound(this.nodes, (x) => compareUuidAt(this.#nodeIds, x, low, 0), true); r < this.nodes && out.length < limit; r++) {
        const id = this.nodeUuid(r);
        if (!id.startsWith(needle) && !id.replaceAll('-', '').startsWith(hex)) break;
        out.push(r);
      }
    }
    for (let r = 0; r < this.nodes && out.length < limit; r++) {
      const label = this.nodeLabel(r);
      if (label !== null && label.normalize('NFC').toLowerCase().includes(needle) && !out.includes(r)) out.push(r);
    }
    return out.sort((a, b) => a - b);
  }

  /** A node row that must exist (`GF_VALIDATION` naming the field otherwise). */
  requireNode(uuidText: string): number {
    const row = this.nodeRow(uuidBytesOf(uuidText));
    if (row < 0) throw new GfError('GF_VALIDATION', 'no node with this UUID at this checkpoint', { field: 'node_uuid' });
    return row;
  }
}
