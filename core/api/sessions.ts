// Session handles: the renderer and the bridge address projects and views by
// opaque random UUIDs, never by paths.
import { randomUUID } from 'node:crypto';
import { GfError } from '../errors';

/** One open resource behind a handle. */
export interface SessionEntry<T> {
  readonly value: T;
  /** Releases the resource (leases, stores). Runs once. */
  readonly close: () => Promise<void> | void;
}

/**
 * A table of handle → resource.
 *
 * Unknown or closed handles are `GF_VALIDATION` (the caller sent a value the
 * contract cannot accept); the handle text never reaches a path.
 */
export class SessionTable<T> {
  readonly #entries = new Map<string, SessionEntry<T>>();
  readonly #kind: string;

  constructor(kind: string) {
    this.#kind = kind;
  }

  /** Registers a resource and returns its fresh handle. */
  add(entry: SessionEntry<T>): string {
    const handle = randomUUID();
    this.#entries.set(handle, entry);
    return handle;
  }

  /** The resource of a handle, or `GF_VALIDATION`. */
  get(handle: string): T {
    const e = this.#entries.get(handle);
    if (e === undefined) throw new GfError('GF_VALIDATION', `unknown ${this.#kind} handle`, { handle_kind: this.#kind });
    return e.value;
  }

  /** True while `handle` is open. */
  has(handle: string): boolean {
    return this.#entries.has(handle);
  }

  /** Closes one handle; false when it was not open. */
  async close(handle: string): Promise<boolean> {
    const e = this.#entries.get(handle);
    if (e === undefined) return false;
    this.#entries.delete(handle);
    await e.close();
    return true;
  }

  /** Closes every handle. */
  async closeAll(): Promise<void> {
    for (const h of [...this.#entries.keys()]) await this.close(h);
  }

  /** Number of open handles. */
  get size(): number {
    return this.#entries.size;
  }
}
