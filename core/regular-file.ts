import fs from 'node:fs';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** Why a path that should name a regular file does not. */
export type NotRegularFile = 'missing' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device' | 'unreadable';

/** The words for each kind of non-regular file, for a sentence ("… is a FIFO (named pipe)"). */
export const NOT_REGULAR_FILE_WORDS: Readonly<Record<NotRegularFile, string>> = {
  missing: 'does not exist',
  directory: 'is a directory',
  symlink: 'is a symbolic link',
  fifo: 'is a FIFO (named pipe), not a regular file',
  socket: 'is a socket, not a regular file',
  device: 'is a device, not a regular file',
  unreadable: 'cannot be opened for reading',
};

/** How {@link openRegularFile} treats a symbolic link at the path. */
export interface RegularFileOptions {
  /**
   * Follow a symbolic link to its target (a path the user chose, such as their own
   * database, may be a link); false refuses a link itself (machine-owned files).
   */
  readonly followLinks: boolean;
}

/** An open descriptor of a regular file, or why the path is not one; the caller closes `fd`. */
export type OpenedRegularFile =
  | { readonly ok: true; readonly fd: number; readonly st: fs.Stats }
  | { readonly ok: false; readonly problem: NotRegularFile; readonly errno: string | null };

function kindOf(st: fs.Stats): NotRegularFile | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isSymbolicLink()) return 'symlink';
  return 'device';
}

/**
 * Opens a path that a user or another program controls, only if it is a regular file, without ever blocking.
 *
 * `O_NONBLOCK` makes the open of a FIFO (or a device) return at once
 * instead of waiting for a writer; `fstat` of the open descriptor then
 * tells what the path really is, so nothing (SQLite, a reader) opens a
 * FIFO, socket, device or directory afterwards. A socket cannot be opened
 * at all (`ENXIO`); `lstat` says which kind it was.
 */
export function openRegularFile(path: string, options: RegularFileOptions): OpenedRegularFile {
  let fd: number;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NONBLOCK | (options.followLinks ? 0 : O_NOFOLLOW));
  } catch (e) {
    const errno = (e as { code?: unknown } | null)?.code;
    const code = typeof errno === 'string' ? errno : null;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, problem: 'missing', errno: code };
    if (code === 'ELOOP' && !options.followLinks) return { ok: false, problem: 'symlink', errno: code };
    if (code === 'EISDIR') return { ok: false, problem: 'directory', errno: code };
    let st: fs.Stats | undefined;
    try {
      st = options.followLinks ? fs.statSync(path) : fs.lstatSync(path);
    } catch {
      st = undefined;
    }
    const kind = st === undefined ? null : kindOf(st);
    return { ok: false, problem: kind ?? 'unreadable', errno: code };
  }
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    const errno = (e as { code?: unknown } | null)?.code;
    return { ok: false, problem: 'unreadable', errno: typeof errno === 'string' ? errno : null };
  }
  const kind = kindOf(st);
  if (kind !== null) {
    fs.closeSync(fd);
    return { ok: false, problem: kind, errno: null };
  }
  return { ok: true, fd, st };
}

/** Why `path` is not a regular file (checked as {@link openRegularFile} does), or null when it is one. */
export function notRegularFile(path: string, options: RegularFileOptions): NotRegularFile | null {
  const opened = openRegularFile(path, options);
  if (!opened.ok) return opened.problem;
  fs.closeSync(opened.fd);
  return null;
}

/** The bytes of a regular file (a user's, following links by default), at most `maxBytes` (`too_large` beyond), or why it is not one; never blocks. */
export function readUserFile(path: string, maxBytes: number, options: RegularFileOptions = { followLinks: true }): { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly problem: NotRegularFile | 'too_large' } {
  const opened = openRegularFile(path, options);
  if (!opened.ok) return { ok: false, problem: opened.problem };
  try {
    if (opened.st.size > maxBytes) return { ok: false, problem: 'too_large' };
    const bytes = Buffer.alloc(Math.min(maxBytes + 1, opened.st.size + 1));
    let off = 0;
    for (;;) {
      const n = fs.readSync(opened.fd, bytes, off, bytes.length - off, off);
      if (n === 0) break;
      off += n;
      if (off > maxBytes) return { ok: false, problem: 'too_large' };
      if (off === bytes.length) break;
    }
    return { ok: true, bytes: bytes.subarray(0, off) };
  } catch {
    return { ok: false, problem: 'unreadable' };
  } finally {
    fs.closeSync(opened.fd);
  }
}
