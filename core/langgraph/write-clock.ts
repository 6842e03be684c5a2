import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';

/** Monotonic milliseconds (`performance.now()` unless a test injects one). */
export type MonotonicNow = () => number;

/**
 * The time of an adapter's last successful checkpoint write.
 *
 * Monotonic: the age never goes negative or jumps with the wall clock.
 */
export class WriteClock {
  readonly #now: MonotonicNow;
  #lastWriteAt: number | undefined;

  constructor(now: MonotonicNow = () => performance.now()) {
    this.#now = now;
  }

  /** Notes a successful write now. */
  note(): void {
    this.#lastWriteAt = this.#now();
  }

  /** Seconds since the last noted write; `Infinity` before the first. */
  ageSeconds(): number {
    const at = this.#lastWriteAt;
    return at === undefined ? Number.POSITIVE_INFINITY : Math.max(0, (this.#now() - at) / 1000);
  }
}

/**
 * Makes `saver` note every successful `put` and `putWrites` on `clock`.
 *
 * The thinnest possible wrapper: the saver stays the upstream object (same
 * class, same prototype, same fields), and only these two methods get an
 * own-property shim that calls the upstream method and, once its promise
 * resolves, notes the time. Failures pass through untouched: same error
 * object, nothing noted.
 */
export function noteWrites<S extends BaseCheckpointSaver>(saver: S, clock: WriteClock): S {
  const put = saver.put;
  const putWrites = saver.putWrites;
  const done = <T>(value: T): T => {
    clock.note();
    return value;
  };
  Object.defineProperties(saver, {
    put: {
      value: function notedPut(this: S, ...args: Parameters<S['put']>): ReturnType<S['put']> {
        return (put.apply(this, args) as Promise<unknown>).then(done) as ReturnType<S['put']>;
      },
      configurable: true,
      writable: true,
    },
    putWrites: {
      value: function notedPutWrites(this: S, ...args: Parameters<S['putWrites']>): ReturnType<S['putWrites']> {
        return (putWrites.apply(this, args) as Promise<unknown>).then(done) as ReturnType<S['putWrites']>;
      },
      configurable: true,
      writable: true,
    },
  });
  return saver;
}
