import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ManifestParticipant } from './formats';
import { corrupt, ioError, isErrno } from './durable-fs';
import { objectPlace } from './layout';

/** Bytes read and hashed between two pause points of `readObjectVerifiedAsync`. */
export const VERIFY_CHUNK_BYTES = 8 * 1024 * 1024;

/** How long an object's ctime must precede a verification for the memo to trust it later (racy-clean rule). */
export const VERIFIED_MEMO_MIN_AGE_NS = 1_000_000_000n;

const VERIFIED_MEMO_MAX = 4096;

/**
 * Objects this process has verified against their name, by object name,
 * with the file identity seen at that verification:
 * `dev:ino:size:mtimeNs:ctimeNs`.
 *
 * Objects are immutable and content-addressed, so once the bytes of
 * `objects/<sha>` hashed to `<sha>`, a later read of the very same,
 * unmodified file needs no re-hash. "Unmodified" is judged by the whole
 * identity tuple: any write, truncation, replacement (new inode) or
 * metadata change moves ctime, which user space cannot set back. An entry
 * is stored only when the file's ctime is at least
 * `VERIFIED_MEMO_MIN_AGE_NS` older than the start of the verification
 * (like git's "racily clean" rule), so a modification in the same coarse
 * timestamp tick as the verification can never look unchanged. Bounded,
 * oldest forgotten first; per process, never persisted.
 */
const VERIFIED = new Map<string, string>();

function remember(sha: string, identity: string): void {
  VERIFIED.delete(sha);
  if (VERIFIED.size >= VERIFIED_MEMO_MAX) {
    const oldest = VERIFIED.keys().next().value;
    if (oldest !== undefined) VERIFIED.delete(oldest);
  }
  VERIFIED.set(sha, identity);
}

/** True when this process holds a memoized verification of the object named `sha` (introspection for tests and diagnostics). */
export function isVerifiedObject(sha: string): boolean {
  return VERIFIED.has(sha);
}

/** Forgets every memoized verification (tests; never needed for correctness). */
export function forgetVerifiedObjects(): void {
  VERIFIED.clear();
}

function identityOf(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

type Entry = Pick<ManifestParticipant, 'contentSha256' | 'byteLength'>;

/** One verified read, as steps: yields after each chunk so an async caller can pause (and abort) there. */
function* readSteps(root: string, entry: Entry): Generator<void, Uint8Array> {
  const p = objectPlace(root, entry.contentSha256);
  const startNs = BigInt(Date.now()) * 1_000_000n;
  let fd: number;
  try {
    fd = fs.openSync(p.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) throw corrupt('participant object is missing', p.rel);
    if (isErrno(e, 'ELOOP')) throw corrupt('symlink at a machine-owned path', p.rel);
    throw ioError(e, 'open', p.rel);
  }
  try {
    const before = fs.fstatSync(fd, { bigint: true });
    if (!before.isFile()) throw corrupt('not a regular file', p.rel);
    if (before.size !== BigInt(entry.byteLength)) throw corrupt('participant object has the wrong length', p.rel);
    const identity = identityOf(before);
    const known = VERIFIED.get(entry.contentSha256) === identity;
    const hash = known ? undefined : createHash('sha256');
    const size = entry.byteLength;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const want = Math.min(VERIFY_CHUNK_BYTES, size - off);
      const n = fs.readSync(fd, buf, off, want, off);
      if (n === 0) break;
      hash?.update(buf.subarray(off, off + n));
      off += n;
      if (off < size) yield;
    }
    if (off !== size || fs.readSync(fd, Buffer.allocUnsafe(1), 0, 1, off) !== 0) throw corrupt('participant object has the wrong length', p.rel);
    const after = identityOf(fs.fstatSync(fd, { bigint: true }));
    if (hash !== undefined) {
      if (hash.digest('hex') !== entry.contentSha256) {
        VERIFIED.delete(entry.contentSha256);
        throw corrupt('participant object does not match its name', p.rel);
      }
      if (after === identity && before.ctimeNs + VERIFIED_MEMO_MIN_AGE_NS <= startNs) remember(entry.contentSha256, identity);
    } else if (after !== identity) {
      // Changed while read: forget it and verify these bytes the slow way.
      VERIFIED.delete(entry.contentSha256);
      if (createHash('sha256').update(buf).digest('hex') !== entry.contentSha256) throw corrupt('participant object does not match its name', p.rel);
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads one object and verifies it against its name and manifest entry.
 *
 * The bytes are SHA-256-verified against the object's name unless this
 * process already verified this exact file (same dev, inode, size, mtime
 * and ctime, see `VERIFIED`); then only its length is checked and the
 * hash is skipped. Missing, truncated, extended or altered bytes are
 * `GF_PROJECT_CORRUPT`; no other object is ever substituted.
 */
export function readObjectVerified(root: string, entry: Entry): Uint8Array {
  const steps = readSteps(root, entry);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/**
 * `readObjectVerified` for long reads: awaits `pause` after every
 * `VERIFY_CHUNK_BYTES` read and hashed, so the event loop keeps running
 * and the caller can abort (by throwing from `pause`) mid-object.
 */
export async function readObjectVerifiedAsync(root: string, entry: Entry, pause: () => Promise<void>): Promise<Uint8Array> {
  const steps = readSteps(root, entry);
  try {
    for (;;) {
      const r = steps.next();
      if (r.done === true) return r.value;
      await pause();
    }
  } finally {
    steps.return(new Uint8Array(0));
  }
}
