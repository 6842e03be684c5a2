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
