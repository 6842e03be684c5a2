// Operating-system advisory locks through SQLite's own file locking.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sqliteNativeOptions } from '../sqlite-options';
import { checkFile, corrupt, ioError, writeNewFile } from './durable-fs';

/**
 * Operating-system advisory locks through SQLite's own file locking.
 *
 * Node has no flock; SQLite's unix VFS takes POSIX byte-range locks that the
 * kernel releases when the holding process dies, and it coordinates several
 * connections of one process correctly. A lock file is a tiny SQLite
 * database in rollback-journal mode that is never written after creation:
 * an open read transaction holds SHARED, `BEGIN EXCLUSIVE` with busy timeout
 * 0 holds EXCLUSIVE. Nothing (PID, age, heartbeat) ever lets a lock be taken
 * from its holder.
 *
 * Caution for every caller in the same process: never open a lock file with
 * `fs.open` (POSIX locks are per process and closing any descriptor of the
 * file drops them). Only `lstat` is safe.
 */

/** A held lock; `release` is idempotent. */
export interface HeldLock {
  /** Ends the transaction and closes the connection; the OS lock goes with it. */
  readonly release: () => void;
}

let image: Uint8Array | undefined;

/**
 * The bytes of a fresh lock file: a tiny SQLite database (page size 512, rollback journal).
 *
 * Built once per process by SQLite itself in a private temporary directory,
 * then reused: every lock file is the same deterministic image, so creating
 * one costs one exclusive create, one write and one fsync instead of a
 * database connection. The image is what this SQLite build writes; a test
 * proves files written from it lock shared/exclusive and are released when
 * the holder is killed.
 */
export function lockFileImage(): Uint8Array {
  if (image !== undefined) return image;
  let dir: string | undefined;
  let db: Database.Database | undefined;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-lock-image-'));
    const file = path.join(dir, 'image.lock');
    db = new Database(file, sqliteNativeOptions());
    db.pragma('page_size = 512');
    // Private file: no rollback journal while building it.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE gf_lock(version INTEGER NOT NULL); INSERT INTO gf_lock VALUES (1);');
    db.pragma('journal_mode = DELETE');
    db.close();
    db = undefined;
    image = new Uint8Array(fs.readFileSync(file));
    return image;
  } catch (e) {
    throw ioError(e, 'create lock', 'lock-image');
  } finally {
    db?.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Creates a new lock file from `lockFileImage` and flushes it.
 *
 * `O_EXCL | O_NOFOLLOW`: an existing file or a planted link at the name is
 * refused (`GF_PROJECT_CORRUPT`). Safe to open with `fs` only because
 * nobody (this process included) holds a lock on a file that does not
 * exist yet; the containing directory must be private to the caller.
 */
export function createLockFile(abs: string, rel: string): void {
  const bytes = lockFileImage();
  if (checkFile(abs, rel) !== undefined) throw corrupt('lock file already exists', rel);
  writeNewFile(abs, rel, bytes);
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function open(abs: string, rel: string): Database.Database | undefined {
  // lstat first: SQLite would follow a symlink; a planted link is refused and its target untouched.
  if (checkFile(abs, rel) === undefined) return undefined;
  try {
    return new Database(abs, { ...sqliteNativeOptions(), fileMustExist: true, timeout: 0 });
  } catch (e) {
    if (isBusy(e)) return undefined;
    const code = (e as { code?: unknown } | null)?.code;
    if (code === 'SQLITE_CANTOPEN') return undefined;
    throw ioError(e, 'open lock', rel);
  }
}

function held(db: Database.Database): HeldLock {
  let open = true;
  return {
    release: () => {
      if (!open) return;
      open = false;
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/** Lock acquisition outcome: held, busy (someone else holds a conflicting lock), or absent (no lock file). */
export type LockAttempt = { readonly kind: 'held'; readonly lock: HeldLock } | { readonly kind: 'busy' } | { readonly kind: 'absent' };

/** Tries EXCLUSIVE without waiting. */
export function tryExclusive(abs: string, rel: string): LockAttempt {
  const db = open(abs, rel);
  if (db === undefined) return { kind: checkFile(abs, rel) === undefined ? 'absent' : 'busy' };
  try {
    db.exec('BEGIN EXCLUSIVE');
    return { kind: 'held', lock: held(db) };
  } catch (e) {
    db.close();
    if (isBusy(e)) return { kind: 'busy' };
    throw ioError(e, 'lock', rel);
  }
}

/** Tries SHARED without waiting (an open read transaction). */
export function tryShared(abs: string, rel: string): LockAttempt {
  const db = open(abs, rel);
  if (db === undefined) return { kind: checkFile(abs, rel) === undefined ? 'absent' : 'busy' };
  try {
    db.exec('BEGIN DEFERRED');
    db.prepare('SELECT version FROM gf_lock').get();
    return { kind: 'held', lock: held(db) };
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    if (isBusy(e)) return { kind: 'busy' };
    throw ioError(e, 'lock', rel);
  }
}
