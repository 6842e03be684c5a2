import { hash as oneShotHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program (CommonJS, evaluated; no file to locate in a
 * bundle): SHA-256 of each preimage of a batch, digests back in order.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { hash } = require('node:crypto');
parentPort.on('message', (m) => {
  const out = new Uint8Array(m.ends.length * 32);
  let s = 0;
  for (let i = 0; i < m.ends.length; i++) {
    out.set(hash('sha256', m.bytes.subarray(s, m.ends[i]), 'buffer'), i * 32);
    s = m.ends[i];
  }
  parentPort.postMessage({ id: m.id, out }, [out.buffer]);
});
`;

/** SHA-256 of each `[ends[i-1], ends[i])` slice of `bytes`, concatenated (32 bytes each), on this thread. */
export function digestSlices(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
  const out = new Uint8Array(ends.length * 32);
  let s = 0;
  for (let i = 0; i < ends.length; i++) {
    const e = ends[i] as number;
    out.set(oneShotHash('sha256', bytes.subarray(s, e), 'buffer'), i * 32);
    s = e;
  }
  return out;
}

interface Pending {
  readonly resolve: (digests: Uint8Array) => void;
  readonly reject: (e: unknown) => void;
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
}

/**
 * SHA-256 of batches of fingerprint preimages on one background thread, so
 * a large record diff hashes its changed rows while the merge goes on.
 *
 * One worker per process, started on first use; it keeps the process
 * alive only while a batch is pending (`ref` / `unref`). Digests are exactly `digestSlices`'; if the
 * worker cannot start or dies, every batch it holds and every later one is
 * hashed on the calling thread instead, so a caller never sees the
 * difference (only the time).
 */
export class DigestPool {
  static #shared: DigestPool | undefined;
  #worker: Worker | undefined;
  #broken = false;
  #next = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #source: string;

  /** @param source the worker program (tests pass one that fails) */
  constructor(source = WORKER_SOURCE) {
    this.#source = source;
  }

  /** The process's pool. */
  static shared(): DigestPool {
    DigestPool.#shared ??= new DigestPool();
    return DigestPool.#shared;
  }

  #start(): Worker | undefined {
    if (this.#broken) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    try {
      const w = new Worker(this.#source, { eval: true });
      w.on('message', (m: { id: number; out: Uint8Array }) => {
        const p = this.#pending.get(m.id);
        if (p === undefined) return;
        this.#pending.delete(m.id);
        if (this.#pending.size === 0) w.unref();
        p.resolve(m.out);
      });
      const fail = (): void => this.#fail();
      w.on('error', fail);
      w.on('exit', fail);
      // Idle, the worker never keeps the process alive; with work pending it does (see `digest`).
      w.unref();
      this.#worker = w;
      return w;
    } catch {
      this.#broken = true;
      return undefined;
    }
  }

  /** The worker is gone: hash what it held here, and everything from now on. */
  #fail(): void {
    this.#broken = true;
    this.#worker = undefined;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of held) {
      try {
        p.resolve(digestSlices(p.bytes, p.ends));
      } catch (e) {
        p.reject(e);
      }
    }
  }

  /**
   * The digests of the slices of `bytes` ending at `ends` (32 bytes each,
   * in order). `bytes` and `ends` are handed over: the caller must not use
   * them afterwards.
   */
  digest(bytes: Uint8Array, ends: Uint32Array): Promise<Uint8Array> {
    const w = this.#start();
    if (w === undefined) return Promise.resolve(digestSlices(bytes, ends));
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      // Posted as copies (no transfer), so the bytes stay here for the fallback.
      if (this.#pending.size === 0) w.ref();
      this.#pending.set(id, { resolve, reject, bytes, ends });
      try {
        w.postMessage({ id, bytes, ends });
      } catch (e) {
        this.#pending.delete(id);
        if (this.#pending.size === 0) w.unref();
        reject(e);
      }
    });
  }

  /** Stops the worker (tests); the next `digest` starts a new one. */
  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    if (w !== undefined) {
      w.removeAllListeners('exit');
      await w.terminate();
    }
    this.#broken = false;
  }
}
