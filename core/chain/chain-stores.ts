// Where a facade's ledgers live (each project's SQLite store, or one shared
// PostgreSQL store), opened once per scope, and the plain-words error of an
// unreachable PostgreSQL server.
import { join } from 'node:path';
import { postgresEndpoint } from '../contract/postgres-url';
import { GfError, NETWORK_ERRNOS } from '../errors';
import { LAYOUT } from '../project/layout';
import type { LineageRecord } from '../project/index';
import { ChainError } from './errors';
import type { ChainStoreWithReaders } from './port';
import { openPostgresChainStore, redactConnectionString, resolveChainPostgresTarget, type OpenedPostgresChainStore } from './postgres/postgres-config';
import { SqliteChainStore } from './sqlite/sqlite-store';

/**
 * Where ledgers live: each project's own SQLite store (`<project>/chain`), or
 * one shared PostgreSQL store when many machines write (connection string
 * from `GF_CHAIN_POSTGRES_URL`; kept in memory only).
 */
export type ChainBackend = { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly url: string };

/**
 * Where one handle's ledgers live: a project's root, or a directory opened by
 * `chain.open` (ledgers without a project). `closers` run when the handle closes.
 */
export interface LedgerScope {
  readonly root: string;
  readonly closers: Set<() => Promise<void> | void>;
  /** The workspace's lineage records (where evidence finds the generation it names), or null for ledgers of no workspace. */
  readonly lineage: () => readonly LineageRecord[] | null;
}

/**
 * The backend `--chain-postgres-url` (or, when absent or empty, `GF_CHAIN_POSTGRES_URL` in `env`) selects,
 * with the URL's redacted form for people; the per-project SQLite stores when neither names one.
 */
export function chainBackendOf(option: string | undefined, env: Readonly<Record<string, string | undefined>>): { readonly backend: ChainBackend; readonly redacted: string | null } {
  const target = resolveChainPostgresTarget({ option, env });
  return target === null ? { backend: { kind: 'sqlite' }, redacted: null } : { backend: { kind: 'postgres', url: target.url }, redacted: target.redacted };
}

/** The chain store(s) of one facade. */
export class ChainStores {
  readonly #backend: ChainBackend;
  readonly #sqlite = new WeakMap<LedgerScope['closers'], SqliteChainStore>();
  #postgres: Promise<OpenedPostgresChainStore> | undefined;

  constructor(backend: ChainBackend) {
    this.#backend = backend;
  }

  get kind(): ChainBackend['kind'] {
    return this.#backend.kind;
  }

  /** The store for a project session (opened once, closed with the session or the facade). */
  async storeOf(scope: LedgerScope): Promise<ChainStoreWithReaders> {
    if (this.#backend.kind === 'postgres') return (await this.#pg()).store;
    let s = this.#sqlite.get(scope.closers);
    if (s === undefined) {
      const store = new SqliteChainStore(join(scope.root, LAYOUT.chain));
      this.#sqlite.set(scope.closers, store);
      scope.closers.add(() => store.close());
      s = store;
    }
    return s;
  }

  /** Pool counters of the shared Postgres store (Infinity becomes null on the wire). */
  async postgresHealth(): Promise<Readonly<Record<string, number | null>>> {
    const h = (await this.#pg()).store.health();
    return { pool_in_use: h.pool_in_use, pool_idle: h.pool_idle, last_write_age_seconds: Number.isFinite(h.last_write_age_seconds) ? h.last_write_age_seconds : null };
  }

  #pg(): Promise<OpenedPostgresChainStore> {
    if (this.#backend.kind !== 'postgres') throw new Error('invariant violated: not a Postgres chain backend');
    const url = this.#backend.url;
    this.#postgres ??= openPostgresChainStore(url).catch((e: unknown) => {
      this.#postgres = undefined;
      if (e instanceof GfError || e instanceof ChainError) throw e;
      // An unreachable server is GF_STORE_UNREACHABLE (host, port and errno only), not a generic store error.
      const explained = this.explain(e);
      if (explained !== e) throw explained;
      // The driver's text is not echoed; only its code, and the URL with its password redacted.
      const code = (e as { code?: unknown } | null)?.code;
      throw new GfError('GF_CHAIN_STORE', `the PostgreSQL chain store at ${redactConnectionString(url)} did not answer`, { reason: typeof code === 'string' ? code : 'unreachable' });
    });
    return this.#postgres;
  }

  /**
   * The error a person can act on when the shared PostgreSQL store cannot be reached.
   *
   * A socket errno (refused, reset, timed out, unknown host) anywhere in the
   * error or its causes becomes `GF_STORE_UNREACHABLE`, "PostgreSQL at
   * HOST:PORT refused the connection" (host and port only: never the user,
   * password or database). Anything else passes through unchanged.
   */
  explain(e: unknown): unknown {
    if (this.#backend.kind !== 'postgres') return e;
    const errno = networkErrno(e, 0);
    if (errno === undefined) return e;
    // An unparsable URL names no host; the sentence still says what failed.
    const { host, port } = postgresEndpoint(this.#backend.url, { host: 'the configured host', port: '5432' }) ?? { host: 'the configured host', port: '5432' };
    const what = errno === 'ECONNREFUSED' ? 'refused the connection' : errno === 'ETIMEDOUT' ? 'did not answer in time' : errno === 'ECONNRESET' ? 'closed the connection' : 'could not be reached';
    return new GfError('GF_STORE_UNREACHABLE', `PostgreSQL at ${host}:${port} ${what}`, { backend: 'postgres', host, port: Number(port), errno });
  }

  /** Closes the shared store (per-project stores close with their sessions). */
  async close(): Promise<void> {
    const pg = this.#postgres;
    this.#postgres = undefined;
    if (pg !== undefined) await (await pg).close();
  }
}

/** The first socket errno in an error, its `cause` or its `errors` (an AggregateError of several addresses). */
function networkErrno(e: unknown, depth: number): string | undefined {
  if (typeof e !== 'object' || e === null || depth > 4) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_ERRNOS.has(code)) return code;
  const nested = [(e as { cause?: unknown }).cause, ...(Array.isArray((e as { errors?: unknown }).errors) ? ((e as { errors: unknown[] }).errors) : [])];
  for (const n of nested) {
    const found = networkErrno(n, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

