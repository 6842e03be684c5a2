import { DateUnit, IntervalUnit, Precision, Type } from 'apache-arrow';
import type { DataType, Dictionary, Field, Schema } from 'apache-arrow';
import { canonicalError, checkLimit, resolveLimits } from './arrow-limits';
import type { CanonicalLimits, CanonicalOptions } from './arrow-limits';
import { ByteWriter } from './arrow-writer';
import { fingerprint } from './fingerprint';
import { toHex } from './hash';

/** Metadata key prefix that participates in canonical schema bytes. */
export const CONTRACT_METADATA_PREFIX = 'graphforge.contract.';

/**
 * Registered result metadata keys that participate besides `graphforge.contract.*`.
 *
 * The contract allows a short registered list; the project registers none yet.
 */
export const REGISTERED_RESULT_METADATA_KEYS: readonly string[] = [] as const;

/**
 * Registered Arrow extension types (`ARROW:extension:name`) with their versions.
 *
 * None are registered yet: a field carrying any extension name is
 * `GF_CANONICAL_ARROW_TYPE`, never silently encoded as its storage type.
 */
export const REGISTERED_EXTENSIONS: ReadonlyMap<string, number> = new Map();

/** Timezone spellings equivalent to UTC; any other timezone is refused. */
export const UTC_TIMEZONES = ['UTC', 'Etc/UTC', 'Z', '+00:00'] as const;

const EXTENSION_NAME_KEY = 'ARROW:extension:name';
const UTC_SET: ReadonlySet<string> = new Set(UTC_TIMEZONES);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const encoder = new TextEncoder();

/** UTF-8 bytes of a schema text; a lone surrogate is `GF_CANONICAL_UTF8`, never replaced. */
export function schemaTextBytes(text: string, position: string, limits: CanonicalLimits): Uint8Array {
  if (LONE_SURROGATE.test(text)) {
    throw canonicalError('GF_CANONICAL_UTF8', 'schema text is not valid Unicode', { position });
  }
  const b = encoder.encode(text);
  checkLimit('utf8_bytes', b.length, limits.maxUtf8Bytes, position);
  return b;
}

/** Whether a timestamp timezone is absent (`false`) or UTC (`true`); anything else throws. */
export function timestampIsUtc(tz: string | null | undefined, position: string): boolean {
  if (tz === null || tz === undefined || tz === '') return false;
  if (UTC_SET.has(tz)) return true;
  throw canonicalError('GF_CANONICAL_TEMPORAL', 'timestamp timezone is not UTC', { position });
}

function writeText(w: ByteWriter, text: string, position: string, limits: CanonicalLimits): void {
  const b = schemaTextBytes(text, position, limits);
  w.u64(b.length);
  w.bytes(b);
}

function participates(key: string): boolean {
  return key.startsWith(CONTRACT_METADATA_PREFIX) || REGISTERED_RESULT_METADATA_KEYS.includes(key);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function writeMetadata(
  w: ByteWriter,
  metadata: ReadonlyMap<string, string> | undefined,
  position: string,
  limits: CanonicalLimits,
): void {
  const entries: [Uint8Array, Uint8Array][] = [];
  if (metadata) {
    for (const [k, v] of metadata) {
      if (!participates(k)) continue;
      entries.push([schemaTextBytes(k, `${position}.metadata`, limits), schemaTextBytes(v, `${position}.metadata`, limits)]);
      checkLimit('metadata_entries', entries.length, limits.maxMetadataEntries, position);
    }
  }
  entries.sort((a, b) => compareBytes(a[0], b[0]));
  w.u32(entries.length);
  for (const [k, v] of entries) {
    w.u64(k.length);
    w.bytes(k);
    w.u64(v.length);
    w.bytes(v);
  }
}

function unsupported(type: DataType, position: string): never {
  throw canonicalError('GF_CANONICAL_ARROW_TYPE', 'Arrow type is not part of the canonical contract', {
    position,
    arrow_type_id: type.typeId,
  });
}

/**
 * Checks that a field is encodable (types, extensions, limits) without writing.
 *
 * Shared by schema and value compilation so both fail on the same inputs.
 */
export function checkField(field: Field, position: string, depth: number, limits: CanonicalLimits): void {
  checkLimit('nesting_depth', depth, limits.maxDepth, position);
  const ext = field.metadata.get(EXTENSION_NAME_KEY);
  if (ext !== undefined && !REGISTERED_EXTENSIONS.has(ext)) {
    throw canonicalError('GF_CANONICAL_ARROW_TYPE', 'unregistered Arrow extension type', { position });
  }
}

function writeField(w: ByteWriter, field: Field, position: string, depth: number, limits: CanonicalLimits): void {
  checkField(field, position, depth, limits);
  writeText(w, field.name, position, limits);
  w.u8(field.nullable ? 1 : 0);
  writeType(w, field.type, position, depth, limits);
  writeMetadata(w, field.metadata, position, limits);
}

function writeType(w: ByteWriter, type: DataType, position: string, depth: number, limits: CanonicalLimits): void {
  switch (type.typeId) {
    case Type.Null:
      w.u8(0x01);
      return;
    case Type.Bool:
      w.u8(0x02);
      return;
    case Type.Int: {
      const t = type as unknown as { bitWidth: number; isSigned: boolean };
      const k = [8, 16, 32, 64].indexOf(t.bitWidth);
      if (k < 0) unsupported(type, position);
      w.u8((t.isSigned ? 0x10 : 0x14) + k);
      return;
    }
    case Type.Float: {
      const p = (type as unknown as { precision: Precision }).precision;
      w.u8(p === Precision.HALF ? 0x20 : p === Precision.SINGLE ? 0x21 : 0x22);
      return;
    }
    case Type.Utf8:
    case Type.LargeUtf8:
      w.u8(0x30);
      return;
    case Type.Binary:
    case Type.LargeBinary:
      w.u8(0x31);
      return;
    case Type.FixedSizeBinary:
      w.u8(0x32);
      w.u32((type as unknown as { byteWidth: number }).byteWidth);
      return;
    case Type.Decimal: {
      const t = type as unknown as { bitWidth: number; precision: number; scale: number };
      if (t.bitWidth !== 128 && t.bitWidth !== 256) unsupported(type, position);
      w.u8(t.bitWidth === 128 ? 0x40 : 0x41);
      w.u8(t.precision);
      w.u8(t.scale & 0xff);
      return;
    }
    case Type.Date: {
      const unit = (type as unknown as { unit: DateUnit }).unit;
      if (unit !== DateUnit.DAY && unit !== DateUnit.MILLISECOND) unsupported(type, position);
      w.u8(0x50);
      return;
    }
    case Type.Time:
      w.u8(0x51);
      return;
    case Type.Timestamp: {
      const tz = (type as unknown as { timezone?: string | null }).timezone;
      w.u8(0x52);
      w.u8(timestampIsUtc(tz, position) ? 1 : 0);
      return;
    }
    case Type.Duration:
      w.u8(0x53);
      return;
    case Type.Interval: {
      const unit = (type as unknown as { unit: IntervalUnit }).unit;
      if (unit === IntervalUnit.YEAR_MONTH) w.u8(0x54);
      else if (unit === IntervalUnit.DAY_TIME) w.u8(0x55);
      else if (unit === IntervalUnit.MONTH_DAY_NANO) w.u8(0x56);
      else unsupported(type, position);
      return;
    }
    case Type.List:
    case Type.LargeList: {
      w.u8(0x60);
      const child = type.children[0] as Field;
      writeField(w, child, `${position}.${child.name}`, depth + 1, limits);
      return;
    }
    case Type.FixedSizeList: {
      w.u8(0x61);
      w.u32((type as unknown as { listSize: number }).listSize);
      const child = type.children[0] as Field;
      writeField(w, child, `${position}.${child.name}`, depth + 1, limits);
      return;
    }
    case Type.Struct: {
      const children = type.children as Field[];
      checkLimit('struct_fields', children.length, limits.maxStructFields, position);
      w.u8(0x62);
      w.u32(children.length);
      for (const c of children) writeField(w, c, `${position}.${c.name}`, depth + 1, limits);
      return;
    }
    case Type.Map: {
      const entries = type.children[0] as Field;
      const [key, value] = entries.type.children as [Field, Field];
      w.u8(0x63);
      writeField(w, key, `${position}.${key.name}`, depth + 1, limits);
      writeField(w, value, `${position}.${value.name}`, depth + 1, limits);
      return;
    }
    case Type.Dictionary:
      writeType(w, (type as unknown as Dictionary).dictionary, position, depth, limits);
      return;
    default:
      unsupported(type, position);
  }
}

/**
 * Canonical schema bytes (`GFS1`): fields in order, then schema metadata.
 *
 * Only `graphforge.contract.*` metadata participates; producer, build and
 * time metadata never changes the bytes. Dictionary fields encode as their
 * value type. Unsupported types are `GF_CANONICAL_ARROW_TYPE`.
 */
export function canonicalSchemaBytes(schema: Schema, options?: CanonicalOptions): Uint8Array {
  const limits = resolveLimits(options);
  const w = new ByteWriter(limits.maxPayloadBytes, 256);
  writeSchema(w, schema, limits);
  return w.toBytes();
}

/** Writes `GFS1…` into `w`. */
export function writeSchema(w: ByteWriter, schema: Schema, limits: CanonicalLimits): void {
  checkLimit('struct_fields', schema.fields.length, limits.maxStructFields, 'schema');
  w.bytes(GFS1);
  w.u32(schema.fields.length);
  for (const f of schema.fields) writeField(w, f, f.name, 1, limits);
  writeMetadata(w, schema.metadata, 'schema', limits);
}

const GFS1 = Uint8Array.of(0x47, 0x46, 0x53, 0x31);

/** Schema fingerprint: the `graphforge/schema` envelope over canonical schema bytes, 64 hex. */
export function schemaFingerprint(schema: Schema, options?: CanonicalOptions): string {
  return toHex(fingerprint('graphforge/schema', canonicalSchemaBytes(schema, options)));
}
