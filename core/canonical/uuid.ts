import { GfError } from '../errors';
import { toHex } from './hash';

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const CANONICAL_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Renders 16 bytes as a lowercase RFC 8-4-4-4-12 UUID.
 */
export function formatUuid(bytes16: Uint8Array): string {
  if (bytes16.length !== 16) {
    throw new GfError('GF_VALIDATION', 'a UUID is 16 bytes', { size: bytes16.length });
  }
  const h = toHex(bytes16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The 16 network-order bytes of a UUID in RFC 8-4-4-4-12 text form.
 *
 * Case-insensitive (both spellings are the same logical value, per the
 * canonical contract); braces, URNs and missing hyphens are `GF_VALIDATION`.
 */
export function parseUuid(text: string): Uint8Array {
  if (typeof text !== 'string' || !UUID_RE.test(text)) {
    throw new GfError('GF_VALIDATION', 'not an RFC 8-4-4-4-12 UUID', {
      length: typeof text === 'string' ? text.length : 0,
    });
  }
  return new Uint8Array(Buffer.from(text.replace(/-/g, ''), 'hex'));
}

/**
 * True only for the lowercase canonical text form.
 *
 * Public idempotency keys must be canonical strings; this is the check.
 */
export function isCanonicalUuid(text: unknown): boolean {
  return typeof text === 'string' && CANONICAL_RE.test(text);
}

/**
 * Derived UUIDv8 of a 32-byte SHA-256 digest.
 *
 * First 16 digest bytes; high nibble of byte 6 set to 8 (version); two high
 * bits of byte 8 set to 10 (RFC variant); lowercase text. The same projection
 * as `graphforge_core::canonical::uuid_v8`, shared with the checkpoint contract.
 */
export function uuidV8(digest32: Uint8Array): string {
  return formatUuid(uuidV8Bytes(digest32));
}

/** The 16 bytes of `uuidV8(digest32)`. */
export function uuidV8Bytes(digest32: Uint8Array): Uint8Array {
  if (digest32.length !== 32) {
    throw new GfError('GF_VALIDATION', 'uuidV8 takes a 32-byte digest', { size: digest32.length });
  }
  const b = digest32.slice(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x80;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  return b;
}
