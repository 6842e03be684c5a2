/**
 * A bounded in-process memo: at most `max` entries, the oldest inserted
 * (or, with `setNewest`, the least recently refreshed) forgotten first.
 *
 * For derived facts and values keyed by immutable content (object digests,
 * family keys, verified object identities), so an entry never needs
 * invalidation, only a bound. Every cache of an open project (its
 * `ProjectCaches`) is one of these, not a hand-written Map with its own
 * eviction.
 */
export class BoundedCache<K, V> {
  readonly #max: number;
  readonly #entries = new Map<K, V>();

  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('a bounded cache holds at least one entry');
    this.#max = max;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Stores `value` under `key`, forgetting the oldest entry first when full. */
  set(key: K, value: V): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  /**
   * Stores `value` under `key` as the newest entry, the last to be
   * forgotten (a least-recently-used memo calls it on every hit).
   */
  setNewest(key: K, value: V): void {
    this.#entries.delete(key);
    this.set(key, value);
  }

  /** The value under `key`, made by `make` and stored when absent. */
  getOrSet(key: K, make: () => V): V {
    if (this.#entries.has(key)) return this.#entries.get(key) as V;
    const v = make();
    this.set(key, v);
    return v;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
