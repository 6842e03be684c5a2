// threads.* operations: LangGraph checkpoint databases, read
// through upstream savers on read-only sources; threads.restore writes
// through the checkpointer adapter's saver().
import { resolve } from 'node:path';
import { GfError } from '../errors';
import { LANGGRAPH_POSTGRES_URL_ENV, THREAD_PAGE_LIMITS, type ThreadHealth } from '../contract/threads';
import type { OperationRequest } from '../contract/operations';
import { openCheckpointerPool } from '../langgraph/postgres-pool';
import { PostgresCheckpointerAdapter } from '../langgraph/postgres-checkpointer';
import { sqliteDatabaseKey, SqliteCheckpointerAdapter } from '../langgraph/sqlite-checkpointer';
import { postgresDatabaseKey, PROCESS_ADAPTERS } from '../langgraph/live-checkpointers';
import type { LangGraphCheckpointerPort } from '../langgraph/port';
import { diffThread, listThreads, threadHistory, threadNamespaces, threadState, type OpenThreadSource } from '../langgraph/thread-reader';
import { checkRestore, restoreThread } from '../langgraph/thread-restore';
import { restorePythonPostgres, restorePythonSqlite } from '../langgraph/python-restore';
import { checkPrune, previewPrune, prunePostgres, pruneSqlite, type ThreadPruneRequest } from '../langgraph/thread-prune';
import { openPostgresReadSource } from '../langgraph/postgres-read-source';
import { openSqliteReadSource, sqliteStamp } from '../langgraph/sqlite-read-source';
import { noLangGraphTables, type ThreadReadSource } from '../langgraph/thread-source';
import { userCursorKey } from '../paging/cursor-key';
import { requireAbsolute } from './absolute-path';
import type { Cancellations } from './checkpoint-operations';
import type { Implementations } from './dispatcher';

type Source = OperationRequest<'threads.list'>['source'];

interface CachedSqlite {
  readonly stamp: string;
  readonly reader: Promise<ThreadReadSource>;
}

interface Writer {
  readonly adapter: LangGraphCheckpointerPort;
  close(): Promise<void>;
}

/** Most SQLite sources kept open at once (least recently used closed first). */
const MAX_OPEN_SQLITE = 8;

function noPostgres(): never {
  throw new GfError('GF_VALIDATION', `no LangGraph PostgreSQL database was given at launch (--postgres-url or ${LANGGRAPH_POSTGRES_URL_ENV})`, { field: 'source' });
}

/**
 * The LangGraph sources of one facade: read-only readers (SQLite snapshots
 * refreshed when the file changes, one read-only Postgres pool) and the
 * writing adapters a restore uses. The Postgres URL is held here only.
 */
export class ThreadSources {
  readonly #postgresUrl: string | undefined;
  readonly #sqlite = new Map<string, CachedSqlite>();
  #postgres: Promise<ThreadReadSource> | undefined;
  readonly #writers = new Map<string, Writer>();

  constructor(postgresUrl: string | undefined) {
    this.#postgresUrl = postgresUrl === '' ? undefined : postgresUrl;
  }

  /** The path of a SQLite source (absolute, as the request must give it). */
  static sqlitePath(source: Source): string {
    if (source.kind !== 'sqlite') throw new Error('invariant violated: not a SQLite source');
    return resolve(requireAbsolute(source.path, { sentence: 'the SQLite checkpoint database path must be absolute', field: 'source' }));
  }

  /** The identity tokens are bound to: the kind and the path, never a URL. */
  static idOf(source: Source): string {
    return source.kind === 'sqlite' ? `sqlite:${ThreadSources.sqlitePath(source)}` : 'postgres';
  }

  /** A reader of the source, current with the database (a changed SQLite file is re-read); `GF_SCHEMA_MISMATCH` without LangGraph tables. */
  async open(source: Source): Promise<OpenThreadSource> {
    const opened = await this.#open(source);
    if (!opened.reader.hasTables) throw noLangGraphTables(source.kind);
    return { ...opened, cursorKey: () => userCursorKey() };
  }

  async #open(source: Source): Promise<Omit<OpenThreadSource, 'cursorKey'>> {
    const id = ThreadSources.idOf(source);
    if (source.kind === 'postgres') {
      const url = this.#postgresUrl ?? noPostgres();
      this.#postgres ??= openPostgresReadSource(url).catch((e: unknown) => {
        this.#postgres = undefined;
        throw e;
      });
      return { id, reader: await this.#postgres };
    }
    const path = ThreadSources.sqlitePath(source);
    const stamp = sqliteStamp(path);
    const cached = this.#sqlite.get(path);
    if (cached !== undefined && cached.stamp === stamp) {
      this.#sqlite.delete(path);
      this.#sqlite.set(path, cached);
      return { id, reader: await cached.reader };
    }
    if (cached !== undefined) {
      this.#sqlite.delete(path);
      void cached.reader.then((r) => r.close()).catch(() => undefined);
    }
    const reader = openSqliteReadSource(path);
    this.#sqlite.set(path, { stamp, reader });
    reader.catch(() => this.#sqlite.get(path)?.reader === reader && this.#sqlite.delete(path));
    while (this.#sqlite.size > MAX_OPEN_SQLITE) {
      const [oldest, entry] = this.#sqlite.entries().next().value as [string, CachedSqlite];
      this.#sqlite.delete(oldest);
      void entry.reader.then((r) => r.close()).catch(() => undefined);
    }
    return { id, reader: await reader };
  }

  /** The checkpointer adapter a restore writes through (opened on first use, kept for `threads.health`). */
  async writer(source: Source): Promise<LangGraphCheckpointerPort> {
    const id = ThreadSources.idOf(source);
    const existing = this.#writers.get(id);
    if (existing !== undefined) return existing.adapter;
    let writer: Writer;
    if (source.kind === 'sqlite') {
      const adapter = new SqliteCheckpointerAdapter({ path: ThreadSources.sqlitePath(source) });
      writer = { adapter, close: () => adapter.close() };
    } else {
      const pool = await openCheckpointerPool(this.#postgresUrl ?? noPostgres(), { max: 2 });
      writer = { adapter: new PostgresCheckpointerAdapter({ pool }), close: () => pool.end() };
    }
    this.#writers.set(id, writer);
    return writer.adapter;
  }

  /**
   * The health of the source's adapter: the adapter writing it in this process (an agent's, or the one a
   * restore used), else this facade's own (opened without a connection); and whether the browser can read it.
   */
  async health(source: Source): Promise<ThreadHealth> {
    const { reader } = await this.#open(source); // a missing file or an unreachable server fails here, typed
    const key = source.kind === 'sqlite' ? sqliteDatabaseKey(ThreadSources.sqlitePath(source)) : postgresDatabaseKey({ connectionString: this.#postgresUrl ?? noPostgres() });
    const adapter = PROCESS_ADAPTERS.find(key) ?? (await this.writer(source));
    const h = adapter.health();
    const waiting = (adapter as { waiting?: () => number }).waiting?.() ?? 0;
    const problem = await readProblem(reader);
    return {
      backend: source.kind,
      pool_in_use: h.pool_in_use,
      pool_idle: h.pool_idle,
      last_write_age_seconds: Number.isFinite(h.last_write_age_seconds) ? h.last_write_age_seconds : null,
      pool_waiting: waiting,
      readable: problem === null,
      unreadable_reason: problem,
    };
  }

  async close(): Promise<void> {
    const readers = [...this.#sqlite.values()].map((c) => c.reader);
    if (this.#postgres !== undefined) readers.push(this.#postgres);
    this.#sqlite.clear();
    this.#postgres = undefined;
    await Promise.all(readers.map((r) => r.then((x) => x.close()).catch(() => undefined)));
    const writers = [...this.#writers.values()];
    this.#writers.clear();
    await Promise.all(writers.map((w) => w.close().catch(() => undefined)));
  }
}

/** Why the threads browser cannot read a source (no LangGraph tables; the newest thread's head does not read), else null. */
async function readProblem(reader: ThreadReadSource): Promise<string | null> {
  if (!reader.hasTables) return noLangGraphTables(reader.kind).message.replace(/^GF_[A-Z_]+: /, '');
  try {
    const [head] = await reader.heads('', null, 1);
    if (head !== undefined) await reader.saver.getTuple({ configurable: { thread_id: head.thread_id, checkpoint_ns: '' } });
    return null;
  } catch (e) {
    if (e instanceof GfError) return e.message.replace(/^GF_[A-Z_]+: /, '');
    throw e;
  }
}

/** Maps a database failure of a restore's writer to a typed error (never the URL or the driver's text). */
function writeFailure(e: unknown): never {
  if (e instanceof GfError) throw e;
  const code = (e as { code?: unknown } | null)?.code;
  throw new GfError('GF_IO', 'the LangGraph checkpoint database could not be opened for the restore', { reason: typeof code === 'string' ? code : 'unavailable' }, false);
}

/** The facade's `threads.*` implementations over `sources`. */
export function threadsOperations(sources: ThreadSources, clock: () => Date, cancellations: Cancellations): Pick<Implementations, 'threads.list' | 'threads.history' | 'threads.state' | 'threads.namespaces' | 'threads.diff' | 'threads.restore' | 'threads.health' | 'threads.prune_preview' | 'threads.prune'> {
  return {
    'threads.list': async (r) => listThreads(await sources.open(r.source), r.prefix ?? '', r.limit ?? THREAD_PAGE_LIMITS.default, r.after),
    'threads.history': async (r) => threadHistory(await sources.open(r.source), r.thread_id, r.limit ?? THREAD_PAGE_LIMITS.default, r.after, r.checkpoint_ns ?? ''),
    'threads.state': async (r) => threadState(await sources.open(r.source), r.thread_id, r.checkpoint_id, r.checkpoint_ns ?? ''),
    'threads.namespaces': async (r) => threadNamespaces(await sources.open(r.source), r.thread_id),
    'threads.diff': async (r) => {
      const run = cancellations.begin(r.operation_id); // the same cancellation as the workspace diff (`operation.cancel`)
      try {
        return await diffThread(await sources.open(r.source), r.thread_id, r.from, r.to, r.limit ?? THREAD_PAGE_LIMITS.default, r.after, run.signal);
      } finally {
        run.end();
      }
    },
    'threads.restore': async (r) => {
      const opened = await sources.open(r.source).catch((e: unknown) => {
        throw e instanceof GfError ? e.withCommitted(false) : e;
      }); // the same typed refusals as browsing (not SQLite, no LangGraph tables, unreachable) before any writer opens
      const req = { threadId: r.thread_id, checkpointId: r.checkpoint_id, reason: r.reason, actor: r.actor ?? null, idempotencyKey: r.idempotency_key, ...(r.expected_head_checkpoint_id === undefined ? {} : { expectedHead: r.expected_head_checkpoint_id }) };
      // Refusals and replays are decided on the read-only reader: a refused restore never opens the database for writing.
      const checked = await checkRestore(opened.reader.saver, req);
      if (checked.kind === 'replay') return checked.receipt;
      const adapter = await sources.writer(r.source);
      if (opened.reader.format === 'python') {
        // A database Python LangGraph wrote is restored in its own format: the target's stored bytes carried, never re-encoded.
        const wrote = (receipt: { replayed: boolean }) => !receipt.replayed;
        if (adapter instanceof SqliteCheckpointerAdapter) return adapter.writeDirect((db) => restorePythonSqlite(db, req, clock), wrote).catch(writeFailure);
        if (adapter instanceof PostgresCheckpointerAdapter) return adapter.writeDirect((client) => restorePythonPostgres(client, req, clock), wrote).catch(writeFailure);
      }
      const saver = await adapter.saver().catch(writeFailure);
      return restoreThread(saver, req, clock);
    },
    'threads.health': async (r) => sources.health(r.source),
    'threads.prune_preview': async (r) => previewPrune((await sources.open(r.source)).reader.prune, r.keep_last, r.thread_id ?? null, r.limit ?? THREAD_PAGE_LIMITS.default),
    'threads.prune': async (r) => {
      const opened = await sources.open(r.source).catch((e: unknown) => {
        throw e instanceof GfError ? e.withCommitted(false) : e;
      });
      const req: ThreadPruneRequest = { keepLast: r.keep_last, threadId: r.thread_id ?? null, reason: r.reason, actor: r.actor ?? null, idempotencyKey: r.idempotency_key, expectedDigest: r.expected_preview_digest };
      // Replays, conflicts and a stale preview are decided on the read-only reader: a refused prune never opens the database for writing.
      const earlier = await checkPrune(opened.reader.prune, req);
      if (earlier !== null) return earlier;
      const adapter = await sources.writer(r.source);
      const wrote = (receipt: { replayed: boolean }) => !receipt.replayed;
      // The same statements for either writer of the database: neither saver has a delete of its own to go through.
      if (adapter instanceof SqliteCheckpointerAdapter) return adapter.writeDirect((db) => pruneSqlite(db, req, clock), wrote).catch(writeFailure);
      if (adapter instanceof PostgresCheckpointerAdapter) return adapter.writeDirect((client) => prunePostgres(client, req, clock), wrote).catch(writeFailure);
      throw new Error('invariant violated: a thread source without a SQLite or PostgreSQL writer');
    },
  };
}
