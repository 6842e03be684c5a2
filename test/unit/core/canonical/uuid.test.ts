import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromHex } from '../../../../core/canonical/hash';
import { formatUuid, isCanonicalUuid, parseUuid, uuidV8, uuidV8Bytes } from '../../../../core/canonical/uuid';

describe('uuid', () => {
  it('projects a digest to UUIDv8 as the contract vector does', () => {
    // uuid-text-case vector of canonical-fingerprint-v1.subset.json.
    const digest = fromHex('3cc432a310818554c11f6eb272fead2c549bcd108ab059453a641ab379c7bbb9');
    expect(uuidV8(digest)).toBe('3cc432a3-1081-8554-811f-6eb272fead2c');
  });

  it('always sets version 8 and the RFC variant and keeps the other bits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (d) => {
        const b = uuidV8Bytes(d);
        expect((b[6] as number) >> 4).toBe(8);
        expect((b[8] as number) >> 6).toBe(2);
        expect((b[6] as number) & 0x0f).toBe((d[6] as number) & 0x0f);
        expect((b[8] as number) & 0x3f).toBe((d[8] as number) & 0x3f);
        for (const i of [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15]) expect(b[i]).toBe(d[i]);
        expect(isCanonicalUuid(uuidV8(d))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a digest that is not 32 bytes', () => {
    expect(() => uuidV8(new Uint8Array(16))).toThrow(expect.objectContaining({ code: 'GF_VALIDATION' }));
  });

  it('parses case-insensitively and renders lowercase', () => {
    const upper = parseUuid('018F47D2-A1B2-7C3D-8E4F-001122334455');
    const lower = parseUuid('018f47d2-a1b2-7c3d-8e4f-001122334455');
    expect(upper).toEqual(lower);
    expect(upper[0]).toBe(0x01);
    expect(upper[15]).toBe(0x55);
    expect(formatUuid(upper)).toBe('018f47d2-a1b2-7c3d-8e4f-001122334455');
  });

  it.each([
    '',
    '018f47d2a1b27c3d8e4f001122334455',
    '{018f47d2-a1b2-7c3d-8e4f-001122334455}',
    'urn:uuid:018f47d2-a1b2-7c3d-8e4f-001122334455',
    '018f47d2-a1b2-7c3d-8e4f-00112233445g',
    ' 018f47d2-a1b2-7c3d-8e4f-001122334455',
  ])('rejects %j with GF_VALIDATION', (text) => {
    expect(() => parseUuid(text)).toThrow(expect.objectContaining({ code: 'GF_VALIDATION' }));
  });

  it('isCanonicalUuid accepts only lowercase RFC text', () => {
    expect(isCanonicalUuid('018f47d2-a1b2-7c3d-8e4f-001122334455')).toBe(true);
    expect(isCanonicalUuid('018F47D2-A1B2-7C3D-8E4F-001122334455')).toBe(false);
    expect(isCanonicalUuid('018f47d2a1b27c3d8e4f001122334455')).toBe(false);
    expect(isCanonicalUuid(42)).toBe(false);
  });

  it('formatUuid requires 16 bytes', () => {
    expect(() => formatUuid(new Uint8Array(15))).toThrow(expect.objectContaining({ code: 'GF_VALIDATION' }));
  });
});
