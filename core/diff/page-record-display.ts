// Display values of the records on a page: one window per side of only the shown
// columns, and the changed fields of a row.
import { Vector } from 'apache-arrow';
import type { Data, Field } from 'apache-arrow';
import { BoundedCache, parseUuid, toHex } from '../canonical/index';
import { rowFingerprinter } from '../canonical/row-fingerprints';
import { microsIso } from '../contract/time';
import { columnsOf, displayFieldsOf } from '../participants/index';
import type { CellValue, Columns, DisplayFieldSpec, FieldSpec } from '../participants/index';
import { readColumn } from '../participants/columns';
import type { DiffAdapter } from './plan-adapters';
import { KIND_MODIFIED, KIND_REMOVED } from './changes-list';
import type { ChangeList } from './changes-list';
import type { DiffEndpoint, EndpointParticipant, ParticipantSource } from './plan-endpoint';
import { lowerBound, prepareSide } from './merge-raw-rows';
import type { RawSide } from './merge-raw-rows';
import { WindowedParticipant } from './merge-windowed';

/** What a person reads of one changed record: its display values and (modified) its changed field names. */
export interface RecordDisplay {
  readonly display: Readonly<Record<string, string | null>>;
  /** Comma-separated changed fields in schema order (modified rows), else null. */
  readonly changedFields: string | null;
}

/** Text of one cell as a person reads it: timestamps as ISO-8601 UTC microseconds (the contract's one formatter). */
export function cellText(kind: string | undefined, v: CellValue): string | null {
  if (v === null) return null;
  if (typeof v === 'bigint') return kind === 'timestamp_us' ? microsIso(v) : v.toString();
  return String(v);
}

/** The changed field names of row `i` (schema order, comma-separated), or null when it is not a modified row. */
export function changedFieldsOf(adapter: DiffAdapter, list: ChangeList, i: number): string | null {
  if (list.kind[i] !== KIND_MODIFIED) return null;
  const mask = list.fieldMask[i] as number;
  const names: string[] = [];
  adapter.family.fields.forEach((f, k) => {
    if (((mask >>> k) & 1) === 1) names.push(f.name);
  });
  return names.join(',');
}

/** A decoded whole participant with an identity index (families read whole: composite identity, or no ranged reads). */
interface WholeSide {
  readonly side: RawSide;
  readonly columns: Columns;
  /** Identity fingerprint (hex) → row, built on first use. */
  index: Map<string, number> | undefined;
}

/**
 * Whole participants one project decoded for display, by family and object
 * digest (a diff memo of `ProjectCaches`).
 *
 * Content-addressed, so entries never go stale; bounded to a few objects.
 */
export class WholeSides {
  readonly #sides = new BoundedCache<string, WholeSide>(4);


  /** The side under `key`, decoded by `make` and kept when absent. */
  getOrSet(key: string, make: () => WholeSide): WholeSide {
    return this.#sides.getOrSet(key, make);
  }

  /** Sides held now. */
  get size(): number {
    return this.#sides.size;
  }

  clear(): void {
    this.#sides.clear();
  }
}

/** How many list rows one window read looks ahead (a display page is 100 rows). */
const PREFETCH_ROWS = 128;
/** The most participant rows one window read spans; a sparser run is read in fewer list rows, or row by row. */
const PREFETCH_SPAN = 8192;

/**
 * Rows `[lo, lo + n)` of a windowed participant, read at once: their record
 * UUIDs (a copy) and the raw columns of the fields a page shows. Only the
 * cells of the records asked for are decoded (`cellAt`), not the window.
 */
interface RowWindow {
  readonly ids: Uint8Array;
  readonly rows: number;
  readonly values: ReadonlyMap<string, Data>;
}

/** The cell of `data` at `row`, decoded as `spec`'s kind (one cell, not the column). */
function cellAt(data: Data, spec: FieldSpec, row: number): CellValue {
  return readColumn(new Vector([data.slice(row, 1)]), spec)[0] ?? null;
}

/** Finds records of one participant of one endpoint by record UUID or identity fingerprint. */
class SideLookup {
  readonly #adapter: DiffAdapter;
  readonly #endpoint: DiffEndpoint;
  readonly #entry: EndpointParticipant;
  #source: ParticipantSource | undefined;
  #windowed: WindowedParticipant | null | undefined;
  #window: RowWindow | null = null;
  /** The decoded side when the endpoint has no project caches to keep it in. */
  #wholeSide: WholeSide | undefined;

  constructor(adapter: DiffAdapter, endpoint: DiffEndpoint, entry: EndpointParticipant) {
    this.#adapter = adapter;
    this.#endpoint = endpoint;
    this.#entry = entry;
  }

  get #uuidIdentity(): boolean {
    const a = this.#adapter;
    return a.recordUuidField !== null && a.identityFields.length === 1 && a.identityFields[0] === a.recordUuidField;
  }

  #openWindowed(): WindowedParticipant | null {
    if (this.#windowed !== undefined) return this.#windowed;
    this.#windowed = null;
    if (this.#uuidIdentity && this.#endpoint.openParticipant !== undefined) {
      this.#source = this.#endpoint.openParticipant(this.#entry);
      this.#windowed = WindowedParticipant.open(this.#adapter, this.#source, this.#entry.contentSha256, this.#endpoint.caches);
    }
    return this.#windowed;
  }

  #whole(): WholeSide {
    const key = `${this.#adapter.family.key}:${this.#entry.contentSha256}`;
    const caches = this.#endpoint.caches;
    const decode = (): WholeSide => {
      const side = prepareSide(this.#adapter, this.#adapter.decode(this.#endpoint.readParticipantBytes(this.#entry)), this.#entry.contentSha256, caches);
      return { side, columns: columnsOf(this.#adapter.family, side.table), index: undefined };
    };
    const memo = caches?.layer(WholeSides);
    if (memo !== undefined) return memo.getOrSet(key, decode);
    this.#wholeSide ??= decode();
    return this.#wholeSide;
  }

  #indexOf(w: WholeSide): Map<string, number> {
    if (w.index !== undefined) return w.index;
    const a = this.#adapter;
    const fields = a.family.schema.fields;
    const idFields = a.identityFields.map((n) => fields.find((f) => f.name === n) as Field);
    const h = rowFingerprinter(idFields, a.family.schema.metadata, w.side.identity, a.identityFingerprintDomain);
    const out = new Uint8Array(32);
    const index = new Map<string, number>();
    for (let row = 0; row < w.side.rows; row++) {
      h.into(row, out, 0);
      index.set(toHex(out), row);
    }
    w.index = index;
    return index;
  }

  /** True when lookups go through ranged reads (record-UUID identity), so `prefetch` applies. */
  get windowed(): boolean {
    return this.#openWindowed() !== null;
  }

  /** True when `uuid` lies within the rows last read by `prefetch` (found there, or known absent). */
  covers(uuid: Uint8Array): boolean {
    const win = this.#window;
    if (win === null || win.rows === 0) return false;
    return Buffer.compare(win.ids.subarray(0, 16), uuid) <= 0 && Buffer.compare(win.ids.subarray((win.rows - 1) * 16, win.rows * 16), uuid) >= 0;
  }

  /**
   * Reads the contiguous row window spanning record UUIDs `[first, last]`:
   * its record UUIDs and, in one ranged read each, only the columns
   * `fields`, so `byUuid` resolves those records in memory (decoding only
   * their cells). Returns false (nothing read) when the
   * window would span more than `maxRows` rows.
   */
  prefetch(first: Uint8Array, last: Uint8Array, fields: readonly string[], maxRows: number): boolean {
    const w = this.#openWindowed();
    if (w === null) return false;
    const lo = Math.max(0, w.seekAfter(first) - 1);
    const hi = w.seekAfter(last);
    if (hi - lo > maxRows) return false;
    const ids = Uint8Array.from(w.identityBytes(lo, hi));
    this.#window = { ids, rows: hi - lo, values: w.fieldWindow(fields, lo, hi) };
    return true;
  }

  /** The values of the record whose record UUID is `uuid` (record-UUID identity only), or null. */
  byUuid(uuid: Uint8Array): ((field: string) => CellValue) | null {
    const win = this.#window;
    if (win !== null && this.covers(uuid)) {
      const ids = win.ids;
      const at = lowerBound(win.rows, (row) => Buffer.compare(ids.subarray(row * 16, row * 16 + 16), uuid), true);
      if (at >= win.rows || Buffer.compare(ids.subarray(at * 16, at * 16 + 16), uuid) !== 0) return null;
      const family = this.#adapter.family;
      return (field) => {
        const col = win.values.get(field);
        const spec = family.field(field);
        if (col === undefined || spec === undefined) throw new Error(`invariant violated: field ${field} was not prefetched`);
        return cellAt(col, spec, at);
      };
    }
    const w = this.#openWindowed();
    if (w !== null) {
      const at = w.seekAfter(uuid) - 1;
      if (at < 0 || Buffer.compare(w.identityBytes(at, at + 1), uuid) !== 0) return null;
      const cols = columnsOf(this.#adapter.family, w.window(at, at + 1).table);
      return (field) => cols.col(field)[0] ?? null;
    }
    const whole = this.#whole();
    const col = whole.side.identity[0] as Data;
    const v = col.values as Uint8Array;
    const at = lowerBound(whole.side.rows, (row) => Buffer.compare(v.subarray(row * 16, row * 16 + 16), uuid), true);
    if (at >= whole.side.rows || Buffer.compare(v.subarray(at * 16, at * 16 + 16), uuid) !== 0) return null;
    return (field) => whole.columns.col(field)[at] ?? null;
  }

  /** The values of the record whose identity fingerprint is `fp` (32 bytes), or null. */
  byIdentity(fp: Uint8Array): ((field: string) => CellValue) | null {
    const whole = this.#whole();
    const at = this.#indexOf(whole).get(toHex(fp));
    return at === undefined ? null : (field) => whole.columns.col(field)[at] ?? null;
  }

  close(): void {
    this.#source?.close();
    this.#source = undefined;
    this.#windowed = undefined;
    this.#window = null;
  }
}

/**
 * Display values of changed records of one family between two endpoints.
 *
 * A row is found on the side that still has it (`to`, or `from` for a
 * removed record): by binary search on the stored record UUIDs for a family
 * identified by its record UUID (ranged reads: a page reads only its rows),
 * else through an identity-fingerprint index of the decoded participant.
 * A `labelOf` display field is resolved in the referenced family of the
 * same endpoint (e.g. an edge's source node label). Call `close` when done.
 */
export class DisplayResolver {
  readonly #adapter: DiffAdapter;
  readonly #adapters: readonly DiffAdapter[];
  readonly #from: DiffEndpoint;
  readonly #to: DiffEndpoint;
  readonly #fields: readonly DisplayFieldSpec[];
  readonly #lookups = new Map<string, SideLookup | null>();
  readonly #values: boolean;

  /** With `values`, `valuesOf` also gives modified records' changed values (both sides are read, every field). */
  constructor(adapter: DiffAdapter, adapters: readonly DiffAdapter[], from: DiffEndpoint, to: DiffEndpoint, values = false) {
    this.#adapter = adapter;
    this.#adapters = adapters;
    this.#from = from;
    this.#to = to;
    this.#fields = displayFieldsOf(adapter.family);
    this.#values = values;
  }

  /** The family's display field names, in declaration order. */
  get fieldNames(): readonly string[] {
    return this.#fields.map((f) => f.name);
  }

  #lookup(familyKey: string, side: 'from' | 'to'): SideLookup | null {
    const key = `${side}:${familyKey}`;
    if (this.#lookups.has(key)) return this.#lookups.get(key) as SideLookup | null;
    const endpoint = side === 'from' ? this.#from : this.#to;
    const adapter = this.#adapters.find((a) => a.family.key === familyKey);
    const entry = adapter === undefined ? undefined : endpoint.participants.find((p) => p.capabilityId === adapter.capabilityId && p.recordFamilyId === adapter.recordFamilyId);
    const found = adapter === undefined || entry === undefined ? null : new SideLookup(adapter, endpoint, entry);
    this.#lookups.set(key, found);
    return found;
  }

  /** The display values and changed fields of row `i` of `list` (a list of this resolver's family). */
  of(list: ChangeList, i: number): RecordDisplay {
    const side = list.kind[i] === KIND_REMOVED ? 'from' : 'to';
    const record = this.#record(list, i, side);
    const display: Record<string, string | null> = {};
    for (const f of this.#fields) display[f.name] = record === null ? null : this.#valueOf(f, record, side);
    return { display, changedFields: changedFieldsOf(this.#adapter, list, i) };
  }

  #record(list: ChangeList, i: number, side: 'from' | 'to'): ((field: string) => CellValue) | null {
    const own = this.#lookup(this.#adapter.family.key, side);
    if (own === null) return null;
    return list.hasUuid && this.#adapter.identityFields.length === 1 ? this.#byUuidWindowed(own, list, i, side) : own.byIdentity(list.identity.subarray(i * 32, i * 32 + 32));
  }

  /**
   * Row `i`'s values before and after (schema order, texts as in `display`):
   * for a modified record its changed fields on both sides; for an added
   * record every field after (before null); for a removed one every field
   * before (after null). Needs a resolver made with `values`.
   */
  valuesOf(list: ChangeList, i: number): { readonly before: Readonly<Record<string, string | null>> | null; readonly after: Readonly<Record<string, string | null>> | null } {
    if (!this.#values) throw new Error('invariant violated: valuesOf needs a resolver made with values');
    const kind = list.kind[i];
    const every = this.#adapter.family.fields;
    const readAll = (side: 'from' | 'to'): Record<string, string | null> => {
      const record = this.#record(list, i, side);
      const out: Record<string, string | null> = {};
      for (const f of every) out[f.name] = record === null ? null : cellText(f.kind, record(f.name));
      return out;
    };
    if (kind === KIND_REMOVED) return { before: readAll('from'), after: null };
    if (kind !== KIND_MODIFIED) return { before: null, after: readAll('to') };
    const mask = list.fieldMask[i] as number;
    const fields = every.filter((_, k) => ((mask >>> k) & 1) === 1);
    const read = (side: 'from' | 'to'): Record<string, string | null> => {
      const record = this.#record(list, i, side);
      const out: Record<string, string | null> = {};
      for (const f of fields) out[f.name] = record === null ? null : cellText(f.kind, record(f.name));
      return out;
    };
    return { before: read('from'), after: read('to') };
  }

  /**
   * Row `i`'s record on a record-UUID side. On a miss of the side's current
   * window, one window is read spanning the records of the next list rows on
   * the same side (they lie in a contiguous row range, the side being in
   * identity order), so a page costs two binary searches and one ranged read
   * instead of a search and a read per row. A run too sparse for one window
   * is tried with fewer list rows, then row by row.
   */
  #byUuidWindowed(own: SideLookup, list: ChangeList, i: number, side: 'from' | 'to'): ((field: string) => CellValue) | null {
    const uuid = list.uuid.subarray(i * 16, i * 16 + 16);
    if (own.windowed && !own.covers(uuid)) {
      for (let ahead = PREFETCH_ROWS; ahead > 1; ahead >>= 2) {
        let first = uuid;
        let last = uuid;
        const end = Math.min(list.length, i + ahead);
        for (let k = i + 1; k < end; k++) {
          if (!this.#onSide(list.kind[k] as number, side)) continue;
          const u = list.uuid.subarray(k * 16, k * 16 + 16);
          if (Buffer.compare(u, first) < 0) first = u;
          if (Buffer.compare(u, last) > 0) last = u;
        }
        if (own.prefetch(first, last, this.#ownFields, PREFETCH_SPAN)) break;
      }
    }
    return own.byUuid(uuid);
  }

  /** True when a row of `kind` is read on `side` (display: `to`, or `from` if removed; values: modified rows on both). */
  #onSide(kind: number, side: 'from' | 'to'): boolean {
    if (side === 'to') return kind !== KIND_REMOVED;
    return kind === KIND_REMOVED || (this.#values && kind === KIND_MODIFIED);
  }

  /** The own-family fields display values read (`field`, `orField`, a label of the same family); every field with `values`. */
  get #ownFields(): string[] {
    if (this.#values) return this.#adapter.family.fields.map((f) => f.name);
    const out: string[] = [];
    for (const f of this.#fields) {
      out.push(f.field);
      if (f.orField !== undefined) out.push(f.orField);
      if (f.labelOf?.target === this.#adapter.family.key) out.push(f.labelOf.show);
    }
    return out;
  }

  #valueOf(f: DisplayFieldSpec, record: (field: string) => CellValue, side: 'from' | 'to'): string | null {
    const family = this.#adapter.family;
    const v = record(f.field);
    if (v === null) return f.orField === undefined ? null : cellText(family.field(f.orField)?.kind, record(f.orField));
    if (f.labelOf !== undefined && typeof v === 'string') {
      const target = this.#lookup(f.labelOf.target, side);
      const hit = target === null ? null : target.byUuid(parseUuid(v));
      const label = hit === null ? null : hit(f.labelOf.show);
      if (label !== null) return cellText(undefined, label);
    }
    return cellText(family.field(f.field)?.kind, v);
  }

  close(): void {
    for (const l of this.#lookups.values()) l?.close();
    this.#lookups.clear();
  }
}
