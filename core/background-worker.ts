// One background thread for a module's requests (hashing a diff's batches,
// parsing an ontology): started on first use, keeping the process alive only
// while a request is pending, and when it cannot start or stops, reported as
// gone so the caller does the same work on its own thread.
import type { Transferable } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';

/** A request was lost with the thread that held it. */
export class WorkerGoneError extends Error {
  constructor(what: string) {
    super(`the ${what} thread stopped while holding a request`);
    this.name = 'WorkerGoneError';
  }
}

interface Pending<M> {
  readonly resolve: (m: M) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * A lazily started worker thread answering `{ id, ... }` messages in any
 * order. `request` returns undefined when no thread can run (it could not
 * start, or one stopped before): the caller then works on its own thread.
 * When the thread stops, the requests it held are rejected with `lost()`.
 */
export class BackgroundWorker<M extends { readonly id: number }> {
  #worker: Worker | undefined;
  #broken = false;
  #next = 0;
  readonly #pending = new Map<number, Pending<M>>();

  /**
   * @param spawn starts the thread (may throw: then there is none)
   * @param lost the error a held request is rejected with when the thread stops
   * @param seen called with every answer first (e.g. to keep a buffer it hands back)
   */
  constructor(
    private readonly spawn: () => Worker,
    private readonly lost: () => Error,
    private readonly seen?: (m: M) => void,
  ) {}

  #start(): Worker | undefined {
    if (this.#broken) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    try {
      const w = this.spawn();
      w.on('message', (m: M) => {
        this.seen?.(m);
        const p = this.#pending.get(m.id);
        if (p === undefined) return;
        this.#pending.delete(m.id);
        if (this.#pending.size === 0) w.unref();
        p.resolve(m);
      });
      const fail = (): void => this.#fail();
      w.on('error', fail);
      w.on('exit', fail);
      // Idle, the thread never keeps the process alive; with a request pending it does.
      w.unref();
      this.#worker = w;
      return w;
    } catch {
      this.#broken = true;
      return undefined;
    }
  }

  #fail(): void {
    this.#broken = true;
    this.#worker = undefined;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of held) p.reject(this.lost());
  }

  /** Sends `message` with a fresh `id` (transferring `transfer`); undefined when no thread can run. */
  request(message: Readonly<Record<string, unknown>>, transfer: readonly Transferable[] = []): Promise<M> | undefined {
    const w = this.#start();
    if (w === undefined) return undefined;
    return new Promise<M>((resolve, reject) => {
      const id = this.#next++;
      if (this.#pending.size === 0) w.ref();
      this.#pending.set(id, { resolve, reject });
      w.postMessage({ ...message, id }, [...transfer]);
    });
  }

  /** Stops the thread (tests); the next request starts a new one. */
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
