// Arrow IPC pages → display rows typed by the contract's result schemas. The
// renderer never holds more than the pages it has fetched; each page is
// decoded once into strings.
import { DataType, tableFromIPC, type FixedSizeBinary, type Table, type Timestamp, type Utf8, type Vector } from 'apache-arrow';
import { HEX_BYTE, fixedBinaryText, hexText, timestampMicros } from '../core/contract/arrow-text';
import { ARROW_OPERATION_SCHEMAS, type ArrowOperation, type Row, type SchemasOf } from '../core/contract/operations';
import { ARROW_RESULT_SCHEMAS, RESULT_SCHEMA_KEY, type ArrowSchemaName, type RecordRow } from '../core/contract/results';
import { microsIso } from '../core/contract/time';
import { GfError } from '../core/contract/errors';

/** One decoded row of a participant table: column name → display text (null stays null). */
export type DisplayRow = RecordRow;

/** A decoded Arrow page: column names, rows and the result schema name. */
export interface DecodedPage<R = DisplayRow> {
  readonly columns: readonly string[];
  readonly rows: readonly R[];
  readonly schemaName: string | null;
}

const hex = hexText;

/** A timestamp column as exact ISO-8601 microsecond text (read from the raw 64-bit values). */
function timestampTexts(vec: Vector<Timestamp>, n: number): (string | null)[] {
  const out: (string | null)[] = new Array<string | null>(n);
  const unit = vec.type.unit;
  let row = 0;
  for (const d of vec.data) {
    const values = d.values as unknown as BigInt64Array;
    for (let i = 0; i < d.length; i++) out[row + i] = d.nullCount > 0 && !d.getValid(i) ? null : microsIso(timestampMicros(values[i]!, unit));
    row += d.length;
  }
  return out;
}

function cellText(type: DataType, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (DataType.isFixedSizeBinary(type) && v instanceof Uint8Array) return fixedBinaryText(v, type.byteWidth);
  if (v instanceof Uint8Array) return hex(v);
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
    } catch {
      return String(v);
    }
  }
  return String(v);
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

/**
 * A fixed-size binary column as display text (UUID form for 16 bytes, hex
 * otherwise), written chunk by chunk into one ASCII buffer, decoded once and
 * cut per cell: digests and UUIDs are most of a diff page, and per-cell string
 * building dominated its decoding.
 */
function fixedBinaryTexts(vec: Vector<FixedSizeBinary>, width: number, n: number): (string | null)[] {
  const out: (string | null)[] = new Array<string | null>(n);
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
  return out;
}

/**
 * A UTF-8 column decoded once per chunk and cut per cell, when every chunk is
 * ASCII (one character per byte, so byte offsets are character offsets);
 * null otherwise (the caller decodes cell by cell).
 */
function utf8Texts(vec: Vector<Utf8>, n: number): (string | null)[] | null {
  const out: (string | null)[] = new Array<string | null>(n);
  let row = 0;
  for (const d of vec.data) {
    const offsets = d.valueOffsets;
    const start = Number(offsets[0]);
    const end = Number(offsets[d.length]);
    const text = utf8.decode(d.values.subarray(start, end));
    if (text.length !== end - start) return null;
    for (let i = 0; i < d.length; i++) out[row + i] = d.nullCount > 0 && !d.getValid(i) ? null : text.slice(Number(offsets[i]) - start, Number(offsets[i + 1]) - start);
    row += d.length;
  }
  return out;
}
const utf8 = new TextDecoder('utf-8');

/** Decodes a table into display rows (column-wise, no row proxies). */
export function tableRows(table: Table): DecodedPage {
  const fields = table.schema.fields;
  const columns = fields.map((f) => f.name);
  const n = table.numRows;
  const out: Record<string, string | null>[] = Array.from({ length: n }, () => ({}));
  fields.forEach((f, i) => {
    const vec = table.getChildAt(i);
    if (vec === null) return;
    if (DataType.isFixedSizeBinary(f.type)) {
      const texts = fixedBinaryTexts(vec as Vector<FixedSizeBinary>, f.type.byteWidth, n);
      for (let r = 0; r < n; r++) out[r]![f.name] = texts[r]!;
      return;
    }
    if (DataType.isTimestamp(f.type)) {
      const texts = timestampTexts(vec as Vector<Timestamp>, n);
      for (let r = 0; r < n; r++) out[r]![f.name] = texts[r]!;
      return;
    }
    if (DataType.isUtf8(f.type)) {
      const texts = utf8Texts(vec as Vector<Utf8>, n);
      if (texts !== null) {
        for (let r = 0; r < n; r++) out[r]![f.name] = texts[r]!;
        return;
      }
    }
    for (let r = 0; r < n; r++) out[r]![f.name] = cellText(f.type, vec.get(r));
  });
  return { columns, rows: out, schemaName: table.schema.metadata.get(RESULT_SCHEMA_KEY) ?? null };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i]);

/**
 * Decodes an operation's Arrow result into rows typed by its result schema.
 *
 * The columns must be exactly one of the operation's declared schemas (in
 * order); anything else is `GF_SCHEMA_MISMATCH`, never rows read by the
 * wrong names. Participant tables (`view.records`) decode as `RecordRow`s.
 */
export function decodeArrow<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(bytes: Uint8Array, op: N, schema?: S): DecodedPage<Row<N, S>> {
  const page = tableRows(tableFromIPC(bytes));
  const declared: 'records' | readonly ArrowSchemaName[] = schema === undefined ? ARROW_OPERATION_SCHEMAS[op] : [schema];
  if (declared !== 'records' && !declared.some((name) => sameList(ARROW_RESULT_SCHEMAS[name], page.columns))) {
    throw new GfError('GF_SCHEMA_MISMATCH', 'the result does not have the columns the contract declares', { operation: op });
  }
  return page as DecodedPage<Row<N, S>>;
}
