// The derived store of change lists (cache/diff/changes/): whole lists, first-page
// prefixes and chunked long lists, keyed by both objects' digests.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Field, FixedSizeBinary, Schema, Type, Uint32, Utf8, makeData, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { ChangeList, KIND_ADDED, KIND_REMOVED, changeColumns, oneBatchTable } from './changes-list';
import { canonicalJson, sha256Hex } from '../canonical/index';
import { LAYOUT } from '../project/layout';
import type { DiffAdapter } from './plan-adapters';
import { RECORD_CHANGE_KINDS } from './arrow-schemas';
import type { EndpointParticipant } from './plan-endpoint';

/**
 * A derived store of one family's complete, sorted change list between two
 * participant objects.
 *
 * Keyed by the adapter tuple and both objects' `content_sha256`, so an
 * entry is a pure function of immutable inputs: never authoritative,
 * rebuilt when missing or invalid, and safe to share between endpoints
 * that happen to hold the same objects.
 */
export interface ChangeCache {
  load(key: string): Table | undefined;
  store(key: string, table: Table): void;
  /** A participant object's record index (`record-index.ts`) by `recordIndexKey`, unchecked bytes (the reader checks them); optional. */
  loadIndex?(key: string): Uint8Array | undefined;
  /** Stores a record index (failures ignored). */
  storeIndex?(key: string, bytes: Uint8Array): void;
  /** False when a stored index could not be kept (a read-only workspace): no index is built then. */
  canStoreIndex?(): boolean;
  /** A participant object's record-set fingerprint entry (`page-record-set.ts`) by `recordSetKey`, unchecked bytes (the reader checks them); optional. */
  loadRecordSet?(key: string): Uint8Array | undefined;
  /** Stores a record-set fingerprint entry (failures ignored). */
  storeRecordSet?(key: string, bytes: Uint8Array): void;
}

/** Format version of cached change lists (part of every key). */
export const CHANGE_CACHE_FORMAT = 'graphforge-diff-changes/2';

/** Format of a cached change-list prefix: the first changes of a family, in contract order, as one streamed page found them. */
export const CHANGE_PREFIX_CACHE_FORMAT = 'graphforge-diff-changes-prefix/2';

/**
 * The cache key of a family's changes between two participants (either may
 * be absent): the whole list, or (`prefix`) a list of its first changes.
 */
export function changeCacheKey(adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, prefix = false): string {
  return sha256Hex(
    new TextEncoder().encode(
      canonicalJson({
        format: prefix ? CHANGE_PREFIX_CACHE_FORMAT : CHANGE_CACHE_FORMAT,
        adapter: [adapter.capabilityId, adapter.capabilityVersion, adapter.recordFamilyId, adapter.recordVersion, adapter.encoding, adapter.schemaFingerprint],
        from: from?.contentSha256 ?? null,
        to: to?.contentSha256 ?? null,
      }),
    ),
  );
}

/** The cache key of a derived entry of one participant object under one adapter (a record index, a record-set fingerprint): `format` names the entry's kind and version. */
export function objectCacheKey(format: string, adapter: DiffAdapter, contentSha256: string): string {
  return sha256Hex(
    new TextEncoder().encode(
      canonicalJson({
        format,
        adapter: [adapter.capabilityId, adapter.capabilityVersion, adapter.recordFamilyId, adapter.recordVersion, adapter.encoding, adapter.schemaFingerprint],
        object: contentSha256,
      }),
    ),
  );
}

const CHANGES_SCHEMA = new Schema([
  new Field('record_uuid', new FixedSizeBinary(16), true),
  new Field('record_identity_fingerprint', new FixedSizeBinary(32), false),
  new Field('change_kind', new Utf8(), false),
  new Field('from_record_fingerprint', new FixedSizeBinary(32), true),
  new Field('to_record_fingerprint', new FixedSizeBinary(32), true),
  // Bit k: schema field k changed (modified rows; 0 otherwise). Format /2.
  new Field('changed_field_mask', new Uint32(), false),
]);

/**
 * One family's sorted changes as a compact Arrow table (identities and
 * fingerprints only): the whole list, or (a chunk) its rows `[start, end)`
 * with the whole list's row count in the schema metadata.
 */
export function changesTable(list: ChangeList, start = 0, end = list.length, total?: number, counts?: readonly (readonly number[])[]): Table {
  const { length, children } = changeColumns([{ list, start, end }]);
  // Drop scope and record_family_id (the key names the family): record_uuid … to_record_fingerprint.
  const mask = makeData({ type: new Uint32(), length, data: list.fieldMask.slice(start, end), nullCount: 0 });
  const meta = new Map([[TOTAL_ROWS_KEY, String(total)]]);
  if (counts !== undefined) meta.set(CHUNK_COUNTS_KEY, JSON.stringify(counts));
  const schema = total === undefined ? CHANGES_SCHEMA : new Schema(CHANGES_SCHEMA.fields, meta);
  return oneBatchTable(schema, [...children.slice(2), mask], length);
}

/** Format of a stored chunk of a whole change list (part of every chunk key). */
export const CHANGE_CHUNK_CACHE_FORMAT = 'graphforge-diff-changes-chunk/2';

/** Schema-metadata key of a chunk: the row count of the whole list it is cut from. */
const TOTAL_ROWS_KEY = 'graphforge.diff.total_rows';

/**
 * Schema-metadata key of chunk 0: the counts of every chunk (`chunkCounts`),
 * so a page filtered by change kind or changed field finds the chunks
 * holding its rows without reading the others.
 */
const CHUNK_COUNTS_KEY = 'graphforge.diff.chunk_counts';

/**
 * The counts of rows `[start, end)` of `list`: by change kind code (added,
 * modified, removed), then for each of the family's `fields` schema fields
 * the modified rows whose change includes it.
 */
export function chunkCounts(list: ChangeList, fields: number, start: number, end: number): number[] {
  const out = new Array<number>(3 + fields).fill(0);
  for (let i = start; i < end; i++) {
    const k = list.kind[i] as number;
    out[k] = (out[k] as number) + 1;
    let m = list.fieldMask[i] as number;
    for (let f = 0; m !== 0 && f < fields; f++, m >>>= 1) if ((m & 1) === 1) out[3 + f] = (out[3 + f] as number) + 1;
  }
  return out;
}

/** The cache key of chunk `chunk` (rows `[chunk × rows, (chunk + 1) × rows)`) of a family's whole change list. */
export function changeChunkKey(adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, rows: number, chunk: number): string {
  return sha256Hex(
    new TextEncoder().encode(
      canonicalJson({
        format: CHANGE_CHUNK_CACHE_FORMAT,
        adapter: [adapter.capabilityId, adapter.capabilityVersion, adapter.recordFamilyId, adapter.recordVersion, adapter.encoding, adapter.schemaFingerprint],
        from: from?.contentSha256 ?? null,
        to: to?.contentSha256 ?? null,
        rows,
        chunk,
      }),
    ),
  );
}

/**
 * Stores a family's whole change list: under `key` when it has at most
 * `chunkRows` rows, else only in chunks of `chunkRows` rows (written once,
 * not also whole), so a jump reads the chunks holding its page
 * (`loadListWindow`) and a whole read joins them (`loadWholeList`).
 */
export function storeWholeList(cache: ChangeCache, adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, key: string, list: ChangeList, chunkRows: number): void {
  if (list.length <= chunkRows) {
    cache.store(key, changesTable(list));
    return;
  }
  const fields = adapter.family.fields.length;
  const counts: number[][] = [];
  for (let c = 0; c * chunkRows < list.length; c++) counts.push(chunkCounts(list, fields, c * chunkRows, Math.min(list.length, (c + 1) * chunkRows)));
  for (let c = 0; c * chunkRows < list.length; c++) {
    const end = Math.min(list.length, (c + 1) * chunkRows);
    cache.store(changeChunkKey(adapter, from, to, chunkRows, c), changesTable(list, c * chunkRows, end, list.length, c === 0 ? counts : undefined));
  }
}

/**
 * A family's stored whole change list: the entry under `key` (a short
 * list), else its stored chunks joined; undefined when neither is stored
 * whole and consistent (a missing, damaged or foreign chunk).
 */
export function loadWholeList(cache: ChangeCache, adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, key: string, chunkRows: number): ChangeList | undefined {
  const t = cache.load(key);
  if (t !== undefined) return changeListFromTable(t, adapter);
  const first = loadChunk(cache, adapter, from, to, chunkRows, 0);
  if (first === undefined) return undefined;
  const list = first.list;
  for (let c = 1; c * chunkRows < first.total; c++) {
    const next = loadChunk(cache, adapter, from, to, chunkRows, c);
    if (next === undefined || next.total !== first.total) return undefined;
    list.appendAll(next.list);
  }
  return list.length === first.total ? list : undefined;
}

/** One stored chunk of a whole change list, the list's row count, and (chunk 0) the counts of every chunk. */
export interface StoredChunk {
  readonly list: ChangeList;
  readonly total: number;
  /** Chunk 0 only, when stored and consistent: `chunkCounts` of every chunk, in order. */
  readonly counts?: readonly (readonly number[])[];
}

/**
 * Chunk `c` of a family's whole change list, verified like any entry;
 * undefined when missing, damaged or inconsistent. Chunk 0's per-chunk
 * counts are kept only when their shape fits the list (one entry per
 * chunk, kind counts summing to the chunk's rows, field counts within its
 * modified rows) and its own entry equals the counts of its rows.
 */
export function loadChunk(cache: ChangeCache, adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, chunkRows: number, c: number): StoredChunk | undefined {
  const t = cache.load(changeChunkKey(adapter, from, to, chunkRows, c));
  const total = Number(t?.schema.metadata.get(TOTAL_ROWS_KEY) ?? Number.NaN);
  if (t === undefined || !Number.isSafeInteger(total) || total <= chunkRows) return undefined;
  const list = changeListFromTable(t, adapter);
  if (list === undefined || list.length !== Math.min(chunkRows, total - c * chunkRows)) return undefined;
  if (c !== 0) return { list, total };
  const counts = chunkCountsOf(t.schema.metadata.get(CHUNK_COUNTS_KEY), adapter.family.fields.length, chunkRows, total);
  const own = counts?.[0];
  return own !== undefined && chunkCounts(list, adapter.family.fields.length, 0, list.length).every((v, k) => own[k] === v) ? { list, total, counts } : { list, total };
}

function chunkCountsOf(text: string | undefined, fields: number, chunkRows: number, total: number): number[][] | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const chunks = Math.ceil(total / chunkRows);
  if (!Array.isArray(v) || v.length !== chunks) return undefined;
  for (let c = 0; c < chunks; c++) {
    const e: unknown = v[c];
    if (!Array.isArray(e) || e.length !== 3 + fields || !e.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return undefined;
    const n = e as number[];
    if ((n[0] as number) + (n[1] as number) + (n[2] as number) !== Math.min(chunkRows, total - c * chunkRows)) return undefined;
    if (n.slice(3).some((x) => x > (n[1] as number))) return undefined;
  }
  return v as number[][];
}

/** Rows `[start, start + count)` of a whole change list read from its stored chunks, and the list's row count. */
export interface ListWindow {
  readonly total: number;
  readonly ranges: readonly { readonly list: ChangeList; readonly start: number; readonly end: number }[];
}

/**
 * The rows `[start, start + count)` of a family's whole change list, read
 * from its stored chunks only (each verified like any entry), with the
 * whole list's row count; undefined when a chunk it needs is missing,
 * damaged or inconsistent (the caller then reads the whole list).
 */
export function loadListWindow(cache: ChangeCache, adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined, chunkRows: number, start: number, count: number): ListWindow | undefined {
  const chunk = (c: number): StoredChunk | undefined => loadChunk(cache, adapter, from, to, chunkRows, c);
  const c0 = Math.floor(start / chunkRows);
  const first = chunk(c0);
  if (first === undefined) {
    // No chunk there: past the end of the list (chunk 0 says how long it is), or a miss.
    const head = c0 > 0 ? chunk(0) : undefined;
    return head !== undefined && start >= head.total ? { total: head.total, ranges: [] } : undefined;
  }
  const total = first.total;
  const end = Math.min(total, start + count);
  const ranges: { list: ChangeList; start: number; end: number }[] = [];
  for (let c = c0; c * chunkRows < end; c++) {
    const got = c === c0 ? first : chunk(c);
    if (got === undefined || got.total !== total) return undefined;
    ranges.push({ list: got.list, start: Math.max(start, c * chunkRows) - c * chunkRows, end: Math.min(end, (c + 1) * chunkRows) - c * chunkRows });
  }
  return { total, ranges };
}

function fixedValues(d: Data, width: number, rows: number): Uint8Array | undefined {
  if (d.typeId !== Type.FixedSizeBinary || (d.type as FixedSizeBinary).byteWidth !== width || d.offset !== 0) return undefined;
  const v = d.values as Uint8Array;
  return v.length >= rows * width ? v.subarray(0, rows * width) : undefined;
}

/**
 * The change list of a cached table, or undefined when the entry is not a
 * well-formed change list of this family (then it is a miss and rebuilt).
 *
 * Zero-copy over the table's buffers; checks kinds, fingerprint presence
 * against kinds, record UUID presence against the family, and strict
 * contract order.
 */
export function changeListFromTable(table: Table, adapter: DiffAdapter): ChangeList | undefined {
  const hasUuid = adapter.recordUuidField !== null;
  const list = new ChangeList(adapter.scope, adapter.recordFamilyId, hasUuid, 0);
  const n = table.numRows;
  if (n === 0) return list;
  if (table.batches.length !== 1) return undefined;
  const cols = table.batches[0]!.data.children as Data[];
  if (cols.length !== 6) return undefined;
  const [uuidCol, idCol, kindCol, fromCol, toCol, maskCol] = cols as [Data, Data, Data, Data, Data, Data];
  if (maskCol.typeId !== Type.Int || (maskCol.type as Uint32).bitWidth !== 32 || (maskCol.type as Uint32).isSigned || maskCol.offset !== 0 || maskCol.nullCount !== 0) return undefined;
  const masks = (maskCol.values as Uint32Array).subarray(0, n);
  if (masks.length !== n) return undefined;
  const id = fixedValues(idCol, 32, n);
  const from = fixedValues(fromCol, 32, n);
  const to = fixedValues(toCol, 32, n);
  const uuid = hasUuid ? fixedValues(uuidCol, 16, n) : new Uint8Array(0);
  if (id === undefined || from === undefined || to === undefined || uuid === undefined || kindCol.typeId !== Type.Utf8 || kindCol.offset !== 0) return undefined;
  if (idCol.nullCount !== 0 || (hasUuid ? uuidCol.nullCount !== 0 : uuidCol.nullCount !== n)) return undefined;
  const kinds = new Uint8Array(n);
  const o = kindCol.valueOffsets as Int32Array;
  const text = kindCol.values as Uint8Array;
  const fromValid = validBits(fromCol);
  const toValid = validBits(toCol);
  for (let i = 0; i < n; i++) {
    const k = kindCode(text, o[i] as number, o[i + 1] as number);
    if (k < 0) return undefined;
    if (fromValid(i) !== (k !== KIND_ADDED) || toValid(i) !== (k !== KIND_REMOVED)) return undefined;
    kinds[i] = k;
  }
  list.uuid = uuid;
  list.identity = id;
  list.kind = kinds;
  list.fromFp = from;
  list.toFp = to;
  list.fieldMask = masks;
  list.length = n;
  if (!adapterSorted(list, adapter)) return undefined;
  return list;
}

/** The `change_kind` code of the UTF-8 bytes `text[s, e)`, or -1. */
function kindCode(text: Uint8Array, s: number, e: number): number {
  for (let k = 0; k < KIND_TEXT.length; k++) {
    const want = KIND_TEXT[k] as Uint8Array;
    if (want.length !== e - s) continue;
    let same = true;
    for (let q = 0; q < want.length && same; q++) same = text[s + q] === want[q];
    if (same) return k;
  }
  return -1;
}

const KIND_TEXT = RECORD_CHANGE_KINDS.map((k) => new TextEncoder().encode(k));

/** Row validity of a chunk read from its bitmap (all valid without one). */
function validBits(d: Data): (i: number) => boolean {
  const bm = d.nullCount > 0 ? d.nullBitmap : undefined;
  if (bm === undefined || bm.length === 0) return () => true;
  const o = d.offset;
  return (i) => (((bm[(o + i) >> 3] as number) >> ((o + i) & 7)) & 1) === 1;
}

function cmpAt(x: Uint8Array, i: number, j: number, w: number): number {
  for (let k = 0; k < w; k++) {
    const d = (x[i * w + k] as number) - (x[j * w + k] as number);
    if (d !== 0) return d;
  }
  return 0;
}

function adapterSorted(list: ChangeList, adapter: DiffAdapter): boolean {
  const byUuid = adapter.recordUuidField !== null;
  for (let i = 1; i < list.length; i++) {
    const c = byUuid ? cmpAt(list.uuid, i - 1, i, 16) : cmpAt(list.identity, i - 1, i, 32) || (list.kind[i - 1] as number) - (list.kind[i] as number);
    if (c >= 0) return false;
  }
  return true;
}

/** Project-relative directory of cached change lists. */
export const CHANGE_CACHE_DIR = LAYOUT.diffChanges.split('/');

/** Project-relative directory of record indexes of participant objects. */
export const INDEX_CACHE_DIR = LAYOUT.indexCache.split('/');

/** Where record-set fingerprints of participant objects live (`<key>.fp`). */
export const RECORD_SET_CACHE_DIR = LAYOUT.recordSetCache.split('/');

function accessible(p: string, mode: number): boolean {
  try {
    fs.accessSync(p, mode);
    return true;
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory();
}

/**
 * Change lists cached under the project's `cache/diff/changes/`.
 *
 * Each entry is `<key>.arrow` plus `<key>.sha256` (SHA-256 of the Arrow
 * bytes); names are machine-made hex only. Record indexes of participant
 * objects live beside them in `cache/index/<key>.idx` (self-checking: a
 * trailer digest and per-top digests, `record-index.ts`). A missing, unreadable, linked
 * or checksum-mismatched entry is a miss and is rebuilt; a failed write
 * is ignored (the cache is an optimisation, never required).
 */
export class DiskChangeCache implements ChangeCache {
  readonly #root: string;
  readonly #dir: string;

  constructor(projectRoot: string) {
    this.#root = projectRoot;
    this.#dir = path.join(projectRoot, ...CHANGE_CACHE_DIR);
  }

  #files(key: string): { readonly data: string; readonly sum: string } {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('invariant violated: cache keys are 64 hex');
    return { data: path.join(this.#dir, `${key}.arrow`), sum: path.join(this.#dir, `${key}.sha256`) };
  }

  #read(file: string): Buffer | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return undefined;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > 1 << 30) return undefined;
      const buf = Buffer.alloc(st.size);
      return fs.readSync(fd, buf, 0, st.size, 0) === st.size ? buf : undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  load(key: string): Table | undefined {
    const f = this.#files(key);
    const sum = this.#read(f.sum);
    const data = sum === undefined ? undefined : this.#read(f.data);
    if (sum === undefined || data === undefined || sum.toString('utf8') !== `${sha256Hex(data)}\n`) return undefined;
    try {
      const t = tableFromIPC(data);
      return t.schema.fields.length === CHANGES_SCHEMA.fields.length && t.batches.length <= 1 ? t : undefined;
    } catch {
      return undefined;
    }
  }

  loadIndex(key: string): Uint8Array | undefined {
    return this.#loadFile(INDEX_CACHE_DIR, key, 'idx');
  }

  storeIndex(key: string, bytes: Uint8Array): void {
    this.#storeFile(INDEX_CACHE_DIR, key, 'idx', bytes);
  }

  loadRecordSet(key: string): Uint8Array | undefined {
    return this.#loadFile(RECORD_SET_CACHE_DIR, key, 'fp');
  }

  storeRecordSet(key: string, bytes: Uint8Array): void {
    this.#storeFile(RECORD_SET_CACHE_DIR, key, 'fp', bytes);
  }

  #loadFile(dir: readonly string[], key: string, ext: string): Uint8Array | undefined {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('invariant violated: cache keys are 64 hex');
    const b = this.#read(path.join(this.#root, ...dir, `${key}.${ext}`));
    return b === undefined ? undefined : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }

  #storeFile(dir: readonly string[], key: string, ext: string, bytes: Uint8Array): void {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('invariant violated: cache keys are 64 hex');
    try {
      if (!this.#mkdirs(dir)) return;
      const file = path.join(this.#root, ...dir, `${key}.${ext}`);
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, bytes, { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    } catch {
      // A cache write failure never fails the diff.
    }
  }

  #indexWritable: boolean | undefined;

  canStoreIndex(): boolean {
    if (this.#indexWritable === undefined) {
      try {
        this.#indexWritable = this.#mkdirs(INDEX_CACHE_DIR) && accessible(path.join(this.#root, ...INDEX_CACHE_DIR), fs.constants.W_OK | fs.constants.X_OK);
      } catch {
        this.#indexWritable = false;
      }
    }
    return this.#indexWritable;
  }

  #mkdirs(parts: readonly string[]): boolean {
    for (let k = 1; k <= parts.length; k++) {
      const d = path.join(this.#root, ...parts.slice(0, k));
      if (!isDir(d)) fs.mkdirSync(d, { mode: 0o700 });
      if (!isDir(d)) return false;
    }
    return true;
  }

  store(key: string, table: Table): void {
    const f = this.#files(key);
    try {
      if (!this.#mkdirs(CHANGE_CACHE_DIR)) return;
      const bytes = tableToIPC(table, 'file');
      const tag = randomBytes(6).toString('hex');
      const put = (file: string, content: Uint8Array | string): void => {
        const tmp = `${file}.${tag}.tmp`;
        fs.writeFileSync(tmp, content, { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file);
      };
      put(f.data, bytes);
      put(f.sum, `${sha256Hex(bytes)}\n`);
    } catch {
      // A cache write failure never fails the diff.
    }
  }
}
