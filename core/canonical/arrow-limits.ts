import { GfError } from '../errors';
import type { GfDetails } from '../errors';
import { CANONICAL_CONTRACT_VERSION } from './fingerprint';

/**
 * Size bounds of `graphforge-canonical/1`, checked before allocating.
 *
 * Injectable (every encoder takes a partial override) so tests can exercise
 * each bound without building gigabyte inputs; production code uses the
 * contract values.
 */
export interface CanonicalLimits {
  /** Nesting depth of a type (a top-level field is depth 1). */
  readonly maxDepth: number;
  /** Fields of one struct (and of the schema). */
  readonly maxStructFields: number;
  /** Participating metadata entries of one schema or field. */
  readonly maxMetadataEntries: number;
  /** Bytes of one UTF-8 value. */
  readonly maxUtf8Bytes: number;
  /** Bytes of one binary value. */
  readonly maxBinaryBytes: number;
  /** Elements of one list or entries of one map. */
  readonly maxListElements: number;
  /** Rows of one table. */
  readonly maxRows: number;
  /** Bytes of one canonical payload. */
  readonly maxPayloadBytes: number;
}

/** The contract's limits. */
export const CANONICAL_LIMITS: CanonicalLimits = {
  maxDepth: 32,
  maxStructFields: 4096,
  maxMetadataEntries: 256,
  maxUtf8Bytes: 16 * 1024 * 1024,
  maxBinaryBytes: 64 * 1024 * 1024,
  maxListElements: 10_000_000,
  maxRows: 100_000_000,
  maxPayloadBytes: 2 * 1024 * 1024 * 1024,
} as const;

/** Options every canonical Arrow encoder accepts. */
export interface CanonicalOptions {
  /** Overrides of the contract limits (tests only). */
  readonly limits?: Partial<CanonicalLimits>;
  /** Domain the bytes are encoded for, reported in error details. */
  readonly domain?: string;
}

/** The effective limits of `options`. */
export function resolveLimits(options?: CanonicalOptions): CanonicalLimits {
  return options?.limits ? { ...CANONICAL_LIMITS, ...options.limits } : CANONICAL_LIMITS;
}

/** A canonical error with the contract version (and domain when known) in its details. */
export function canonicalError(
  code:
    | 'GF_CANONICAL_ARROW_TYPE'
    | 'GF_CANONICAL_ENCODING'
    | 'GF_CANONICAL_LIMIT'
    | 'GF_CANONICAL_NULLABILITY'
    | 'GF_CANONICAL_TEMPORAL'
    | 'GF_CANONICAL_UTF8',
  message: string,
  details: GfDetails,
): GfError {
  return new GfError(code, message, { contract_version: CANONICAL_CONTRACT_VERSION, ...details });
}

/** Throws `GF_CANONICAL_LIMIT` when `size` exceeds `limit`. */
export function checkLimit(what: string, size: number, limit: number, position: string): void {
  if (size > limit) {
    throw canonicalError('GF_CANONICAL_LIMIT', `${what} exceeds the canonical limit`, { limit_kind: what, size, limit, position });
  }
}
