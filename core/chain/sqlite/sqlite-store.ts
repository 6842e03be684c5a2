import Database from 'better-sqlite3';
import { sqliteNativeOptions } from '../../sqlite-options';
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GfError, isGfError } from '../../errors';
import { fsx, sqliteIoBoundary } from '../../project/fs-layer';
import { CheckpointStoreClosedError, CheckpointStoreCorruptError, DuplicateTransitionIdError } from '../errors';
import { assertWorkflowId, toMicrosIso, type TransitionEvent, type WorkflowId } from '../event';
import { GENESIS, nextHead, type ChainHead } from '../head';
import type { ChainStoreWithReaders, Clock, PersistedRow } from '../port';
import { decodeEventBytes, prepareAppend, safeDriverCode, type PreparedEvent } from '../store-support';
import { WorkflowMutex } from '../workflow-mutex';
import { CHAIN_DB_FILE, CHAIN_GATE_FILE, CHAIN_METADATA_SCHEMA, CHAIN_PRAGMAS, CHECKPOINT_CHAIN_SCHEMA, isWorkflowDirName, workflowDirName } from './sqlite-schema';

/** Options of the SQLite store. */
export interface SqliteChainStoreOptions {
  /** Source of `written_at` (audit only, never in the chain); defaults to the system clock. */
  readonly clock?: Clock;
  /** Open databases kept (least recently used closed beyond it); default 64. */
  readonly maxOpenDatabases?: number;
}

/** One ledger file found by `scanLedgers`: a readable ledger of one workflow, or an unreadable file and why. */
export type LedgerScan =
  | { readonly kind: 'ledger'; readonly workflowId: WorkflowId; readonly ledger: string; readonly rows: number }
  | { readonly kind: 'unreadable'; readonly ledger: string; readonly cause: string };

interface RawRow {
  readonly sequence: number;
  readonly transition_id: string;
  readonly prior_head: string;
  readonly next_head: string;
  readonly event_bytes: Buffer;
  readonly written_at: string;
}

interface Conn {
  readonly db: Database.Database;
  /** False for a reader's connection to a ledger on a read-only file system (a mounted snapshot). */
  readonly writable: boolean;
  readonly tail: Database.Statement<[], { next_head: string }>;
  /** `PRAGMA data_version`: moves when another connection (any process) commits to this database. */
  readonly dataVersion: Database.Statement<[], number>;
  /**
   * The chain head as this connection last saw it (its own appends included) and the
   * data version it was read under; undefined after a rollback or before the first read.
   */
  head: ChainHead | undefined;
  version: number;
  readonly insert: Database.Statement<[string, string, string, Buffer, string]>;
  readonly rows: Database.Statement<[], RawRow>;
  readonly begin: Database.Statement;
  readonly commit: Database.Statement;
  readonly rollback: Database.Statement;
  /** The workflow's append gate (opened on the first write; see `Gate`). */
  gate: Gate | undefined;
}

/**
 * The workflow's append gate: a connection to `append.lock` beside the ledger.
 *
 * Every writer holds the gate's write lock (`BEGIN IMMEDIATE`, never
 * written) around its ledger transaction, and `lock(id, fn)` holds it while
 * `fn` runs. So `fn`'s own appends can each commit in their own ledger
 * transaction (durable when they resolve, whatever `fn` does next) while no
 * other writer, in any process, appends between them. The kernel drops the
 * gate's POSIX lock when its holder dies.
 */
interface Gate {
  readonly db: Database.Database;
  readonly begin: Database.Statement;
  readonly rollback: Database.Statement;
}

function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Largest ledger read into memory on read-only media. */
const READ_ONLY_LEDGER_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Opens a ledger read-only; on read-only media, from an in-memory copy of its bytes.
 *
 * SQLite cannot open a WAL database read-only where it may not create the
 * `-shm` index (a mounted snapshot). The database file is then read whole
 * (no links followed, regular file only, bounded) and opened in memory with
 * its header marked rollback-journal. A non-empty `-wal` beside it holds
 * rows not yet in the file: that ledger is refused (`SQLITE_CANTOPEN`),
 * never read partially.
 */
function openReadOnly(file: string): Database.Database {
  try {
    const db = new Database(file, { ...sqliteNativeOptions(), readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (e) {
    if (!(sqliteCode(e) ?? '').startsWith('SQLITE_CANTOPEN')) throw e;
  }
  const wal = lstatSync(`${file}-wal`, { throwIfNoEntry: false });
  if (wal !== undefined && wal.size > 0) throw Object.assign(new Error('unapplied WAL on read-only media'), { code: 'SQLITE_CANTOPEN_WAL' });
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  let bytes: Buffer;
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > READ_ONLY_LEDGER_MAX_BYTES) throw Object.assign(new Error('not a regular ledger file'), { code: 'SQLITE_CANTOPEN_NOTREG' });
    bytes = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, bytes, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
  } finally {
    closeSync(fd);
  }
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

/** True when a failure says this process may read but not write the ledger. */
function cannotWrite(e: unknown): boolean {
  const code = sqliteCode(e) ?? '';
  return code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH' || code === 'EROFS' || code === 'EACCES';
}

/** SQLite result codes and errnos that mean the ledger file could not be read or written. */
const IO_FAILURE_PREFIXES = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'ENOSPC', 'EIO', 'EACCES', 'EPERM', 'EROFS', 'EDQUOT'] as const;
const isIoFailure = (code: string): boolean => IO_FAILURE_PREFIXES.some((p) => code.startsWith(p));

/**
 * An append's failure as the caller sees it: the driver's stable ids, and an
 * I/O failure (a full disk, an I/O error, a revoked permission, at any step up
 * to and including COMMIT) as `GF_IO` with `committed: false` (SQLite rolls
 * the transaction back; the row is not in the ledger).
 */
function appendFailure(e: unknown): unknown {
  const mapped = mapDriverError(e);
  if (mapped !== e || isGfError(e)) return mapped;
  const code = sqliteCode(e);
  if (code === undefined || !isIoFailure(code)) return e;
  return new GfError('GF_IO', 'the ledger write failed', { cause: safeDriverCode(code) ?? 'io' }, false);
}

/** Closes a connection and its gate. */
function closeConn(c: Conn): void {
  c.db.close();
  c.gate?.db.close();
}

/** Creates `dir` and its missing parents through the I/O layer (counted; an existing one is fine). */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  makeDirs(dirname(dir));
  try {
    fsx.mkdirSync(dir, 0o755);
  } catch (e) {
    if ((e as { code?: unknown } | null)?.code !== 'EEXIST') throw e;
  }
}

/** Maps driver failures to stable ids/codes; everything else propagates unchanged. */
function mapDriverError(e: unknown): unknown {
  const code = sqliteCode(e);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && String((e as Error).message).includes('transition_id')) return new DuplicateTransitionIdError();
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT') return new GfError('GF_WRITER_BUSY', 'another process holds the workflow append lock', {}, false);
  return e;
}

/**
 * The production chain store: one SQLite database per workflow.
 *
 * `<root>/<workflowDirName(id)>/checkpoints.sqlite` (derived name, never the
 * raw id), the seed's schema, WAL + synchronous=FULL + busy_timeout 5000.
 * Every append runs read-tail-and-insert inside `BEGIN IMMEDIATE … COMMIT`
 * while holding the workflow's append gate (`append.lock`), so writers in
 * other processes serialise and the chain stays linear; an in-process mutex
 * serialises this store's callers. `lock(id, fn)` holds the gate while `fn`
 * runs, and each append `fn` makes commits on its own: acknowledged means
 * durable, even when `fn` then rejects or the process dies.
 */
export class SqliteChainStore implements ChainStoreWithReaders {
  readonly #root: string;
  readonly #clock: Clock;
  readonly #max: number;
  readonly #mutex = new WorkflowMutex();
  readonly #conns = new Map<WorkflowId, Conn>();
  /** The workflow of the last entry of `#conns` (the most recently used connection). */
  #newest: WorkflowId | undefined;
  #closed = false;

  constructor(root: string, options: SqliteChainStoreOptions = {}) {
    this.#root = root;
    this.#clock = options.clock ?? (() => new Date());
    this.#max = Math.max(1, options.maxOpenDatabases ?? 64);
    Object.freeze(this); // AC-14: no stray attributes; mutable state lives in private fields
  }

  async append(event: TransitionEvent): Promise<ChainHead> {
    this.#assertOpen();
    const prepared = prepareAppend(event);
    const id = prepared.event.workflow_id;
    // The append's transaction is synchronous from BEGIN to COMMIT: with the mutex free it runs at once
    // (nothing can interleave), otherwise it queues behind the holder; inside `lock` it joins the holder's transaction.
    if (this.#mutex.isFree(id)) return this.#appendNow(id, prepared);
    // Inside `lock`: the holder has the gate; the row commits now, durable when this resolves.
    if (this.#mutex.holds(id)) return this.#commitOne(this.#connect(id, true) as Conn, prepared);
    return this.#mutex.runInternal(id, async () => {
      this.#assertOpen();
      return this.#appendNow(id, prepared);
    });
  }

  /** One append holding the gate (synchronous: the caller holds the mutex or found it free). */
  #appendNow(id: WorkflowId, prepared: PreparedEvent): ChainHead {
    let c: Conn;
    let gate: Gate;
    try {
      c = this.#connect(id, true) as Conn;
      gate = this.#gate(id, c);
      gate.begin.run();
    } catch (e) {
      throw appendFailure(e);
    }
    try {
      return this.#commitOne(c, prepared);
    } finally {
      if (gate.db.inTransaction) gate.rollback.run();
    }
  }

  /** One append in its own `BEGIN IMMEDIATE … COMMIT` of the ledger (the caller holds the gate): durable on return. */
  #commitOne(c: Conn, prepared: PreparedEvent): ChainHead {
    try {
      sqliteIoBoundary();
      c.begin.run();
    } catch (e) {
      throw appendFailure(e);
    }
    try {
      const head = this.#insert(c, prepared);
      sqliteIoBoundary();
      c.commit.run();
      return head;
    } catch (e) {
      this.#rollback(c);
      throw appendFailure(e);
    }
  }

  /** The workflow's gate connection (opened once, beside the ledger, never written). */
  #gate(id: WorkflowId, c: Conn): Gate {
    if (c.gate !== undefined) return c.gate;
    sqliteIoBoundary();
    const db = new Database(join(this.#root, workflowDirName(id), CHAIN_GATE_FILE), sqliteNativeOptions());
    try {
      db.pragma('busy_timeout = 5000');
    } catch (e) {
      db.close();
      throw e;
    }
    c.gate = { db, begin: db.prepare('BEGIN IMMEDIATE'), rollback: db.prepare('ROLLBACK') };
    return c.gate;
  }

  async *readAllForWorkflow(workflowId: WorkflowId): AsyncIterable<TransitionEvent> {
    for await (const row of this.readPersistedRows(workflowId)) yield decodeEventBytes(row.event_bytes);
  }

  async tailChainHead(workflowId: WorkflowId): Promise<ChainHead> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    const c = this.#connect(workflowId, false);
    return (c?.tail.get()?.next_head ?? GENESIS) as ChainHead;
  }

  async lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    if (this.#mutex.holds(workflowId)) return fn();
    return this.#mutex.run(workflowId, async () => {
      this.#assertOpen();
      let gate: Gate;
      try {
        gate = this.#gate(workflowId, this.#connect(workflowId, true) as Conn);
        gate.begin.run();
      } catch (e) {
        throw mapDriverError(e);
      }
      // `fn`'s appends commit one by one (durable when each resolves); the gate keeps every other writer out meanwhile.
      try {
        return await fn();
      } finally {
        if (gate.db.open && gate.db.inTransaction) gate.rollback.run();
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of this.#conns.values()) closeConn(c);
    this.#conns.clear();
  }

  async listWorkflows(): Promise<readonly WorkflowId[]> {
    const out: WorkflowId[] = [];
    for (const l of await this.scanLedgers()) if (l.kind === 'ledger' && l.rows > 0) out.push(l.workflowId);
    return out;
  }

  /**
   * Every ledger file under the store, readable or not, sorted by workflow id (unreadable ones last, by file).
   *
   * One garbage or truncated database never hides the others: it is
   * reported `unreadable` with its cause (the SQLite or errno code) and its
   * store-relative file name, and the scan goes on.
   */
  async scanLedgers(): Promise<readonly LedgerScan[]> {
    this.#assertOpen();
    if (!existsSync(this.#root)) return [];
    const ok: LedgerScan[] = [];
    const bad: LedgerScan[] = [];
    for (const name of readdirSync(this.#root).sort()) {
      if (!isWorkflowDirName(name)) continue;
      const file = join(this.#root, name, CHAIN_DB_FILE);
      const ledger = `chain/${name}/${CHAIN_DB_FILE}`;
      if (!existsSync(file)) continue;
      let db: Database.Database | undefined;
      try {
        db = openReadOnly(file);
        const meta = db.prepare<[], { workflow_id: string }>('SELECT workflow_id FROM chain_workflow WHERE singleton = 1').get();
        if (meta === undefined) {
          bad.push({ kind: 'unreadable', ledger, cause: 'no_workflow_row' });
          continue;
        }
        if (workflowDirName(meta.workflow_id) !== name) {
          bad.push({ kind: 'unreadable', ledger, cause: 'workflow_dir_mismatch' });
          continue;
        }
        const n = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM checkpoint_chain').get()?.n ?? 0;
        ok.push({ kind: 'ledger', workflowId: meta.workflow_id, ledger, rows: n });
      } catch (e) {
        const code = sqliteCode(e);
        if (code === 'SQLITE_BUSY') throw mapDriverError(e);
        bad.push({ kind: 'unreadable', ledger, cause: safeDriverCode(code) ?? 'unreadable' });
      } finally {
        db?.close();
      }
    }
    ok.sort((a, b) => (a.kind === 'ledger' && b.kind === 'ledger' ? (a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0) : 0));
    return [...ok, ...bad];
  }

  async *readPersistedRows(workflowId: WorkflowId): AsyncIterable<PersistedRow> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    const c = this.#connect(workflowId, false);
    if (c === undefined) return;
    const rows = c.rows.all();
    for (const r of rows) {
      yield {
        sequence: r.sequence,
        transition_id: r.transition_id,
        prior_head: r.prior_head,
        next_head: r.next_head,
        event_bytes: new Uint8Array(r.event_bytes.buffer, r.event_bytes.byteOffset, r.event_bytes.byteLength),
        written_at: r.written_at,
      };
    }
  }

  /** The database file of a workflow (for tooling and tests; the name is derived, never the raw id). */
  databasePath(workflowId: WorkflowId): string {
    assertWorkflowId(workflowId);
    return join(this.#root, workflowDirName(workflowId), CHAIN_DB_FILE);
  }

  /**
   * The pragmas in force on this store's connection to a workflow (opens it if needed).
   *
   * Diagnostics: lets tests and `gf chain` show durability settings as the store really runs them.
   */
  connectionPragmas(workflowId: WorkflowId): { readonly journal_mode: string; readonly synchronous: number; readonly busy_timeout: number } {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    const c = this.#connect(workflowId, true) as Conn;
    return {
      journal_mode: String(c.db.pragma('journal_mode', { simple: true })),
      synchronous: Number(c.db.pragma('synchronous', { simple: true })),
      busy_timeout: Number(c.db.pragma('busy_timeout', { simple: true })),
    };
  }

  #insert(c: Conn, prepared: PreparedEvent): ChainHead {
    const writtenAt = toMicrosIso(this.#clock());
    const prior = this.#priorHead(c);
    const next = nextHead(prior, prepared.bytes);
    const bytes = prepared.bytes;
    try {
      sqliteIoBoundary();
      c.insert.run(prepared.event.transition_id, prior, next, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), writtenAt);
    } catch (e) {
      c.head = undefined;
      throw mapDriverError(e);
    }
    c.head = next;
    return next;
  }

  /**
   * The tail head, inside the append's write transaction: the cached head while
   * `PRAGMA data_version` shows no other connection committed since it was read,
   * else the table's last row (another process appended, or a tool rewrote the file).
   */
  #priorHead(c: Conn): ChainHead {
    const version = c.dataVersion.get() as number;
    if (c.head !== undefined && version === c.version) return c.head;
    c.version = version;
    c.head = (c.tail.get()?.next_head ?? GENESIS) as ChainHead;
    return c.head;
  }

  /** Rolls back an open transaction and forgets the cached head (it may name a row that is gone). */
  #rollback(c: Conn): void {
    c.head = undefined;
    if (c.db.inTransaction) c.rollback.run();
  }

  #connect(workflowId: WorkflowId, create: boolean): Conn | undefined {
    const cached = this.#conns.get(workflowId);
    if (cached !== undefined && (cached.writable || !create)) {
      // Least recently used out first: a use moves the connection to the end (it is there already when it was the last one used).
      if (this.#newest !== workflowId) {
        this.#conns.delete(workflowId);
        this.#conns.set(workflowId, cached);
        this.#newest = workflowId;
      }
      return cached;
    }
    if (cached !== undefined) {
      closeConn(cached);
      this.#conns.delete(workflowId);
    }
    const dir = join(this.#root, workflowDirName(workflowId));
    const file = join(dir, CHAIN_DB_FILE);
    if (!create && !existsSync(file)) return undefined;
    if (create) makeDirs(dir);
    let db: Database.Database | undefined;
    let writable = true;
    try {
      if (create) sqliteIoBoundary();
      db = new Database(file, { ...sqliteNativeOptions(), fileMustExist: !create });
      if (create) sqliteIoBoundary();
      for (const p of CHAIN_PRAGMAS) db.pragma(p);
    } catch (e) {
      db?.close();
      // A reader of a ledger it cannot write (a read-only mount, another user's project) reads it read-only.
      if (create || !cannotWrite(e)) throw mapDriverError(e);
      db = openReadOnly(file);
      writable = false;
    }
    try {
      const hasSchema = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoint_chain', 'chain_workflow')").all().length === 2;
      // Readers of an existing database take no write lock; creators set it up under BEGIN IMMEDIATE.
      if (!hasSchema && create) sqliteIoBoundary();
      if (!hasSchema) db.transaction(() => {
        db.exec(CHECKPOINT_CHAIN_SCHEMA);
        db.exec(CHAIN_METADATA_SCHEMA);
        db.prepare('INSERT OR IGNORE INTO chain_workflow (singleton, workflow_id) VALUES (1, ?)').run(workflowId);
      }).immediate();
      const meta = db.prepare<[], { workflow_id: string }>('SELECT workflow_id FROM chain_workflow WHERE singleton = 1').get();
      if (meta?.workflow_id !== workflowId) throw new CheckpointStoreCorruptError('workflow_id_mismatch');
    } catch (e) {
      db.close();
      throw mapDriverError(e);
    }
    const conn: Conn = {
      db,
      writable,
      tail: db.prepare('SELECT next_head FROM checkpoint_chain ORDER BY sequence DESC LIMIT 1'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      head: undefined,
      version: -1,
      insert: db.prepare('INSERT INTO checkpoint_chain (transition_id, prior_head, next_head, event_bytes, written_at) VALUES (?, ?, ?, ?, ?)'),
      rows: db.prepare('SELECT sequence, transition_id, prior_head, next_head, event_bytes, written_at FROM checkpoint_chain ORDER BY sequence ASC'),
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      gate: undefined,
    };
    this.#conns.set(workflowId, conn);
    this.#newest = workflowId;
    this.#evict();
    return conn;
  }

  #evict(): void {
    for (const [id, c] of this.#conns) {
      if (this.#conns.size <= this.#max) return;
      if (c.db.inTransaction || c.gate?.db.inTransaction === true || this.#mutex.holds(id)) continue;
      closeConn(c);
      this.#conns.delete(id);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new CheckpointStoreClosedError();
  }
}
