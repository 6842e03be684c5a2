import {
  Bool,
  Field,
  FixedSizeBinary,
  Float64,
  Int32,
  Struct,
  RecordBatch,
  Schema,
  Table,
  TimeUnit,
  Timestamp,
  Type,
  Uint32,
  Utf8,
  makeData,
  makeVector,
} from 'apache-arrow';
import type { Data, DataType, Vector } from 'apache-arrow';
import { compareCodePoints, formatUuid, parseUuid, toHex } from '../canonical';
import { arrowTypeOfKind } from '../contract/result-schemas';
import { COLUMN_KINDS, type ColumnKind } from '../contract/tables';
import { GfError } from '../errors';

/** The column kinds a record family may use (declared with the result tables' kinds in core/contract/tables.ts). */
export { COLUMN_KINDS, type ColumnKind };

/**
 * The JS form of one cell.
 *
 * `uuid` → lowercase RFC text; `digest` → 64 lowercase hex; `utf8` → string;
 * `bool` → boolean; `int32`/`uint32`/`float64` → number; `timestamp_us` →
 * bigint microseconds since the epoch (never a lossy `Date` or milliseconds).
 */
export type CellValue = string | number | boolean | bigint | null;

/** A record as read from or written to a participant: field name → cell. */
export type RecordValues = Readonly<Record<string, CellValue>>;

/** Field metadata key: the closed value set of an enumerated `utf8` column. */
export const ENUM_METADATA_KEY = 'graphforge.contract.enum';
/** Field metadata key: the `utf8` column holds one canonical JSON value per cell. */
export const JSON_METADATA_KEY = 'graphforge.contract.json';

/**
 * Declaration of one column of a record family.
 *
 * `enumValues` and `json` become `graphforge.contract.*` field metadata, so
 * they are part of the schema fingerprint: changing an enum is a schema change.
 */
export interface FieldSpec {
  readonly name: string;
  readonly kind: ColumnKind;
  readonly nullable: boolean;
  /** Closed value set (only for `utf8`). */
  readonly enumValues?: readonly string[];
  /** The cell is canonical JSON text (only for `utf8`); JSON participants embed the parsed value. */
  readonly json?: boolean;
}

/** The Arrow type of a column kind (the contract's one mapping). */
export function arrowTypeOf(kind: ColumnKind): DataType {
  return arrowTypeOfKind(kind);
}

/** The Arrow field of a field spec, with its `graphforge.contract.*` metadata. */
export function arrowFieldOf(spec: FieldSpec): Field {
  const meta = new Map<string, string>();
  if (spec.enumValues !== undefined) meta.set(ENUM_METADATA_KEY, spec.enumValues.join('|'));
  if (spec.json === true) meta.set(JSON_METADATA_KEY, 'canonical');
  return new Field(spec.name, arrowTypeOf(spec.kind), spec.nullable, meta);
}

const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true });

function notReadable(field: string, problem: string): never {
  throw new GfError('GF_VALIDATION', 'participant column does not match its declared kind', {
    rule: 'participant.column_kind',
    field,
    problem,
  });
}

function readChunk(data: Data, spec: FieldSpec, out: CellValue[]): void {
  // Arrow JS slices offsets and fixed-width value buffers with the Data, so
  // they are indexed from 0; only the validity bitmap keeps `data.offset`.
  const n = data.length;
  const hasNulls = data.nullCount > 0;
  if (data.typeId === Type.Dictionary) {
    const dict = data.dictionary;
    if (dict === undefined) notReadable(spec.name, 'dictionary_missing');
    const values: CellValue[] = [];
    for (const d of dict.data) readChunk(d, spec, values);
    const idx = data.values as ArrayLike<number | bigint>;
    for (let j = 0; j < n; j++) {
      if (hasNulls && !isValid(data, j)) {
        out.push(null);
        continue;
      }
      const k = Number(idx[j]);
      if (!(k >= 0 && k < values.length)) notReadable(spec.name, 'dictionary_index');
      out.push(values[k] as CellValue);
    }
    return;
  }
  switch (spec.kind) {
    case 'uuid':
    case 'digest': {
      const width = spec.kind === 'uuid' ? 16 : 32;
      if (data.typeId !== Type.FixedSizeBinary || (data.type as FixedSizeBinary).byteWidth !== width) {
        notReadable(spec.name, 'type');
      }
      const bytes = data.values as Uint8Array;
      for (let j = 0; j < n; j++) {
        if (hasNulls && !isValid(data, j)) {
          out.push(null);
          continue;
        }
        out.push(width === 16 ? uuidText(bytes, j * 16) : toHex(bytes.subarray(j * 32, (j + 1) * 32)));
      }
      return;
    }
    case 'utf8': {
      if (data.typeId !== Type.Utf8 && data.typeId !== Type.LargeUtf8) notReadable(spec.name, 'type');
      const offsets = data.valueOffsets as Int32Array | BigInt64Array;
      const bytes = data.values as Uint8Array;
      for (let j = 0; j < n; j++) {
        if (hasNulls && !isValid(data, j)) {
          out.push(null);
          continue;
        }
        const a = Number(offsets[j]);
        const b = Number(offsets[j + 1]);
        try {
          out.push(UTF8_DECODER.decode(bytes.subarray(a, b)));
        } catch (_e) {
          throw new GfError('GF_CANONICAL_UTF8', 'participant text is not valid UTF-8', {
            field: spec.name,
            row: out.length,
          });
        }
      }
      return;
    }
    case 'timestamp_us': {
      const t = data.type as Timestamp;
      if (data.typeId !== Type.Timestamp || t.unit !== TimeUnit.MICROSECOND) notReadable(spec.name, 'type');
      const values = data.values as BigInt64Array;
      for (let j = 0; j < n; j++) {
        out.push(hasNulls && !isValid(data, j) ? null : (values[j] as bigint));
      }
      return;
    }
    case 'bool':
    case 'int32':
    case 'uint32':
    case 'float64': {
      const expected =
        spec.kind === 'bool'
          ? data.typeId === Type.Bool
          : spec.kind === 'float64'
            ? data.typeId === Type.Float && (data.type as Float64).precision === 2
            : data.typeId === Type.Int &&
              (data.type as Int32).bitWidth === 32 &&
              (data.type as Int32).isSigned === (spec.kind === 'int32');
      if (!expected) notReadable(spec.name, 'type');
      const v = makeVector(data as Data) as Vector;
      for (let j = 0; j < n; j++) {
        out.push(hasNulls && !isValid(data, j) ? null : (v.get(j) as number | boolean));
      }
      return;
    }
  }
}

/**
 * The cells of one Arrow column, in row order, in their JS form.
 *
 * Reads the buffers directly (dictionary columns decoded logically), so
 * microsecond timestamps stay exact and invalid UTF-8 is `GF_CANONICAL_UTF8`
 * instead of silently becoming U+FFFD.
 */
export function readColumn(vector: Vector, spec: FieldSpec): CellValue[] {
  const out: CellValue[] = [];
  for (const d of vector.data) readChunk(d, spec, out);
  return out;
}

function cellError(field: string, row: number, recordFamilyId: string, rule: string): never {
  throw new GfError('GF_VALIDATION', 'record cell does not fit its column', {
    rule,
    record_family_id: recordFamilyId,
    row,
    field,
  });
}

/**
 * Normalizes one JS cell to its column kind, or fails with `GF_VALIDATION`.
 *
 * Accepts UUIDs in either case (stored lowercase), digests in either case,
 * and timestamps as bigint or safe-integer microseconds. Never echoes values.
 */
export function normalizeCell(spec: FieldSpec, value: unknown, row: number, recordFamilyId: string): CellValue {
  if (value === null || value === undefined) {
    if (!spec.nullable) cellError(spec.name, row, recordFamilyId, 'participant.required_field');
    return null;
  }
  switch (spec.kind) {
    case 'uuid':
      if (typeof value !== 'string') return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      if (LOWER_UUID.test(value)) return value;
      try {
        return formatUuid(parseUuid(value));
      } catch (_e) {
        return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      }
    case 'digest':
      if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      return value.toLowerCase();
    case 'utf8':
      // A lone surrogate has no UTF-8 form; it is refused, never replaced by U+FFFD.
      if (typeof value !== 'string' || LONE_SURROGATE.test(value)) {
        return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      }
      return value;
    case 'bool':
      if (typeof value !== 'boolean') return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      return value;
    case 'int32':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
        return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      }
      return value;
    case 'uint32':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      return value;
    case 'float64':
      if (typeof value !== 'number') return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
      return value;
    case 'timestamp_us':
      if (typeof value === 'bigint') {
        if (value < I64_MIN || value > I64_MAX) return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
        return value;
      }
      if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
      return cellError(spec.name, row, recordFamilyId, 'participant.field_type');
  }
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Writes the bytes of normalized lowercase hex text (hyphens skipped) at `at`. */
/**
 * Writes hex text's bytes at `at`: pairs of hex digits, `-` skipped (UUID text and digests alike).
 *
 * Exported so a streamed writer fills fixed-width cells exactly as `buildColumn` does.
 */
export function writeHex(out: Uint8Array, at: number, text: string): void {
  let k = at;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      continue;
    }
    out[k++] = (nibble(text.charCodeAt(i)) << 4) | nibble(text.charCodeAt(i + 1));
    i += 2;
  }
}

function nibble(c: number): number {
  return c <= 0x39 ? c - 0x30 : c - 0x57;
}

const HEX_CODES = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));
const UUID_CODES = new Array<number>(36);

/**
 * Lowercase RFC text of the 16 bytes at `at`.
 *
 * Built with one `String.fromCharCode` call so the result is a flat string:
 * concatenation would yield rope strings that make every later comparison
 * (identity sort, key sets) several times slower.
 */
function uuidText(b: Uint8Array, at: number): string {
  let k = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) UUID_CODES[k++] = 0x2d;
    const v = b[at + i] as number;
    UUID_CODES[k++] = HEX_CODES[v >> 4] as number;
    UUID_CODES[k++] = HEX_CODES[v & 15] as number;
  }
  return String.fromCharCode(...UUID_CODES);
}

/** With the `u` flag a surrogate pair is one code point, so this matches only lone surrogates. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function fill<A extends { [i: number]: number | bigint }>(out: A, values: readonly CellValue[], zero: number | bigint): A {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = (v === null ? zero : v) as number | bigint;
  }
  return out;
}

/** Validity of row `j` of a chunk, read from the bitmap (no bitmap: every row valid). */
function isValid(data: Data, j: number): boolean {
  const bitmap = data.nullBitmap as Uint8Array | undefined;
  if (bitmap === undefined || bitmap.length === 0) return true;
  const k = data.offset + j;
  return ((bitmap[k >> 3] as number) & (1 << (k & 7))) !== 0;
}

function validityOf(values: readonly CellValue[]): { nullCount: number; nullBitmap?: Uint8Array } {
  let nullCount = 0;
  for (const v of values) if (v === null) nullCount++;
  if (nullCount === 0) return { nullCount };
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== null) bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
  }
  return { nullCount, nullBitmap: bitmap };
}

/**
 * One fresh Arrow column from normalized cells.
 *
 * Buffers are a pure function of the cells (one chunk, no dictionary, a
 * validity bitmap only when a null is present), which is what makes
 * participant bytes a function of the logical records alone.
 */
export function buildColumn(spec: FieldSpec, values: readonly CellValue[]): Data {
  const length = values.length;
  const type = arrowTypeOf(spec.kind);
  const { nullCount, nullBitmap } = validityOf(values);
  const common = { length, nullCount, ...(nullBitmap === undefined ? {} : { nullBitmap }) };
  switch (spec.kind) {
    case 'uuid':
    case 'digest': {
      const width = spec.kind === 'uuid' ? 16 : 32;
      const data = new Uint8Array(length * width);
      for (let i = 0; i < length; i++) {
        const v = values[i];
        if (v !== null) writeHex(data, i * width, v as string);
      }
      return makeData({ type: type as FixedSizeBinary, data, ...common });
    }
    case 'utf8': {
      const valueOffsets = new Int32Array(length + 1);
      let total = 0;
      for (let i = 0; i < length; i++) {
        const v = values[i];
        if (v !== null) total += Buffer.byteLength(v as string, 'utf8');
        valueOffsets[i + 1] = total;
      }
      const buf = Buffer.alloc(total);
      for (let i = 0; i < length; i++) {
        const v = values[i];
        if (v !== null) buf.write(v as string, valueOffsets[i] as number, 'utf8');
      }
      const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      return makeData({ type: type as Utf8, data, valueOffsets, ...common });
    }
    case 'bool': {
      const data = new Uint8Array(Math.ceil(length / 8));
      for (let i = 0; i < length; i++) if (values[i] === true) data[i >> 3] = (data[i >> 3] as number) | (1 << (i & 7));
      return makeData({ type: type as Bool, data, ...common });
    }
    case 'int32':
      return makeData({ type: type as Int32, data: fill(new Int32Array(length), values, 0), ...common });
    case 'uint32':
      return makeData({ type: type as Uint32, data: fill(new Uint32Array(length), values, 0), ...common });
    case 'float64':
      return makeData({ type: type as Float64, data: fill(new Float64Array(length), values, 0), ...common });
    case 'timestamp_us':
      return makeData({ type: type as Timestamp, data: fill(new BigInt64Array(length), values, 0n), ...common });
  }
}

const UTF8_CELLS: FieldSpec = { name: 'utf8', kind: 'utf8', nullable: true };

/**
 * A fresh `utf8` column of `values` (a null where the value is null): the
 * bytes `buildColumn` gives a `utf8` field, for tables that are not participants
 * (diff results, display pages) and benchmarks.
 */
export function utf8Column(values: readonly (string | null)[]): Data {
  return buildColumn(UTF8_CELLS, values);
}

function byteWidthOf(kind: ColumnKind): number {
  switch (kind) {
    case 'uuid':
      return 16;
    case 'digest':
      return 32;
    case 'int32':
    case 'uint32':
      return 4;
    case 'float64':
    case 'timestamp_us':
      return 8;
    case 'utf8':
    case 'bool':
      return 0;
  }
}

/**
 * A fresh column holding the rows `order` of `vector`, copied at the byte level.
 *
 * Gives exactly what `buildColumn(spec, order.map(i => readColumn(vector, spec)[i]))`
 * gives, without turning cells into JS values. Returns undefined when the
 * column is not one plain chunk of the declared type (dictionary, several
 * chunks, LargeUtf8), so the caller falls back to the value path.
 */
export function gatherColumn(vector: Vector, spec: FieldSpec, order: readonly number[]): Data | undefined {
  if (vector.data.length !== 1) return undefined;
  const src = vector.data[0] as Data;
  const expected = arrowTypeOf(spec.kind);
  if (src.typeId !== expected.typeId || String(src.type) !== String(expected)) return undefined;
  const n = order.length;
  // Offsets and fixed-width values are sliced with the Data (indexed from 0);
  // boolean value bits and validity keep `src.offset`.
  const base = src.offset;
  const hasNulls = src.nullCount > 0;
  const valid = new Array<boolean>(n);
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    const ok = !hasNulls || isValid(src, order[i] as number);
    valid[i] = ok;
    if (!ok) nullCount++;
  }
  let nullBitmap: Uint8Array | undefined;
  if (nullCount > 0) {
    nullBitmap = new Uint8Array(Math.ceil(n / 8));
    for (let i = 0; i < n; i++) if (valid[i] === true) nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) | (1 << (i & 7));
  }
  const common = { length: n, nullCount, ...(nullBitmap === undefined ? {} : { nullBitmap }) };
  if (spec.kind === 'utf8') {
    const offsets = src.valueOffsets as Int32Array;
    const bytes = src.values as Uint8Array;
    const valueOffsets = new Int32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const r = order[i] as number;
      if (valid[i] === true) total += (offsets[r + 1] as number) - (offsets[r] as number);
      valueOffsets[i + 1] = total;
    }
    const data = new Uint8Array(total);
    for (let i = 0; i < n; i++) {
      if (valid[i] !== true) continue;
      const r = order[i] as number;
      data.set(bytes.subarray(offsets[r] as number, offsets[r + 1] as number), valueOffsets[i] as number);
    }
    return makeData({ type: expected as Utf8, data, valueOffsets, ...common });
  }
  if (spec.kind === 'bool') {
    const bits = src.values as Uint8Array;
    const data = new Uint8Array(Math.ceil(n / 8));
    for (let i = 0; i < n; i++) {
      const k = base + (order[i] as number);
      if (valid[i] === true && ((bits[k >> 3] as number) & (1 << (k & 7))) !== 0) {
        data[i >> 3] = (data[i >> 3] as number) | (1 << (i & 7));
      }
    }
    return makeData({ type: expected as Bool, data, ...common });
  }
  const width = byteWidthOf(spec.kind);
  const values = src.values as ArrayBufferView;
  const from = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const data = new Uint8Array(n * width);
  for (let i = 0; i < n; i++) {
    // Null slots stay zero, as `buildColumn` writes them.
    if (valid[i] !== true) continue;
    const at = (order[i] as number) * width;
    for (let b = 0; b < width; b++) data[i * width + b] = from[at + b] as number;
  }
  switch (spec.kind) {
    case 'uuid':
    case 'digest':
      return makeData({ type: expected as FixedSizeBinary, data, ...common });
    case 'int32':
      return makeData({ type: expected as Int32, data: new Int32Array(data.buffer), ...common });
    case 'uint32':
      return makeData({ type: expected as Uint32, data: new Uint32Array(data.buffer), ...common });
    case 'float64': {
      // Every NaN payload becomes the one NaN a JS assignment writes, as on the value path.
      const f = new Float64Array(data.buffer);
      for (let i = 0; i < n; i++) if (Number.isNaN(f[i])) f[i] = Number.NaN;
      return makeData({ type: expected as Float64, data: f, ...common });
    }
    case 'timestamp_us':
      return makeData({ type: expected as Timestamp, data: new BigInt64Array(data.buffer), ...common });
  }
}

/** Row of the first null in a column, or -1. */
export function firstNullRow(vector: Vector): number {
  let row = 0;
  for (const d of vector.data) {
    if (d.nullCount > 0) for (let j = 0; j < d.length; j++) if (!isValid(d, j)) return row + j;
    row += d.length;
  }
  return -1;
}

/** A one-batch table of `schema` from column data of equal length. */
export function tableOfColumns(schema: Schema, columns: readonly Data[], length: number): Table {
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: [...columns] });
  return new Table([new RecordBatch(schema, struct)]);
}

/**
 * Total order of two cells of the same kind.
 *
 * null first; text by Unicode code point (UTF-8 byte order); UUID and digest
 * text is lowercase hex, so string order is byte order; numbers and bigints
 * numerically; false before true.
 */
export function compareCells(a: CellValue, b: CellValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return a ? 1 : -1;
  throw new Error('invariant violated: compareCells on different kinds');
}
