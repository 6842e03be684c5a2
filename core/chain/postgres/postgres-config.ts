import type { Pool, PoolConfig } from 'pg';
import { CHAIN_POSTGRES_URL_ENV } from '../../contract/chain';
import { GfError } from '../../errors';
import { parsePostgresUrl, redactConnectionString } from '../../contract/postgres-url';
import type { Clock } from '../port';
import type { PostgresChainStore } from './postgres-store';

/**
 * How the app and the CLI point the chain store at PostgreSQL.
 *
 * The connection string comes from the environment (`GF_CHAIN_POSTGRES_URL`,
 * preferred: it never shows in `ps`) or from `--chain-postgres-url`. It is
 * held in memory only: nothing here writes it anywhere, and anything that
 * must show or persist it uses `redactConnectionString` first.
 */

/** The environment variable and the command-line option that select the Postgres chain store (declared once in the contract). */
export { CHAIN_POSTGRES_URL_ENV, CHAIN_POSTGRES_URL_OPTION } from '../../contract/chain';

/** Where a connection string came from. */
export const CHAIN_POSTGRES_URL_SOURCES = ['option', 'env'] as const;

/** One source. */
export type ChainPostgresUrlSource = (typeof CHAIN_POSTGRES_URL_SOURCES)[number];

/** A validated connection string and its origin. */
export interface ChainPostgresTarget {
  /** The connection string, secret included: keep it in memory only. */
  readonly url: string;
  readonly source: ChainPostgresUrlSource;
  /** The same string with its password replaced by `[REDACTED]`, safe to show or persist. */
  readonly redacted: string;
}

function parseUrl(url: string): URL {
  if (!URL.canParse(url)) throw new GfError('GF_VALIDATION', 'the chain Postgres connection string is not a URL', { field: 'chain_postgres_url' });
  const parsed = parsePostgresUrl(url);
  if (parsed === null) {
    throw new GfError('GF_VALIDATION', 'the chain Postgres connection string must start with postgres:// or postgresql://', { field: 'chain_postgres_url' });
  }
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
    throw new GfError('GF_VALIDATION', 'the chain Postgres connection string names no host', { field: 'chain_postgres_url' });
  }
  return parsed;
}

export { redactConnectionString };

/**
 * Picks the connection string: the option if given, else the environment, else none.
 *
 * An empty value counts as not given. A malformed value is `GF_VALIDATION`
 * (the value itself is never echoed).
 */
export function resolveChainPostgresTarget(input: { readonly option?: string | undefined; readonly env?: Readonly<Record<string, string | undefined>> }): ChainPostgresTarget | null {
  const fromOption = input.option !== undefined && input.option !== '' ? input.option : undefined;
  const fromEnv = input.env?.[CHAIN_POSTGRES_URL_ENV];
  const url = fromOption ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (url === undefined) return null;
  parseUrl(url);
  return { url, source: fromOption !== undefined ? 'option' : 'env', redacted: redactConnectionString(url) };
}

/** Pool sizing and store options for {@link openPostgresChainStore}. */
export interface OpenPostgresChainStoreOptions {
  /** Largest number of connections (default 10). */
  readonly max?: number;
  /** How long a caller waits for a connection before the pool's timeout error (default 5,000 ms). */
  readonly connectionTimeoutMillis?: number;
  /** How long an idle connection is kept (default 10,000 ms). */
  readonly idleTimeoutMillis?: number;
  /** The chain schema (default `gf_chain`). */
  readonly schema?: string;
  /** Source of `written_at`. */
  readonly clock?: Clock;
}

/** A store together with the pool opened for it. */
export interface OpenedPostgresChainStore {
  readonly store: PostgresChainStore;
  /** The pool (owned by this handle, not by the store). */
  readonly pool: Pool;
  /** Closes the store, then ends the pool. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the Postgres chain store: creates the pool (the caller side), then the store over it, then its schema.
 *
 * `pg` is loaded here, on first use, so a process that never points at
 * Postgres never loads a byte of Postgres code. Every connection starts
 * with `synchronous_commit=on`, so commits are durable whatever the role's
 * default. If setup fails, the pool is ended before the error propagates.
 */
export async function openPostgresChainStore(url: string, options: OpenPostgresChainStoreOptions = {}): Promise<OpenedPostgresChainStore> {
  parseUrl(url);
  const pg = (await import('pg')).default;
  // The store too loads on first use: the CLI registers --chain-postgres-url from this module for `--help`.
  const { PostgresChainStore } = await import('./postgres-store');
  const config: PoolConfig = {
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 10_000,
    application_name: 'gf-chain',
    options: '-c synchronous_commit=on',
  };
  const pool = new pg.Pool(config);
  // An idle connection killed by the server is dropped by the pool; never crash the process for it.
  pool.on('error', () => undefined);
  const store = new PostgresChainStore({ pool, ...(options.schema === undefined ? {} : { schema: options.schema }), ...(options.clock === undefined ? {} : { clock: options.clock }) });
  let ended: Promise<void> | undefined;
  const close = (): Promise<void> => {
    ended ??= (async () => {
      await store.close();
      await pool.end();
    })();
    return ended;
  };
  try {
    await store.setup();
  } catch (e) {
    await close();
    throw e;
  }
  return { store, pool, close };
}
