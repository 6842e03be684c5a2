import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createBLAKE3 } from 'hash-wasm';
import type { IHasher } from 'hash-wasm';
import { CHAIN_HEAD_PATTERN } from '../contract/chain';

/** A chain head: `blake3:` followed by 64 lowercase hex digits. */
export type ChainHead = `blake3:${string}`;

/** The head of an empty chain. */
export const GENESIS: ChainHead = `blake3:${'0'.repeat(64)}`;

const HEAD_RE = CHAIN_HEAD_PATTERN; // declared once in the contract

/** True when `value` is a well-formed chain head. */
export function isChainHead(value: unknown): value is ChainHead {
  return typeof value === 'string' && HEAD_RE.test(value);
}

const DOMAIN = new TextEncoder().encode('codegenie-checkpoint-chain/1');

const SEPARATOR = new Uint8Array([0]);
const ascii = new TextEncoder();

/** BLAKE3 in WebAssembly (hash-wasm), once compiled; several times faster than the JS fallback. */
let wasmHasher: IHasher | undefined;

/**
 * Resolves when the WebAssembly BLAKE3 is ready (never rejects: without it the JS one serves).
 *
 * Started when this module loads. Stores that append at a high rate await it
 * in their setup; everything else simply gets the faster path once it is there.
 * Both give the same bytes (a property test holds them to it).
 */
export const fastHeadsReady: Promise<void> = createBLAKE3().then(
  (h) => {
    wasmHasher = h;
  },
  () => undefined,
);

/** The head computed with @noble/hashes (the JS reference). */
export function nextHeadNoble(prior: ChainHead, eventBytes: Uint8Array): ChainHead {
  const h = blake3.create();
  h.update(DOMAIN);
  h.update(SEPARATOR);
  h.update(ascii.encode(prior));
  h.update(SEPARATOR);
  h.update(eventBytes);
  return `blake3:${bytesToHex(h.digest())}`;
}

/** The head computed with the WebAssembly BLAKE3; undefined until it is ready. */
export function nextHeadWasm(prior: ChainHead, eventBytes: Uint8Array): ChainHead | undefined {
  const h = wasmHasher;
  if (h === undefined) return undefined;
  // The preimage in one buffer, one call into WebAssembly (the same bytes as five updates, fewer crossings).
  const head = DOMAIN.length + 1;
  const priorEnd = head + prior.length;
  const size = priorEnd + 1 + eventBytes.length;
  if (preimage.length < size) {
    preimage = new Uint8Array(Math.max(size, preimage.length * 2));
    preimage.set(DOMAIN, 0);
  }
  if (ascii.encodeInto(prior, preimage.subarray(head, priorEnd)).written !== prior.length) return undefined; // not ASCII: the reference path decides
  preimage[priorEnd] = 0;
  preimage.set(eventBytes, priorEnd + 1);
  h.init();
  h.update(preimage.subarray(0, size));
  return `blake3:${h.digest('hex')}`;
}

/** Scratch space for `nextHeadWasm`'s preimage: DOMAIN, NUL, prior head, NUL, event bytes (grown on demand, DOMAIN and its NUL kept). */
let preimage = new Uint8Array(0);

export function nextHead(prior: ChainHead, eventBytes: Uint8Array): ChainHead {
  return nextHeadWasm(prior, eventBytes) ?? nextHeadNoble(prior, eventBytes);
}
