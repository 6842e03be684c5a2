import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * An in-process, per-workflow async mutex, re-entrant within the holder's async context.
 *
 * Adapters compose it (never inherit it) to serialise their own callers;
 * cross-process exclusion is the substrate's job (SQLite `BEGIN IMMEDIATE`,
 * Postgres advisory locks). Re-entrancy lets `lock(id, fn)` call `append`.
 */
export class WorkflowMutex {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #held = new AsyncLocalStorage<ReadonlySet<string>>();

  /** True when the current async context holds the mutex of `key`. */
  holds(key: string): boolean {
    return this.#held.getStore()?.has(key) === true;
  }

  /**
   * True when nobody holds `key` and nobody waits for it.
   *
   * A caller whose critical section is synchronous (no `await` inside) may then
   * run it at once: nothing can interleave with synchronous code, so it is as
   * serialised as a queued run, without the queue's promises.
   */
  isFree(key: string): boolean {
    return !this.#tails.has(key);
  }

  /** Runs `fn` holding `key` (immediately if the current context already holds it). */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.holds(key)) return fn();
    return this.#queued(key, () => {
      const held = new Set(this.#held.getStore() ?? []);
      held.add(key);
      return this.#held.run(held, fn);
    });
  }

  /**
   * Like `run`, but `fn` runs without marking its async context as holding `key`.
   *
   * For an adapter's own work that never calls back into the mutex (an append
   * outside `lock`): it is serialised the same way and costs no context switch
   * per call. Re-entrant like `run` when the caller's context holds `key`.
   */
  async runInternal<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.holds(key)) return fn();
    return this.#queued(key, fn);
  }

  async #queued<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key);
    let release: () => void = () => undefined;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev === undefined ? mine : prev.then(() => mine);
    this.#tails.set(key, tail);
    if (prev !== undefined) await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
