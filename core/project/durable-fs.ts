// Durable, link-refusing file primitives for machine-owned paths (temp, fsync,
// rename, directory fsync) and their typed I/O errors.
import fs from 'node:fs';
import path from 'node:path';
import { GfError } from '../errors';
import type { GfCode } from '../errors';
import { fsx } from './fs-layer';

/**
 * Durable, link-refusing file primitives for machine-owned paths.
 *
 * Every machine-owned file is opened with `O_NOFOLLOW` and every machine-owned
 * directory is checked with `lstat` before use, so a symlink planted anywhere
 * in the project is refused (`GF_PROJECT_CORRUPT`) and its target is never
 * read or written. Errors never carry absolute paths: only a project-relative
 * name chosen by the engine.
 */

const NOFOLLOW = fs.constants.O_NOFOLLOW;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NONBLOCK } = fs.constants;

/** Observer of bytes written, for the "a publish writes only what changed" evidence. */
export interface WriteMeter {
  /** Called once per durable file write with the project-relative name and byte count. */
  readonly wrote: (relativeName: string, bytes: number) => void;
}

/** Converts a Node fs error into a safe engine error (no path, no message text). */
export function ioError(e: unknown, op: string, rel: string, committed?: boolean): GfError {
  const errno = (e as { code?: unknown } | null)?.code;
  const code: GfCode = errno === 'ELOOP' || errno === 'ENOTDIR' ? 'GF_PROJECT_CORRUPT' : 'GF_IO';
  return new GfError(code, `${op} failed`, { operation: op, name: rel, errno: typeof errno === 'string' ? errno : 'unknown' }, committed);
}

/** True for a Node fs error with this errno code. */
export function isErrno(e: unknown, errno: string): boolean {
  return (e as { code?: unknown } | null)?.code === errno;
}

/** Refuses anything at `abs` that is not a real directory. Returns false when absent. */
export function checkDir(abs: string, rel: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return false;
    throw ioError(e, 'lstat', rel);
  }
  if (!st.isDirectory()) throw corrupt('not a directory', rel);
  return true;
}

/** Refuses anything at `abs` that is not a regular file. Returns its stats, or undefined when absent. */
export function checkFile(abs: string, rel: string): fs.Stats | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw ioError(e, 'lstat', rel);
  }
  if (!st.isFile()) throw corrupt('not a regular file', rel);
  return st;
}

/** A `GF_PROJECT_CORRUPT` error naming only the machine-owned relative name. */
export function corrupt(what: string, rel: string, extra: Record<string, string | number> = {}): GfError {
  return new GfError('GF_PROJECT_CORRUPT', `${what}: ${rel}`, { name: rel, ...extra });
}

/**
 * Opens a machine-owned file for reading: no-follow, non-blocking, and only a regular file.
 *
 * `O_NONBLOCK` keeps a planted FIFO (or device) from blocking the open; the
 * `fstat` of the open descriptor then refuses anything that is not a regular
 * file before a single byte is read (GENERATIONS.md "Recovery"). Returns
 * undefined when absent; the caller closes the descriptor.
 */
export function openRegularNoFollow(abs: string, rel: string): { readonly fd: number; readonly st: fs.Stats } | undefined {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_RDONLY | NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    if (isErrno(e, 'ELOOP')) throw corrupt('symlink at a machine-owned path', rel);
    if (isErrno(e, 'ENXIO') || isErrno(e, 'EISDIR')) throw corrupt('not a regular file', rel);
    throw ioError(e, 'open', rel);
  }
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    throw ioError(e, 'fstat', rel);
  }
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw corrupt('not a regular file', rel);
  }
  return { fd, st };
}

/**
 * Reads a whole machine-owned file without following links, bounded by `maxBytes`.
 *
 * Returns undefined when absent. A symlink, a non-regular file (FIFO,
 * device, socket: never waited on) or a file over the bound is
 * `GF_PROJECT_CORRUPT`.
 */
export function readFileNoFollow(abs: string, rel: string, maxBytes: number): Uint8Array | undefined {
  const opened = openRegularNoFollow(abs, rel);
  if (opened === undefined) return undefined;
  const { fd, st } = opened;
  try {
    if (st.size > maxBytes) throw corrupt('file exceeds its size bound', rel, { limit: maxBytes });
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = fs.readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    const extra = Buffer.allocUnsafe(1);
    if (off !== st.size || fs.readSync(fd, extra, 0, 1, off) !== 0) throw corrupt('file changed while read', rel);
    return new Uint8Array(buf.buffer, buf.byteOffset, off);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flushes a directory's entries to stable storage. */
export function fsyncDir(abs: string, rel: string): void {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_RDONLY | O_DIRECTORY | NOFOLLOW);
  } catch (e) {
    if (isErrno(e, 'ELOOP') || isErrno(e, 'ENOTDIR')) throw corrupt('symlink at a machine-owned path', rel);
    throw ioError(e, 'open directory', rel);
  }
  try {
    fsx.fsyncSync(fd);
  } catch (e) {
    throw ioError(e, 'fsync directory', rel);
  } finally {
    fs.closeSync(fd);
  }
}

/** Hooks run between the steps of a durable file write (failpoints live here). */
export interface WriteSteps {
  readonly afterWrite?: () => void;
  readonly afterFsync?: () => void;
}

/**
 * Removes a file this process just created and failed to finish (a failed write removes its own temp).
 *
 * Best effort: if even the unlink fails, recovery removes the leftover
 * before anything else (GENERATIONS.md "Recovery").
 */
export function discardCreated(abs: string): void {
  try {
    fsx.unlinkSync(abs);
  } catch {
    // The original failure is the one to report; recovery sweeps the leftover.
  }
}

/**
 * Creates a new file (never an existing one, never through a link) and writes all bytes, unflushed.
 *
 * `O_EXCL | O_NOFOLLOW`: a planted file or symlink at the name is refused,
 * not overwritten. Returns the open descriptor: the caller flushes and closes it.
 * A failed write closes and removes the file it created (a temp never
 * outlives its failed write). `rel` names this file (the temp's own name).
 */
export function createExclusiveWritten(abs: string, rel: string, bytes: Uint8Array, meter?: WriteMeter): number {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW, 0o644);
  } catch (e) {
    if (isErrno(e, 'EEXIST') || isErrno(e, 'ELOOP')) throw corrupt('unexpected entry at a machine-owned path', rel);
    throw ioError(e, 'create', rel);
  }
  try {
    let off = 0;
    while (off < bytes.length) off += fsx.writeSync(fd, bytes, off, bytes.length - off);
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // The write error is the one to report.
    }
    discardCreated(abs);
    throw ioError(e, 'write', rel);
  }
  meter?.wrote(rel, bytes.length);
  return fd;
}

/**
 * Creates a new file (never an existing one, never through a link), writes all bytes and fsyncs it.
 *
 * `O_EXCL | O_NOFOLLOW`: a planted file or symlink at a temp name is refused,
 * not overwritten.
 */
export function writeNewFile(abs: string, rel: string, bytes: Uint8Array, steps: WriteSteps = {}, meter?: WriteMeter): void {
  const fd = createExclusiveWritten(abs, rel, bytes, meter);
  let ok = false;
  try {
    steps.afterWrite?.();
    fsx.fsyncSync(fd);
    steps.afterFsync?.();
    ok = true;
  } catch (e) {
    if (e instanceof GfError) throw e;
    throw ioError(e, 'write', rel);
  } finally {
    fs.closeSync(fd);
    if (!ok) discardCreated(abs);
  }
}

/** Renames within the project; `rel` names the destination for errors. */
export function renameEntry(fromAbs: string, toAbs: string, rel: string): void {
  try {
    fsx.renameSync(fromAbs, toAbs);
  } catch (e) {
    throw ioError(e, 'rename', rel);
  }
}

/**
 * Replaces `abs` atomically: temp write, fsync, rename, directory fsync.
 *
 * The temp name is machine-owned and unique per caller (`tmpName`). The
 * destination, if present, must be a regular file: a symlink there is
 * refused before anything is written.
 */
export function atomicReplace(abs: string, rel: string, tmpName: string, bytes: Uint8Array, meter?: WriteMeter): void {
  const dir = path.dirname(abs);
  checkFile(abs, rel);
  const tmp = path.join(dir, tmpName);
  const dirRel = path.posix.dirname(rel);
  const tmpRel = dirRel === '.' ? tmpName : `${dirRel}/${tmpName}`;
  writeNewFile(tmp, tmpRel, bytes, {}, meter === undefined ? undefined : { wrote: (_r, n) => meter.wrote(rel, n) });
  try {
    renameEntry(tmp, abs, rel);
  } catch (e) {
    discardCreated(tmp);
    throw e;
  }
  fsyncDir(dir, dirRel);
}

/** Creates a directory (parent must exist); returns false if it already existed as a real directory. */
export function makeDir(abs: string, rel: string): boolean {
  try {
    fsx.mkdirSync(abs, 0o755);
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) {
      checkDir(abs, rel);
      return false;
    }
    throw ioError(e, 'mkdir', rel);
  }
}

/** Removes a file if present (never follows links: unlink removes the link itself). */
export function unlinkIfPresent(abs: string, rel: string): void {
  try {
    fsx.unlinkSync(abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return;
    throw ioError(e, 'unlink', rel);
  }
}

/**
 * Deletes a machine-owned directory tree bottom-up.
 *
 * Only regular files and real directories are removed; a symlink or other
 * special entry inside makes it stop with `GF_PROJECT_CORRUPT` (never
 * traversed, never deleted).
 */
export function removeTree(abs: string, rel: string): void {
  if (!checkDir(abs, rel)) return;
  let entries: fs.Dirent[];
  try {
    entries = fsx.readdirSync(abs);
  } catch (e) {
    throw ioError(e, 'readdir', rel);
  }
  for (const ent of entries) {
    const childAbs = path.join(abs, ent.name);
    const childRel = `${rel}/${ent.name}`;
    if (ent.isDirectory()) removeTree(childAbs, childRel);
    else if (ent.isFile()) unlinkIfPresent(childAbs, childRel);
    else throw corrupt('unexpected entry type', childRel);
  }
  try {
    fsx.rmdirSync(abs);
  } catch (e) {
    throw ioError(e, 'rmdir', rel);
  }
}

/** Directory entries (names only) of a real directory; empty when absent. */
export function listDir(abs: string, rel: string): fs.Dirent[] {
  if (!checkDir(abs, rel)) return [];
  try {
    return fsx.readdirSync(abs);
  } catch (e) {
    throw ioError(e, 'readdir', rel);
  }
}
