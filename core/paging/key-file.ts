// The page-token key file: 32 random bytes created once under a directory
// (a workspace's `cache/diff/`, or the user's cache), race-free, replaced when
// damaged, kept in memory where the directory cannot be written.
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import path from 'node:path';
import { GfError } from '../errors';
import { LAYOUT } from '../project/layout';
import { DIFF_NOTICE_CHANNEL } from '../contract/diff';

/** Bytes of a page-token key. */
export const TOKEN_SECRET_BYTES = 32;

/** Project-relative location of the page-token key (derived data, machine-owned names only). */
export const TOKEN_SECRET_PATH = LAYOUT.pageTokenKey.split('/') as [string, string, string];

function io(op: string): GfError {
  return new GfError('GF_IO', 'cannot read or create the page-token key', { operation: 'diff_checkpoints', phase: op });
}

function errno(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

/** Errors that mean "this process may not write here" (then the key lives in memory). */
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

const notices = diagnostics.channel(DIFF_NOTICE_CHANNEL);

/** Tells listeners (the CLI) that this diff's page tokens are valid in this process only. */
function inMemory(key: Uint8Array): Uint8Array {
  if (notices.hasSubscribers) notices.publish({ kind: 'token_key_in_memory' });
  return key;
}

/** Keys kept in memory for workspaces this process cannot write, by resolved project root. */
const EPHEMERAL = new Map<string, Uint8Array>();

/**
 * True when this process holds the page-token key of `projectRoot` in memory only.
 *
 * The workspace could not be written (read-only mount, another user's
 * project, a full disk): diffs work, but their page tokens are valid only in
 * this process. Callers say so to the user.
 */
export function tokenSecretInMemory(projectRoot: string): boolean {
  return EPHEMERAL.has(path.resolve(projectRoot));
}

/** Creates `dir` as a real directory (never through a symlink). */
function ensureDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (READ_ONLY.has(errno(e) ?? '')) throw e;
    if (errno(e) !== 'EEXIST') throw io('mkdir');
  }
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined || !st.isDirectory()) throw io('mkdir');
}

/** The key bytes when `file` is a regular single-link file of exactly 32 bytes; otherwise undefined. */
function readKey(file: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ELOOP' || errno(e) === 'ENXIO') return undefined;
    if (errno(e) === 'EACCES' || errno(e) === 'EPERM') return undefined; // another user's key: this reader uses its own
    throw io('open');
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size !== TOKEN_SECRET_BYTES) return undefined;
    const buf = Buffer.alloc(TOKEN_SECRET_BYTES);
    if (fs.readSync(fd, buf, 0, TOKEN_SECRET_BYTES, 0) !== TOKEN_SECRET_BYTES) return undefined;
    return new Uint8Array(buf);
  } finally {
    fs.closeSync(fd);
  }
}

function writeTemp(dir: string): string {
  const tmp = path.join(dir, `.page-token.${randomBytes(8).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, randomBytes(TOKEN_SECRET_BYTES));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

/**
 * The project's page-token HMAC key: 32 random bytes under `cache/diff/`,
 * created once and then reused by every process.
 *
 * The key never appears in a token, an error or a log. Creation is
 * race-free: a private temp file is hard-linked into place (exactly one
 * creator wins, the others read the winner's key). A damaged key (wrong
 * size, a symlink) is derived data: it is replaced, which only
 * invalidates outstanding tokens (`GF_PAGE_INVALID`), never data.
 */
export function loadTokenSecret(projectRoot: string): Uint8Array {
  const cache = path.join(projectRoot, TOKEN_SECRET_PATH[0]);
  const dir = path.join(cache, TOKEN_SECRET_PATH[1]);
  const file = path.join(dir, TOKEN_SECRET_PATH[2]);
  const existing = readKey(file);
  if (existing !== undefined) return existing;
  const ephemeral = EPHEMERAL.get(path.resolve(projectRoot));
  if (ephemeral !== undefined) return inMemory(ephemeral);
  try {
    ensureDir(cache);
    ensureDir(dir);
    const tmp = writeTemp(dir);
    try {
      try {
        fs.linkSync(tmp, file);
      } catch (e) {
        if (errno(e) !== 'EEXIST') throw e;
        if (readKey(file) === undefined) fs.renameSync(tmp, file); // damaged: replace atomically
      }
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  } catch (e) {
    if (e instanceof GfError && !READ_ONLY.has(e.details['errno'] as string)) throw e;
    if (!(e instanceof GfError) && !READ_ONLY.has(errno(e) ?? '')) throw io('create');
    // A reader of a workspace it cannot write (a mounted snapshot, another user's project): a key in memory.
    const key = new Uint8Array(randomBytes(TOKEN_SECRET_BYTES));
    EPHEMERAL.set(path.resolve(projectRoot), key);
    return inMemory(key);
  }
  const key = readKey(file);
  if (key === undefined) throw io('verify');
  return key;
}
