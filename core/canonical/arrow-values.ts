import { isUtf8 } from 'node:buffer';
import { DateUnit, IntervalUnit, Precision, TimeUnit, Type } from 'apache-arrow';
import type { Data, DataType, Dictionary, Field, Vector } from 'apache-arrow';
import { canonicalError, checkLimit } from './arrow-limits';
import type { CanonicalLimits } from './arrow-limits';
import { checkField, timestampIsUtc } from './arrow-schema';
import { ByteWriter } from './arrow-writer';

/** Writes one value position (presence byte + value) of row `i` of a bound chunk. */
export type RowWriter = (i: number, w: ByteWriter) => void;

/** A compiled field: bind it to one Arrow `Data` chunk to get its row writer. */
export interface FieldEncoder {
  readonly bind: (data: Data) => RowWriter;
}

type ValueBinder = (data: Data) => RowWriter;

const TWO_32 = 4294967296;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;
const MS_PER_DAY = 86_400_000n;

function bytesOf(values: ArrayBufferView): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** Reads offsets of 32-bit or 64-bit width as numbers without allocating BigInts. */
function offsetReader(offsets: Int32Array | BigInt64Array, position: string): (k: number) => number {
  if (offsets instanceof Int32Array) return (k) => offsets[k] as number;
  const o32 = new Uint32Array(offsets.buffer, offsets.byteOffset, offsets.length * 2);
  return (k) => {
    const hi = o32[2 * k + 1] as number;
    if (hi >= 0x200000) {
      throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offset out of range', { position });
    }
    return (o32[2 * k] as number) + hi * TWO_32;
  };
}

function nullability(position: string, index: number): never {
  throw canonicalError('GF_CANONICAL_NULLABILITY', 'null in a non-nullable position', { position, index });
}

function temporal(position: string, why: string, index: number): never {
  throw canonicalError('GF_CANONICAL_TEMPORAL', `temporal value ${why}`, { position, index });
}

function unsupported(type: DataType, position: string): never {
  throw canonicalError('GF_CANONICAL_ARROW_TYPE', 'Arrow type is not part of the canonical contract', {
    position,
    arrow_type_id: type.typeId,
  });
}

/** The i64 value of a bigint, or a temporal error. */
function checkI64(v: bigint, position: string, index: number): bigint {
  if (v < I64_MIN || v > I64_MAX) temporal(position, 'overflows i64 microseconds', index);
  return v;
}

/** Converts `v` in `unit` to microseconds, exactly or not at all. */
function toMicros(v: bigint, unit: TimeUnit, position: string, index: number): bigint {
  switch (unit) {
    case TimeUnit.SECOND:
      return checkI64(v * 1_000_000n, position, index);
    case TimeUnit.MILLISECOND:
      return checkI64(v * 1000n, position, index);
    case TimeUnit.MICROSECOND:
      return v;
    case TimeUnit.NANOSECOND:
      if (v % 1000n !== 0n) temporal(position, 'has a sub-microsecond remainder', index);
      return v / 1000n;
    default:
      return temporal(position, 'has an unknown unit', index);
  }
}

/**
 * Validates UTF-8 of every non-null value of a chunk, once per bind.
 *
 * Fast path: the whole referenced byte range is valid UTF-8 and every value
 * starts on a character boundary, which implies every value is valid. Only if
 * that fails are values checked one by one (null slots are skipped: their
 * bytes are not part of the logical value).
 */
function validateUtf8(data: Data, values: Uint8Array, off: (k: number) => number, position: string): void {
  const n = data.length;
  if (n === 0) return;
  const start = off(0);
  const end = off(n);
  let ok = start <= end && end <= values.length && isUtf8(values.subarray(start, end));
  if (ok) {
    for (let k = 0; k < n; k++) {
      const s = off(k);
      if (s < end && s < off(k + 1) && ((values[s] as number) & 0xc0) === 0x80) {
        ok = false;
        break;
      }
    }
  }
  if (ok) return;
  const bm = data.nullCount > 0 ? data.nullBitmap : null;
  for (let k = 0; k < n; k++) {
    if (bm) {
      const p = data.offset + k;
      if ((((bm[p >> 3] as number) >> (p & 7)) & 1) === 0) continue;
    }
    const s = off(k);
    const e = off(k + 1);
    if (s > e || e > values.length) {
      throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offsets out of range', { position, index: k });
    }
    if (!isUtf8(values.subarray(s, e))) {
      throw canonicalError('GF_CANONICAL_UTF8', 'invalid UTF-8 in a text value', { position, index: k });
    }
  }
}

function variableWidth(isText: boolean, position: string, limits: CanonicalLimits): ValueBinder {
  const max = isText ? limits.maxUtf8Bytes : limits.maxBinaryBytes;
  const kind = isText ? 'utf8_bytes' : 'binary_bytes';
  return (data) => {
    const values = data.values as Uint8Array;
    const off = offsetReader(data.valueOffsets as Int32Array | BigInt64Array, position);
    if (isText) validateUtf8(data, values, off, position);
    const vlen = values.length;
    return (i, w) => {
      const s = off(i);
      const e = off(i + 1);
      const n = e - s;
      if (n > max) checkLimit(kind, n, max, position);
      if (n < 0 || e > vlen) {
        throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offsets out of range', { position, index: i });
      }
      w.u64(n);
      w.copy(values, s, e);
    };
  };
}

function floatBinder(precision: Precision): ValueBinder {
  if (precision === Precision.DOUBLE) {
    return (data) => {
      const v = data.values as Float64Array;
      const u8 = bytesOf(v);
      return (i, w) => {
        const x = v[i] as number;
        if (x === 0) {
          w.u64(0);
        } else if (x !== x) {
          w.u32(0x7ff80000);
          w.u32(0);
        } else {
          w.copyReversed(u8, i * 8, 8);
        }
      };
    };
  }
  if (precision === Precision.SINGLE) {
    return (data) => {
      const v = data.values as Float32Array;
      const u8 = bytesOf(v);
      return (i, w) => {
        const x = v[i] as number;
        if (x === 0) w.u32(0);
        else if (x !== x) w.u32(0x7fc00000);
        else w.copyReversed(u8, i * 4, 4);
      };
    };
  }
  return (data) => {
    const v = data.values as Uint16Array;
    return (i, w) => {
      const bits = v[i] as number;
      if ((bits & 0x7fff) === 0) w.u16(0);
      else if ((bits & 0x7c00) === 0x7c00 && (bits & 0x03ff) !== 0) w.u16(0x7e00);
      else w.u16(bits);
    };
  };
}

function int64Binder(position: string, convert: (v: bigint, index: number) => bigint): ValueBinder {
  return (data) => {
    const v = data.values as BigInt64Array;
    return (i, w) => w.i64(convert(v[i] as bigint, i));
  };
}

function compileValue(type: DataType, position: string, depth: number, limits: CanonicalLimits): ValueBinder {
  switch (type.typeId) {
    case Type.Bool:
      return (data) => {
        const v = data.values as Uint8Array;
        const o = data.offset;
        return (i, w) => {
          const p = o + i;
          w.u8(((v[p >> 3] as number) >> (p & 7)) & 1);
        };
      };
    case Type.Int: {
      const width = (type as unknown as { bitWidth: number }).bitWidth >> 3;
      if (width !== 1 && width !== 2 && width !== 4 && width !== 8) unsupported(type, position);
      if (width === 1) {
        return (data) => {
          const u8 = bytesOf(data.values as ArrayBufferView);
          return (i, w) => w.u8(u8[i] as number);
        };
      }
      return (data) => {
        const u8 = bytesOf(data.values as ArrayBufferView);
        return (i, w) => w.copyReversed(u8, i * width, width);
      };
    }
    case Type.Float:
      return floatBinder((type as unknown as { precision: Precision }).precision);
    case Type.Utf8:
    case Type.LargeUtf8:
      return variableWidth(true, position, limits);
    case Type.Binary:
    case Type.LargeBinary:
      return variableWidth(false, position, limits);
    case Type.FixedSizeBinary: {
      const width = (type as unknown as { byteWidth: number }).byteWidth;
      checkLimit('binary_bytes', width, limits.maxBinaryBytes, position);
      return (data) => {
        const v = data.values as Uint8Array;
        return (i, w) => w.copy(v, i * width, i * width + width);
      };
    }
    case Type.Decimal: {
      const bits = (type as unknown as { bitWidth: number }).bitWidth;
      if (bits !== 128 && bits !== 256) unsupported(type, position);
      const width = bits >> 3;
      return (data) => {
        const u8 = bytesOf(data.values as ArrayBufferView);
        return (i, w) => w.copyReversed(u8, i * width, width);
      };
    }
    case Type.Date: {
      const unit = (type as unknown as { unit: DateUnit }).unit;
      if (unit === DateUnit.DAY) {
        return (data) => {
          const v = data.values as Int32Array;
          return (i, w) => w.i32(v[i] as number);
        };
      }
      if (unit !== DateUnit.MILLISECOND) unsupported(type, position);
      return (data) => {
        const v = data.values as BigInt64Array;
        return (i, w) => {
          const ms = v[i] as bigint;
          if (ms % MS_PER_DAY !== 0n) temporal(position, 'is not a whole day', i);
          const days = Number(ms / MS_PER_DAY);
          if (days < I32_MIN || days > I32_MAX) temporal(position, 'overflows i32 days', i);
          w.i32(days);
        };
      };
    }
    case Type.Time: {
      const t = type as unknown as { unit: TimeUnit; bitWidth: number };
      if (t.bitWidth === 32) {
        const mul = t.unit === TimeUnit.SECOND ? 1_000_000 : t.unit === TimeUnit.MILLISECOND ? 1000 : 0;
        if (mul === 0) unsupported(type, position);
        return (data) => {
          const v = data.values as Int32Array;
          return (i, w) => {
            const x = v[i] as number;
            if (x < 0) temporal(position, 'is negative', i);
            w.u64(x * mul);
          };
        };
      }
      return (data) => {
        const v = data.values as BigInt64Array;
        return (i, w) => {
          const us = toMicros(v[i] as bigint, t.unit, position, i);
          if (us < 0n) temporal(position, 'is negative', i);
          w.i64(us);
        };
      };
    }
    case Type.Timestamp: {
      const t = type as unknown as { unit: TimeUnit; timezone?: string | null };
      timestampIsUtc(t.timezone, position);
      if (t.unit === TimeUnit.MICROSECOND) {
        return (data) => {
          const u8 = bytesOf(data.values as BigInt64Array);
          return (i, w) => w.copyReversed(u8, i * 8, 8);
        };
      }
      return int64Binder(position, (v, i) => toMicros(v, t.unit, position, i));
    }
    case Type.Duration: {
      const unit = (type as unknown as { unit: TimeUnit }).unit;
      return int64Binder(position, (v, i) => toMicros(v, unit, position, i));
    }
    case Type.Interval:
      return intervalBinder(type, position);
    case Type.List:
    case Type.LargeList: {
      const child = compileField(type.children[0] as Field, `${position}.${(type.children[0] as Field).name}`, depth + 1, limits);
      const max = limits.maxListElements;
      return (data) => {
        const off = offsetReader(data.valueOffsets as Int32Array | BigInt64Array, position);
        const write = child.bind(data.children[0] as Data);
        return (i, w) => {
          const s = off(i);
          const e = off(i + 1);
          const n = e - s;
          if (n > max) checkLimit('list_elements', n, max, position);
          if (n < 0) throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offsets out of range', { position, index: i });
          w.u64(n);
          for (let k = s; k < e; k++) write(k, w);
        };
      };
    }
    case Type.FixedSizeList: {
      const size = (type as unknown as { listSize: number }).listSize;
      checkLimit('list_elements', size, limits.maxListElements, position);
      const child = compileField(type.children[0] as Field, `${position}.${(type.children[0] as Field).name}`, depth + 1, limits);
      return (data) => {
        const write = child.bind(data.children[0] as Data);
        return (i, w) => {
          const base = i * size;
          for (let k = 0; k < size; k++) write(base + k, w);
        };
      };
    }
    case Type.Struct: {
      const fields = type.children as Field[];
      checkLimit('struct_fields', fields.length, limits.maxStructFields, position);
      const encs = fields.map((f) => compileField(f, `${position}.${f.name}`, depth + 1, limits));
      return (data) => {
        const writers = encs.map((e, k) => e.bind(data.children[k] as Data));
        const n = writers.length;
        return (i, w) => {
          for (let k = 0; k < n; k++) (writers[k] as RowWriter)(i, w);
        };
      };
    }
    case Type.Map:
      return mapBinder(type, position, depth, limits);
    default:
      return unsupported(type, position);
  }
}

/**
 * Intervals: `54` year-month → i32 months; `55` day-time → i32 days + i64
 * microseconds; `56` month-day-nano → i32 months + i32 days + i64
 * microseconds (a sub-microsecond remainder is `GF_CANONICAL_TEMPORAL`), so
 * every sub-day quantity uses the contract's microsecond unit.
 */
function intervalBinder(type: DataType, position: string): ValueBinder {
  const unit = (type as unknown as { unit: IntervalUnit }).unit;
  if (unit === IntervalUnit.YEAR_MONTH) {
    return (data) => {
      const v = data.values as Int32Array;
      return (i, w) => w.i32(v[i] as number);
    };
  }
  if (unit === IntervalUnit.DAY_TIME) {
    return (data) => {
      const v = data.values as Int32Array;
      return (i, w) => {
        w.i32(v[2 * i] as number);
        w.i64(BigInt(v[2 * i + 1] as number) * 1000n);
      };
    };
  }
  if (unit === IntervalUnit.MONTH_DAY_NANO) {
    return (data) => {
      const v = data.values as Int32Array;
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      return (i, w) => {
        w.i32(v[4 * i] as number);
        w.i32(v[4 * i + 1] as number);
        const ns = dv.getBigInt64(16 * i + 8, true);
        if (ns % 1000n !== 0n) temporal(position, 'has a sub-microsecond remainder', i);
        w.i64(ns / 1000n);
      };
    };
  }
  return unsupported(type, position);
}

function compareRange(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): number {
  const n = Math.min(e1 - s1, e2 - s2);
  for (let k = 0; k < n; k++) {
    const d = (b[s1 + k] as number) - (b[s2 + k] as number);
    if (d !== 0) return d;
  }
  return e1 - s1 - (e2 - s2);
}

/**
 * Maps: u64 entry count, then (key, value) pairs sorted by complete canonical
 * key bytes; equal canonical keys are `GF_CANONICAL_ENCODING`; a null key is
 * `GF_CANONICAL_NULLABILITY`. Entries are encoded into a scratch writer owned
 * by this schema position and reused for every map value.
 */
function mapBinder(type: DataType, position: string, depth: number, limits: CanonicalLimits): ValueBinder {
  const entriesField = type.children[0] as Field;
  const [keyField, valueField] = entriesField.type.children as [Field, Field];
  const keyEnc = compileField(keyField, `${position}.${keyField.name}`, depth + 1, limits, true);
  const valEnc = compileField(valueField, `${position}.${valueField.name}`, depth + 1, limits);
  const scratch = new ByteWriter(limits.maxPayloadBytes, 1024);
  const starts: number[] = [];
  const keyEnds: number[] = [];
  const ends: number[] = [];
  const order: number[] = [];
  const max = limits.maxListElements;
  return (data) => {
    const off = offsetReader(data.valueOffsets as Int32Array, position);
    const entries = data.children[0] as Data;
    const writeKey = keyEnc.bind(entries.children[0] as Data);
    const writeVal = valEnc.bind(entries.children[1] as Data);
    const byKey = (a: number, b: number): number =>
      compareRange(scratch.buf, starts[a] as number, keyEnds[a] as number, starts[b] as number, keyEnds[b] as number);
    return (i, w) => {
      const s = off(i);
      const n = off(i + 1) - s;
      if (n > max) checkLimit('map_entries', n, max, position);
      if (n < 0) throw canonicalError('GF_CANONICAL_ENCODING', 'Arrow offsets out of range', { position, index: i });
      w.u64(n);
      if (n === 1) {
        writeKey(s, w);
        writeVal(s, w);
        return;
      }
      if (n === 0) return;
      scratch.pos = 0;
      order.length = 0;
      for (let j = 0; j < n; j++) {
        starts[j] = scratch.pos;
        writeKey(s + j, scratch);
        keyEnds[j] = scratch.pos;
        writeVal(s + j, scratch);
        ends[j] = scratch.pos;
        order.push(j);
      }
      order.sort(byKey);
      for (let j = 1; j < n; j++) {
        if (byKey(order[j - 1] as number, order[j] as number) === 0) {
          throw canonicalError('GF_CANONICAL_ENCODING', 'duplicate canonical map key', { position, index: i });
        }
      }
      const buf = scratch.buf;
      for (let j = 0; j < n; j++) {
        const e = order[j] as number;
        w.copy(buf, starts[e] as number, ends[e] as number);
      }
    };
  };
}

/**
 * Dictionary columns encode as their decoded values: every dictionary entry
 * is encoded once per dictionary vector, then rows copy the entry's bytes.
 */
function dictionaryEncoder(
  dictType: Dictionary,
  nullable: boolean,
  position: string,
  depth: number,
  limits: CanonicalLimits,
): FieldEncoder {
  const valueEnc = compileValue(dictType.dictionary, position, depth, limits);
  const entryEnc = presence(valueEnc, true, position);
  const cache = new WeakMap<Vector, { bytes: Uint8Array; offsets: Float64Array }>();
  const encodeDictionary = (dict: Vector): { bytes: Uint8Array; offsets: Float64Array } => {
    const hit = cache.get(dict);
    if (hit) return hit;
    const w = new ByteWriter(limits.maxPayloadBytes, 1024);
    const offsets = new Float64Array(dict.length + 1);
    let k = 0;
    for (const chunk of dict.data) {
      const write = entryEnc(chunk);
      for (let j = 0; j < chunk.length; j++) {
        write(j, w);
        offsets[++k] = w.pos;
      }
    }
    const out = { bytes: w.buf, offsets };
    cache.set(dict, out);
    return out;
  };
  return {
    bind(data) {
      const dict = data.dictionary;
      if (!dict) throw canonicalError('GF_CANONICAL_ENCODING', 'dictionary column without a dictionary', { position });
      const { bytes, offsets } = encodeDictionary(dict);
      const count = dict.length;
      const idx = data.values as ArrayLike<number | bigint>;
      const bm = data.nullCount > 0 ? data.nullBitmap : null;
      const o = data.offset;
      return (i, w) => {
        if (bm) {
          const p = o + i;
          if ((((bm[p >> 3] as number) >> (p & 7)) & 1) === 0) {
            if (!nullable) nullability(position, i);
            w.u8(0);
            return;
          }
        }
        const k = Number(idx[i]);
        if (!(k >= 0 && k < count)) {
          throw canonicalError('GF_CANONICAL_ENCODING', 'dictionary index out of range', { position, index: i });
        }
        const s = offsets[k] as number;
        if (!nullable && bytes[s] === 0) nullability(position, i);
        w.copy(bytes, s, offsets[k + 1] as number);
      };
    },
  };
}

/** Wraps a value binder with the presence byte and the field's nullability. */
function presence(value: ValueBinder, nullable: boolean, position: string): ValueBinder {
  return (data) => {
    const write = value(data);
    const bm = data.nullCount > 0 ? data.nullBitmap : null;
    if (!bm) {
      return (i, w) => {
        w.u8(1);
        write(i, w);
      };
    }
    const o = data.offset;
    return (i, w) => {
      const p = o + i;
      if ((((bm[p >> 3] as number) >> (p & 7)) & 1) === 0) {
        if (!nullable) nullability(position, i);
        w.u8(0);
      } else {
        w.u8(1);
        write(i, w);
      }
    };
  };
}

/**
 * Compiles one field (presence byte + canonical value) for repeated binding.
 *
 * `forceNonNull` is for map keys, which are never null whatever the schema
 * says.
 */
export function compileField(
  field: Field,
  position: string,
  depth: number,
  limits: CanonicalLimits,
  forceNonNull = false,
): FieldEncoder {
  checkField(field, position, depth, limits);
  const nullable = field.nullable && !forceNonNull;
  const type = field.type;
  if (type.typeId === Type.Null) {
    return {
      bind: () => (i, w) => {
        if (!nullable) nullability(position, i);
        w.u8(0);
      },
    };
  }
  if (type.typeId === Type.Dictionary) {
    return dictionaryEncoder(type as unknown as Dictionary, nullable, position, depth, limits);
  }
  return { bind: presence(compileValue(type, position, depth, limits), nullable, position) };
}
