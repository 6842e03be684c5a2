// A pool of worker threads that hashes batches of canonical preimages.
import { hash as oneShotHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { BackgroundWorker } from '../background-worker';

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

/**
 * SHA-256 of batches of fingerprint preimages on one background thread, so
 * a large record diff hashes its changed rows while the merge goes on.
 *
 * One worker per process, started on first use; it keeps the process
 * alive only while a batch is pending (core/background-worker.ts). Digests
 * are exactly `digestSlices`'. Batches are transferred, not copied, so if
 * the worker dies the batches it holds are rejected (`DigestPoolError`; the
 * caller redoes that work itself) and every later batch is hashed on the
 * calling thread.
 */
export class DigestPool {
  static #shared: DigestPool | undefined;
  readonly #thread: BackgroundWorker<{ readonly id: number; readonly out: Uint8Array; readonly bytes?: Uint8Array }>;
  /** Batch buffers the worker handed back, for `spare` (bounded by `SPARES_MAX`). */
  readonly #spares: ArrayBuffer[] = [];

  /** @param source the worker program (tests pass one that fails) */
  constructor(source = WORKER_SOURCE) {
    this.#thread = new BackgroundWorker(
      () => new Worker(source, { eval: true }),
      () => new DigestPoolError(),
      (m) => {
        if (m.bytes !== undefined && this.#spares.length < SPARES_MAX) this.#spares.push(m.bytes.buffer as ArrayBuffer);
      },
    );
  }

  /** The process's pool. */
  static shared(): DigestPool {
    DigestPool.#shared ??= new DigestPool();
    return DigestPool.#shared;
  }

  /**
   * The digests of the slices of `bytes` ending at `ends` (32 bytes each,
   * in order). The buffer under `bytes` is transferred to the worker: the
   * caller must not use it afterwards. Rejects with `DigestPoolError` if
   * the worker dies holding the batch.
   */
  digest(bytes: Uint8Array, ends: Uint32Array): Promise<Uint8Array> {
    // Never transfer memory shared with others (a pooled Buffer): copy it first.
    const own = Buffer.isBuffer(bytes) || !(bytes.buffer instanceof ArrayBuffer) ? Uint8Array.prototype.slice.call(bytes) : bytes;
    const answer = this.#thread.request({ bytes: own, ends }, [own.buffer as ArrayBuffer, ends.buffer as ArrayBuffer]);
    return answer === undefined ? Promise.resolve(digestSlices(bytes, ends)) : answer.then((m) => m.out);
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
  close(): Promise<void> {
    return this.#thread.close();
  }
}

/** What `DeferredDigests` needs of a digest pool (`DigestPool`, or a test double). */
export interface DigestService {
  digest(bytes: Uint8Array, ends: Uint32Array): Promise<Uint8Array>;
  /** A buffer of at least `bytes` bytes a finished batch gave back, now the caller's (optional). */
  spare?(bytes: number): Uint8Array<ArrayBuffer> | undefined;
}
