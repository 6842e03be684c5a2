import { Message, RecordBatch, Struct, Table, Type, makeData } from 'apache-arrow';
import type { Data, DataType, Field, Schema } from 'apache-arrow';
import { decodeFileFooter } from './arrow-internals';
import { schemaFingerprint } from './arrow-schema';

const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"

/** Ranged reads of one verified Arrow IPC file (a stored participant object). */
export interface ArrowFileSource {
  readonly byteLength: number;
  /** A copy (or view) of bytes `[offset, offset + length)`, read into `into` when the source can; a read outside the file throws. */
  read(offset: number, length: number, into?: Uint8Array): Uint8Array;
}

export interface Region {
  readonly offset: number;
  readonly length: number;
}

/** Where one column's buffers sit in the file (absolute offsets). */
/** Where one column's buffers lie in the file (see `singleBatchLayout`). */
export interface ColumnPlace {
  readonly field: Field;
  readonly nullCount: number;
  readonly validity: Region | null;
  readonly offsets: Region | null;
  readonly values: Region;
  /** Byte width of a fixed-width value; 0 for UTF-8; -1 for bit-packed booleans. */
  readonly width: number;
}

function widthOf(t: DataType): number | undefined {
  switch (t.typeId) {
    case Type.FixedSizeBinary:
      return (t as unknown as { byteWidth: number }).byteWidth;
    case Type.Int:
      return (t as unknown as { bitWidth: number }).bitWidth === 32 ? 4 : undefined;
    case Type.Float:
      return (t as unknown as { precision: number }).precision === 2 ? 8 : undefined;
    case Type.Timestamp:
      return 8;
    case Type.Utf8:
      return 0;
    case Type.Bool:
      return -1;
    default:
      return undefined;
  }
}

function u32le(b: Uint8Array, at: number): number {
  return ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0;
}

/** Bits `[from, from + n)` of `bits` as a new bitmap starting at bit 0, and how many are set. */
function shiftedBits(bits: Uint8Array, from: number, n: number): { readonly bytes: Uint8Array; readonly set: number } {
  const out = new Uint8Array((n + 7) >> 3);
  let set = 0;
  for (let i = 0; i < n; i++) {
    const k = from + i;
    if (((bits[k >> 3] as number) & (1 << (k & 7))) !== 0) {
      out[i >> 3] = (out[i >> 3] as number) | (1 << (i & 7));
      set++;
    }
  }
  return { bytes: out, set };
}

/** Bytes `[offset, offset + length)` of `source` in a fresh buffer (read straight into it when the source reads from a file). */
function freshRead(source: ArrowFileSource, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const got = source.read(offset, length, out);
  if (got.buffer !== out.buffer || got.byteOffset !== 0) out.set(got);
  return out;
}

/** `makeData` for a column whose type is only known at run time. */
function columnData(props: { type: DataType; length: number; data: Uint8Array; valueOffsets?: Int32Array; nullBitmap?: Uint8Array; nullCount: number }): Data {
  return makeData(props as unknown as Parameters<typeof makeData>[0]);
}

/**
 * A plain stored Arrow participant read by row ranges straight from its file.
 *
 * Why: validating a participant of millions of records must not hold it
 * whole; only the footer, the batch metadata and the buffer ranges of the
 * rows asked for are read, so memory follows the window. The row count and
 * per-column null counts come from the batch metadata.
 *
 * Only the layout the engine writes is opened: one record batch, no
 * dictionaries, no compression, the expected schema (canonical
 * fingerprint), flat columns of the registered kinds. Anything else is
 * `null` from `open` and the caller decodes the whole object, which reports
 * malformed bytes as before. A slice is a `Table` with the same schema and
 * cells as the decoded table's rows (property-tested).
 */
export class ArrowFileRows {
  readonly numRows: number;
  readonly schema: Schema;
  readonly #source: ArrowFileSource;
  readonly #columns: readonly ColumnPlace[];

  private constructor(source: ArrowFileSource, schema: Schema, rows: number, columns: readonly ColumnPlace[]) {
    this.#source = source;
    this.schema = schema;
    this.numRows = rows;
    this.#columns = columns;
  }

  /** Opens the plain layout of a file whose schema has `fingerprint`, or null for anything else (including malformed bytes). */
  static open(source: ArrowFileSource, fingerprint: string): ArrowFileRows | null {
    try {
      return ArrowFileRows.#open(source, fingerprint);
    } catch {
      return null;
    }
  }

  static #open(source: ArrowFileSource, fingerprint: string): ArrowFileRows | null {
    const layout = singleBatchLayout(source, fingerprint);
    return layout === null ? null : new ArrowFileRows(source, layout.schema, layout.rows, layout.columns);
  }

  /** The column's null count over the whole file (from the batch metadata), or null for an unknown column. */
  getChild(name: string): { readonly nullCount: number } | null {
    const c = this.#columns.find((x) => x.field.name === name);
    return c === undefined ? null : { nullCount: c.nullCount };
  }

  /** One column's rows `[begin, end)` as fresh Arrow data (offset 0). */
  column(name: string, begin: number, end: number): Data {
    const c = this.#columns.find((x) => x.field.name === name);
    if (c === undefined) throw new Error(`invariant violated: no column ${name}`);
    return this.#column(c, begin, end);
  }

  /**
   * The value bytes of a fixed-width column's rows `[begin, end)`, read into the front of `into` (null bitmaps are not read).
   *
   * Why: a key lookup reads one small block of keys many thousand times; no
   * Arrow data and no fresh buffer per read.
   */
  fixedValues(name: string, begin: number, end: number, into: Uint8Array): Uint8Array {
    const c = this.#columns.find((x) => x.field.name === name);
    if (c === undefined || c.width <= 0) throw new Error(`invariant violated: no fixed-width column ${name}`);
    const length = (end - begin) * c.width;
    if (begin < 0 || end > this.numRows || length < 0 || length > into.length) throw new RangeError('rows outside the file or the buffer');
    const got = this.#source.read(c.values.offset + begin * c.width, length, into);
    if (got.buffer !== into.buffer || got.byteOffset !== into.byteOffset) into.set(got);
    return into.subarray(0, length);
  }

  /** Rows `[begin, end)` (clamped to the file) as a table with the file's schema. */
  slice(begin = 0, end = this.numRows): Table {
    const r0 = Math.max(0, Math.min(begin, this.numRows));
    const r1 = Math.max(r0, Math.min(end, this.numRows));
    const children = this.#columns.map((c) => this.#column(c, r0, r1));
    const data = makeData({ type: new Struct(this.schema.fields), length: r1 - r0, nullCount: 0, children });
    return new Table([new RecordBatch(this.schema, data)]);
  }

  #column(c: ColumnPlace, r0: number, r1: number): Data {
    const { n, firstByte, bitBytes } = bitWindow(r0, r1);
    const type = c.field.type;
    let nulls: { nullBitmap: Uint8Array; nullCount: number } | { nullCount: 0 } = { nullCount: 0 };
    if (c.validity !== null && n > 0) {
      const shifted = shiftedBits(this.#source.read(c.validity.offset + firstByte, bitBytes), r0 & 7, n);
      if (shifted.set < n) nulls = { nullBitmap: shifted.bytes, nullCount: n - shifted.set };
    }
    if (c.width > 0) {
      // A fresh buffer: 8-byte aligned for the typed arrays Arrow views it through.
      const data = freshRead(this.#source, c.values.offset + r0 * c.width, n * c.width);
      return columnData({ type, length: n, data, ...nulls });
    }
    if (c.width < 0) {
      const data = n === 0 ? new Uint8Array(0) : shiftedBits(this.#source.read(c.values.offset + firstByte, bitBytes), r0 & 7, n).bytes;
      return columnData({ type, length: n, data, ...nulls });
    }
    const place = c.offsets as Region;
    const raw = freshRead(this.#source, place.offset + 4 * r0, 4 * (n + 1));
    const valueOffsets = new Int32Array(raw.buffer, 0, n + 1);
    const base = valueOffsets[0] as number;
    const end = valueOffsets[n] as number;
    if (base < 0 || end < base || end > c.values.length) throw new RangeError('value offsets outside the column');
    let prev = 0;
    for (let k = 0; k <= n; k++) {
      const v = (valueOffsets[k] as number) - base;
      if (v < prev) throw new RangeError('value offsets out of order');
      valueOffsets[k] = v;
      prev = v;
    }
    const data = freshRead(this.#source, c.values.offset + base, end - base);
    return columnData({ type, length: n, data, valueOffsets, ...nulls });
  }
}

/** The one record batch of an Arrow IPC file: its schema, row count and where each column's buffers lie. */
export interface SingleBatchLayout {
  readonly schema: Schema;
  readonly rows: number;
  readonly columns: readonly ColumnPlace[];
}

/**
 * The plain stored layout of an Arrow IPC file read by ranges (magic,
 * footer, the one batch's metadata; no body byte), or null for anything
 * else: another schema fingerprint, several batches, dictionaries,
 * compression, an unsupported column type, or regions that do not fit.
 *
 * Shared by the diff's windowed reads and validation's row-range reads, so
 * both accept exactly the same files.
 */
export function singleBatchLayout(source: Pick<ArrowFileSource, 'byteLength' | 'read'>, fingerprint: string): SingleBatchLayout | null {
  const size = source.byteLength;
  if (size < 2 * 8 + 10) return null;
  const head = source.read(0, 6);
  const tail = source.read(size - 10, 10);
  if (!MAGIC.every((b, i) => head[i] === b && tail[4 + i] === b)) return null;
  const footerLength = u32le(tail, 0);
  if (footerLength <= 0 || footerLength > size - 18) return null;
  const footer = decodeFileFooter(source.read(size - 10 - footerLength, footerLength));
  if (footer.numRecordBatches !== 1 || footer.numDictionaries !== 0) return null;
  const schema = footer.schema;
  if (schemaFingerprint(schema) !== fingerprint) return null;
  const block = footer.getRecordBatch(0);
  if (block === null || block.offset < 8 || block.offset + block.metaDataLength + block.bodyLength > size - 10 - footerLength) return null;
  const prefix = source.read(block.offset, 8);
  const continued = u32le(prefix, 0) === 0xffffffff;
  const metaLength = continued ? u32le(prefix, 4) : u32le(prefix, 0);
  const metaStart = block.offset + (continued ? 8 : 4);
  if (metaLength === 0 || metaStart + metaLength > block.offset + block.metaDataLength) return null;
  const message = Message.decode(source.read(metaStart, metaLength));
  if (!message.isRecordBatch()) return null;
  const header = message.header();
  if (header.compression !== null || header.variadicBufferCounts.length !== 0) return null;
  const body = block.offset + block.metaDataLength;
  const rows = header.length;
  const fields = schema.fields;
  if (!Number.isSafeInteger(rows) || rows < 0 || header.nodes.length !== fields.length) return null;
  const buffers = header.buffers;
  let b = 0;
  const region = (): Region | null => {
    const r = buffers[b++];
    if (r === undefined || r.offset < 0 || r.length < 0 || r.offset + r.length > block.bodyLength) return null;
    return { offset: body + r.offset, length: r.length };
  };
  const columns: ColumnPlace[] = [];
  for (let k = 0; k < fields.length; k++) {
    const field = fields[k] as Field;
    const node = header.nodes[k];
    const width = widthOf(field.type);
    if (node === undefined || width === undefined || node.length !== rows || node.nullCount < 0 || node.nullCount > rows) return null;
    const validity = region();
    const offsets = width === 0 ? region() : null;
    const values = region();
    if (validity === null || values === null || (width === 0 && offsets === null)) return null;
    if (node.nullCount > 0 && validity.length < (rows + 7) >> 3) return null;
    if (width === 0 && (offsets as Region).length < 4 * (rows + 1)) return null;
    if (width > 0 && values.length < rows * width) return null;
    if (width < 0 && values.length < (rows + 7) >> 3) return null;
    columns.push({ field, nullCount: node.nullCount, validity: node.nullCount > 0 ? validity : null, offsets, values, width });
  }
  if (b !== buffers.length) return null;
  return { schema, rows, columns };
}

/** Rows `[r0, r1)` of a column: how many, and the validity bytes that hold their bits (the first, and how many). */
export function bitWindow(r0: number, r1: number): { readonly n: number; readonly firstByte: number; readonly bitBytes: number } {
  const n = r1 - r0;
  const firstByte = r0 >> 3;
  return { n, firstByte, bitBytes: n === 0 ? 0 : ((r1 + 7) >> 3) - firstByte };
}
