import {
  Field,
  Int32,
  Schema,
  Table,
  Utf8,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
  Dictionary,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  canonicalSchemaBytes,
  canonicalTableBytes,
  fingerprint,
  recordFingerprints,
  recordFingerprintsHex,
  rowCanonicalBytes,
  tableFingerprint,
  toHex,
  projectDomain,
} from '../../../../core/canonical';
import { buildTable } from '../../../../core/canonical/golden-vectors';
import type { VectorField } from '../../../../core/canonical/golden-vectors';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

function table(type: unknown, cells: readonly unknown[], nullable = true, dictionaries?: Record<string, unknown[]>): Table {
  return buildTable({
    kind: 'table',
    fields: [{ name: 'v', nullable, type }],
    batches: [cells.map((c) => [c])],
    ...(dictionaries ? { dictionaries } : {}),
  });
}

/** Hex of the canonical row values of a one-column table (presence bytes included). */
function body(type: unknown, cells: readonly unknown[], nullable = true): string {
  return toHex(rowCanonicalBytes(table(type, cells, nullable)).bytes);
}

describe('canonical values per type', () => {
  it.each([
    ['int8', [-1, 5], '01ff' + '0105'],
    ['int16', [-2], '01fffe'],
    ['int32', [1], '0100000001'],
    ['int64', ['-9223372036854775808'], '018000000000000000'],
    ['uint8', [255], '01ff'],
    ['uint16', [258], '010102'],
    ['uint32', [4294967295], '01ffffffff'],
    ['uint64', ['18446744073709551615'], '01ffffffffffffffff'],
    ['bool', [true, false, null], '0101' + '0100' + '00'],
    ['float64', [1.5, 'bits:8000000000000000', 'bits:fff0000000000001'], '013ff8000000000000' + '010000000000000000' + '017ff8000000000000'],
    ['float32', [-1, 'bits:80000000', 'bits:ffc00001'], '01bf800000' + '0100000000' + '017fc00000'],
    ['float16', ['bits:3c00', 'bits:8000', 'bits:fe01'], '013c00' + '010000' + '017e00'],
    ['utf8', ['é', ''], '010000000000000002c3a9' + '010000000000000000'],
    ['large_utf8', ['é'], '010000000000000002c3a9'],
    ['binary', ['00ff'], '01000000000000000200ff'],
    ['large_binary', ['00ff'], '01000000000000000200ff'],
    [{ fixed_size_binary: 2 }, ['beef'], '01beef'],
    ['date32', [-1], '01ffffffff'],
    ['date64', [86400000 * 2], '0100000002'],
    ['time_second', [1], '0100000000000f4240'],
    ['time_millisecond', [1], '0100000000000003e8'],
    ['time_microsecond', [1], '010000000000000001'],
    ['time_nanosecond', [3000], '010000000000000003'],
    [{ timestamp: { unit: 'second', timezone: 'UTC' } }, [-1], '01fffffffffff0bdc0'],
    [{ timestamp: { unit: 'millisecond', timezone: 'Etc/UTC' } }, [2], '0100000000000007d0'],
    [{ timestamp: { unit: 'microsecond', timezone: 'Z' } }, [7], '010000000000000007'],
    [{ timestamp: { unit: 'nanosecond', timezone: '+00:00' } }, [-5000], '01fffffffffffffffb'],
    ['timestamp_microsecond', [7], '010000000000000007'],
    ['duration_millisecond', [-1], '01fffffffffffffc18'],
    ['duration_nanosecond', [1000], '010000000000000001'],
    ['interval_year_month', [-13], '01fffffff3'],
    ['interval_day_time', [[2, 5]], '0100000002' + '0000000000001388'],
    ['interval_month_day_nano', [[1, 2, 3000]], '0100000001' + '00000002' + '0000000000000003'],
    [{ decimal128: { precision: 10, scale: 2 } }, ['-1'], '01' + 'ff'.repeat(16)],
    [{ decimal256: { precision: 40, scale: -3 } }, ['258'], '01' + '00'.repeat(30) + '0102'],
    ['null', [null], '00'],
  ])('%j', (type, cells, hex) => {
    expect(body(type, cells)).toBe(hex);
  });

  it('lists and large lists: u64 count + element positions', () => {
    const child = { name: 'item', nullable: true, type: 'int16' };
    const hex = '01' + '0000000000000002' + '010001' + '00' + '00' + '01' + '0000000000000000';
    expect(body({ list: child }, [[1, null], null, []])).toBe(hex);
    expect(body({ large_list: child }, [[1, null], null, []])).toBe(hex);
  });

  it('fixed-size lists: elements only', () => {
    expect(body({ fixed_size_list: { size: 2, field: { name: 'item', nullable: false, type: 'int8' } } }, [[1, 2], null])).toBe(
      '01' + '0101' + '0102' + '00',
    );
  });

  it('structs: children in schema order; a null struct skips its children', () => {
    const type = { struct: [{ name: 'b', nullable: true, type: 'int8' }, { name: 'a', nullable: false, type: 'utf8' }] };
    expect(body(type, [[7, 'x'], null, [null, '']])).toBe(
      '01' + '0107' + '01000000000000000178' + '00' + '01' + '00' + '010000000000000000',
    );
  });

  it('maps: entries sorted by complete canonical key bytes (length prefix included), whatever the input order', () => {
    const type = { map: { key: 'utf8', value: 'int8', value_nullable: true } };
    const sorted = body(type, [[['a', 1], ['b', null], ['ab', 3]]]);
    expect(sorted).toBe(
      '01' + '0000000000000003' +
        '01000000000000000161' + '0101' +
        '01000000000000000162' + '00' +
        '0100000000000000026162' + '0103',
    );
    expect(body(type, [[['ab', 3], ['b', null], ['a', 1]]])).toBe(sorted);
  });

  it('maps: duplicate canonical keys are GF_CANONICAL_ENCODING, a null key GF_CANONICAL_NULLABILITY', () => {
    const type = { map: { key: 'utf8', value: 'int8', value_nullable: true } };
    expect(codeOf(() => body(type, [[['a', 1], ['a', 2]]]))).toBe('GF_CANONICAL_ENCODING');
    expect(codeOf(() => body(type, [[[null, 1]]]))).toBe('GF_CANONICAL_NULLABILITY');
  });

  it('dictionary columns encode as their decoded values, null dictionary entries included', () => {
    const dict = { dictionary: { index: 'int8', value: 'utf8' } };
    const t = table(dict, [1, 0, null, 2, 1], true, { v: ['x', 'y', null] });
    expect(toHex(rowCanonicalBytes(t).bytes)).toBe(body('utf8', ['y', 'x', null, null, 'y']));
    expect(toHex(canonicalTableBytes(t))).toBe(toHex(canonicalTableBytes(table('utf8', ['y', 'x', null, null, 'y']))));
    const nonNull = table(dict, [2], false, { v: ['x', 'y', null] });
    expect(codeOf(() => canonicalTableBytes(nonNull))).toBe('GF_CANONICAL_NULLABILITY');
    const outOfRange = table(dict, [5], true, { v: ['x'] });
    expect(codeOf(() => canonicalTableBytes(outOfRange))).toBe('GF_CANONICAL_ENCODING');
  });

  it.each([
    ['date64 not a whole day', 'date64', [1]],
    ['nanosecond timestamp with remainder', { timestamp: { unit: 'nanosecond', timezone: 'UTC' } }, [1001]],
    ['second timestamp overflowing i64 µs', { timestamp: { unit: 'second', timezone: 'UTC' } }, ['9223372036854775807']],
    ['negative time', 'time_second', [-1]],
    ['sub-µs duration', 'duration_nanosecond', [1]],
    ['sub-µs month-day-nano interval', 'interval_month_day_nano', [[0, 0, 1]]],
  ])('%s is GF_CANONICAL_TEMPORAL', (_n, type, cells) => {
    expect(codeOf(() => body(type, cells))).toBe('GF_CANONICAL_TEMPORAL');
  });

  it('a non-UTC timezone is GF_CANONICAL_TEMPORAL', () => {
    expect(codeOf(() => body({ timestamp: { unit: 'microsecond', timezone: 'Europe/Paris' } }, [1]))).toBe('GF_CANONICAL_TEMPORAL');
  });

  it('null in a non-nullable nested position is GF_CANONICAL_NULLABILITY', () => {
    const type = { list: { name: 'item', nullable: false, type: 'int8' } };
    expect(codeOf(() => body(type, [[1, null]]))).toBe('GF_CANONICAL_NULLABILITY');
    expect(codeOf(() => body('int8', [null], false))).toBe('GF_CANONICAL_NULLABILITY');
    expect(codeOf(() => body('null', [null], false))).toBe('GF_CANONICAL_NULLABILITY');
  });

  it('invalid UTF-8 is GF_CANONICAL_UTF8, also behind valid values, but not in null slots of binary', () => {
    expect(codeOf(() => body('utf8', ['ok', { bytes_hex: 'c328' }]))).toBe('GF_CANONICAL_UTF8');
    // 'c3' + 'a9' split across two values: the concatenation is valid, each value is not.
    expect(codeOf(() => body('utf8', [{ bytes_hex: 'c3' }, { bytes_hex: 'a9' }]))).toBe('GF_CANONICAL_UTF8');
    expect(body('binary', ['c328'])).toBe('010000000000000002c328');
  });

  it('a row-level error names the table row', () => {
    try {
      canonicalTableBytes(buildTable({ kind: 'table', fields: [{ name: 'x', nullable: false, type: 'int8' }], batches: [[[1]], [[2], [null]]] }));
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe('GF_CANONICAL_NULLABILITY');
      expect((e as { details: unknown }).details).toMatchObject({ position: 'x', row: 2 });
    }
  });

  it('errors carry code, position and batch/row, never values', () => {
    try {
      canonicalTableBytes(
        buildTable({
          kind: 'table',
          fields: [{ name: 'secret_col', nullable: false, type: 'utf8' }],
          batches: [[['visible-value']], [['hidden-value'], [{ bytes_hex: 'ff' }]]],
        }),
        { domain: 'graphforge/arrow-result' },
      );
      expect.unreachable();
    } catch (e) {
      const err = e as { code: string; details: Record<string, unknown>; message: string };
      expect(err.code).toBe('GF_CANONICAL_UTF8');
      expect(err.details).toMatchObject({ position: 'secret_col', batch: 1, index: 1, contract_version: 1, domain: 'graphforge/arrow-result' });
      expect(JSON.stringify(err.details) + err.message).not.toMatch(/visible|hidden|\bff\b/);
    }
  });
});

describe('table bytes, row bytes and record fingerprints', () => {
  const fields: VectorField[] = [
    { name: 'id', nullable: false, type: { fixed_size_binary: 16 } },
    { name: 'label', nullable: true, type: 'utf8' },
    { name: 'props', nullable: true, type: { map: { key: 'utf8', value: 'utf8', value_nullable: true } } },
  ];
  const rows = [
    ['018f47d2-a1b2-7c3d-8e4f-001122334455', 'a', [['k', 'v']]],
    ['018f47d2-a1b2-7c3d-8e4f-001122334456', null, null],
    ['018f47d2-a1b2-7c3d-8e4f-001122334457', 'c', []],
  ];
  const t = buildTable({ kind: 'table', fields, batches: [rows.slice(0, 2), rows.slice(2)] });

  it('row bytes concatenate to the table body', () => {
    const full = canonicalTableBytes(t);
    const { bytes, offsets } = rowCanonicalBytes(t);
    expect(offsets).toHaveLength(4);
    expect(offsets[0]).toBe(0);
    expect(offsets[3]).toBe(bytes.length);
    expect(toHex(full).endsWith(toHex(bytes))).toBe(true);
    expect(full.length - bytes.length).toBe(4 + 8 + canonicalSchemaBytes(t.schema).length + 8);
  });

  it('a record fingerprint is the envelope over the one-row table', () => {
    const domain = projectDomain('graph_node');
    const fps = recordFingerprints(t, domain);
    expect(fps).toHaveLength(3 * 32);
    rows.forEach((r, k) => {
      const one = buildTable({ kind: 'table', fields, batches: [[r]] });
      expect(toHex(fps.subarray(k * 32, k * 32 + 32))).toBe(toHex(fingerprint(domain, canonicalTableBytes(one))));
    });
    expect(recordFingerprintsHex(t, domain)[2]).toBe(toHex(fps.subarray(64, 96)));
    expect(new Set(recordFingerprintsHex(t, domain)).size).toBe(3);
  });

  it('tableFingerprint is the envelope over the table bytes', () => {
    expect(toHex(tableFingerprint(t, 'graphforge/arrow-result'))).toBe(
      toHex(fingerprint('graphforge/arrow-result', canonicalTableBytes(t))),
    );
  });

  it('physical layout never matters: slices, IPC round trip, Arrow-built columns', () => {
    const bytes = toHex(canonicalTableBytes(t));
    expect(toHex(canonicalTableBytes(tableFromIPC(tableToIPC(t))))).toBe(bytes);
    const bigger = buildTable({ kind: 'table', fields, batches: [[rows[2] as unknown[], ...rows, rows[0] as unknown[]]] });
    expect(toHex(canonicalTableBytes(bigger.slice(1, 4)))).toBe(bytes);
    // Columns built by apache-arrow itself (its own builders and dictionary encoding).
    const schema = new Schema([new Field('n', new Int32(), true), new Field('s', new Utf8(), true)]);
    const ours = buildTable({
      kind: 'table',
      fields: [
        { name: 'n', nullable: true, type: 'int32' },
        { name: 's', nullable: true, type: 'utf8' },
      ],
      batches: [[[1, 'x'], [null, null], [3, 'x']]],
    });
    const theirs = new Table(schema, [
      new Table({ n: vectorFromArray([1, null, 3], new Int32()), s: vectorFromArray(['x', null, 'x'], new Utf8()) }).batches[0] as never,
    ]);
    expect(toHex(canonicalTableBytes(theirs))).toBe(toHex(canonicalTableBytes(ours)));
    const dict = new Table({ n: vectorFromArray([1, null, 3], new Int32()), s: vectorFromArray(['x', null, 'x'], new Dictionary(new Utf8(), new Int32())) });
    expect(toHex(rowCanonicalBytes(dict).bytes)).toBe(toHex(rowCanonicalBytes(ours).bytes));
  });

  it('schema-level errors also name the domain', () => {
    const bad = buildTable({ kind: 'table', fields: [{ name: 't', nullable: true, type: { timestamp: { unit: 'second', timezone: 'Asia/Tokyo' } } }], batches: [] });
    for (const run of [
      () => recordFingerprints(bad, 'graphforge/arrow-result'),
      () => canonicalTableBytes(bad, { domain: 'graphforge/arrow-result' }),
      () => rowCanonicalBytes(bad, { domain: 'graphforge/arrow-result' }),
    ]) {
      try {
        run();
        expect.unreachable();
      } catch (e) {
        expect((e as { code: string }).code).toBe('GF_CANONICAL_TEMPORAL');
        expect((e as { details: unknown }).details).toMatchObject({ domain: 'graphforge/arrow-result', position: 't', contract_version: 1 });
      }
    }
  });

  it('an unknown domain is GF_CANONICAL_DOMAIN', () => {
    expect(codeOf(() => recordFingerprints(t, 'graphforge/nope' as never))).toBe('GF_CANONICAL_DOMAIN');
  });
});
