import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, compareCodePoints, orderedJson } from '../../../../core/canonical/json';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe('canonicalJson', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('sorts keys by code point, not by UTF-16 code unit', () => {
    // U+1F600 (surrogate pair d83d de00) sorts after U+FF21 by code point, before it by code unit.
    const doc = { '\u{1F600}': 1, '\uFF21': 2, a: 3 };
    expect(canonicalJson(doc)).toBe('{"a":3,"\uFF21":2,"\u{1F600}":1}');
    expect(compareCodePoints('\u{1F600}', '\uFF21')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('a', 'a')).toBe(0);
  });

  it('agrees with UTF-8 byte order for arbitrary keys', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const byBytes = Buffer.compare(Buffer.from(a), Buffer.from(b));
        expect(Math.sign(compareCodePoints(a, b))).toBe(byBytes);
      }),
      { numRuns: 200 },
    );
  });

  it('uses JSON.stringify escaping for strings', () => {
    expect(canonicalJson(['a"b\\\n\u0001é'])).toBe(JSON.stringify(['a"b\\\n\u0001é']));
  });

  it('writes -0 as 0 and keeps safe integers', () => {
    expect(canonicalJson([-0, 9007199254740991, -9007199254740991])).toBe('[0,9007199254740991,-9007199254740991]');
  });

  it.each([
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['unsafe integer', 2 ** 53],
    ['bigint', 1n],
    ['undefined', undefined],
    ['nested undefined', { a: undefined }],
    ['function', () => 1],
    ['Date', new Date(0)],
    ['Map', new Map()],
  ])('rejects %s with GF_CANONICAL_ENCODING', (_name, value) => {
    expect(codeOf(() => canonicalJson(value))).toBe('GF_CANONICAL_ENCODING');
    expect(codeOf(() => orderedJson(value))).toBe('GF_CANONICAL_ENCODING');
  });

  it('bounds nesting with GF_CANONICAL_LIMIT', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100; i++) v = [v];
    expect(codeOf(() => canonicalJson(v))).toBe('GF_CANONICAL_LIMIT');
  });

  it('never puts key text or values in error details', () => {
    try {
      canonicalJson({ secret: { 'password-key': 0.5 } });
      expect.unreachable();
    } catch (e) {
      expect(JSON.stringify((e as { details: unknown }).details)).not.toMatch(/secret|password|0\.5/);
      expect((e as Error).message).not.toMatch(/secret|password|0\.5/);
    }
  });

  it('accepts null-prototype objects', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.b = 1;
    o.a = 2;
    expect(canonicalJson(o)).toBe('{"a":2,"b":1}');
  });
});

describe('orderedJson', () => {
  it('keeps insertion order and applies the same value rules', () => {
    expect(orderedJson({ format: 'x', version: 1, a: { z: 1, y: [true] } })).toBe(
      '{"format":"x","version":1,"a":{"z":1,"y":[true]}}',
    );
  });

  it('canonicalJson parses back to the value and is stable through a parse', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        // fast-check may generate -0 and floats; keep integers only.
        const clean = JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' ? Math.trunc(x % 1e15) || 0 : x))) as unknown;
        const text = canonicalJson(clean);
        expect(JSON.parse(text)).toEqual(clean);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 100 },
    );
  });
});
