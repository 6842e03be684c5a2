import { resolve } from 'node:path';
import type { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { checkpointerHealth, type CheckpointerHealth, type LangGraphCheckpointerPort } from './port';
import { noteWrites, WriteClock } from './write-clock';
import { PROCESS_ADAPTERS } from './live-checkpointers';

/** The registry key of a SQLite database file (its absolute path). */
export function sqliteDatabaseKey(path: string): string {
  return `sqlite:${resolve(path)}`;
}

/** What {@link SqliteCheckpointerAdapter} takes. */
export interface SqliteCheckpointerAdapterOptions {
  /** The LangGraph SQLite checkpoint database (created by the first write when missing). */
  readonly path: string;
}

/**
 * LangGraph's own `SqliteSaver`, with `health()` (story S5-01).
 *
 * The desktop substrate and the drain path of the Postgres cut-over: the
 * same port and health record as {@link PostgresCheckpointerAdapter}.
 * `saver()` opens the database once and returns the same upstream
 * `SqliteSaver` on every call. SQLite has one synchronous connection: it
 * counts as one idle connection while open (a synchronous write can never
 * be observed in progress) and none before `saver()` or after `close()`.
 */
export class SqliteCheckpointerAdapter implements LangGraphCheckpointerPort {
  readonly #path: string;
  readonly #clock = new WriteClock();
  #ready: Promise<SqliteSaver> | undefined;
  #saver: SqliteSaver | undefined;
  #closed = false;

  constructor(options: SqliteCheckpointerAdapterOptions) {
    this.#path = options.path;
    PROCESS_ADAPTERS.register(sqliteDatabaseKey(options.path), this);
  }

  saver(): Promise<SqliteSaver> {
    if (this.#closed) return Promise.reject(new Error('this SQLite checkpointer adapter is closed'));
    this.#ready ??= this.#open().catch((e: unknown) => {
      this.#ready = undefined;
      throw e;
    });
    return this.#ready;
  }

  async #open(): Promise<SqliteSaver> {
    const { SqliteSaver: Saver } = await import('@langchain/langgraph-checkpoint-sqlite');
    const saver = Saver.fromConnString(this.#path);
    this.#saver = noteWrites(saver, this.#clock);
    return this.#saver;
  }

  /**
   * Runs a write of this project's own (a restore in the database's own format) on the adapter's connection;
   * when `wrote(result)` says it wrote, it counts as the adapter's last write, as `put` does.
   */
  async writeDirect<T>(fn: (db: SqliteSaver['db']) => Promise<T> | T, wrote: (result: T) => boolean): Promise<T> {
    const saver = await this.saver();
    const result = await fn(saver.db);
    if (wrote(result)) this.#clock.note();
    return result;
  }

  /** Callers waiting for the connection: none (SQLite's one connection is synchronous). */
  waiting(): number {
    return 0;
  }

  health(): CheckpointerHealth {
    const open = this.#saver !== undefined && this.#saver.db.open;
    return checkpointerHealth(0, open ? 1 : 0, this.#clock.ageSeconds());
  }

  /** Closes the database (the saver is unusable afterwards). Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const ready = this.#ready;
    if (ready === undefined) return;
    const saver = await ready.catch(() => undefined);
    if (saver?.db.open === true) saver.db.close();
  }
}
