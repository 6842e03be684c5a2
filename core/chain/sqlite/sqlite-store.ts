import Database from 'better-sqlite3';
import { sqliteNativeOptions } from '../../sqlite-options';
import { closeSync, copyFileSync, existsSync, lstatSync, mkdtempSync, readSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GfError, isGfError } from '../../errors';
import { fsx, sqliteIoBoundary } from '../../project/fs-layer';
import { NOT_REGULAR_FILE_WORDS, notRegularFile, openRegularFile, type NotRegularFile } from '../../regular-file';
import { ChainError, CheckpointStoreClosedError, CheckpointStoreCorruptError, DuplicateTransitionIdError } from '../errors';
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

/** Largest ledger read into memory (a snapshot of a ledger no writer has open, or one on read-only media). */
const READ_ONLY_LEDGER_MAX_BYTES = 512 * 1024 * 1024;

/** A ledger that cannot be read as one, with the stable cause scans and `verify` report. */
function unreadableLedger(cause: string): Error {
  return Object.assign(new Error(`unreadable ledger: ${cause}`), { code: cause });
}

/** The causes of an unreadable ledger in words (a sentence names the file and this). */
export function ledgerCauseWords(cause: string): string {
  if (cause === 'SQLITE_NOTADB') return 'is not a SQLite database (truncated, zeroed or another kind of file)';
  if (cause.startsWith('SQLITE_CORRUPT')) return 'is a damaged SQLite database';
  if (cause === 'no_ledger_tables') return 'has no ledger tables';
  if (cause === 'no_workflow_row') return 'has no workflow row';
  if (cause === 'workflow_dir_mismatch') return 'belongs to another workflow than its directory names';
  if (cause === 'ledger_too_large') return `is larger than ${READ_ONLY_LEDGER_MAX_BYTES} bytes`;
  if (cause === 'SQLITE_CANTOPEN_WAL') return 'has a write-ahead log that cannot be read here';
  if (cause === 'changing') return 'kept changing while it was read; try again';
  const kind = cause.startsWith('not_regular_') ? (cause.slice('not_regular_'.length) as NotRegularFile) : undefined;
  if (kind !== undefined && kind in NOT_REGULAR_FILE_WORDS) return NOT_REGULAR_FILE_WORDS[kind];
  return `cannot be read (${cause})`;
}

/** `size:mtime` of a file, '-' when absent: equal stamps before and after a read, no writer moved it meanwhile. */
function stampOf(file: string): string {
  const st = lstatSync(file, { throwIfNoEntry: false });
  return st === undefined ? '-' : `${st.size}:${st.mtimeMs}:${st.ino}`;
}

/** The ledger's file and its WAL, stamped together. */
const ledgerStamp = (file: string): string => `${stampOf(file)}|${stampOf(`${file}-wal`)}`;

/** Reads a whole open regular file (bounded). */
function readAll(fd: number, size: number): Buffer {
  if (size > READ_ONLY_LEDGER_MAX_BYTES) throw unreadableLedger('ledger_too_large');
  const bytes = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, bytes, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return bytes.subarray(0, off);
}

/** An in-memory database of a ledger image (marked rollback-journal: a memory image cannot be WAL). */
function memoryImage(bytes: Buffer): Database.Database {
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  const db = new Database(bytes, { ...sqliteNativeOptions(), readonly: true });
  db.prepare('SELECT count(*) FROM sqlite_master').get();
  return db;
}

/** The ledger and its WAL copied to a private directory and folded there: one consistent image, nothing written beside the ledger. */
function foldedCopy(file: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'gf-ledger-'));
  try {
    const copy = join(dir, CHAIN_DB_FILE);
    copyFileSync(file, copy);
    copyFileSync(`${file}-wal`, `${copy}-wal`);
    const db = new Database(copy, { ...sqliteNativeOptions(), fileMustExist: true });
    try {
      return db.serialize();
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens a ledger for reading, leaving no file behind and changing no byte.
 *
 * SQLite's own read-only mode still creates `-wal`/`-shm` beside a WAL
 * database. So: the path must be a regular file (checked without blocking,
 * no links followed; a FIFO is refused, never waited on). With a writer's
 * `-wal` and `-shm` already there, the ledger is read in place (SQLite
 * creates nothing new and sees the live writer's commits). Otherwise the
 * file's bytes are the whole ledger: they are read once and opened in
 * memory, retried if a writer moved the file meanwhile; a `-wal` without
 * its index (or on read-only media) is folded in a private copy.
 */
function openForRead(file: string): Database.Database {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = ledgerStamp(file);
    const opened = openRegularFile(file, { followLinks: false });
    if (!opened.ok) throw unreadableLedger(`not_regular_${opened.problem}`);
    let image: Buffer | undefined;
    try {
      const wal = lstatSync(`${file}-wal`, { throwIfNoEntry: false });
      const shm = lstatSync(`${file}-shm`, { throwIfNoEntry: false });
      if (wal !== undefined && (!wal.isFile() || (shm !== undefined && !shm.isFile()))) throw unreadableLedger('not_regular_wal');
      if (wal !== undefined && shm !== undefined) {
        try {
          const db = new Database(file, { ...sqliteNativeOptions(), readonly: true, fileMustExist: true });
          try {
            db.pragma('busy_timeout = 5000');
            db.prepare('SELECT count(*) FROM sqlite_master').get();
          } catch (e) {
            db.close();
            throw e;
          }
          return db;
        } catch (e) {
          if (!(sqliteCode(e) ?? '').startsWith('SQLITE_CANTOPEN') && !(sqliteCode(e) ?? '').startsWith('SQLITE_READONLY')) throw e;
        }
      }
      image = wal !== undefined && wal.size > 0 ? foldedCopy(file) : readAll(opened.fd, opened.st.size);
    } finally {
      closeSync(opened.fd);
    }
    if (ledgerStamp(file) === before) return memoryImage(image);
  }
  throw unreadableLedger('changing');
}

const ROWS_SQL = 'SELECT sequence, transition_id, prior_head, next_head, event_bytes, written_at FROM checkpoint_chain ORDER BY sequence ASC';

/** The store's own causes of an unreadable ledger (besides SQLite's codes and errnos). */
const OWN_CAUSES: ReadonlySet<string> = new Set(['no_ledger_tables', 'no_workflow_row', 'workflow_dir_mismatch', 'ledger_too_large', 'changing']);
const NOT_REGULAR_CAUSES: ReadonlySet<string> = new Set([...Object.keys(NOT_REGULAR_FILE_WORDS), 'wal'].map((k) => `not_regular_${k}`));

/** The stable cause of a ledger read failure: an SQLite result code or errno, or the store's own reason. */
function causeOf(e: unknown): string {
  const code = sqliteCode(e);
  return safeDriverCode(code) ?? (code !== undefined && (OWN_CAUSES.has(code) || NOT_REGULAR_CAUSES.has(code)) ? code : 'unreadable');
}

/** True when the database has both ledger tables. */
function hasLedgerTables(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoint_chain', 'chain_workflow')").all().length === 2;
}

/**
 * A read failure of one ledger as the caller sees it: a busy writer stays `GF_WRITER_BUSY`, typed
 * errors pass, anything the file itself causes is `workflows.checkpoint_store_corrupt` with the
 * ledger's project-relative name and the cause in words.
 */
function unreadableError(e: unknown, ledger: string): unknown {
  if (isGfError(e) || e instanceof ChainError) return e;
  const mapped = mapDriverError(e);
  if (mapped !== e) return mapped;
  const cause = causeOf(e);
  return new CheckpointStoreCorruptError(cause, `the ledger ${ledger} ${ledgerCauseWords(cause)}`, { ledger });
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
    if (this.#mutex.holds(id)) return this.#commitOne(this.#connect(id), prepared);
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
      c = this.#connect(id);
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
    const head = this.#read(workflowId, (db) => db.prepare<[], { next_head: string }>('SELECT next_head FROM checkpoint_chain ORDER BY sequence DESC LIMIT 1').get()?.next_head);
    return (head ?? GENESIS) as ChainHead;
  }

  async lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    if (this.#mutex.holds(workflowId)) return fn();
    return this.#mutex.run(workflowId, async () => {
      this.#assertOpen();
      let gate: Gate;
      try {
        gate = this.#gate(workflowId, this.#connect(workflowId));
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
        db = openForRead(file);
        if (!hasLedgerTables(db)) {
          bad.push({ kind: 'unreadable', ledger, cause: 'no_ledger_tables' });
          continue;
        }
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
        if (e instanceof GfError) throw e;
        bad.push({ kind: 'unreadable', ledger, cause: causeOf(e) });
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
    const rows = this.#read(workflowId, (db) => db.prepare<[], RawRow>(ROWS_SQL).all()) ?? [];
    // A column of another type than the schema's (a NULL, a text where bytes belong) is carried as the
    // nearest empty value, so `verify` classifies the row (torn) instead of the reader failing.
    for (const r of rows) {
      const bytes: unknown = r.event_bytes;
      yield {
        sequence: typeof r.sequence === 'number' ? r.sequence : Number(r.sequence),
        transition_id: typeof r.transition_id === 'string' ? r.transition_id : '',
        prior_head: typeof r.prior_head === 'string' ? r.prior_head : '',
        next_head: typeof r.next_head === 'string' ? r.next_head : '',
        event_bytes: bytes instanceof Uint8Array ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(0),
        written_at: typeof r.written_at === 'string' ? r.written_at : '',
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
    const c = this.#connect(workflowId);
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

  /**
   * Runs one read of a workflow's ledger: on this store's own connection when it has one open
   * (it writes there), else on a reading connection opened for this read only and closed after it
   * (see `openForRead`: nothing is created beside the ledger). Undefined when there is no ledger.
   * A file that cannot be read as a ledger is `workflows.checkpoint_store_corrupt` naming it.
   */
  #read<T>(workflowId: WorkflowId, fn: (db: Database.Database) => T): T | undefined {
    const own = this.#conns.get(workflowId);
    if (own !== undefined) return fn(own.db);
    const file = join(this.#root, workflowDirName(workflowId), CHAIN_DB_FILE);
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
    const ledger = `chain/${workflowDirName(workflowId)}/${CHAIN_DB_FILE}`;
    let db: Database.Database;
    try {
      db = openForRead(file);
    } catch (e) {
      throw unreadableError(e, ledger);
    }
    try {
      if (!hasLedgerTables(db)) {
        // A database with no table at all is a first append that stopped before its schema: no rows yet.
        if ((db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()?.n ?? 0) === 0) return undefined;
        throw unreadableError(unreadableLedger('no_ledger_tables'), ledger);
      }
      const meta = db.prepare<[], { workflow_id: string }>('SELECT workflow_id FROM chain_workflow WHERE singleton = 1').get();
      if (meta?.workflow_id !== workflowId) throw unreadableError(unreadableLedger(meta === undefined ? 'no_workflow_row' : 'workflow_dir_mismatch'), ledger);
      return fn(db);
    } catch (e) {
      throw unreadableError(e, ledger);
    } finally {
      db.close();
    }
  }

  /** This store's writing connection to a workflow's ledger (created with its schema when missing; kept open, least recently used closed first). */
  #connect(workflowId: WorkflowId): Conn {
    const cached = this.#conns.get(workflowId);
    if (cached !== undefined) {
      // Least recently used out first: a use moves the connection to the end (it is there already when it was the last one used).
      if (this.#newest !== workflowId) {
        this.#conns.delete(workflowId);
        this.#conns.set(workflowId, cached);
        this.#newest = workflowId;
      }
      return cached;
    }
    const dir = join(this.#root, workflowDirName(workflowId));
    const file = join(dir, CHAIN_DB_FILE);
    makeDirs(dir);
    // An existing path must be a regular file before SQLite opens it (a FIFO would block the open forever).
    if (lstatSync(file, { throwIfNoEntry: false }) !== undefined) {
      const problem = notRegularFile(file, { followLinks: false });
      if (problem !== null && problem !== 'missing') throw unreadableError(unreadableLedger(`not_regular_${problem}`), `chain/${workflowDirName(workflowId)}/${CHAIN_DB_FILE}`);
    }
    let db: Database.Database | undefined;
    try {
      sqliteIoBoundary();
      db = new Database(file, { ...sqliteNativeOptions(), fileMustExist: false });
      sqliteIoBoundary();
      for (const p of CHAIN_PRAGMAS) db.pragma(p);
    } catch (e) {
      db?.close();
      throw mapDriverError(e);
    }
    try {
      const hasSchema = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoint_chain', 'chain_workflow')").all().length === 2;
      // A database without the schema is set up under BEGIN IMMEDIATE.
      if (!hasSchema) sqliteIoBoundary();
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
      tail: db.prepare('SELECT next_head FROM checkpoint_chain ORDER BY sequence DESC LIMIT 1'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      head: undefined,
      version: -1,
      insert: db.prepare('INSERT INTO checkpoint_chain (transition_id, prior_head, next_head, event_bytes, written_at) VALUES (?, ?, ?, ?, ?)'),
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
