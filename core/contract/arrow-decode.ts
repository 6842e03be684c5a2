// The one decoder of Arrow results, for the CLI and the renderer alike: IPC
// bytes → rows of JS values, checked against the result table the contract
// declares (core/contract/tables.ts). Column-wise, no row proxies: digests,
// UUIDs and texts are decoded a chunk at a time, which dominated decoding a
// diff page. Browser-safe (apache-arrow only).
import { DataType, tableFromIPC, type FixedSizeBinary, type Table, type Timestamp, type Utf8, type Vector } from 'apache-arrow';
import { HEX_BYTE, fixedBinaryText, hexText, timestampMicros } from './arrow-text';
import { GfError } from './errors';
import { ARROW_OPERATION_SCHEMAS, type ArrowOperation, type Row, type SchemasOf } from './operations';
import { RESULT_SCHEMA_KEY } from './results';
import { RESULT_TABLES, type ArrowSchemaName, type Cell, type CellRow, type ColumnDecl, type ResultColumnKind } from './tables';

export type { Cell, CellRow };
import { microsIso } from './time';

/** A decoded table: column names in order, rows, and the result schema its metadata names. */
export interface DecodedTable<R = CellRow> {
  readonly columns: readonly string[];
  readonly rows: readonly R[];
  readonly schemaName: string | null;
}

/** ASCII codes of the two hex digits of each byte value. */
const HEX_CODES: Uint8Array = (() => {
  const t = new Uint8Array(512);
  for (let i = 0; i < 256; i++) {
    const h = HEX_BYTE[i]!;
    t[2 * i] = h.charCodeAt(0);
    t[2 * i + 1] = h.charCodeAt(1);
  }
  return t;
})();
const DASH = 0x2d;
const ascii = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

/**
 * A fixed-size binary column as text (UUID form for 16 bytes, hex
 * otherwise), written chunk by chunk into one ASCII buffer, decoded once and
 * cut per cell.
 */
function fixedBinaryCells(vec: Vector<FixedSizeBinary>, width: number, out: Cell[]): void {
  const uuid = width === 16;
  const stride = uuid ? 36 : 2 * width;
  let row = 0;
  for (const d of vec.data) {
    // `values` starts at this chunk's first element (as apache-arrow's own `get` reads it).
    const bytes = d.values;
    const buf = new Uint8Array(d.length * stride);
    for (let i = 0; i < d.length; i++) {
      let o = i * stride;
      const b = i * width;
      for (let k = 0; k < width; k++) {
        if (uuid && (k === 4 || k === 6 || k === 8 || k === 10)) buf[o++] = DASH;
        const v = 2 * bytes[b + k]!;
        buf[o++] = HEX_CODES[v]!;
        buf[o++] = HEX_CODES[v + 1]!;
      }
    }
    const text = ascii.decode(buf);
    for (let i = 0; i < d.length; i++) out[row + i] = d.nullCount > 0 && !d.getValid(i) ? null : text.slice(i * stride, (i + 1) * stride);
    row += d.length;
  }
}

/** A timestamp column as exact ISO-8601 microsecond text (read from the raw 64-bit values). */
function timestampCells(vec: Vector<Timestamp>, out: Cell[]): void {
  const unit = vec.type.unit;
  let row = 0;
  for (const d of vec.data) {
    const values = d.values as unknown as BigInt64Array;
    for (let i = 0; i < d.length; i++) out[row + i] = d.nullCount > 0 && !d.getValid(i) ? null : microsIso(timestampMicros(values[i]!, unit));
    row += d.length;
  }
}

/**
 * A UTF-8 column decoded once per chunk and cut per cell, when every chunk is
 * ASCII (one character per byte, so byte offsets are character offsets);
 * false otherwise (the caller decodes cell by cell).
 */
function asciiCells(vec: Vector<Utf8>, out: Cell[]): boolean {
  let row = 0;
  for (const d of vec.data) {
    const offsets = d.valueOffsets;
    const start = Number(offsets[0]);
    const end = Number(offsets[d.length]);
    const text = utf8.decode(d.values.subarray(start, end));
    if (text.length !== end - start) return false;
    for (let i = 0; i < d.length; i++) out[row + i] = d.nullCount > 0 && !d.getValid(i) ? null : text.slice(Number(offsets[i]) - start, Number(offsets[i + 1]) - start);
    row += d.length;
  }
  return true;
}

/** A 64-bit integer as an exact number, or `GF_INTERNAL` (no count or revision comes near 2^53). */
function exactNumber(v: bigint, column: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new GfError('GF_INTERNAL', `the value of ${column} is beyond 2^53 and cannot be shown exactly`, { column });
  }
  return Number(v);
}

/** Any other cell, one at a time. */
function valueCell(type: DataType, v: unknown, column: string): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return exactNumber(v, column);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (DataType.isFixedSizeBinary(type) && v instanceof Uint8Array) return fixedBinaryText(v, type.byteWidth);
  if (v instanceof Uint8Array) return hexText(v);
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  } catch {
    return String(v);
  }
}

/** Decodes a table into rows of cells (column-wise). */
export function decodeTable(table: Table): DecodedTable {
  const fields = table.schema.fields;
  const columns = fields.map((f) => f.name);
  const n = table.numRows;
  const out: Record<string, Cell>[] = Array.from({ length: n }, () => ({}));
  const cells: Cell[] = new Array<Cell>(n);
  fields.forEach((f, i) => {
    const vec = table.getChildAt(i);
    if (vec === null) return;
    if (DataType.isFixedSizeBinary(f.type)) fixedBinaryCells(vec as Vector<FixedSizeBinary>, f.type.byteWidth, cells);
    else if (DataType.isTimestamp(f.type)) timestampCells(vec as Vector<Timestamp>, cells);
    else if (!DataType.isUtf8(f.type) || !asciiCells(vec as Vector<Utf8>, cells)) for (let r = 0; r < n; r++) cells[r] = valueCell(f.type, vec.get(r), f.name);
    for (let r = 0; r < n; r++) out[r]![f.name] = cells[r]!;
  });
  return { columns, rows: out, schemaName: table.schema.metadata.get(RESULT_SCHEMA_KEY) ?? null };
}

/** The result column kind of an Arrow type, or null for a type no declaration uses. */
export function kindOfArrowType(type: DataType): ResultColumnKind | null {
  if (DataType.isFixedSizeBinary(type)) return type.byteWidth === 16 ? 'uuid' : type.byteWidth === 32 ? 'digest' : null;
  if (DataType.isUtf8(type)) return 'utf8';
  if (DataType.isBool(type)) return 'bool';
  if (DataType.isTimestamp(type)) return 'timestamp_us';
  if (DataType.isFloat(type)) return type.precision === 2 ? 'float64' : null;
  if (DataType.isInt(type)) {
    if (type.bitWidth === 32) return type.isSigned ? 'int32' : 'uint32';
    if (type.bitWidth === 64 && !type.isSigned) return 'uint64';
  }
  return null;
}

/** True when the table's fields are exactly the declaration's, in order: names, kinds and nullability. */
function matches(table: Table, declared: readonly ColumnDecl[]): boolean {
  const fields = table.schema.fields;
  return fields.length === declared.length && fields.every((f, i) => f.name === declared[i]!.name && f.nullable === declared[i]!.nullable && kindOfArrowType(f.type) === declared[i]!.kind);
}

/**
 * The result table a table is, among `names`: the one whose declaration its
 * fields match exactly, or `GF_SCHEMA_MISMATCH` (never rows read by the
 * wrong names or types).
 */
export function declaredTableOf(table: Table, names: readonly ArrowSchemaName[], operation: string): ArrowSchemaName {
  const found = names.find((name) => matches(table, RESULT_TABLES[name]));
  if (found === undefined) throw new GfError('GF_SCHEMA_MISMATCH', 'the result does not have the columns the contract declares', { operation });
  return found;
}

/** A decoded operation result: rows typed by the result table the operation declares, and which one it is (null for participant tables). */
export interface DecodedResult<R> extends DecodedTable<R> {
  readonly schema: ArrowSchemaName | null;
}

/**
 * Decodes an operation's Arrow result (IPC bytes) into rows typed by its
 * result table.
 *
 * The fields must be exactly one of the operation's declared tables (or
 * `schema`, when given): names in order, kinds and nullability; anything
 * else is `GF_SCHEMA_MISMATCH`. Participant tables (`view.records`) decode
 * as `CellRow`s of the family's own columns.
 */
export function decodeResult<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(bytes: Uint8Array, op: N, schema?: S): DecodedResult<Row<N, S>> {
  const table = tableFromIPC(bytes);
  const declared: 'records' | readonly ArrowSchemaName[] = schema === undefined ? ARROW_OPERATION_SCHEMAS[op] : [schema];
  const found = declared === 'records' ? null : declaredTableOf(table, declared, op);
  const page = decodeTable(table);
  return { ...page, rows: page.rows as unknown as readonly Row<N, S>[], schema: found };
}
