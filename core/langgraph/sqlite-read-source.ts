import { copyFileSync, mkdtempSync, readFileSync, readSync, closeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type Database from 'better-sqlite3';
import { GfError } from '../errors';
import { sqliteNativeOptions } from '../sqlite-options';
import { NOT_REGULAR_FILE_WORDS, openRegularFile } from '../regular-file';
import { guardReads, INTERRUPT_CHANNEL, isPlainParsedObject, noLangGraphTables, type RawChannelValue, type ThreadFormat, type ThreadHead, type ThreadReadSource } from './thread-source';
import { loadsPythonTyped, PythonDecodeError, unreadableValue } from './python-serde';
import { PythonSqliteSaver } from './sqlite-python-saver';
import { readMapMember } from './msgpack-carry';
import { sqlitePruneReads } from './thread-prune';

/** The columns thread browsing reads, by table: what every LangGraph SqliteSaver (Python and JS) writes. */
const REQUIRED_COLUMNS = {
  checkpoints: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'parent_checkpoint_id', 'type', 'checkpoint', 'metadata'],
  writes: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'task_id', 'idx', 'channel', 'type', 'value'],
} as const;

/** `GF_SCHEMA_MISMATCH` naming the file, the table and the columns it lacks (other columns are allowed: later LangGraph versions add some). */
function checkLayout(db: Database.Database, fileName: string): void {
  for (const [table, wanted] of Object.entries(REQUIRED_COLUMNS)) {
    const have = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name));
    const missing = wanted.filter((c) => !have.has(c));
    if (missing.length > 0) {
      throw new GfError('GF_SCHEMA_MISMATCH', `the table ${table} in ${fileName} is not a LangGraph checkpoint table: it has no column ${missing.join(', ')}`, { reason: 'table_layout', table, missing: missing.join(',') });
    }
  }
}

/** Python LangGraph writes `msgpack` checkpoints; LangGraph.js writes `json`. The newest checkpoint row decides. */
function formatOf(db: Database.Database): ThreadFormat {
  const row = db.prepare('SELECT type FROM checkpoints ORDER BY rowid DESC LIMIT 1').get() as { type: string | null } | undefined;
  return row !== undefined && row.type !== null && row.type !== 'json' ? 'python' : 'js';
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Size and mtime of a file (null when absent): what tells a cached snapshot it is stale. */
function fileStamp(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st === undefined ? '-' : `${st.size}:${st.mtimeMs}`;
}

/** The stamp of a SQLite database and its WAL: equal stamps, same content. */
export function sqliteStamp(path: string): string {
  return `${fileStamp(path)}|${fileStamp(`${path}-wal`)}`;
}

function notSqlite(): never {
  throw new GfError('GF_IO', 'the file is not a SQLite database', { reason: 'SQLITE_NOTADB' });
}

function cannotRead(e: unknown): never {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') throw new GfError('GF_IO', 'the SQLite checkpoint database file does not exist', { reason: 'ENOENT' });
  if (code === 'EISDIR') throw new GfError('GF_IO', 'the SQLite checkpoint database path is a directory', { reason: 'EISDIR' });
  throw new GfError('GF_IO', 'cannot read the SQLite checkpoint database file', { reason: typeof code === 'string' ? code : 'unreadable' });
}

function readHeader(path: string): void {
  // Checked without blocking before anything opens it: a FIFO here would hang `open` (and every caller behind it).
  const opened = openRegularFile(path, { followLinks: true });
  if (!opened.ok) {
    if (opened.problem === 'missing' || opened.problem === 'directory' || opened.problem === 'unreadable') cannotRead({ code: opened.errno ?? (opened.problem === 'directory' ? 'EISDIR' : 'unreadable') });
    throw new GfError('GF_IO', `the SQLite checkpoint database path ${NOT_REGULAR_FILE_WORDS[opened.problem]}`, { reason: opened.problem });
  }
  const fd = opened.fd;
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(SQLITE_HEADER)) notSqlite();
  } catch (e) {
    if (e instanceof GfError) throw e;
    cannotRead(e);
  } finally {
    closeSync(fd);
  }
}

/**
 * The database's bytes as one consistent image, read without writing anything.
 *
 * Without a WAL the file itself is the image. With a WAL (a writer is live,
 * or one stopped without a checkpoint), the file and its WAL are copied to a
 * private temporary directory, SQLite folds the WAL into the copy there, and
 * the copy is serialized; the copy is retried while the originals change under it.
 */
function consistentImage(Db: typeof Database, path: string): Buffer {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = sqliteStamp(path);
    const walSize = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    if (walSize === 0) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (e) {
        cannotRead(e);
      }
      if (sqliteStamp(path) === before) return bytes;
      continue;
    }
    const dir = mkdtempSync(join(tmpdir(), 'gf-threads-'));
    try {
      const copy = join(dir, 'snapshot.sqlite');
      copyFileSync(path, copy);
      copyFileSync(`${path}-wal`, `${copy}-wal`);
      if (sqliteStamp(path) !== before) continue;
      const db = new Db(copy, { ...sqliteNativeOptions(), fileMustExist: true });
      try {
        return db.serialize();
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new GfError('GF_IO', 'the SQLite checkpoint database kept changing while it was read; try again', { reason: 'busy' });
}

/** A SQLite read that failed on a damaged file: `GF_IO` naming the file and SQLite's code. */
function damaged(e: unknown, fileName: string): GfError {
  const code = (e as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? code : 'read_failed';
  return new GfError('GF_IO', `the SQLite file ${fileName} could not be read (${reason}): it may be damaged`, { reason });
}

/** A row of the page query. */
interface HeadRow {
  readonly thread_id: string;
  readonly n: number;
  readonly latest: string;
  readonly type: string | null;
  readonly metadata: Uint8Array | string | null;
  readonly ts: unknown;
  readonly interrupts: string;
}

/**
 * Opens a LangGraph SQLite checkpoint file for reading; nothing on disk is written.
 *
 * SQLite's own read-only mode still writes: a reader takes a read mark in
 * the `-shm` file and may create `-wal`/`-shm` beside the database. So the
 * reader works on an in-memory image instead (see `consistentImage`): the
 * database, its `-wal` and `-shm` keep their bytes and mtimes, and a 0444
 * file in a read-only directory opens. The image is a snapshot: callers
 * reopen when `sqliteStamp` changes. Errors are typed: `GF_IO` for a file
 * that is missing or not SQLite; a file without LangGraph's tables opens
 * with `hasTables: false` (its readers refuse with `GF_SCHEMA_MISMATCH`).
 */
export async function openSqliteReadSource(path: string): Promise<ThreadReadSource> {
  const source = await openUnguarded(path);
  const fileName = basename(path);
  const isSqlite = (e: unknown) => typeof (e as { code?: unknown } | null)?.code === 'string' && String((e as { code: string }).code).startsWith('SQLITE_');
  return guardReads(source, `the SQLite file ${fileName}`, (e) => (isSqlite(e) ? damaged(e, fileName) : null));
}

async function openUnguarded(path: string): Promise<ThreadReadSource> {
  readHeader(path);
  const Db = (await import('better-sqlite3')).default;
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const image = consistentImage(Db, path);
  // An in-memory image cannot be in WAL mode: mark it a rollback-journal database (bytes 18–19), in memory only.
  if (image.length >= 20) image.fill(1, 18, 20);
  let db: Database.Database;
  try {
    db = new Db(image, { ...sqliteNativeOptions(), readonly: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (_e) {
    notSqlite();
  }
  const fileName = basename(path);
  let tables: Set<string>;
  try {
    tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
  } catch (e) {
    db.close();
    throw damaged(e, fileName);
  }
  const hasTables = tables.has('checkpoints') && tables.has('writes');
  if (!hasTables) {
    return {
      kind: 'sqlite',
      format: 'js',
      saver: new SqliteSaver(db),
      hasTables,
      heads: () => Promise.reject(noLangGraphTables('sqlite')),
      rawCheckpoint: () => Promise.reject(noLangGraphTables('sqlite')),
      checkpointCount: () => Promise.reject(noLangGraphTables('sqlite')),
      namespaces: () => Promise.reject(noLangGraphTables('sqlite')),
      prune: { facts: () => Promise.reject(noLangGraphTables('sqlite')), details: () => Promise.reject(noLangGraphTables('sqlite')), recorded: () => Promise.reject(noLangGraphTables('sqlite')) },
      pool: () => ({ in_use: 0, idle: db.open ? 1 : 0 }),
      close: async () => {
        if (db.open) db.close();
      },
    };
  }
  let format: ThreadFormat;
  try {
    checkLayout(db, fileName);
    format = formatOf(db);
  } catch (e) {
    db.close();
    if (e instanceof GfError) throw e;
    throw damaged(e, fileName);
  }
  if (format === 'python') return pythonSource(db, fileName);
  const saver = new SqliteSaver(db);
  // One pass for a page: the thread keys (keyset by thread id), each head's row, its `ts` and its interrupt writes
  // (selected and cast as upstream getTuple selects its pending writes, restricted to the `__interrupt__` channel).
  const page = db.prepare(
    `WITH page AS (
       SELECT thread_id, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints
        WHERE checkpoint_ns = '' AND thread_id > ? AND thread_id >= ? AND (? = 0 OR substr(thread_id, 1, ?) = ?)
        GROUP BY thread_id ORDER BY thread_id LIMIT ?)
     SELECT p.thread_id, p.n, p.latest, c.type, c.metadata,
       CASE WHEN c.type = 'json' AND json_valid(CAST(c.checkpoint AS TEXT)) THEN json_extract(CAST(c.checkpoint AS TEXT), '$.ts') END AS ts,
       (SELECT json_group_array(json_object('type', w.type, 'value', CAST(w.value AS TEXT))) FROM writes AS w
         WHERE w.thread_id = p.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = p.latest AND w.channel = '${INTERRUPT_CHANNEL}') AS interrupts
     FROM page AS p JOIN checkpoints AS c ON c.thread_id = p.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = p.latest
     ORDER BY p.thread_id`,
  );
  const fullCheckpoint = db.prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
  const count = db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''");
  const serde = saver.serde;
  /** A head's `ts`: the stored document's string member; any other shape goes through the serializer in full, as getTuple would. */
  const tsOf = async (r: HeadRow): Promise<string> => {
    if (typeof r.ts === 'string') return r.ts;
    const full = fullCheckpoint.get(r.thread_id, r.latest) as { checkpoint: Uint8Array | string | null };
    const cp = (await serde.loadsTyped(r.type ?? 'json', full.checkpoint ?? '')) as { ts?: unknown } | null;
    return typeof cp?.ts === 'string' ? cp.ts : '';
  };
  const headOf = async (r: HeadRow): Promise<ThreadHead> => {
    const writes = JSON.parse(r.interrupts) as { type: string | null; value: string | null }[];
    const [ts, metadata, interruptWrites] = await Promise.all([
      tsOf(r),
      serde.loadsTyped(r.type ?? 'json', r.metadata ?? '') as Promise<Record<string, unknown> | null>,
      Promise.all(writes.map((w) => serde.loadsTyped(w.type ?? 'json', w.value ?? ''))),
    ]);
    return { thread_id: r.thread_id, checkpoint_count: r.n, latest_checkpoint_id: r.latest, ts, metadata: metadata ?? {}, interruptWrites };
  };
  const rawById = db.prepare("SELECT checkpoint_id, type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
  const rawHead = db.prepare("SELECT checkpoint_id, type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1");
  return {
    kind: 'sqlite',
    format: 'js',
    saver,
    hasTables,
    async rawCheckpoint(threadId, checkpointId) {
      const row = (checkpointId === undefined ? rawHead.get(threadId) : rawById.get(threadId, checkpointId)) as { checkpoint_id: string; type: string | null; checkpoint: Uint8Array | string | null } | undefined;
      if (row === undefined) return undefined;
      // The document getTuple would revive whole (JsonPlusSerializer: JSON.parse, then a bottom-up reviver).
      const text = row.checkpoint === null ? '' : typeof row.checkpoint === 'string' ? row.checkpoint : new TextDecoder().decode(row.checkpoint);
      let doc: unknown;
      try {
        doc = (row.type ?? 'json') === 'json' ? JSON.parse(text) : undefined;
      } catch (_e) {
        doc = undefined;
      }
      const values = isPlainParsedObject(doc) ? doc['channel_values'] : undefined;
      if (isPlainParsedObject(values)) {
        return { checkpoint_id: row.checkpoint_id, channels: new Map(Object.entries(values).map(([k, v]): [string, RawChannelValue] => [k, { parsed: v }])) };
      }
      // Any other form: upstream getTuple in full.
      const t = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: row.checkpoint_id } });
      if (t === undefined) return undefined;
      return { checkpoint_id: row.checkpoint_id, channels: new Map(Object.entries(t.checkpoint.channel_values).map(([k, v]): [string, RawChannelValue] => [k, { revived: v }])) };
    },
    async heads(prefix, after, limit) {
      const rows = page.all(after ?? '', prefix, prefix.length, prefix.length, prefix, limit) as HeadRow[];
      return Promise.all(rows.map(headOf));
    },
    async checkpointCount(threadId) {
      return (count.get(threadId) as { n: number }).n;
    },
    namespaces: sqliteNamespaces(db),
    prune: sqlitePruneReads(db),
    pool: () => ({ in_use: 0, idle: db.open ? 1 : 0 }),
    async close() {
      if (db.open) db.close();
    },
  };
}

/** A thread's namespaces other than the root, with the `parents` member of each one's first checkpoint (metadata as JSON text, as both savers store it). */
function sqliteNamespaces(db: Database.Database): ThreadReadSource['namespaces'] {
  const q = db.prepare(
    `SELECT c.checkpoint_ns, c.n, c.latest,
       (SELECT CASE WHEN json_valid(CAST(f.metadata AS TEXT)) THEN json_extract(CAST(f.metadata AS TEXT), '$.parents') END
          FROM checkpoints AS f WHERE f.thread_id = ? AND f.checkpoint_ns = c.checkpoint_ns ORDER BY f.checkpoint_id LIMIT 1) AS parents
     FROM (SELECT checkpoint_ns, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns) AS c
     ORDER BY c.checkpoint_ns`,
  );
  return async (threadId) =>
    (q.all(threadId, threadId) as { checkpoint_ns: string; n: number; latest: string; parents: string | null }[]).map((r) => {
      let parents: Record<string, unknown> = {};
      try {
        const p: unknown = r.parents === null ? {} : JSON.parse(r.parents);
        if (p !== null && typeof p === 'object' && !Array.isArray(p)) parents = p as Record<string, unknown>;
      } catch (_e) {
        parents = {};
      }
      return { checkpoint_ns: r.checkpoint_ns, n: r.n, latest: r.latest, parents };
    });
}

/** A head row of the Python page query: the checkpoint document and metadata as stored. */
interface PythonHeadRow {
  readonly thread_id: string;
  readonly n: number;
  readonly latest: string;
  readonly type: string | null;
  readonly checkpoint: Uint8Array | string | null;
  readonly metadata: Uint8Array | string | null;
  /** JSON array of the head's `__interrupt__` writes: `{ type, hex }`. */
  readonly interrupts: string;
}

/**
 * The reader of a file Python LangGraph wrote (`PythonSqliteSaver`): the
 * same page query as for LangGraph.js data, with the head's document,
 * metadata (JSON text) and interrupt writes decoded by the Python decoder.
 * A head that does not decode still lists (no time, no step).
 */
function pythonSource(db: Database.Database, fileName: string): ThreadReadSource {
  const saver = new PythonSqliteSaver(db, fileName);
  const page = db.prepare(
    `WITH page AS (
       SELECT thread_id, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints
        WHERE checkpoint_ns = '' AND thread_id > ? AND thread_id >= ? AND (? = 0 OR substr(thread_id, 1, ?) = ?)
        GROUP BY thread_id ORDER BY thread_id LIMIT ?)
     SELECT p.thread_id, p.n, p.latest, c.type, c.checkpoint, c.metadata,
       (SELECT json_group_array(json_object('type', w.type, 'hex', hex(w.value))) FROM (
          SELECT type, value FROM writes AS w WHERE w.thread_id = p.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = p.latest AND w.channel = '${INTERRUPT_CHANNEL}' ORDER BY task_id, idx) AS w) AS interrupts
     FROM page AS p JOIN checkpoints AS c ON c.thread_id = p.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = p.latest
     ORDER BY p.thread_id`,
  );
  const count = db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''");
  const read = <T>(run: () => T): T => {
    try {
      return run();
    } catch (e) {
      throw damaged(e, fileName);
    }
  };
  const value = (type: string | null, v: Uint8Array | string | null): unknown => {
    try {
      return loadsPythonTyped(type ?? 'json', v);
    } catch (e) {
      return e instanceof PythonDecodeError ? unreadableValue(e.problem, e.detail) : unreadableValue('undecodable', 'the value does not decode');
    }
  };
  /** A head's `ts`: read alone from the msgpack document (a list page never decodes whole states); any other type in full. */
  const tsOf = (r: PythonHeadRow): unknown => {
    if (r.type === 'msgpack' && r.checkpoint instanceof Uint8Array) {
      try {
        return readMapMember(r.checkpoint, 'ts');
      } catch (_e) {
        return undefined; // a document that does not decode lists without a time (its state says why)
      }
    }
    return (value(r.type, r.checkpoint) as { ts?: unknown } | null)?.ts;
  };
  const headOf = (r: PythonHeadRow): ThreadHead => {
    const ts = tsOf(r);
    let metadata: Record<string, unknown> = {};
    try {
      const m: unknown = r.metadata === null ? {} : JSON.parse(typeof r.metadata === 'string' ? r.metadata : new TextDecoder().decode(r.metadata));
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) metadata = m as Record<string, unknown>;
    } catch (_e) {
      metadata = {};
    }
    // The head's interrupt writes came with the page (hex: the blobs are binary msgpack).
    const writes = (JSON.parse(r.interrupts) as { type: string | null; hex: string }[]).map((w) => ({ type: w.type, value: Buffer.from(w.hex, 'hex') }));
    return {
      thread_id: r.thread_id,
      checkpoint_count: r.n,
      latest_checkpoint_id: r.latest,
      ts: typeof ts === 'string' ? ts : '',
      metadata,
      interruptWrites: writes.map((w) => value(w.type, w.value)),
    };
  };
  return {
    kind: 'sqlite',
    format: 'python',
    saver,
    hasTables: true,
    unreadable: (t) => saver.unreadable.get(`${String(t.config.configurable?.['checkpoint_ns'] ?? '')}\u0000${String(t.config.configurable?.['checkpoint_id'])}`) ?? null,
    async heads(prefix, after, limit) {
      const rows = read(() => page.all(after ?? '', prefix, prefix.length, prefix.length, prefix, limit) as PythonHeadRow[]);
      return rows.map(headOf);
    },
    async rawCheckpoint(threadId, checkpointId) {
      const t = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', ...(checkpointId === undefined ? {} : { checkpoint_id: checkpointId }) } });
      if (t === undefined) return undefined;
      return { checkpoint_id: String(t.config.configurable?.['checkpoint_id']), channels: new Map(Object.entries(t.checkpoint.channel_values).map(([k, v]): [string, RawChannelValue] => [k, { revived: v }])) };
    },
    async checkpointCount(threadId) {
      return read(() => (count.get(threadId) as { n: number }).n);
    },
    namespaces: sqliteNamespaces(db),
    prune: sqlitePruneReads(db),
    pool: () => ({ in_use: 0, idle: db.open ? 1 : 0 }),
    async close() {
      if (db.open) db.close();
    },
  };
}
