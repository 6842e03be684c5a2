import { GfError } from '../errors';
import { sha256, toHex } from './hash';

/** The contract version carried in every envelope (`graphforge-canonical/1`). */
export const CANONICAL_CONTRACT_VERSION = 1;

/** Envelope format byte after the `GFFP` magic. */
const ENVELOPE_FORMAT = 1;

/**
 * Domain tags of the `graphforge-canonical/1` contract, closed.
 *
 * A tag fixes what its payload means; none of these is ever reused for a
 * project payload.
 */
export const GRAPHFORGE_DOMAINS = [
  'graphforge/schema',
  'graphforge/assertion',
  'graphforge/evidence-link',
  'graphforge/confidence-assessment',
  'graphforge/provenance-event',
  'graphforge/lineage',
  'graphforge/invocation-descriptor',
  'graphforge/graph-projection',
  'graphforge/arrow-result',
] as const;

/** One of the nine contract domain tags. */
export type GraphforgeDomain = (typeof GRAPHFORGE_DOMAINS)[number];

/**
 * Namespace of the project's own domains: `checkpoint-studio/<record family id>`.
 *
 * Project domains live in their own namespace so they can never collide with
 * a contract tag; the set is closed by the record-family registry, which is
 * the only caller of `projectDomain`.
 */
export const PROJECT_DOMAIN_PREFIX = 'checkpoint-studio/';

/** A project domain tag (`checkpoint-studio/<family>` or `checkpoint-studio/<family>/<purpose>`). */
export type ProjectDomain = `checkpoint-studio/${string}`;

/** Any domain tag accepted by the envelope. */
export type DomainTag = GraphforgeDomain | ProjectDomain;

const SEGMENT = '[a-z0-9][a-z0-9_.@-]{0,95}';
const PROJECT_RE = new RegExp(`^checkpoint-studio/${SEGMENT}(?:/${SEGMENT})?$`);
const GRAPHFORGE_SET: ReadonlySet<string> = new Set(GRAPHFORGE_DOMAINS);

/** True when `tag` is a contract domain or a well-formed project domain. */
export function isDomainTag(tag: unknown): tag is DomainTag {
  return typeof tag === 'string' && (GRAPHFORGE_SET.has(tag) || PROJECT_RE.test(tag));
}

/**
 * The project domain of a record family (optionally of one purpose, e.g. `identity`).
 *
 * Family ids are lowercase ASCII (`graph_node`, `restoration_transition@1`);
 * anything else is `GF_CANONICAL_DOMAIN`.
 */
export function projectDomain(recordFamilyId: string, purpose?: string): ProjectDomain {
  const tag = `${PROJECT_DOMAIN_PREFIX}${recordFamilyId}${purpose === undefined ? '' : `/${purpose}`}`;
  if (!PROJECT_RE.test(tag)) {
    throw new GfError('GF_CANONICAL_DOMAIN', 'not a valid project domain', { length: tag.length });
  }
  return tag as ProjectDomain;
}

/** Throws `GF_CANONICAL_DOMAIN` unless `domain` is an accepted tag. */
export function assertDomainTag(domain: unknown): asserts domain is DomainTag {
  if (!isDomainTag(domain)) {
    throw new GfError('GF_CANONICAL_DOMAIN', 'unknown fingerprint domain', {
      length: typeof domain === 'string' ? domain.length : 0,
    });
  }
}

/** Payload bound of the contract (2 GiB). */
export const MAX_PAYLOAD_BYTES = 2 * 1024 * 1024 * 1024;

/**
 * The envelope bytes before the payload: `GFFP`, u8 1, u16 tag length, tag,
 * u32 contract version, u64 payload length.
 *
 * Exposed so large payloads can be hashed incrementally without copying.
 */
export function fingerprintHeader(domain: DomainTag, payloadLength: number): Uint8Array {
  assertDomainTag(domain);
  if (!Number.isSafeInteger(payloadLength) || payloadLength < 0 || payloadLength > MAX_PAYLOAD_BYTES) {
    throw new GfError('GF_CANONICAL_LIMIT', 'payload exceeds the canonical limit', {
      domain,
      size: payloadLength,
      limit: MAX_PAYLOAD_BYTES,
    });
  }
  const tag = Buffer.from(domain, 'ascii');
  const out = new Uint8Array(4 + 1 + 2 + tag.length + 4 + 8);
  const dv = new DataView(out.buffer);
  out.set([0x47, 0x46, 0x46, 0x50], 0);
  out[4] = ENVELOPE_FORMAT;
  dv.setUint16(5, tag.length);
  out.set(tag, 7);
  dv.setUint32(7 + tag.length, CANONICAL_CONTRACT_VERSION);
  dv.setBigUint64(11 + tag.length, BigInt(payloadLength));
  return out;
}

/** The complete fingerprint preimage of `payload` under `domain`. */
export function fingerprintPreimage(domain: DomainTag, payload: Uint8Array): Uint8Array {
  const header = fingerprintHeader(domain, payload.length);
  const out = new Uint8Array(header.length + payload.length);
  out.set(header, 0);
  out.set(payload, header.length);
  return out;
}

/**
 * Fingerprint = SHA-256 of the preimage (32 bytes).
 *
 * An unknown domain is `GF_CANONICAL_DOMAIN`; an oversized payload
 * `GF_CANONICAL_LIMIT`.
 */
export function fingerprint(domain: DomainTag, payload: Uint8Array): Uint8Array {
  return sha256(fingerprintPreimage(domain, payload));
}

/** The fingerprint as 64 lowercase hex characters. */
export function fingerprintHex(domain: DomainTag, payload: Uint8Array): string {
  return toHex(fingerprint(domain, payload));
}
