import { tableFromIPC, tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalTableBytes, fingerprint, recordFingerprints, toHex } from '../../../../core/canonical';
import type { CanonicalLimits } from '../../../../core/canonical';
import { buildTable } from '../../../../core/canonical/golden-vectors';
import type { VectorField, VectorSourceCase } from '../../../../core/canonical/golden-vectors';

const RUNS = { numRuns: 40 };

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

function f64Bits(x: number): string {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  return `bits:${dv.getBigUint64(0).toString(16).padStart(16, '0')}`;
}

interface Kind {
  readonly type: unknown;
  readonly cell: fc.Arbitrary<unknown>;
}

const text = fc.string({ unit: 'grapheme', maxLength: 6 });
const KINDS: readonly Kind[] = [
  { type: 'int32', cell: fc.integer() },
  { type: 'int64', cell: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
  { type: 'float64', cell: fc.double().map(f64Bits) },
  { type: 'utf8', cell: text },
  { type: 'bool', cell: fc.boolean() },
  { type: { fixed_size_binary: 16 }, cell: fc.uuid() },
  { type: { timestamp: { unit: 'microsecond', timezone: 'UTC' } }, cell: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).map(String) },
  { type: { list: { name: 'item', nullable: true, type: 'int16' } }, cell: fc.array(fc.option(fc.integer({ min: -32768, max: 32767 }), { nil: null }), { maxLength: 4 }) },
  {
    type: { struct: [{ name: 'a', nullable: true, type: 'int8' }, { name: 'b', nullable: false, type: 'utf8' }] },
    cell: fc.tuple(fc.option(fc.integer({ min: -128, max: 127 }), { nil: null }), text),
  },
  {
    type: { map: { key: 'utf8', value: 'int32', value_nullable: true } },
    cell: fc.uniqueArray(fc.tuple(text, fc.option(fc.integer(), { nil: null })), { selector: (e) => e[0], maxLength: 4 }),
  },
];

interface Generated {
  readonly fields: VectorField[];
  readonly rows: unknown[][];
}

const tableArb: fc.Arbitrary<Generated> = fc
  .array(fc.tuple(fc.integer({ min: 0, max: KINDS.length - 1 }), fc.boolean()), { minLength: 1, maxLength: 4 })
  .chain((cols) => {
    const fields = cols.map(([k, nullable], i) => ({ name: `c${i}`, nullable, type: (KINDS[k] as Kind).type }));
    const rowArb = fc.tuple(...cols.map(([k, nullable]) => (nullable ? fc.option((KINDS[k] as Kind).cell, { nil: null }) : (KINDS[k] as Kind).cell)));
    return fc.array(rowArb, { maxLength: 12 }).map((rows) => ({ fields, rows: rows.map((r) => [...r]) }));
  });

function source(g: Generated, batches: unknown[][][] = [g.rows]): VectorSourceCase {
  return { kind: 'table', fields: g.fields, batches };
}

function split<T>(rows: readonly T[], cuts: readonly number[]): T[][] {
  const points = [...new Set(cuts.map((c) => c % (rows.length + 1)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let prev = 0;
  for (const p of [...points, rows.length]) {
    out.push(rows.slice(prev, p));
    prev = p;
  }
  return out;
}

const hexOf = (c: VectorSourceCase, limits?: Partial<CanonicalLimits>): string =>
  toHex(canonicalTableBytes(buildTable(c), limits ? { limits } : undefined));

describe('canonical table bytes: properties', () => {
  it('batch boundaries, slicing and an IPC round trip never change the bytes', () => {
    fc.assert(
      fc.property(tableArb, fc.array(fc.nat(), { maxLength: 4 }), (g, cuts) => {
        const whole = hexOf(source(g));
        expect(hexOf(source(g, split(g.rows, cuts)))).toBe(whole);
        const t = buildTable(source(g, split(g.rows, cuts)));
        expect(toHex(canonicalTableBytes(tableFromIPC(tableToIPC(t))))).toBe(whole);
        if (g.rows.length > 0) {
          const padded = buildTable(source(g, [[...g.rows.slice(-1), ...g.rows, ...g.rows.slice(0, 1)]]));
          expect(toHex(canonicalTableBytes(padded.slice(1, 1 + g.rows.length)))).toBe(whole);
        }
      }),
      RUNS,
    );
  });

  it('dictionary encoding (any index width, order or unused entries) never changes the bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(text, { nil: null }), { maxLength: 12 }),
        fc.array(text, { maxLength: 3 }),
        fc.constantFrom('int8', 'int16', 'int32', 'int64', 'uint8', 'uint32'),
        fc.nat(),
        (cells, unused, index, seed) => {
          const plain = hexOf({ kind: 'table', fields: [{ name: 'v', nullable: true, type: 'utf8' }], batches: [cells.map((c) => [c])] });
          const distinct = [...new Set([...cells.filter((c): c is string => c !== null), ...unused])];
          // Deterministic shuffle of the dictionary order.
          const dict = distinct.map((v, k) => ({ v, r: (k * 7919 + seed) % 104729 })).sort((a, b) => a.r - b.r).map((e) => e.v);
          const encoded = hexOf({
            kind: 'table',
            fields: [{ name: 'v', nullable: true, type: { dictionary: { index, value: 'utf8' } } }],
            batches: [cells.map((c) => [c === null ? null : dict.indexOf(c)])],
            dictionaries: { v: dict },
          });
          expect(encoded).toBe(plain);
        },
      ),
      RUNS,
    );
  });

  it('-0/+0 and every NaN payload converge, at every float width', () => {
    const nan = (width: number, hex: number): fc.Arbitrary<string> => {
      const mantBits = width === 2 ? 10 : width === 4 ? 23 : 52;
      return fc.tuple(fc.boolean(), fc.bigInt({ min: 1n, max: (1n << BigInt(mantBits)) - 1n })).map(([neg, m]) => {
        const exp = ((1n << BigInt(width * 8 - 1 - mantBits)) - 1n) << BigInt(mantBits);
        const bits = (neg ? 1n << BigInt(width * 8 - 1) : 0n) | exp | m;
        return `bits:${bits.toString(16).padStart(hex, '0')}`;
      });
    };
    for (const [type, width] of [['float16', 2], ['float32', 4], ['float64', 8]] as const) {
      const one = (cell: string): string => hexOf({ kind: 'table', fields: [{ name: 'x', nullable: false, type }], batches: [[[cell]]] });
      const hex = width * 2;
      const canonicalNan = one(`bits:${({ 2: '7e00', 4: '7fc00000', 8: '7ff8000000000000' } as const)[width]}`);
      expect(one(`bits:8${'0'.repeat(hex - 1)}`)).toBe(one(`bits:${'0'.repeat(hex)}`));
      fc.assert(
        fc.property(nan(width, hex), (bits) => {
          expect(one(bits)).toBe(canonicalNan);
        }),
        { numRuns: 30 },
      );
    }
  });

  it('map entry order never matters; duplicate canonical keys fail', () => {
    const type = { map: { key: 'utf8', value: 'int32', value_nullable: true } };
    const entries = fc.uniqueArray(fc.tuple(text, fc.option(fc.integer(), { nil: null })), { selector: (e) => e[0], minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(entries, fc.nat(), fc.integer(), (es, seed, other) => {
        const shuffled = es.map((e, k) => ({ e, r: (k * 31337 + seed) % 65521 })).sort((a, b) => a.r - b.r).map((x) => x.e);
        const a = hexOf({ kind: 'table', fields: [{ name: 'm', nullable: false, type }], batches: [[[es]]] });
        expect(hexOf({ kind: 'table', fields: [{ name: 'm', nullable: false, type }], batches: [[[shuffled]]] })).toBe(a);
        const dup = [...shuffled, [(es[seed % es.length] as [string, unknown])[0], other]];
        expect(codeOf(() => hexOf({ kind: 'table', fields: [{ name: 'm', nullable: false, type }], batches: [[[dup]]] }))).toBe('GF_CANONICAL_ENCODING');
      }),
      RUNS,
    );
  });

  it('row order always matters', () => {
    fc.assert(
      fc.property(tableArb, fc.nat(), fc.nat(), (g, x, y) => {
        const hexes = g.rows.map((r) => hexOf(source({ fields: g.fields, rows: [r] })));
        const i = g.rows.length > 0 ? x % g.rows.length : 0;
        const j = g.rows.length > 0 ? y % g.rows.length : 0;
        fc.pre(g.rows.length >= 2 && hexes[i] !== hexes[j]);
        const swapped = [...g.rows];
        [swapped[i], swapped[j]] = [swapped[j] as unknown[], swapped[i] as unknown[]];
        expect(hexOf(source({ fields: g.fields, rows: swapped }))).not.toBe(hexOf(source(g)));
      }),
      { numRuns: 40 },
    );
  });

  it('UTF-8 is never normalized', () => {
    const piece = fc.constantFrom('é', 'e\u0301', 'Å', 'A\u030a', 'ñ', 'n\u0303', 'x', 'ﬁ', '\u1e9b\u0323');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join('')), (s) => {
        fc.pre(s.normalize('NFC') !== s.normalize('NFD'));
        const one = (v: string): string => hexOf({ kind: 'table', fields: [{ name: 's', nullable: false, type: 'utf8' }], batches: [[[v]]] });
        expect(one(s.normalize('NFC'))).not.toBe(one(s.normalize('NFD')));
        expect(one(s)).toContain(Buffer.from(s, 'utf8').toString('hex'));
      }),
      RUNS,
    );
  });

  it('record fingerprints equal the envelope over each one-row table', () => {
    fc.assert(
      fc.property(tableArb, fc.array(fc.nat(), { maxLength: 3 }), (g, cuts) => {
        const t = buildTable(source(g, split(g.rows, cuts)));
        const fps = recordFingerprints(t, 'graphforge/arrow-result');
        g.rows.forEach((r, k) => {
          const one = canonicalTableBytes(buildTable(source({ fields: g.fields, rows: [r] })));
          expect(toHex(fps.subarray(k * 32, k * 32 + 32))).toBe(toHex(fingerprint('graphforge/arrow-result', one)));
        });
      }),
      { numRuns: 25 },
    );
  });
});

describe('limits fail with GF_CANONICAL_LIMIT exactly beyond the bound', () => {
  const limitCase = (limit: number, size: number, c: VectorSourceCase, limits: Partial<CanonicalLimits>): void => {
    const code = codeOf(() => hexOf(c, limits));
    expect(code).toBe(size > limit ? 'GF_CANONICAL_LIMIT' : undefined);
  };
  const one = (type: unknown, cell: unknown): VectorSourceCase => ({ kind: 'table', fields: [{ name: 'v', nullable: false, type }], batches: [[[cell]]] });
  const bounds = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 60 }));

  it('one UTF-8 value', () => {
    fc.assert(fc.property(bounds, ([limit, n]) => limitCase(limit, n, one('utf8', 'a'.repeat(n)), { maxUtf8Bytes: limit })), RUNS);
  });

  it('one binary value (variable and fixed width)', () => {
    fc.assert(fc.property(bounds, ([limit, n]) => limitCase(limit, n, one('binary', 'ab'.repeat(n)), { maxBinaryBytes: limit })), RUNS);
    fc.assert(
      fc.property(bounds, ([limit, n]) => limitCase(limit, Math.max(n, 1), one({ fixed_size_binary: Math.max(n, 1) }, 'ab'.repeat(Math.max(n, 1))), { maxBinaryBytes: limit })),
      RUNS,
    );
  });

  it('elements of one list and entries of one map', () => {
    fc.assert(
      fc.property(bounds, ([limit, n]) => {
        limitCase(limit, n, one({ list: { name: 'item', nullable: false, type: 'int8' } }, new Array<number>(n).fill(1)), { maxListElements: limit });
        const entries = Array.from({ length: n }, (_, k) => [`k${k}`, k]);
        limitCase(limit, n, one({ map: { key: 'utf8', value: 'int32', value_nullable: true } }, entries), { maxListElements: limit });
      }),
      RUNS,
    );
  });

  it('rows', () => {
    fc.assert(
      fc.property(bounds, ([limit, n]) =>
        limitCase(limit, n, { kind: 'table', fields: [{ name: 'v', nullable: false, type: 'int8' }], batches: [Array.from({ length: n }, () => [1])] }, { maxRows: limit }),
      ),
      RUNS,
    );
  });

  it('payload bytes (table bytes and each record fingerprint payload)', () => {
    const c = (n: number): VectorSourceCase => ({ kind: 'table', fields: [{ name: 'v', nullable: false, type: 'int64' }], batches: [Array.from({ length: n }, () => [7])] });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 400 }), (n, limit) => {
        const size = canonicalTableBytes(buildTable(c(n))).length;
        limitCase(limit, size, c(n), { maxPayloadBytes: limit });
      }),
      RUNS,
    );
    const t = buildTable(c(3));
    const onePayload = canonicalTableBytes(buildTable(c(1))).length;
    expect(codeOf(() => recordFingerprints(t, 'graphforge/arrow-result', { limits: { maxPayloadBytes: onePayload - 1 } }))).toBe('GF_CANONICAL_LIMIT');
    expect(recordFingerprints(t, 'graphforge/arrow-result', { limits: { maxPayloadBytes: onePayload } })).toHaveLength(96);
  });

  it('nesting depth, struct fields and metadata entries', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), (limit, depth) => {
        let type: unknown = 'int8';
        for (let k = 1; k < depth; k++) type = { list: { name: 'item', nullable: true, type } };
        limitCase(limit, depth, { kind: 'table', fields: [{ name: 'v', nullable: true, type }], batches: [] }, { maxDepth: limit });
        const wide = { struct: Array.from({ length: depth }, (_, k) => ({ name: `f${k}`, nullable: true, type: 'int8' })) };
        limitCase(limit, depth, { kind: 'table', fields: [{ name: 'v', nullable: true, type: wide }], batches: [] }, { maxStructFields: limit });
        const metadata = Object.fromEntries(Array.from({ length: depth }, (_, k) => [`graphforge.contract.k${k}`, 'v']));
        limitCase(limit, depth, { kind: 'table', fields: [{ name: 'v', nullable: true, type: 'int8', metadata }], batches: [] }, { maxMetadataEntries: limit });
      }),
      RUNS,
    );
  });
});
