import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fingerprintPreimage, sha256, toHex, uuidV8, fromHex } from '../../../../core/canonical';
import type { DomainTag } from '../../../../core/canonical';
import { computeVectors, runNegativeSource, sourceCasePayload } from '../../../../core/canonical/golden-vectors';
import type { VectorSourceCase } from '../../../../core/canonical/golden-vectors';

interface PositiveVector {
  readonly id: string;
  readonly domain: DomainTag;
  readonly source_cases: readonly VectorSourceCase[];
  readonly canonical_payload_hex: string;
  readonly fingerprint_preimage_hex: string;
  readonly sha256: string;
  readonly uuid_v8?: string;
}
interface NegativeVector {
  readonly id: string;
  readonly error: string;
  readonly source: unknown;
}

const file = JSON.parse(
  readFileSync(new URL('../../../fixtures/canonical-fingerprint-v1.subset.json', import.meta.url), 'utf8'),
) as { vectors: PositiveVector[]; negative_vectors: NegativeVector[] };

describe('golden vectors (canonical-fingerprint-v1.subset.json)', () => {
  it('has vectors to check', () => {
    expect(file.vectors.length).toBeGreaterThan(0);
    expect(file.negative_vectors.length).toBeGreaterThan(0);
  });

  for (const v of file.vectors) {
    describe(v.id, () => {
      v.source_cases.forEach((c, k) => {
        it(`case ${k}: payload bytes, then preimage, SHA-256 and UUIDv8`, () => {
          const payload = sourceCasePayload(c);
          // Bytes first: a hash mismatch is only meaningful once the bytes agree.
          expect(toHex(payload)).toBe(v.canonical_payload_hex);
          const preimage = fingerprintPreimage(v.domain, payload);
          expect(toHex(preimage)).toBe(v.fingerprint_preimage_hex);
          const digest = sha256(preimage);
          expect(toHex(digest)).toBe(v.sha256);
          if (v.uuid_v8 !== undefined) expect(uuidV8(digest)).toBe(v.uuid_v8);
          else expect(uuidV8(digest)).toBe(uuidV8(fromHex(v.sha256)));
        });
      });
    });
  }

  for (const n of file.negative_vectors) {
    it(`negative ${n.id} fails with ${n.error}`, () => {
      let code: string | undefined;
      try {
        runNegativeSource(n.source);
      } catch (e) {
        code = (e as { code?: string }).code;
      }
      expect(code).toBe(n.error);
    });
  }

  it('computeVectors reproduces every expected value of the file', () => {
    const results = computeVectors(file);
    const expected = [
      ...file.vectors.map((v) => ({
        id: v.id,
        cases: v.source_cases.map(() => ({
          canonical_payload_hex: v.canonical_payload_hex,
          sha256: v.sha256,
          uuid_v8: v.uuid_v8 ?? uuidV8(fromHex(v.sha256)),
        })),
      })),
      ...file.negative_vectors.map((n) => ({ id: n.id, error: n.error })),
    ];
    expect(results).toEqual(expected);
  });

  it('simulated sizes over a limit fail with GF_CANONICAL_LIMIT, within it encode', () => {
    expect(() => runNegativeSource({ limit: 'utf8_bytes', size: 16 * 1024 * 1024 + 1 })).toThrow(
      expect.objectContaining({ code: 'GF_CANONICAL_LIMIT' }),
    );
    expect(() => runNegativeSource({ limit: 'utf8_bytes', size: 16 * 1024 * 1024 })).not.toThrow();
  });

  it('a malformed vector source is GF_VALIDATION', () => {
    expect(() => runNegativeSource({ type: 'no_such_type', value: 1 })).toThrow(
      expect.objectContaining({ code: 'GF_VALIDATION' }),
    );
  });
});
