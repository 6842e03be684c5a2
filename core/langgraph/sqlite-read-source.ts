import { copyFileSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { GfError } from '../errors';
import { sqliteNativeOptions } from '../sqlite-options';
import { noLangGraphTables, type ThreadReadSource } from './thread-source';

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
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    cannotRead(e);
  }
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
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
  const hasTables = tables.has('checkpoints') && tables.has('writes');
  const saver = new SqliteSaver(db);
  if (!hasTables) {
    return {
      kind: 'sqlite',
      saver,
      hasTables,
      threads: () => Promise.reject(noLangGraphTables('sqlite')),
      checkpointCount: () => Promise.reject(noLangGraphTables('sqlite')),
      pool: () => ({ in_use: 0, idle: db.open ? 1 : 0 }),
      close: async () => {
        if (db.open) db.close();
      },
    };
  }
  const page = db.prepare(
    `SELECT thread_id, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints
      WHERE checkpoint_ns = '' AND thread_id > ? AND thread_id >= ? AND (? = 0 OR substr(thread_id, 1, ?) = ?)
      GROUP BY thread_id ORDER BY thread_id LIMIT ?`,
  );
  const count = db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''");
  return {
    kind: 'sqlite',
    saver,
    hasTables,
    async threads(prefix, after, limit) {
      const rows = page.all(after ?? '', prefix, prefix.length, prefix.length, prefix, limit) as { thread_id: string; n: number; latest: string }[];
      return rows.map((r) => ({ thread_id: r.thread_id, checkpoint_count: r.n, latest_checkpoint_id: r.latest }));
    },
    async checkpointCount(threadId) {
      return (count.get(threadId) as { n: number }).n;
    },
    pool: () => ({ in_use: 0, idle: db.open ? 1 : 0 }),
    async close() {
      if (db.open) db.close();
    },
  };
}
