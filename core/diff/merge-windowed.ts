// Ranged reads of a stored participant: row windows of its columns read from the IPC
// footer, merged without decoding the whole object.
import { RecordBatch, Schema, Struct, Table, Type, makeData } from 'apache-arrow';
import { DEFAULT_DIFF_TUNING } from './tuning';
import type { DiffTuning } from './tuning';
import type { Data, DataType } from 'apache-arrow';
import { bitWindow, singleBatchLayout } from '../canonical/arrow-file-rows';
import type { ColumnPlace } from '../canonical/arrow-file-rows';
import { BoundedCache } from '../canonical/index';
import { GfError } from '../errors';
import type { ProjectCaches } from '../project/index';
import type { DiffAdapter } from './plan-adapters';
import { PAUSE } from './steps';
import type { DiffEffect } from './steps';
import type { ChangeList } from './changes-list';
import type { DeferredDigests } from './merge-deferred-digests';
import type { ParticipantSource } from './plan-endpoint';
import { bindIdentityColumns, fixedCellsAscending, isKnownSorted, lowerBound, rememberSorted } from './merge-raw-rows';
import type { RawSide } from './merge-raw-rows';
import { FamilyDiff } from './merge-family-diff';

const UUID_BYTES = 16;

/** `bytes`, copied when its offset does not suit a typed array of `align`-byte elements. */
function aligned(bytes: Uint8Array, align: number): Uint8Array {
  return bytes.byteOffset % align === 0 ? bytes : bytes.slice();
}

/**
 * `makeData` for a column whose type is only known at run time (its typed
 * overloads need the static type); the props are those of the type's kind.
 */
function columnData(props: { type: DataType; length: number; data: Uint8Array; valueOffsets?: Int32Array; nullBitmap?: Uint8Array; nullCount: number }): Data {
  return makeData(props as unknown as Parameters<typeof makeData>[0]);
}

/** Set bits of every byte value. */
const POPCOUNT = Uint8Array.from({ length: 256 }, (_, v) => {
  let c = 0;
  for (let x = v; x !== 0; x &= x - 1) c++;
  return c;
});

/** Bits `[from, from + n)` of `bits` written to the front of `out`, starting at bit 0; returns the number of set bits. */
function shiftBits(bits: Uint8Array, from: number, n: number, out: Uint8Array): number {
  const bytes = (n + 7) >> 3;
  const q = from >> 3;
  const r = from & 7;
  if (r === 0) out.set(bits.subarray(q, q + bytes));
  else for (let k = 0; k < bytes; k++) out[k] = (((bits[q + k] ?? 0) >> r) | ((bits[q + k + 1] ?? 0) << (8 - r))) & 0xff;
  const tail = n & 7;
  if (tail !== 0) out[bytes - 1] = (out[bytes - 1] as number) & ((1 << tail) - 1);
  let set = 0;
  for (let k = 0; k < bytes; k++) set += POPCOUNT[out[k] as number] as number;
  return set;
}

/** A growable scratch buffer: windows reuse it, so a long stream allocates (and collects) next to nothing. */
class Scratch {
  #buf = new Uint8Array(0);

  /** At least `n` bytes (contents unspecified), 8-byte aligned. */
  get(n: number): Uint8Array {
    if (this.#buf.length < n) this.#buf = new Uint8Array(Math.max(n, 2 * this.#buf.length));
    return this.#buf;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#buf.length;
  }
}

/** The reusable buffers of one column's windows. */
interface ColumnScratch {
  readonly validity: Scratch;
  readonly bits: Scratch;
  readonly values: Scratch;
  readonly offsets: Scratch;
  /** Rebased value offsets, or a boolean column's realigned bits. */
  readonly derived: Scratch;
}

function columnScratch(): ColumnScratch {
  return { validity: new Scratch(), bits: new Scratch(), values: new Scratch(), offsets: new Scratch(), derived: new Scratch() };
}

/** Every scratch buffer of one `WindowedParticipant`: its windows', identity windows' and field windows'. */
interface ScratchSet {
  readonly columns: readonly ColumnScratch[];
  readonly identity: readonly ColumnScratch[];
  readonly fields: readonly ColumnScratch[];
}

function scratchBytes(set: ScratchSet): number {
  let n = 0;
  for (const c of [...set.columns, ...set.identity, ...set.fields]) n += c.validity.bytes + c.bits.bytes + c.values.bytes + c.offsets.bytes + c.derived.bytes;
  return n;
}

/** Released scratch sets kept per layout (family, column and identity counts). */
const SCRATCH_PER_LAYOUT = 2;
/** The most bytes the released scratch sets hold together (a larger set is dropped, not kept). */
const SCRATCH_POOL_BYTES = 64 << 20;

function newScratch(columns: number, identity: number): ScratchSet {
  const make = (n: number): ColumnScratch[] => Array.from({ length: n }, () => columnScratch());
  return { columns: make(columns), identity: make(identity), fields: make(columns) };
}

/** Where the rows of one plain stored participant sit: a pure function of its bytes. */
interface Layout {
  readonly schema: Schema;
  readonly rows: number;
  readonly columns: readonly ColumnPlace[];
  readonly identityAt: readonly number[];
  /**
   * Record UUIDs read by `seekAfter` probes, by row (bounded by
   * `PROBES_MAX`): binary searches of one object share their first probes,
   * so a warm search reads one short run of identities, not one per probe.
   */
  readonly probes: Map<number, Uint8Array>;
}

/** A search range this short is read at once (one ranged read) and searched in memory. */
const SEEK_SCAN_ROWS = 512;
/** Most probed record UUIDs remembered per object (16 bytes each). */
const PROBES_MAX = 4096;

/**
 * What one project's windowed reads keep between participants (a diff memo
 * of `ProjectCaches`): the layouts found and the released scratch buffers.
 */
export class WindowedMemo {
  /**
   * Layouts of opened participants, by family, schema fingerprint, object
   * digest and size: content-addressed, so an entry never goes stale; bounded.
   */
  readonly layouts = new BoundedCache<string, Layout>(16);
  /**
   * Scratch sets released by finished merges (`WindowedParticipant.release`),
   * handed to the next participant of the same layout: a 1M-row merge grows
   * window buffers of tens of MB, and dropping them at its end left that much
   * external garbage, collected inside whatever ran next (a display page, a
   * jump). Only a released set is here, so no two live participants share one.
   */
  readonly #scratch = new Map<string, ScratchSet[]>();
  #scratchBytes = 0;


  /** A released scratch set of this layout, or a new one. */
  takeScratch(key: string, columns: number, identity: number): ScratchSet {
    const set = this.#scratch.get(key)?.pop();
    if (set !== undefined) {
      this.#scratchBytes -= scratchBytes(set);
      return set;
    }
    return newScratch(columns, identity);
  }

  /** Keeps a released set for the next participant of its layout (bounded per layout and in bytes; else dropped). */
  giveScratch(key: string, set: ScratchSet): void {
    const bytes = scratchBytes(set);
    const kept = this.#scratch.get(key) ?? [];
    if (kept.length >= SCRATCH_PER_LAYOUT || this.#scratchBytes + bytes > SCRATCH_POOL_BYTES) return;
    kept.push(set);
    this.#scratch.set(key, kept);
    this.#scratchBytes += bytes;
  }

  /** Bytes the released scratch sets hold now. */
  get scratchBytes(): number {
    return this.#scratchBytes;
  }

  clear(): void {
    this.layouts.clear();
    this.#scratch.clear();
    this.#scratchBytes = 0;
  }
}

/**
 * A stored Arrow participant read by row windows, straight from its
 * verified object: only the footer, the record batch metadata and the
 * buffer ranges of the rows asked for are read, so memory and time follow
 * the window, not the object.
 *
 * Only the plain stored layout is opened this way: an Arrow IPC file with
 * the family's exact schema (by canonical fingerprint), one record batch,
 * no dictionaries, no compression, flat columns of the family's kinds and
 * identity columns without nulls. Anything else is `null` from `open`, and
 * the caller decodes the whole object (which re-canonicalizes other
 * layouts and reports errors exactly as before).
 */
export class WindowedParticipant {
  readonly rows: number;
  readonly schema: Schema;
  readonly #source: ParticipantSource;
  readonly #columns: readonly ColumnPlace[];
  /** Column index of each identity field, identity order. */
  readonly #identityAt: readonly number[];
  /**
   * Buffers of `window`; `identity`: of the identity windows (alive beside
   * a full window of the same rows); `fields`: of `fieldWindow` (alive
   * beside a full window, e.g. a display page's window beside a one-row
   * lookup). Null once released.
   */
  #scratchSet: ScratchSet | null;
  readonly #scratchKey: string;
  readonly #adapter: DiffAdapter;
  readonly #probes: Map<number, Uint8Array>;
  /** The caches of the project the participant was read from (undefined: bytes in memory, no memo). */
  readonly caches: ProjectCaches | undefined;
  readonly #memo: WindowedMemo | undefined;

  private constructor(
    adapter: DiffAdapter,
    source: ParticipantSource,
    caches: ProjectCaches | undefined,
    schema: Schema,
    rows: number,
    columns: readonly ColumnPlace[],
    identityAt: readonly number[],
    probes: Map<number, Uint8Array> = new Map(),
  ) {
    this.#adapter = adapter;
    this.caches = caches;
    this.#memo = caches?.layer(WindowedMemo);
    this.#probes = probes;
    this.#source = source;
    this.schema = schema;
    this.rows = rows;
    this.#columns = columns;
    this.#identityAt = identityAt;
    this.#scratchKey = `${adapter.family.key}:${columns.length}:${identityAt.length}`;
    this.#scratchSet = this.#memo === undefined ? newScratch(columns.length, identityAt.length) : this.#memo.takeScratch(this.#scratchKey, columns.length, identityAt.length);
  }

  get #scratch(): ScratchSet {
    if (this.#scratchSet === null) throw new Error('invariant violated: a released WindowedParticipant was read');
    return this.#scratchSet;
  }

  /**
   * Hands this participant's window buffers to the next participant of its
   * project opened (bounded pool). Call only when no window, identity window or field
   * window it returned is used any more; it must not be read afterwards.
   */
  release(): void {
    const set = this.#scratchSet;
    if (set === null) return;
    this.#scratchSet = null;
    this.#memo?.giveScratch(this.#scratchKey, set);
  }

  /** True when the identity is one 16-byte cell (a record UUID), so `seekAfter` applies. */
  get uuidIdentity(): boolean {
    const c = this.#identityAt.length === 1 ? this.#columns[this.#identityAt[0] as number] : undefined;
    return c !== undefined && c.width === UUID_BYTES && c.field.type.typeId === Type.FixedSizeBinary;
  }

  /**
   * Opens the plain stored layout of an Arrow family, or null for anything else.
   *
   * With `contentSha256` (the digest `source` was verified against), the
   * layout found (footer, batch metadata, schema fingerprint) is remembered
   * for that object in the project's `caches`, so opening it again reads
   * nothing before the rows; its scratch buffers come from (and go back to)
   * the same project's pool.
   */
  static open(adapter: DiffAdapter, source: ParticipantSource, contentSha256?: string, caches?: ProjectCaches): WindowedParticipant | null {
    const layouts = caches?.layer(WindowedMemo)?.layouts;
    const key = contentSha256 === undefined ? undefined : `${adapter.family.key}:${adapter.family.schemaFingerprint}:${contentSha256}:${source.byteLength}`;
    const known = key === undefined ? undefined : layouts?.get(key);
    if (known !== undefined) return new WindowedParticipant(adapter, source, caches, known.schema, known.rows, known.columns, known.identityAt, known.probes);
    try {
      const w = WindowedParticipant.#open(adapter, source, caches);
      if (w !== null && key !== undefined) layouts?.set(key, { schema: w.schema, rows: w.rows, columns: w.#columns, identityAt: w.#identityAt, probes: w.#probes });
      return w;
    } catch {
      // A malformed file is judged by the full decoder, which names the problem.
      return null;
    }
  }

  static #open(adapter: DiffAdapter, source: ParticipantSource, caches: ProjectCaches | undefined): WindowedParticipant | null {
    if (adapter.encoding !== 'arrow') return null;
    const layout = singleBatchLayout(source, adapter.family.schemaFingerprint);
    if (layout === null) return null;
    const { schema, rows, columns } = layout;
    const fields = schema.fields;
    const identityAt = adapter.identityFields.map((n) => fields.findIndex((f) => f.name === n));
    if (identityAt.some((k) => columns[k] === undefined || (columns[k] as ColumnPlace).nullCount !== 0 || (columns[k] as ColumnPlace).width < 0)) return null;
    return new WindowedParticipant(adapter, source, caches, schema, rows, columns, identityAt);
  }

  /**
   * The record UUIDs (identity cells) of rows `[r0, r1)`, 16 bytes each, in
   * storage order. The bytes live in a buffer the next call reuses.
   */
  identityBytes(r0: number, r1: number): Uint8Array {
    if (!this.uuidIdentity) throw new Error('invariant violated: identityBytes needs a record UUID identity');
    const c = this.#columns[this.#identityAt[0] as number] as ColumnPlace;
    return this.#source.read(c.values.offset + r0 * UUID_BYTES, (r1 - r0) * UUID_BYTES);
  }

  /** The identity columns of rows `[r0, r1)`, identity order (in buffers the next call reuses). */
  identityWindow(r0: number, r1: number): Data[] {
    return this.#identityAt.map((k, i) => this.#column(this.#columns[k] as ColumnPlace, this.#scratch.identity[i] as ColumnScratch, r0, r1, undefined));
  }

  /**
   * Only the columns `names` of rows `[r0, r1)` (a display page reads the
   * fields it shows, not the whole record). The data lives in buffers the
   * next `fieldWindow` call reuses; `window` and `identityWindow` do not
   * touch them.
   */
  fieldWindow(names: readonly string[], r0: number, r1: number): ReadonlyMap<string, Data> {
    const out = new Map<string, Data>();
    for (const name of names) {
      if (out.has(name)) continue;
      const k = this.#columns.findIndex((c) => c.field.name === name);
      if (k < 0) throw new Error(`invariant violated: no column ${name}`);
      out.set(name, this.#column(this.#columns[k] as ColumnPlace, this.#scratch.fields[k] as ColumnScratch, r0, r1, undefined));
    }
    return out;
  }

  #column(c: ColumnPlace, s: ColumnScratch, r0: number, r1: number, given: Data | undefined): Data {
    if (given !== undefined) return given;
    const { n, firstByte, bitBytes } = bitWindow(r0, r1);
    const type = c.field.type;
    let nulls: { nullBitmap: Uint8Array; nullCount: number } | { nullCount: 0 } = { nullCount: 0 };
    if (c.validity !== null && n > 0) {
      const bytes = this.#source.read(c.validity.offset + firstByte, bitBytes, s.validity.get(bitBytes));
      const bitmap = s.bits.get(bitBytes).subarray(0, (n + 7) >> 3);
      const valid = shiftBits(bytes, r0 & 7, n, bitmap);
      if (valid < n) nulls = { nullBitmap: bitmap, nullCount: n - valid };
    }
    if (c.width > 0) {
      const data = this.#source.read(c.values.offset + r0 * c.width, n * c.width, s.values.get(n * c.width));
      return columnData({ type, length: n, data: aligned(data, 8), ...nulls });
    }
    if (c.width < 0) {
      const packed = this.#source.read(c.values.offset + firstByte, bitBytes, s.values.get(bitBytes));
      const data = s.derived.get(bitBytes).subarray(0, (n + 7) >> 3);
      shiftBits(packed, r0 & 7, n, data);
      return columnData({ type, length: n, data, ...nulls });
    }
    const place = c.offsets as { offset: number; length: number };
    const raw = aligned(this.#source.read(place.offset + 4 * r0, 4 * (n + 1), s.offsets.get(4 * (n + 1))), 4);
    const stored = new Int32Array(raw.buffer, raw.byteOffset, n + 1);
    const rebasedBytes = s.derived.get(4 * (n + 1));
    const valueOffsets = new Int32Array(rebasedBytes.buffer, rebasedBytes.byteOffset, n + 1);
    const base = stored[0] as number;
    const end = stored[n] as number;
    if (base < 0 || end < base || end > c.values.length) this.#malformed('value_offsets');
    let prev = 0;
    for (let k = 0; k <= n; k++) {
      const v = (stored[k] as number) - base;
      if (v < prev) this.#malformed('value_offsets');
      valueOffsets[k] = v;
      prev = v;
    }
    const data = this.#source.read(c.values.offset + base, end - base, s.values.get(end - base));
    return columnData({ type, length: n, data, valueOffsets, ...nulls });
  }

  /** A verified object whose buffers contradict its own metadata: not a valid participant (`GF_PROJECT_CORRUPT`). */
  #malformed(problem: string): never {
    throw new GfError('GF_PROJECT_CORRUPT', 'participant bytes are not a valid participant of their family', {
      capability_id: this.#adapter.capabilityId,
      record_family_id: this.#adapter.recordFamilyId,
      problem,
    });
  }

  /**
   * Rows `[r0, r1)` as a prepared merge side (one plain batch, offset 0),
   * reusing `identity` (from `identityWindow(r0, e)`, `e >= r1`) when given.
   */
  window(r0: number, r1: number, identity?: readonly Data[]): RawSide {
    const given = (k: number): Data | undefined => {
      const i = this.#identityAt.indexOf(k);
      const d = i < 0 || identity === undefined ? undefined : identity[i];
      return d === undefined ? undefined : d.length === r1 - r0 ? d : d.slice(0, r1 - r0);
    };
    const scratch = this.#scratch.columns;
    const columns = this.#columns.map((c, k) => this.#column(c, scratch[k] as ColumnScratch, r0, r1, given(k)));
    const struct = makeData({ type: new Struct(this.schema.fields), length: r1 - r0, nullCount: 0, children: columns });
    const table = new Table([new RecordBatch(this.schema, struct)]);
    return { table, rows: r1 - r0, columns, identity: this.#identityAt.map((k) => columns[k] as Data) };
  }

  /**
   * The first row whose record UUID is strictly greater than `after`
   * (record UUID identity only): a binary search whose probes are
   * remembered for the object (`Layout.probes`) until the range is at most
   * `SEEK_SCAN_ROWS` rows, which are then read at once and searched in
   * memory. Same answer as probing every row from the file.
   */
  seekAfter(after: Uint8Array): number {
    let lo = 0;
    let hi = this.rows;
    while (hi - lo > SEEK_SCAN_ROWS) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(this.#probe(mid), after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === hi) return lo;
    const ids = this.identityBytes(lo, hi);
    return lo + lowerBound(hi - lo, (r) => Buffer.compare(ids.subarray(r * UUID_BYTES, (r + 1) * UUID_BYTES), after), false);
  }

  /** Row `row`'s record UUID, from the probe memo or read (and remembered while the memo has room). */
  #probe(row: number): Uint8Array {
    const known = this.#probes.get(row);
    if (known !== undefined) return known;
    const id = Uint8Array.from(this.identityBytes(row, row + 1));
    if (this.#probes.size < PROBES_MAX) this.#probes.set(row, id);
    return id;
  }
}

/** True when the `rows` identities of these identity columns are strictly ascending. */
function identityAscending(identity: readonly Data[], rows: number): boolean {
  const only = identity.length === 1 ? (identity[0] as Data) : null;
  if (only !== null && only.typeId === Type.FixedSizeBinary && only.stride % 4 === 0) return fixedCellsAscending(only.values as Uint8Array, only.stride, rows);
  const cmp = bindIdentityColumns(identity, identity);
  for (let r = 1; r < rows; r++) if (cmp(r - 1, r) >= 0) return false;
  return true;
}

/** How a windowed stream ended. */
export type WindowedEnd = 'complete' | 'stopped' | 'unsorted';

/** One side of a windowed stream: the opened participant and its object digest (for the sorted-layout memo). */
export interface WindowedInput {
  readonly participant: WindowedParticipant;
  readonly contentSha256: string;
}

/**
 * The record diff of one family, window by window, in storage (identity) order.
 *
 * Each step reads the next identities of both sides (one window each,
 * plus one row to look ahead), cuts both at the same key — the smaller of
 * the two sides' first identity past its window — so every record of one
 * side meets its partner of the other in the same segment, reads the other
 * columns of exactly those rows and merges them (`FamilyDiff`, the same
 * merge as a whole-object diff). Segments are in identity order, so the
 * changes come out in storage order (contract order for a family
 * identified by its record UUID; others sort their list afterwards).
 * Memory is one window per side plus the changes found: it does not grow
 * with unchanged records.
 *
 * With `deferred` (unbounded streams only) the changed rows' fingerprints
 * are hashed off this thread; the caller settles it before using `out`.
 *
 * Pauses (`PAUSE`) before each segment and inside the merge at least
 * every 4,096 records. Returns `stopped` once `out` holds `stopAt` rows,
 * `complete` at the end of both sides, and `unsorted` (with `out` partly
 * written; discard it) if a side turns out not to be in strictly
 * ascending identity order — the caller then diffs the whole decoded
 * objects, which re-canonicalizes them. Published participants are
 * validated in identity order, so that fallback is defence in depth.
 */
export function* collectWindowed(
  adapter: DiffAdapter,
  from: WindowedInput | null,
  to: WindowedInput | null,
  a0: number,
  b0: number,
  out: ChangeList,
  stopAt: number,
  deferred: DeferredDigests | null = null,
  windows: DiffTuning['windowRows'] = DEFAULT_DIFF_TUNING.windowRows,
  ends?: { readonly a: number; readonly b: number },
): Generator<DiffEffect, WindowedEnd, unknown> {
  const A = from?.participant ?? null;
  const B = to?.participant ?? null;
  // With `ends`, only rows before them (a run whose identities both sides bound alike, from a record index).
  const na = Math.min(A?.rows ?? 0, ends?.a ?? Number.POSITIVE_INFINITY);
  const nb = Math.min(B?.rows ?? 0, ends?.b ?? Number.POSITIVE_INFINITY);
  const sortedA = from === null || isKnownSorted(adapter, from.contentSha256, from.participant.caches);
  const sortedB = to === null || isKnownSorted(adapter, to.contentSha256, to.participant.caches);
  const wholeRun = a0 === 0 && b0 === 0 && ends === undefined;
  const { first, max } = windows;
  let w = Number.isFinite(stopAt) ? first : max;
  let a = a0;
  let b = b0;
  while (a < na || b < nb) {
    if (out.length >= stopAt) return 'stopped';
    yield PAUSE;
    if (deferred !== null) yield* deferred.throttle();
    // Identity windows, each one row longer than `w` when that row exists (the look-ahead key).
    const ea = Math.min(na, a + w + 1);
    const eb = Math.min(nb, b + w + 1);
    const ida = A !== null && a < ea ? A.identityWindow(a, ea) : null;
    const idb = B !== null && b < eb ? B.identityWindow(b, eb) : null;
    // Windows overlap by at least one row, so every adjacent pair of a side is checked in some window.
    if (!sortedA && ida !== null && !identityAscending(ida, ea - a)) return 'unsorted';
    if (!sortedB && idb !== null && !identityAscending(idb, eb - b)) return 'unsorted';
    let a1 = na;
    let b1 = nb;
    const ka = a + w < na;
    const kb = b + w < nb;
    if (ka || kb) {
      // The cut key: the first row past the window of one side (the smaller, when both have one).
      const keyOnA = ka && (!kb || bindIdentityColumns(ida as Data[], idb as Data[])(w, w) <= 0);
      const key = (keyOnA ? ida : idb) as Data[];
      const before = (side: Data[] | null, rows: number): number => {
        if (side === null) return 0;
        const cmp = bindIdentityColumns(side, key);
        return lowerBound(rows, (r) => cmp(r, w), true);
      };
      a1 = a + before(ida, ea - a);
      b1 = b + before(idb, eb - b);
    }
    const sa = A !== null && a1 > a ? A.window(a, a1, ida ?? undefined) : null;
    const sb = B !== null && b1 > b ? B.window(b, b1, idb ?? undefined) : null;
    const done = yield* new FamilyDiff({ adapter, from: sa, to: sb }, deferred).collect(out, 0, 0, stopAt);
    if (!done) return 'stopped';
    a = a1;
    b = b1;
    w = Math.min(max, w * 4);
  }
  if (wholeRun) {
    if (from !== null) rememberSorted(adapter, from.contentSha256, from.participant.caches);
    if (to !== null) rememberSorted(adapter, to.contentSha256, to.participant.caches);
  }
  return 'complete';
}
