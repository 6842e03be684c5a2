import { createHash } from 'node:crypto';
import { GfError } from '../errors';

/** SHA-256 of `bytes` (32 bytes). */
export function sha256(bytes: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** SHA-256 of `bytes` as 64 lowercase hex characters. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] as number];
  return s;
}

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Bytes of a hex string (either case).
 *
 * Odd length or a non-hex character is `GF_VALIDATION`; the text itself is
 * never echoed back.
 */
export function fromHex(text: string): Uint8Array {
  if (!HEX_RE.test(text)) {
    throw new GfError('GF_VALIDATION', 'not a hex string', { length: text.length });
  }
  return new Uint8Array(Buffer.from(text, 'hex'));
}
