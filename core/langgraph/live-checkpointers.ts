// The LangGraph checkpointer adapters alive in this process, by the database they write (not the record-family registry, not the checkpoint registry).
import { postgresEndpoint } from '../contract/postgres-url';
import type { LangGraphCheckpointerPort } from './port';

/**
 * The checkpointer adapters alive in this process, by the database they write
 * (a SQLite file's absolute path, or a Postgres `host:port/database`).
 *
 * `threads.health` reports the record of the adapter that writes a source in
 * this process, so a database written seconds ago by an agent's adapter shows
 * that write's age. Held weakly: an adapter nobody uses any more is forgotten.
 */
export class AdapterRegistry {
  readonly #adapters = new Map<string, WeakRef<LangGraphCheckpointerPort>[]>();

  /** Notes that `adapter` writes `database`. */
  register(database: string, adapter: LangGraphCheckpointerPort): void {
    const live = (this.#adapters.get(database) ?? []).filter((r) => r.deref() !== undefined);
    live.push(new WeakRef(adapter));
    this.#adapters.set(database, live);
  }

  /** The adapter of `database` written most recently (an unwritten one when none wrote), or undefined. */
  find(database: string): LangGraphCheckpointerPort | undefined {
    const live = (this.#adapters.get(database) ?? []).map((r) => r.deref()).filter((a): a is LangGraphCheckpointerPort => a !== undefined);
    const age = (a: LangGraphCheckpointerPort) => a.health().last_write_age_seconds;
    return live.sort((a, b) => (age(a) === age(b) ? 0 : age(a) < age(b) ? -1 : 1))[0];
  }
}

/** The process's adapters (one per process: the adapters and the facades of a process share it). */
export const PROCESS_ADAPTERS = new AdapterRegistry();

/** The registry key of a Postgres database: where it is, never who connects. */
export function postgresDatabaseKey(options: { host?: unknown; port?: unknown; database?: unknown; connectionString?: unknown }): string {
  let host = typeof options.host === 'string' ? options.host : 'localhost';
  let port = typeof options.port === 'number' || typeof options.port === 'string' ? String(options.port) : '5432';
  let database = typeof options.database === 'string' ? options.database : '';
  if (typeof options.connectionString === 'string') {
    const at = postgresEndpoint(options.connectionString, { host, port }); // not a URL: keep what the options say
    if (at !== null) {
      host = at.host;
      port = at.port;
      database = at.database || database;
    }
  }
  return `postgres:${host}:${port}/${database}`;
}
