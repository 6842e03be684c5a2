import { isUtf8 } from 'node:buffer';
import { hash as oneShotHash } from 'node:crypto';
import { Precision, Schema, TimeUnit, Type } from 'apache-arrow';
import type { Data, Field } from 'apache-arrow';
import { fingerprintHeader, resolveLimits } from './index';
import type { DomainTag } from './index';
import { canonicalError, checkLimit } from './arrow-limits';
import type { CanonicalLimits } from './arrow-limits';
import { writeSchema } from './arrow-schema';
import { compileField } from './arrow-values';
import type { FieldEncoder, RowWriter } from './arrow-values';
import { ByteWriter } from './arrow-writer';

const GFT1 = Uint8Array.of(0x47, 0x46, 0x54, 0x31);

/**
 * Finishes one row's fingerprint preimage: patches the payload length
 * (checked against the limit) into the header; returns the preimage bytes
 * (a view of the writer, valid until it writes again).
 */
function seal(w: ByteWriter, prefixEnd: number, payloadPrefix: number, lengthAt: number, maxPayload: number): Uint8Array {
  const payloadLength = payloadPrefix + (w.pos - prefixEnd);
  if (payloadLength > maxPayload) checkLimit('payload_bytes', payloadLength, maxPayload, 'payload');
  w.patchU64(lengthAt, payloadLength);
  return w.buf.subarray(0, w.pos);
}

/** SHA-256 of `preimage` written into `out` at `at`. */
function digestInto(preimage: Uint8Array, out: Uint8Array, at: number): void {
  out.set(oneShotHash('sha256', preimage, 'buffer'), at);
}

/** How a flat column's present value is written (see `RowFingerprinter`). */
const FLAT = { fixed: 0, text: 1, binary: 2, reversed: 3, byte: 4, bool: 5, float64: 6, float32: 7 } as const;

interface FlatColumn {
  readonly kind: (typeof FLAT)[keyof typeof FLAT];
  readonly nullable: boolean;
  readonly position: string;
  readonly width: number;
  readonly values: Uint8Array;
  readonly offsets: Int32Array | null;
  readonly bitmap: Uint8Array | null;
  readonly offset: number;
  readonly f64: Float64Array | null;
  readonly f32: Float32Array | null;
}

function u8View(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** The flat layout of one field's chunk, or null when the canonical module must encode it (anything else). */
function flatColumn(field: Field, data: Data): FlatColumn | null {
  const t = field.type as unknown as { typeId: Type; byteWidth?: number; bitWidth?: number; unit?: TimeUnit; timezone?: string | null; precision?: Precision };
  if (data.typeId !== field.type.typeId || data.dictionary !== undefined) return null;
  const base = {
    nullable: field.nullable,
    position: field.name,
    bitmap: data.nullCount > 0 && data.nullBitmap !== undefined && data.nullBitmap.length > 0 ? data.nullBitmap : null,
    offset: data.offset,
    offsets: null,
    f64: null,
    f32: null,
  };
  switch (t.typeId) {
    case Type.FixedSizeBinary:
      return { ...base, kind: FLAT.fixed, width: t.byteWidth as number, values: data.values as Uint8Array };
    case Type.Utf8:
    case Type.Binary:
      if (!(data.valueOffsets instanceof Int32Array)) return null;
      return { ...base, kind: t.typeId === Type.Utf8 ? FLAT.text : FLAT.binary, width: 0, values: data.values as Uint8Array, offsets: data.valueOffsets };
    case Type.Timestamp:
      // Microseconds are the canonical unit: the i64 is written as is (big-endian). The timezone was checked when compiling.
      if (t.unit !== TimeUnit.MICROSECOND) return null;
      return { ...base, kind: FLAT.reversed, width: 8, values: u8View(data.values as ArrayBufferView) };
    case Type.Int: {
      const width = (t.bitWidth as number) >> 3;
      if (width === 1) return { ...base, kind: FLAT.byte, width, values: u8View(data.values as ArrayBufferView) };
      if (width !== 2 && width !== 4 && width !== 8) return null;
      return { ...base, kind: FLAT.reversed, width, values: u8View(data.values as ArrayBufferView) };
    }
    case Type.Bool:
      return { ...base, kind: FLAT.bool, width: 0, values: data.values as Uint8Array };
    case Type.Float:
      if (t.precision === Precision.DOUBLE) return { ...base, kind: FLAT.float64, width: 8, values: u8View(data.values as ArrayBufferView), f64: data.values as Float64Array };
      if (t.precision === Precision.SINGLE) return { ...base, kind: FLAT.float32, width: 4, values: u8View(data.values as ArrayBufferView), f32: data.values as Float32Array };
      return null;
    default:
      return null;
  }
}

function validText(v: Uint8Array, s: number, e: number): boolean {
  for (let k = s; k < e; k++) if ((v[k] as number) >= 0x80) return isUtf8(v.subarray(s, e));
  return true;
}

/** Writes row `row` of the flat column `c` (its cell's canonical bytes), validating that cell only. */
function writeFlat(c: FlatColumn, row: number, w: ByteWriter, limits: CanonicalLimits): void {
  if (c.bitmap !== null) {
    const p = c.offset + row;
    if ((((c.bitmap[p >> 3] as number) >> (p & 7)) & 1) === 0) {
      if (!c.nullable) throw canonicalError('GF_CANONICAL_NULLABILITY', 'null in a non-nullable position', { position: c.position, index: row });
      w.u8(0);
      return;
    }
  }
  w.u8(1);
  switch (c.kind) {
    case FLAT.fixed:
      w.copy(c.values, row * c.width, row * c.width + c.width);
      return;
    case FLAT.text:
    case FLAT.binary: {
      const o = c.offsets as Int32Array;
      const s = o[row] as number;
      const e = o[row + 1] as number;
      const n = e - s;
      if (c.kind === FLAT.text) {
        if (n > limits.maxUtf8Bytes) checkLimit('utf8_bytes', n, limits.maxUtf8Bytes, c.position);
      } else if (n > limits.maxBinaryBytes) checkLimit('binary_bytes', n, limits.maxBinaryBytes, c.position);
      if (n < 0 || e > c.values.length) throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offsets out of range', { position: c.position, index: row });
      if (c.kind === FLAT.text && !validText(c.values, s, e)) {
        throw canonicalError('GF_CANONICAL_UTF8', 'invalid UTF-8 in a text value', { position: c.position, index: row });
      }
      w.u64(n);
      w.copy(c.values, s, e);
      return;
    }
    case FLAT.reversed:
      w.copyReversed(c.values, row * c.width, c.width);
      return;
    case FLAT.byte:
      w.u8(c.values[row] as number);
      return;
    case FLAT.bool: {
      const p = c.offset + row;
      w.u8(((c.values[p >> 3] as number) >> (p & 7)) & 1);
      return;
    }
    case FLAT.float64: {
      const x = (c.f64 as Float64Array)[row] as number;
      if (x === 0) w.u64(0);
      else if (x !== x) {
        w.u32(0x7ff80000);
        w.u32(0);
      } else w.copyReversed(c.values, row * 8, 8);
      return;
    }
    case FLAT.float32: {
      const x = (c.f32 as Float32Array)[row] as number;
      if (x === 0) w.u32(0);
      else if (x !== x) w.u32(0x7fc00000);
      else w.copyReversed(c.values, row * 4, 4);
      return;
    }
  }
}

/** What the diff needs from a row fingerprinter. */
export interface RowHasher {
  /** The canonical bytes whose SHA-256 is the row's fingerprint (a view, valid until the next call). */
  preimage(row: number): Uint8Array;
  into(row: number, out: Uint8Array, at: number): void;
  of(row: number): Uint8Array;
}

/**
 * Record fingerprints of chosen rows of one batch, byte-identical to
 * `recordFingerprints` of the canonical module for those rows.
 *
 * The diff hashes only rows that changed, so it cannot afford the
 * whole-table function; this one builds the constant preimage prefix
 * (envelope header, `GFT1`, schema bytes, row count 1) once and encodes
 * each requested row after it, cell by cell:
 * - a column with a flat layout (fixed-size binary, UTF-8/binary with
 *   32-bit offsets, microsecond timestamps, integers, booleans, 32/64-bit
 *   floats, no dictionary) is written straight from its buffers, and only
 *   the requested cell is validated (UTF-8, nullability, size limits), so
 *   hashing a few thousand changed rows of a million-row participant never
 *   walks the rest of it;
 * - any other column goes through the canonical module's encoder, bound
 *   lazily window by window (binding validates a window's cells once).
 * Every field is compiled (validated against the contract) up front, as
 * the canonical encoder does. Unit and property tests pin it to
 * `recordFingerprints`.
 */
export class RowFingerprinter implements RowHasher {
  readonly #w: ByteWriter;
  readonly #prefixEnd: number;
  readonly #lengthAt: number;
  readonly #payloadPrefix: number;
  readonly #limits: CanonicalLimits;
  readonly #encoders: readonly FieldEncoder[];
  readonly #columns: readonly Data[];
  /** Per field: its flat layout, or null when the canonical encoder writes it. */
  readonly #flat: readonly (FlatColumn | null)[];
  readonly #allFlat: boolean;
  readonly #window: number;
  readonly #bound = new Map<number, readonly (RowWriter | null)[]>();

  /**
   * @param fields the fingerprinted fields (a whole schema, or an identity projection of it)
   * @param metadata the schema metadata of the fingerprinted schema
   * @param columns one `Data` chunk per field, same order, one batch
   * @param window rows per lazily bound window of a column the canonical
   *   encoder writes: binding validates a window's cells (e.g. UTF-8) once,
   *   so a page that hashes a few rows of a large participant never walks
   *   the whole column
   */
  constructor(fields: readonly Field[], metadata: ReadonlyMap<string, string>, columns: readonly Data[], domain: DomainTag, window = 4096) {
    const limits = resolveLimits();
    const schema = new Schema([...fields], new Map(metadata));
    const sw = new ByteWriter(limits.maxPayloadBytes, 256);
    writeSchema(sw, schema, limits);
    const schemaBytes = sw.toBytes();
    // Compiling validates every field against the contract (types, UTC timezones, limits) exactly as the canonical encoder does.
    this.#encoders = fields.map((f) => compileField(f, f.name, 1, limits));
    const header = fingerprintHeader(domain, 0);
    this.#lengthAt = header.length - 8;
    this.#payloadPrefix = 4 + 8 + schemaBytes.length + 8;
    const w = new ByteWriter(limits.maxPayloadBytes + header.length, 4096);
    w.bytes(header);
    w.bytes(GFT1);
    w.u64(schemaBytes.length);
    w.bytes(schemaBytes);
    w.u64(1);
    this.#prefixEnd = w.pos;
    this.#w = w;
    this.#limits = limits;
    this.#columns = columns;
    this.#flat = fields.map((f, k) => (columns[k] === undefined ? null : flatColumn(f, columns[k] as Data)));
    this.#allFlat = this.#flat.every((c) => c !== null);
    this.#window = window;
  }

  /** Fields written straight from their buffers (the others go through the canonical encoder). */
  get flatFields(): number {
    return this.#flat.filter((c) => c !== null).length;
  }

  /** The canonical encoder's writers of window `win` (null for a flat field), bound on first use. */
  #writersFor(win: number): readonly (RowWriter | null)[] {
    let ws = this.#bound.get(win);
    if (ws === undefined) {
      const start = win * this.#window;
      ws = this.#encoders.map((e, k) => {
        if (this.#flat[k] !== null) return null;
        const col = this.#columns[k] as Data;
        const n = Math.min(this.#window, col.length - start);
        return e.bind(start === 0 && n === col.length ? col : col.slice(start, n));
      });
      this.#bound.set(win, ws);
    }
    return ws;
  }

  /** The canonical bytes whose SHA-256 is row `row`'s fingerprint (a view, valid until the next call). */
  preimage(row: number): Uint8Array {
    const w = this.#w;
    w.pos = this.#prefixEnd;
    const flat = this.#flat;
    const limits = this.#limits;
    if (this.#allFlat) {
      for (let k = 0; k < flat.length; k++) writeFlat(flat[k] as FlatColumn, row, w, limits);
    } else {
      const win = Math.floor(row / this.#window);
      const local = row - win * this.#window;
      const writers = this.#writersFor(win);
      for (let k = 0; k < flat.length; k++) {
        const c = flat[k] as FlatColumn | null;
        if (c !== null) writeFlat(c, row, w, limits);
        else (writers[k] as RowWriter)(local, w);
      }
    }
    return seal(w, this.#prefixEnd, this.#payloadPrefix, this.#lengthAt, limits.maxPayloadBytes);
  }

  /** The fingerprint of row `row` written into `out` at `at` (32 bytes). */
  into(row: number, out: Uint8Array, at: number): void {
    digestInto(this.preimage(row), out, at);
  }

  /** The fingerprint of row `row` (32 fresh bytes). */
  of(row: number): Uint8Array {
    const out = new Uint8Array(32);
    this.into(row, out, 0);
    return out;
  }
}

/** The row fingerprinter of these columns (a `RowFingerprinter`; kept for callers that only need a `RowHasher`). */
export function rowFingerprinter(fields: readonly Field[], metadata: ReadonlyMap<string, string>, columns: readonly Data[], domain: DomainTag): RowHasher {
  return new RowFingerprinter(fields, metadata, columns, domain);
}
