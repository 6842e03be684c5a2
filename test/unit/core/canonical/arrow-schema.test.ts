import { BinaryView, DenseUnion, Dictionary, Field, Int32, Int8, Schema, SparseUnion, Struct, TimestampMicrosecond, Utf8, Utf8View, List } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { canonicalSchemaBytes, fingerprintPreimage, schemaFingerprint, sha256Hex, toHex } from '../../../../core/canonical';
import { buildSchema } from '../../../../core/canonical/golden-vectors';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

/** Hex of the data-type bytes of a single field `v` (between the nullable byte and the field metadata). */
function typeHex(type: unknown, nullable = true): string {
  const hex = toHex(canonicalSchemaBytes(buildSchema([{ name: 'v', nullable, type }])));
  // GFS1 + u32 count + u64 1 + 'v' + nullable byte = 8 + 8 + 16 + 2 + 2 hex chars; trailing field + schema metadata counts.
  return hex.slice(36, hex.length - 16);
}

describe('canonical schema bytes', () => {
  it.each([
    ['null', '01'],
    ['bool', '02'],
    ['int8', '10'],
    ['int16', '11'],
    ['int32', '12'],
    ['int64', '13'],
    ['uint8', '14'],
    ['uint16', '15'],
    ['uint32', '16'],
    ['uint64', '17'],
    ['float16', '20'],
    ['float32', '21'],
    ['float64', '22'],
    ['utf8', '30'],
    ['large_utf8', '30'],
    ['binary', '31'],
    ['large_binary', '31'],
    [{ fixed_size_binary: 16 }, '3200000010'],
    [{ decimal128: { precision: 38, scale: -2 } }, '4026fe'],
    [{ decimal256: { precision: 76, scale: 10 } }, '414c0a'],
    ['date32', '50'],
    ['date64', '50'],
    ['time_second', '51'],
    ['time_nanosecond', '51'],
    ['timestamp_microsecond', '5200'],
    [{ timestamp: { unit: 'nanosecond', timezone: 'UTC' } }, '5201'],
    [{ timestamp: { unit: 'second', timezone: 'Etc/UTC' } }, '5201'],
    ['duration_second', '53'],
    ['interval_year_month', '54'],
    ['interval_day_time', '55'],
    ['interval_month_day_nano', '56'],
    [{ dictionary: { index: 'int16', value: 'utf8' } }, '30'],
  ])('type %j → %s', (type, hex) => {
    expect(typeHex(type)).toBe(hex);
  });

  it('nested types carry their child fields', () => {
    const item = '0000000000000004' + '6974656d' + '00' + '10' + '00000000';
    expect(typeHex({ list: { name: 'item', nullable: false, type: 'int8' } })).toBe('60' + item);
    expect(typeHex({ large_list: { name: 'item', nullable: false, type: 'int8' } })).toBe('60' + item);
    expect(typeHex({ fixed_size_list: { size: 3, field: { name: 'item', nullable: false, type: 'int8' } } })).toBe('6100000003' + item);
    expect(typeHex({ struct: [{ name: 'item', nullable: false, type: 'int8' }] })).toBe('6200000001' + item);
    expect(typeHex({ map: { key: 'utf8', value: 'int8', value_nullable: true } })).toBe(
      '63' + '0000000000000003' + '6b6579' + '00' + '30' + '00000000' + '0000000000000005' + '76616c7565' + '01' + '10' + '00000000',
    );
  });

  it('only graphforge.contract.* metadata participates, sorted by key bytes', () => {
    const a = buildSchema(
      [{ name: 'x', nullable: false, type: 'int8', metadata: { 'graphforge.contract.z': '1', 'graphforge.contract.a': '2', producer: 'p' } }],
      { 'graphforge.contract.k': 'v', 'build-time': 'now' },
    );
    const b = buildSchema(
      [{ name: 'x', nullable: false, type: 'int8', metadata: { 'graphforge.contract.a': '2', 'graphforge.contract.z': '1' } }],
      { 'graphforge.contract.k': 'v' },
    );
    expect(toHex(canonicalSchemaBytes(a))).toBe(toHex(canonicalSchemaBytes(b)));
    const hex = toHex(canonicalSchemaBytes(a));
    expect(hex.indexOf(Buffer.from('graphforge.contract.a').toString('hex'))).toBeLessThan(
      hex.indexOf(Buffer.from('graphforge.contract.z').toString('hex')),
    );
    expect(hex).not.toContain(Buffer.from('producer').toString('hex'));
    const changed = buildSchema([{ name: 'x', nullable: false, type: 'int8', metadata: { 'graphforge.contract.a': '3', 'graphforge.contract.z': '1' } }], {
      'graphforge.contract.k': 'v',
    });
    expect(toHex(canonicalSchemaBytes(changed))).not.toBe(hex);
  });

  it('nullability, names and field order change the bytes', () => {
    const base = toHex(canonicalSchemaBytes(buildSchema([{ name: 'a', nullable: false, type: 'int8' }, { name: 'b', nullable: false, type: 'int8' }])));
    expect(toHex(canonicalSchemaBytes(buildSchema([{ name: 'b', nullable: false, type: 'int8' }, { name: 'a', nullable: false, type: 'int8' }])))).not.toBe(base);
    expect(toHex(canonicalSchemaBytes(buildSchema([{ name: 'a', nullable: true, type: 'int8' }, { name: 'b', nullable: false, type: 'int8' }])))).not.toBe(base);
  });

  it('schemaFingerprint is the graphforge/schema envelope (contract-metadata-only vector)', () => {
    const s = buildSchema([{ name: 'distance', nullable: false, type: 'int32', metadata: { 'graphforge.contract.unit': 'm', 'producer-build': 'abc' } }], {
      'generated-at': 'ignored',
    });
    expect(schemaFingerprint(s)).toBe('e3cfbdf0d4d79364efa384de57a3d6f7255e45c6edff9a0a116436c19e2570d5');
    expect(schemaFingerprint(s)).toBe(sha256Hex(fingerprintPreimage('graphforge/schema', canonicalSchemaBytes(s))));
  });

  it('timestamps: absent and UTC timezones differ; others are GF_CANONICAL_TEMPORAL', () => {
    const utc = (tz: string | null): string => toHex(canonicalSchemaBytes(new Schema([new Field('t', new TimestampMicrosecond(tz), false)])));
    expect(utc('UTC')).toBe(utc('+00:00'));
    expect(utc('Z')).toBe(utc('Etc/UTC'));
    expect(utc(null)).not.toBe(utc('UTC'));
    expect(codeOf(() => utc('America/New_York'))).toBe('GF_CANONICAL_TEMPORAL');
    expect(codeOf(() => utc('+01:00'))).toBe('GF_CANONICAL_TEMPORAL');
  });

  it.each([
    ['dense union', new DenseUnion([0], [new Field('a', new Int32(), true)])],
    ['sparse union', new SparseUnion([0], [new Field('a', new Int32(), true)])],
    ['utf8 view', new Utf8View()],
    ['binary view', new BinaryView()],
    ['union inside a list', new List(new Field('item', new DenseUnion([0], [new Field('a', new Int32(), true)]), true))],
  ])('%s is GF_CANONICAL_ARROW_TYPE', (_n, type) => {
    expect(codeOf(() => canonicalSchemaBytes(new Schema([new Field('x', type, true)])))).toBe('GF_CANONICAL_ARROW_TYPE');
  });

  it('an unregistered extension type is GF_CANONICAL_ARROW_TYPE', () => {
    const f = new Field('x', new Int8(), true, new Map([['ARROW:extension:name', 'acme.thing']]));
    expect(codeOf(() => canonicalSchemaBytes(new Schema([f])))).toBe('GF_CANONICAL_ARROW_TYPE');
  });

  it('a dictionary field encodes as its value type', () => {
    const d = new Schema([new Field('s', new Dictionary(new Utf8(), new Int32()), true)]);
    const p = new Schema([new Field('s', new Utf8(), true)]);
    expect(toHex(canonicalSchemaBytes(d))).toBe(toHex(canonicalSchemaBytes(p)));
  });

  it('a field name with a lone surrogate is GF_CANONICAL_UTF8 (never replaced)', () => {
    expect(codeOf(() => canonicalSchemaBytes(new Schema([new Field('bad\uD800', new Int8(), true)])))).toBe('GF_CANONICAL_UTF8');
  });

  it('limits: depth, struct fields, metadata entries', () => {
    let type: Struct | Int8 = new Int8();
    for (let k = 0; k < 4; k++) type = new Struct([new Field('c', type, true)]);
    const deep = new Schema([new Field('x', type, true)]);
    expect(canonicalSchemaBytes(deep, { limits: { maxDepth: 5 } }).length).toBeGreaterThan(0);
    expect(codeOf(() => canonicalSchemaBytes(deep, { limits: { maxDepth: 4 } }))).toBe('GF_CANONICAL_LIMIT');
    const wide = new Schema([new Field('s', new Struct([0, 1, 2].map((k) => new Field(`f${k}`, new Int8(), true))), true)]);
    expect(codeOf(() => canonicalSchemaBytes(wide, { limits: { maxStructFields: 2 } }))).toBe('GF_CANONICAL_LIMIT');
    expect(codeOf(() => canonicalSchemaBytes(wide, { limits: { maxStructFields: 3 } }))).toBeUndefined();
    const meta = new Schema([new Field('x', new Int8(), true)], new Map([['graphforge.contract.a', '1'], ['graphforge.contract.b', '2'], ['other', '3']]));
    expect(codeOf(() => canonicalSchemaBytes(meta, { limits: { maxMetadataEntries: 1 } }))).toBe('GF_CANONICAL_LIMIT');
    expect(codeOf(() => canonicalSchemaBytes(meta, { limits: { maxMetadataEntries: 2 } }))).toBeUndefined();
  });
});
