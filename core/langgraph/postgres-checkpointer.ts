import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Pool, PoolClient } from 'pg';
import { checkpointerHealth, type CheckpointerHealth, type LangGraphCheckpointerPort } from './port';
import { noteWrites, WriteClock } from './write-clock';
import { postgresDatabaseKey, PROCESS_ADAPTERS } from './live-checkpointers';

/** What {@link PostgresCheckpointerAdapter} takes: the caller's pool, nothing else. */
export interface PostgresCheckpointerAdapterOptions {
  /** An open node-postgres pool. The adapter never creates, configures or ends one. */
  readonly pool: Pool;
}

/**
 * LangGraph's own `PostgresSaver`, with `health()` (story S5-01).
 *
 * `saver()` is upstream's `PostgresSaver` bound to the injected pool:
 * the same object on every call, its schema created by upstream `setup()`
 * exactly once (concurrent first calls share one setup; a failed setup is
 * retried by the next call). The adapter adds only the time of the last
 * successful `put`/`putWrites`, noted by a shim on the instance, so the
 * saver keeps upstream's class, format and errors: a pool timeout reaches
 * the caller as node-postgres's own error, unwrapped.
 *
 * The pool belongs to the caller (it may be shared with other stores);
 * ending it is the caller's job. `@langchain/langgraph-checkpoint-postgres`
 * and `pg` are loaded by the first `saver()`, never by importing this module.
 */
export class PostgresCheckpointerAdapter implements LangGraphCheckpointerPort {
  readonly #pool: Pool;
  readonly #clock = new WriteClock();
  #ready: Promise<PostgresSaver> | undefined;
  /** Connections handed to callers and not yet returned, counted from the pool's own `acquire` / `release` events. */
  #checkedOut = 0;

  constructor(options: PostgresCheckpointerAdapterOptions) {
    this.#pool = options.pool;
    // A connection being established is neither in use nor idle: only a caller's checkout counts as in use.
    if (typeof this.#pool.on === 'function') {
      this.#pool.on('acquire', () => void (this.#checkedOut += 1));
      this.#pool.on('release', () => void (this.#checkedOut = Math.max(0, this.#checkedOut - 1)));
    }
    PROCESS_ADAPTERS.register(postgresDatabaseKey((this.#pool as unknown as { options?: Record<string, unknown> }).options ?? {}), this);
  }

  saver(): Promise<PostgresSaver> {
    this.#ready ??= this.#open().catch((e: unknown) => {
      this.#ready = undefined; // the next call tries again
      throw e;
    });
    return this.#ready;
  }

  async #open(): Promise<PostgresSaver> {
    const { PostgresSaver: Saver } = await import('@langchain/langgraph-checkpoint-postgres');
    const saver = new Saver(this.#pool);
    await saver.setup();
    return noteWrites(saver, this.#clock);
  }

  /**
   * Runs a write of this project's own (a restore in the database's own format) on one connection of the pool;
   * when `wrote(result)` says it wrote, it counts as the adapter's last write, as `put` does.
   */
  async writeDirect<T>(fn: (client: PoolClient) => Promise<T>, wrote: (result: T) => boolean): Promise<T> {
    const client = await this.#pool.connect();
    try {
      const result = await fn(client);
      if (wrote(result)) this.#clock.note();
      return result;
    } finally {
      client.release();
    }
  }

  health(): CheckpointerHealth {
    return checkpointerHealth(this.#checkedOut, this.#pool.idleCount, this.#clock.ageSeconds());
  }

  /** Callers waiting for a connection of an exhausted pool (reported beside the health record, never in it). */
  waiting(): number {
    return this.#pool.waitingCount;
  }
}
