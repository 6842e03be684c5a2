import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  DenseUnion,
  Dictionary,
  DurationMicrosecond,
  DurationMillisecond,
  DurationNanosecond,
  DurationSecond,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  IntervalDayTime,
  IntervalMonthDayNano,
  IntervalYearMonth,
  LargeBinary,
  LargeList,
  LargeUtf8,
  List,
  Map_,
  Null,
  RecordBatch,
  Schema,
  SparseUnion,
  Struct,
  Table,
  TimeMicrosecond,
  TimeMillisecond,
  TimeNanosecond,
  TimeSecond,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Type,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Utf8View,
  BinaryView,
  makeData,
  makeVector,
} from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import { GfError, isGfError } from '../errors';
import type { GfCode } from '../errors';
import type { CanonicalOptions } from './arrow-limits';
import type { VectorCaseResult, VectorResultEntry } from '../contract/maintenance';
import { CANONICAL_LIMITS } from './arrow-limits';
import { canonicalSchemaBytes } from './arrow-schema';
import { canonicalTableBytes } from './arrow-table';
import { assertDomainTag, fingerprint } from './fingerprint';
import { fromHex, toHex } from './hash';
import { parseUuid, uuidV8 } from './uuid';

/** A field of the golden-vector source format (`CANONICAL.md`, last section). */
export interface VectorField {
  readonly name: string;
  readonly nullable: boolean;
  readonly type: unknown;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** One source case: a table (fields + batches of rows) or a schema. */
export interface VectorSourceCase {
  readonly kind: 'table' | 'schema';
  readonly fields: readonly VectorField[];
  readonly batches?: readonly (readonly (readonly unknown[])[])[];
  readonly metadata?: Readonly<Record<string, string>>;
  readonly dictionaries?: Readonly<Record<string, readonly unknown[]>>;
}

/** What the implementation computes for one source case (the `canonical.vectors` result, declared in the contract). */
export type CaseResult = VectorCaseResult;

/** One vector's computed values: cases for a positive vector, the error code for a negative one. */
export type VectorResult = VectorResultEntry;

function bad(what: string): never {
  throw new GfError('GF_VALIDATION', `malformed golden-vector source: ${what}`, { what });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PRIMITIVES: Readonly<Record<string, () => DataType>> = {
  null: () => new Null(),
  bool: () => new Bool(),
  boolean: () => new Bool(),
  int8: () => new Int8(),
  int16: () => new Int16(),
  int32: () => new Int32(),
  int64: () => new Int64(),
  uint8: () => new Uint8(),
  uint16: () => new Uint16(),
  uint32: () => new Uint32(),
  uint64: () => new Uint64(),
  float16: () => new Float16(),
  float32: () => new Float32(),
  float64: () => new Float64(),
  utf8: () => new Utf8(),
  string: () => new Utf8(),
  large_utf8: () => new LargeUtf8(),
  binary: () => new Binary(),
  large_binary: () => new LargeBinary(),
  date32: () => new DateDay(),
  date64: () => new DateMillisecond(),
  time_second: () => new TimeSecond(),
  time_millisecond: () => new TimeMillisecond(),
  time_microsecond: () => new TimeMicrosecond(),
  time_nanosecond: () => new TimeNanosecond(),
  time32_second: () => new TimeSecond(),
  time32_millisecond: () => new TimeMillisecond(),
  time64_microsecond: () => new TimeMicrosecond(),
  time64_nanosecond: () => new TimeNanosecond(),
  duration_second: () => new DurationSecond(),
  duration_millisecond: () => new DurationMillisecond(),
  duration_microsecond: () => new DurationMicrosecond(),
  duration_nanosecond: () => new DurationNanosecond(),
  interval_year_month: () => new IntervalYearMonth(),
  interval_day_time: () => new IntervalDayTime(),
  interval_month_day_nano: () => new IntervalMonthDayNano(),
  utf8_view: () => new Utf8View(),
  binary_view: () => new BinaryView(),
  dense_union: () => new DenseUnion([0], [new Field('a', new Int32(), true)]),
  sparse_union: () => new SparseUnion([0], [new Field('a', new Int32(), true)]),
};

/** Types the contract names but Arrow JS cannot represent at all. */
const UNREPRESENTABLE = new Set(['run_end_encoded', 'list_view', 'large_list_view', 'extension']);

function timestampType(unit: string, tz: string | null): DataType {
  switch (unit) {
    case 'second':
      return new TimestampSecond(tz);
    case 'millisecond':
      return new TimestampMillisecond(tz);
    case 'microsecond':
      return new TimestampMicrosecond(tz);
    case 'nanosecond':
      return new TimestampNanosecond(tz);
    default:
      return bad('timestamp unit');
  }
}

/** Builds the Arrow type of a vector type description. */
export function buildType(desc: unknown, timezone: string | null = null): DataType {
  if (typeof desc === 'string') {
    const ts = /^timestamp_(second|millisecond|microsecond|nanosecond)$/.exec(desc);
    if (ts) return timestampType(ts[1] as string, timezone);
    if (UNREPRESENTABLE.has(desc)) {
      throw new GfError('GF_CANONICAL_ARROW_TYPE', 'Arrow type is not part of the canonical contract', { position: 'type' });
    }
    const make = PRIMITIVES[desc];
    if (!make) bad('unknown type name');
    return make();
  }
  if (!isRecord(desc)) bad('type');
  const [key, arg] = Object.entries(desc)[0] ?? bad('empty type');
  switch (key) {
    case 'fixed_size_binary':
      return new FixedSizeBinary(Number(arg));
    case 'timestamp': {
      if (!isRecord(arg)) bad('timestamp');
      return timestampType(String(arg.unit), typeof arg.timezone === 'string' ? arg.timezone : null);
    }
    case 'decimal128':
    case 'decimal256': {
      if (!isRecord(arg)) bad('decimal');
      return new Decimal(Number(arg.scale), Number(arg.precision), key === 'decimal128' ? 128 : 256);
    }
    case 'dictionary': {
      if (!isRecord(arg)) bad('dictionary');
      const index = buildType(arg.index);
      if (index.typeId !== Type.Int) bad('dictionary index');
      return new Dictionary(buildType(arg.value), index as Int32);
    }
    case 'map': {
      if (!isRecord(arg)) bad('map');
      const k = new Field('key', buildType(arg.key), false);
      const v = new Field('value', buildType(arg.value), arg.value_nullable !== false);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return new Map_(new Field('entries', new Struct([k, v]), false) as Field<any>);
    }
    case 'list':
      return new List(buildField(arg as VectorField));
    case 'large_list':
      return new LargeList(buildField(arg as VectorField));
    case 'fixed_size_list': {
      if (!isRecord(arg)) bad('fixed_size_list');
      return new FixedSizeList(Number(arg.size), buildField(arg.field as VectorField));
    }
    case 'struct':
      if (!Array.isArray(arg)) bad('struct');
      return new Struct(arg.map((f) => buildField(f as VectorField)));
    default:
      return bad('unknown type');
  }
}

function metadataMap(m: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (m === undefined || m === null) return out;
  if (!isRecord(m)) bad('metadata');
  for (const [k, v] of Object.entries(m)) out.set(k, String(v));
  return out;
}

/** Builds an Arrow field of a vector field description. */
export function buildField(f: VectorField): Field {
  if (!isRecord(f) || typeof f.name !== 'string') bad('field');
  const tzField: unknown = (f as unknown as Record<string, unknown>).timezone;
  const tz = typeof tzField === 'string' ? tzField : null;
  return new Field(f.name, buildType(f.type, tz), f.nullable === true, metadataMap(f.metadata));
}

// ---- cell values → Arrow Data ----------------------------------------------------------

function validity(cells: readonly unknown[]): { bitmap: Uint8Array; nullCount: number } {
  const bitmap = new Uint8Array(Math.ceil(cells.length / 8) || 1);
  let nullCount = 0;
  cells.forEach((c, i) => {
    if (c === null || c === undefined) nullCount++;
    else bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
  });
  return { bitmap, nullCount };
}

function floatBits(cell: unknown, width: number): Uint8Array {
  const out = new Uint8Array(width);
  const dv = new DataView(out.buffer);
  if (typeof cell === 'string' && cell.startsWith('bits:')) {
    const be = fromHex(cell.slice(5));
    if (be.length !== width) bad('float bits width');
    for (let k = 0; k < width; k++) out[k] = be[width - 1 - k] as number;
    return out;
  }
  const x = typeof cell === 'number' ? cell : cell === '-0' ? -0 : Number(cell);
  if (width === 8) dv.setFloat64(0, x, true);
  else if (width === 4) dv.setFloat32(0, x, true);
  else {
    // Float16 cells other than raw bits: exact for values representable in half precision.
    const f32 = new DataView(new ArrayBuffer(4));
    f32.setFloat32(0, x);
    const b = f32.getUint32(0);
    const sign = (b >>> 16) & 0x8000;
    const exp = ((b >>> 23) & 0xff) - 127 + 15;
    const mant = (b >>> 13) & 0x3ff;
    let h: number;
    if (Number.isNaN(x)) h = 0x7e00;
    else if (x === 0) h = sign;
    else if (exp >= 31) h = sign | 0x7c00;
    else if (exp <= 0) h = sign;
    else h = sign | (exp << 10) | mant;
    dv.setUint16(0, h, true);
  }
  return out;
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

function cellBytes(cell: unknown, text: boolean): Uint8Array {
  if (isRecord(cell) && typeof cell.bytes_hex === 'string') return fromHex(cell.bytes_hex);
  if (typeof cell !== 'string') bad('text/binary cell');
  return text ? new TextEncoder().encode(cell) : fromHex(cell);
}

function bigintLE(v: bigint, width: number): Uint8Array {
  const out = new Uint8Array(width);
  let x = BigInt.asUintN(width * 8, v);
  for (let k = 0; k < width; k++) {
    out[k] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function toBig(cell: unknown): bigint {
  if (typeof cell === 'number' || typeof cell === 'string' || typeof cell === 'bigint') return BigInt(cell);
  return bad('integer cell');
}

/** Builds one Arrow `Data` of `type` from vector cells (nulls are `null`). */
export function buildData(type: DataType, cells: readonly unknown[], dictionary?: readonly unknown[]): Data {
  const length = cells.length;
  const { bitmap, nullCount } = validity(cells);
  const base = { type, length, nullCount, nullBitmap: nullCount > 0 ? bitmap : undefined } as const;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const mk = (props: Record<string, unknown>): Data => makeData({ ...base, ...props } as any) as Data;
  const fixed = (width: number, write: (cell: unknown) => Uint8Array): Uint8Array => {
    const out = new Uint8Array(length * width);
    cells.forEach((c, i) => {
      if (c !== null && c !== undefined) out.set(write(c), i * width);
    });
    return out;
  };
  const t = type as DataType & Record<string, unknown>;
  switch (type.typeId) {
    case Type.Null:
      return makeData({ type: type as Null, length });
    case Type.Bool: {
      const bits = new Uint8Array(Math.ceil(length / 8) || 1);
      cells.forEach((c, i) => {
        if (c === true) bits[i >> 3] = (bits[i >> 3] as number) | (1 << (i & 7));
      });
      return mk({ data: bits });
    }
    case Type.Int: {
      const width = (t.bitWidth as number) >> 3;
      const bytes = fixed(width, (c) => bigintLE(toBig(c), width));
      return mk({ data: new (type.ArrayType as new (b: ArrayBufferLike) => ArrayLike<number>)(bytes.buffer) });
    }
    case Type.Float: {
      const width = t.precision === 0 ? 2 : t.precision === 1 ? 4 : 8;
      const bytes = fixed(width, (c) => floatBits(c, width));
      const data = width === 2 ? new Uint16Array(bytes.buffer) : width === 4 ? new Float32Array(bytes.buffer) : new Float64Array(bytes.buffer);
      return mk({ data });
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary: {
      const text = type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8;
      const parts = cells.map((c) => (c === null || c === undefined ? new Uint8Array(0) : cellBytes(c, text)));
      const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
      const offsets = large ? new BigInt64Array(length + 1) : new Int32Array(length + 1);
      let pos = 0;
      parts.forEach((p, i) => {
        pos += p.length;
        if (large) (offsets as BigInt64Array)[i + 1] = BigInt(pos);
        else (offsets as Int32Array)[i + 1] = pos;
      });
      return mk({ valueOffsets: offsets, data: concatBytes(parts) });
    }
    case Type.FixedSizeBinary: {
      const width = t.byteWidth as number;
      return mk({
        data: fixed(width, (c) => {
          const b = typeof c === 'string' && width === 16 && c.length === 36 ? parseUuid(c) : cellBytes(c, false);
          if (b.length !== width) bad('fixed_size_binary width');
          return b;
        }),
      });
    }
    case Type.Decimal: {
      const width = (t.bitWidth as number) >> 3;
      return mk({ data: new Uint32Array(fixed(width, (c) => bigintLE(toBig(c), width)).buffer) });
    }
    case Type.Date:
      if (t.unit === 0) return mk({ data: Int32Array.from(cells, (c) => Number(c ?? 0)) });
      return mk({ data: BigInt64Array.from(cells, (c) => (c === null || c === undefined ? 0n : toBig(c))) });
    case Type.Time:
      if (t.bitWidth === 32) return mk({ data: Int32Array.from(cells, (c) => Number(c ?? 0)) });
      return mk({ data: BigInt64Array.from(cells, (c) => (c === null || c === undefined ? 0n : toBig(c))) });
    case Type.Timestamp:
    case Type.Duration:
      return mk({ data: BigInt64Array.from(cells, (c) => (c === null || c === undefined ? 0n : toBig(c))) });
    case Type.Interval: {
      if (t.unit === 0) return mk({ data: Int32Array.from(cells, (c) => Number(c ?? 0)) });
      if (t.unit === 1) {
        const out = new Int32Array(length * 2);
        cells.forEach((c, i) => {
          if (Array.isArray(c)) out.set([Number(c[0]), Number(c[1])], 2 * i);
        });
        return mk({ data: out });
      }
      const out = new Int32Array(length * 4);
      const dv = new DataView(out.buffer);
      cells.forEach((c, i) => {
        if (!Array.isArray(c)) return;
        dv.setInt32(16 * i, Number(c[0]), true);
        dv.setInt32(16 * i + 4, Number(c[1]), true);
        dv.setBigInt64(16 * i + 8, toBig(c[2]), true);
      });
      return mk({ data: out });
    }
    case Type.List:
    case Type.LargeList:
    case Type.Map: {
      const isMap = type.typeId === Type.Map;
      const items: unknown[] = [];
      const large = type.typeId === Type.LargeList;
      const offsets = large ? new BigInt64Array(length + 1) : new Int32Array(length + 1);
      cells.forEach((c, i) => {
        if (c !== null && c !== undefined) {
          if (!Array.isArray(c)) bad('list cell');
          items.push(...(c as unknown[]));
        }
        if (large) (offsets as BigInt64Array)[i + 1] = BigInt(items.length);
        else (offsets as Int32Array)[i + 1] = items.length;
      });
      const childField = type.children[0] as Field;
      const child = buildData(childField.type, isMap ? items.map((p) => (Array.isArray(p) ? p : bad('map entry'))) : items);
      return mk({ valueOffsets: offsets, child });
    }
    case Type.FixedSizeList: {
      const size = t.listSize as number;
      const items: unknown[] = [];
      for (const c of cells) {
        if (c === null || c === undefined) items.push(...new Array<unknown>(size).fill(null));
        else if (!Array.isArray(c) || c.length !== size) bad('fixed_size_list cell');
        else items.push(...(c as unknown[]));
      }
      return mk({ child: buildData((type.children[0] as Field).type, items) });
    }
    case Type.Struct: {
      const fields = type.children as Field[];
      const children = fields.map((f, k) =>
        buildData(
          f.type,
          cells.map((c) => {
            if (c === null || c === undefined) return null;
            if (Array.isArray(c)) return c[k] as unknown;
            if (isRecord(c)) return c[f.name];
            return bad('struct cell');
          }),
        ),
      );
      return mk({ children });
    }
    case Type.Dictionary: {
      const dt = type as unknown as Dictionary;
      if (!dictionary) bad('dictionary values');
      const values = makeVector(buildData(dt.dictionary, dictionary));
      const width = dt.indices.bitWidth >> 3;
      const bytes = fixed(width, (c) => bigintLE(toBig(c), width));
      return mk({ data: new (dt.indices.ArrayType as new (b: ArrayBufferLike) => ArrayLike<number>)(bytes.buffer), dictionary: values });
    }
    default:
      return mk({});
  }
}

/** Builds a schema of vector fields and schema metadata. */
export function buildSchema(fields: readonly VectorField[], metadata?: Readonly<Record<string, string>>): Schema {
  if (!Array.isArray(fields)) bad('fields');
  return new Schema(fields.map(buildField), metadataMap(metadata));
}

/** Builds the Arrow table of a `table` source case, one record batch per vector batch. */
export function buildTable(c: VectorSourceCase): Table {
  const schema = buildSchema(c.fields, c.metadata);
  const batches = (c.batches ?? []).map((rows) => {
    if (!Array.isArray(rows)) bad('batch');
    const children = schema.fields.map((f, k) =>
      buildData(
        f.type,
        rows.map((r) => (Array.isArray(r) ? (r[k] as unknown) : bad('row'))),
        c.dictionaries?.[f.name],
      ),
    );
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
  });
  return new Table(schema, batches);
}

/** Canonical payload of one source case: table bytes or schema bytes. */
export function sourceCasePayload(c: VectorSourceCase, options?: CanonicalOptions): Uint8Array {
  if (!isRecord(c)) bad('source case');
  if (c.kind === 'schema') return canonicalSchemaBytes(buildSchema(c.fields, c.metadata), options);
  if (c.kind === 'table') return canonicalTableBytes(buildTable(c), options);
  return bad('source case kind');
}

/** Computes payload hex, SHA-256 of the envelope and its UUIDv8 for one case. */
export function computeCase(domain: string, c: VectorSourceCase): CaseResult {
  assertDomainTag(domain);
  const payload = sourceCasePayload(c, { domain });
  const digest = fingerprint(domain, payload);
  return { canonical_payload_hex: toHex(payload), sha256: toHex(digest), uuid_v8: uuidV8(digest) };
}

const LIMIT_ALIASES: Readonly<Record<string, keyof typeof CANONICAL_LIMITS>> = {
  nesting_depth: 'maxDepth',
  depth: 'maxDepth',
  struct_fields: 'maxStructFields',
  fields_per_struct: 'maxStructFields',
  metadata_entries: 'maxMetadataEntries',
  utf8_bytes: 'maxUtf8Bytes',
  utf8_value_bytes: 'maxUtf8Bytes',
  binary_bytes: 'maxBinaryBytes',
  binary_value_bytes: 'maxBinaryBytes',
  list_elements: 'maxListElements',
  map_entries: 'maxListElements',
  rows: 'maxRows',
  payload_bytes: 'maxPayloadBytes',
};

/**
 * Constructs the offending input of a negative vector and encodes it.
 *
 * Shapes: `{ type, value | bytes_hex, timezone? }` (one non-nullable cell of
 * that type), `{ field, value }` (one cell of that field), `{ type }` alone
 * (the type in a nullable field of an empty table), and a simulated size
 * `{ limit, size }` checked against the contract limit of that name.
 * Returns normally only if the input encodes.
 */
export function runNegativeSource(source: unknown): void {
  if (!isRecord(source)) bad('negative source');
  if (typeof source.limit === 'string') {
    const key = LIMIT_ALIASES[source.limit] ?? bad('limit name');
    const size = Number(source.size);
    if (size > CANONICAL_LIMITS[key]) {
      throw new GfError('GF_CANONICAL_LIMIT', 'simulated size exceeds the canonical limit', {
        limit_kind: source.limit,
        size,
        limit: CANONICAL_LIMITS[key],
      });
    }
    return;
  }
  let field: VectorField;
  let cells: unknown[];
  if (isRecord(source.field)) {
    field = source.field as unknown as VectorField;
    cells = ['value' in source || 'bytes_hex' in source ? cellOf(source) : null];
  } else if (source.type !== undefined) {
    const hasValue = 'value' in source || 'bytes_hex' in source;
    field = {
      name: 'value',
      nullable: !hasValue,
      type: source.type,
      ...(typeof source.timezone === 'string' ? { timezone: source.timezone } : {}),
    } as VectorField;
    cells = hasValue ? [cellOf(source)] : [];
  } else {
    return bad('negative source shape');
  }
  const schema = new Schema([buildField(field)]);
  const data = buildData((schema.fields[0] as Field).type, cells);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: cells.length, nullCount: 0, children: [data] }));
  canonicalSchemaBytes(schema);
  canonicalTableBytes(new Table(schema, [batch]));
}

function cellOf(source: Record<string, unknown>): unknown {
  if (typeof source.bytes_hex === 'string') return { bytes_hex: source.bytes_hex };
  return source.value;
}

function errorCode(e: unknown): GfCode {
  if (isGfError(e)) return e.code;
  throw e;
}

/**
 * Computes every vector of a golden-vector file, judging nothing.
 *
 * Positive vectors give one result per source case, in order (a case that
 * fails gives `{ error }`); negative vectors give the error code their input
 * produces, or `null` if it encodes.
 */
export function computeVectors(file: unknown): readonly VectorResult[] {
  if (!isRecord(file)) bad('file');
  const out: VectorResult[] = [];
  const positives = file.vectors ?? [];
  const negatives = file.negative_vectors ?? [];
  if (!Array.isArray(positives) || !Array.isArray(negatives)) bad('vector lists');
  for (const v of positives as unknown[]) {
    if (!isRecord(v) || typeof v.id !== 'string' || !Array.isArray(v.source_cases)) bad('vector');
    const domain = v.domain;
    const cases = (v.source_cases as unknown[]).map((c) => {
      try {
        return computeCase(String(domain), c as VectorSourceCase);
      } catch (e) {
        return { error: errorCode(e) };
      }
    });
    out.push({ id: v.id, cases });
  }
  for (const v of negatives as unknown[]) {
    if (!isRecord(v) || typeof v.id !== 'string') bad('negative vector');
    try {
      runNegativeSource(v.source);
      out.push({ id: v.id, error: null });
    } catch (e) {
      out.push({ id: v.id, error: errorCode(e) });
    }
  }
  return out;
}
