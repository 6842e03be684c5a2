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
  // The batch's buffer goes back too (transferred), so the caller reuses it for a later batch.
  parentPort.postMessage({ id: m.id, out, bytes: m.bytes }, [out.buffer, m.bytes.buffer]);
});
`;

/** Batch buffers kept for reuse at most (a diff has at most its in-flight batches out at once). */
const SPARES_MAX = 16;

/** A digest batch was lost with the worker that held it. */
export class DigestPoolError extends Error {
  constructor() {
    super('the digest worker stopped while holding a batch');
    this.name = 'DigestPoolError';
  }
}

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
}

/**
 * SHA-256 of batches of fingerprint preimages on one background thread, so
 * a large record diff hashes its changed rows while the merge goes on.
 *
 * One worker per process, started on first use; it keeps the process
 * alive only while a batch is pending (`ref` / `unref`). Digests are
 * exactly `digestSlices`'. Batches are transferred, not copied, so if the
 * worker dies the batches it holds are rejected (`DigestPoolError`; the
 * caller redoes that work itself) and every later batch is hashed on the
 * calling thread.
 */
export class DigestPool {
  static #shared: DigestPool | undefined;
  #worker: Worker | undefined;
  #broken = false;
  #next = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #source: string;
  /** Batch buffers the worker handed back, for `spare` (bounded by `SPARES_MAX`). */
  readonly #spares: ArrayBuffer[] = [];

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
      w.on('message', (m: { id: number; out: Uint8Array; bytes?: Uint8Array }) => {
        if (m.bytes !== undefined && this.#spares.length < SPARES_MAX) this.#spares.push(m.bytes.buffer as ArrayBuffer);
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

  /** The worker is gone: what it held is lost (rejected); everything from now on is hashed here. */
  #fail(): void {
    this.#broken = true;
    this.#worker = undefined;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of held) p.reject(new DigestPoolError());
  }

  /**
   * The digests of the slices of `bytes` ending at `ends` (32 bytes each,
   * in order). The buffer under `bytes` is transferred to the worker: the
   * caller must not use it afterwards. Rejects with `DigestPoolError` if
   * the worker dies holding the batch.
   */
  digest(bytes: Uint8Array, ends: Uint32Array): Promise<Uint8Array> {
    const w = this.#start();
    if (w === undefined) return Promise.resolve(digestSlices(bytes, ends));
    // Never transfer memory shared with others (a pooled Buffer): copy it first.
    const own = Buffer.isBuffer(bytes) || !(bytes.buffer instanceof ArrayBuffer) ? Uint8Array.prototype.slice.call(bytes) : bytes;
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      if (this.#pending.size === 0) w.ref();
      this.#pending.set(id, { resolve, reject });
      w.postMessage({ id, bytes: own, ends }, [own.buffer as ArrayBuffer, ends.buffer as ArrayBuffer]);
    });
  }

  /**
   * A buffer of at least `bytes` bytes that a finished batch handed back
   * (its contents unspecified; the caller owns it now), or undefined: a
   * long diff reuses a few batch buffers instead of allocating one per
   * batch and leaving them to the collector.
   */
  spare(bytes: number): Uint8Array<ArrayBuffer> | undefined {
    const k = this.#spares.findIndex((b) => b.byteLength >= bytes);
    return k < 0 ? undefined : new Uint8Array(this.#spares.splice(k, 1)[0] as ArrayBuffer);
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
