export { canonicalJson, orderedJson, compareCodePoints, JSON_MAX_DEPTH } from './json';
export { sha256, sha256Hex, toHex, fromHex } from './hash';
export { uuidV8, uuidV8Bytes, parseUuid, formatUuid, isCanonicalUuid } from './uuid';
export {
  CANONICAL_CONTRACT_VERSION,
  GRAPHFORGE_DOMAINS,
  PROJECT_DOMAIN_PREFIX,
  MAX_PAYLOAD_BYTES,
  isDomainTag,
  assertDomainTag,
  projectDomain,
  fingerprintHeader,
  fingerprintPreimage,
  fingerprint,
  fingerprintHex,
} from './fingerprint';
export type { GraphforgeDomain, ProjectDomain, DomainTag } from './fingerprint';
export { CANONICAL_LIMITS, resolveLimits } from './arrow-limits';
export type { CanonicalLimits, CanonicalOptions } from './arrow-limits';
export {
  canonicalSchemaBytes,
  schemaFingerprint,
  CONTRACT_METADATA_PREFIX,
  REGISTERED_RESULT_METADATA_KEYS,
  REGISTERED_EXTENSIONS,
  UTC_TIMEZONES,
} from './arrow-schema';
export {
  canonicalTableBytes,
  tableFingerprint,
  rowCanonicalBytes,
  recordFingerprints,
  recordFingerprintsHex,
} from './arrow-table';
export type { RowBytes } from './arrow-table';
// The golden-vector machinery (core/canonical/golden-vectors.ts) is not re-exported: `gf` loads it on demand
// (the maintenance operation that recomputes the vectors), and a re-export here would pull it into every chunk.
export { BoundedCache } from './bounded-cache';
