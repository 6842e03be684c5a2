import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** A chain head: `blake3:` followed by 64 lowercase hex digits. */
export type ChainHead = `blake3:${string}`;

/** The head of an empty chain. */
export const GENESIS: ChainHead = `blake3:${'0'.repeat(64)}`;

const HEAD_RE = /^blake3:[0-9a-f]{64}$/;

/** True when `value` is a well-formed chain head. */
export function isChainHead(value: unknown): value is ChainHead {
  return typeof value === 'string' && HEAD_RE.test(value);
}

const DOMAIN = new TextEncoder().encode('codegenie-checkpoint-chain/1');

/**
 * The next chain head after appending `eventBytes` to a chain whose head is `prior`.
 *
 * `blake3:` + hex(BLAKE3("codegenie-checkpoint-chain/1" ‖ 0x00 ‖ prior ‖ 0x00 ‖ bytes)),
 * over the persisted (sanitized, canonical) bytes. Pure: no clock, randomness
 * or environment, so every adapter and the verifier agree byte for byte.
 */
export function nextHead(prior: ChainHead, eventBytes: Uint8Array): ChainHead {
  const priorAscii = new TextEncoder().encode(prior);
  const h = blake3.create();
  h.update(DOMAIN);
  h.update(new Uint8Array([0]));
  h.update(priorAscii);
  h.update(new Uint8Array([0]));
  h.update(eventBytes);
  return `blake3:${bytesToHex(h.digest())}`;
}
