import type { Pool } from 'pg';

/** Pool sizing for {@link openCheckpointerPool}. */
export interface CheckpointerPoolOptions {
  /** Largest number of connections (default 10). */
  readonly max?: number;
  /** How long a caller waits for a connection before node-postgres's timeout error (default 5,000 ms). */
  readonly connectionTimeoutMillis?: number;
}

/**
 * Opens a node-postgres pool for a {@link PostgresCheckpointerAdapter} (the caller side of the injection).
 *
 * The adapter never creates a pool; operators' tools (`gf threads health`)
 * use this. `pg` is loaded here, on first use. An idle connection killed by
 * the server is dropped by the pool without crashing the process. The
 * caller owns the pool and ends it. The connection string stays in memory.
 */
export async function openCheckpointerPool(url: string, options: CheckpointerPoolOptions = {}): Promise<Pool> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    application_name: 'gf-langgraph',
  });
  pool.on('error', () => undefined);
  return pool;
}
