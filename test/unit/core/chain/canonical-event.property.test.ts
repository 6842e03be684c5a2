import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalEventBytes, canonicalEventJson, canonicalJson, type CanonicalJson } from '../../../../core/chain/canonical-event';
import { eventSpecArb, materialize } from './conformance/support';

describe('canonical event bytes', () => {
  it('the event fast path equals the generic canonical encoder, and the bytes are UTF-8 of it', () => {
    fc.assert(
      fc.property(eventSpecArb, (spec) => {
        const e = materialize(spec, 'wf-canon');
        const json = canonicalEventJson(e);
        expect(json).toBe(canonicalJson(e as unknown as CanonicalJson));
        expect(Buffer.from(canonicalEventBytes(e)).toString('utf8')).toBe(json);
        expect(JSON.parse(json)).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });

  it('sorts keys by code point at every level, no whitespace, integers only', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: true }], '\u{1F600}': 'x', '\uFFFF': 'y' })).toBe('{"a":[{"c":true,"d":null}],"b":1,"\uFFFF":"y","\u{1F600}":"x"}');
    expect(() => canonicalJson({ a: 1.5 })).toThrow(/integers only/);
  });
});
