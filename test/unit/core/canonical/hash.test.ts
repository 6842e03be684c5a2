import { describe, expect, it } from 'vitest';
import { fromHex, sha256, sha256Hex, toHex } from '../../../../core/canonical/hash';

describe('hash', () => {
  it('computes SHA-256 (FIPS 180-2 "abc" vector)', () => {
    const abc = new TextEncoder().encode('abc');
    expect(sha256Hex(abc)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(toHex(sha256(abc))).toBe(sha256Hex(abc));
    expect(sha256(abc)).toHaveLength(32);
  });

  it('round-trips hex in either case', () => {
    const b = new Uint8Array([0, 1, 0x7f, 0x80, 0xff]);
    expect(toHex(b)).toBe('00017f80ff');
    expect(fromHex('00017F80FF')).toEqual(b);
    expect(fromHex('')).toEqual(new Uint8Array(0));
  });

  it.each(['abc', 'zz', '0g'])('rejects %s with GF_VALIDATION', (text) => {
    expect(() => fromHex(text)).toThrow(expect.objectContaining({ code: 'GF_VALIDATION' }));
  });
});
