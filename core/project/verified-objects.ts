// Reads of content-addressed objects verified against their names, sync and cooperative,
// with the open project's verified-object memo (`VerifiedObjectMemo`).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ManifestParticipant } from './formats';
import { corrupt, ioError, isErrno } from './durable-fs';
import { fsx } from './fs-layer';
import { objectPlace } from './layout';
import { BoundedCache } from '../canonical/bounded-cache';
import { StepBudget, runSteps, runStepsAsync } from '../steps/driver';
import type { Steps } from '../steps/driver';

/** Bytes read and hashed between two pause points of `readObjectVerifiedAsync`. */
export const VERIFY_CHUNK_BYTES = 8 * 1024 * 1024;

/** How long an object's ctime must precede a verification for the memo to trust it later (racy-clean rule). */
export const VERIFIED_MEMO_MIN_AGE_NS = 1_000_000_000n;

const VERIFIED_MEMO_MAX = 4096;

/** Bytes per read while an opened object is hashed (one buffer, reused for the whole object). */
const HASH_READ_BYTES = 1 << 20;

/**
 * Objects one open project has verified against their name, by object name,
 * with the file identity seen at that verification:
 * `dev:ino:size:mtimeNs:ctimeNs` (`ProjectCaches.verifiedObjects`).
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
 * oldest forgotten first. A generation's validation record persists the
 * entries of its objects (`identityOf`), and a later process adopts them
 * from it (`adopt`).
 */
export class VerifiedObjectMemo {
  readonly #verified = new BoundedCache<string, string>(VERIFIED_MEMO_MAX);

  /** Stores a verification as the newest entry (a re-verified object moves to the end of the eviction order). */
  remember(sha: string, identity: string): void {
    this.#verified.setNewest(sha, identity);
  }

  /**
   * The file identity the object named `sha` was verified under, if the
   * memo holds one (only identities that passed the racy-clean age are held).
   * A durable validation record persists these (`validation-record.ts`).
   */
  identityOf(sha: string): string | undefined {
    return this.#verified.get(sha);
  }

  /**
   * Takes over an identity an earlier process verified `sha` under, read from
   * a checksummed validation record of a generation naming that object.
   *
   * Only identities that process held in its own memo (racy-clean age passed
   * when it hashed the file) are ever recorded, so this is the same fast path
   * across processes: an open whose fstat shows exactly this identity skips the
   * hash; anything else (a write, truncation, replacement, link: ctime moves)
   * is hashed again. An entry this memo already holds is kept.
   */
  adopt(sha: string, identity: string): void {
    if (!/^[0-9a-f]{64}$/.test(sha) || !/^\d+:\d+:\d+:\d+:\d+$/.test(identity)) return;
    if (!this.#verified.has(sha)) this.remember(sha, identity);
  }

  /** True when the memo holds a verification of the object named `sha` (introspection for tests and diagnostics). */
  has(sha: string): boolean {
    return this.#verified.has(sha);
  }

  /** Forgets one object (its bytes did not match, or its file changed). */
  forget(sha: string): void {
    this.#verified.delete(sha);
  }

  /** Forgets every verification (the project closed, or `gf doctor` re-hashes every byte). */
  clear(): void {
    this.#verified.clear();
  }
}

/** Opens that read a too-recent object whole into memory (the racy-clean rule), in this process. */
let racyWholeReads = 0;

/** How many opens read a too-recent object whole (tests: a caller that may open its own fresh objects by ranges makes none). */
export function racyWholeReadsForTesting(): number {
  return racyWholeReads;
}

/** A file's identity for memos of what was read from it: `dev:ino:size:mtimeNs:ctimeNs` (any write, replacement or link moves it). */
export function fileIdentityOf(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

type Entry = Pick<ManifestParticipant, 'contentSha256' | 'byteLength'>;

/** An object file opened without following links and checked against its manifest length (the caller closes `fd`). */
interface OpenedObject {
  readonly fd: number;
  readonly rel: string;
  readonly before: fs.BigIntStats;
  readonly identity: string;
  /** Wall clock (ns) just before the open: the racy-clean rule's reference. */
  readonly startNs: bigint;
}

function openObjectFile(root: string, entry: Entry): OpenedObject {
  const p = objectPlace(root, entry.contentSha256);
  const startNs = BigInt(Date.now()) * 1_000_000n;
  let fd: number;
  try {
    fd = fsx.openSync(p.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) throw corrupt('participant object is missing', p.rel);
    if (isErrno(e, 'ELOOP')) throw corrupt('symlink at a machine-owned path', p.rel);
    if (isErrno(e, 'ENXIO') || isErrno(e, 'EISDIR')) throw corrupt('not a regular file', p.rel);
    throw ioError(e, 'open', p.rel);
  }
  try {
    const before = fs.fstatSync(fd, { bigint: true });
    if (!before.isFile()) throw corrupt('not a regular file', p.rel);
    if (before.size !== BigInt(entry.byteLength)) throw corrupt('participant object has the wrong length', p.rel);
    return { fd, rel: p.rel, before, identity: fileIdentityOf(before), startNs };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** One verified read, as steps: yields (a pause point) after each chunk so an async caller can pause (and abort) there. */
function* readSteps(root: string, entry: Entry, memo: VerifiedObjectMemo): Steps<void, Uint8Array> {
  const { fd, rel, before, identity, startNs } = openObjectFile(root, entry);
  try {
    const known = memo.identityOf(entry.contentSha256) === identity;
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
    if (off !== size || fs.readSync(fd, Buffer.allocUnsafe(1), 0, 1, off) !== 0) throw corrupt('participant object has the wrong length', rel);
    const after = fileIdentityOf(fs.fstatSync(fd, { bigint: true }));
    if (hash !== undefined) {
      if (hash.digest('hex') !== entry.contentSha256) {
        memo.forget(entry.contentSha256);
        throw corrupt('participant object does not match its name', rel);
      }
      if (after === identity && before.ctimeNs + VERIFIED_MEMO_MIN_AGE_NS <= startNs) memo.remember(entry.contentSha256, identity);
    } else if (after !== identity) {
      // Changed while read: forget it and verify these bytes the slow way.
      memo.forget(entry.contentSha256);
      if (createHash('sha256').update(buf).digest('hex') !== entry.contentSha256) throw corrupt('participant object does not match its name', rel);
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One participant object opened for ranged reads after it was verified
 * against its name (see `openObjectVerified`).
 */
export interface VerifiedObject {
  readonly byteLength: number;
  /**
   * A copy (or, for an object held in memory, a view) of the verified bytes
   * `[offset, offset + length)`, read into the front of `into` when it is
   * given and long enough (a caller's reusable buffer). Each read from the
   * file re-checks the file identity it was verified under, so no byte of a
   * replaced or modified object is ever returned (`GF_PROJECT_CORRUPT`).
   */
  read(offset: number, length: number, into?: Uint8Array): Uint8Array;
  /** Closes the file (idempotent); reads after it are a programming error. */
  close(): void;
}

/** Options of `openObjectVerified` (tests). */
export interface OpenVerifiedOptions {
  /**
   * Racy-clean age for ranged mode (default `VERIFIED_MEMO_MIN_AGE_NS`). The memo
   * keeps only identities older than the default, whatever this says.
   */
  readonly minAgeNs?: bigint;
}

/** Bytes held in memory, as a `VerifiedObject` (views, no copy). */
export function verifiedBytes(bytes: Uint8Array): VerifiedObject {
  return {
    byteLength: bytes.length,
    read(offset, length) {
      if (offset < 0 || length < 0 || offset + length > bytes.length) throw new RangeError('read outside the object');
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}

function rangedObject(fd: number, rel: string, sha: string, identity: string, size: number, memo: VerifiedObjectMemo): VerifiedObject {
  let open = true;
  return {
    byteLength: size,
    read(offset, length, into) {
      if (!open) throw new Error('invariant violated: read after close');
      if (offset < 0 || length < 0 || offset + length > size) throw new RangeError('read outside the object');
      const out = into !== undefined && into.length >= length ? into.subarray(0, length) : new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = fs.readSync(fd, out, done, length - done, offset + done);
        if (n === 0) throw corrupt('participant object has the wrong length', rel);
        done += n;
      }
      if (fileIdentityOf(fs.fstatSync(fd, { bigint: true })) !== identity) {
        memo.forget(sha);
        throw corrupt('participant object changed after it was verified', rel);
      }
      return out;
    },
    close() {
      if (!open) return;
      open = false;
      fs.closeSync(fd);
    },
  };
}

/**
 * Opens one object for ranged reads, verified against its name first.
 *
 * Memo hit (the project verified this exact file): nothing is read up
 * front. Otherwise the whole file is hashed in `VERIFY_CHUNK_BYTES` chunks
 * through one reused buffer (memory does not grow with the object), with
 * a pause point between chunks; a file whose ctime is too recent for the
 * racy-clean rule is instead read whole into memory while it is hashed,
 * and served from there. Ranged reads then re-check the file identity, so
 * every byte returned is a byte of the verified file.
 */
function* openSteps(root: string, entry: Entry, memo: VerifiedObjectMemo, opts: OpenVerifiedOptions): Steps<void, VerifiedObject> {
  const minAge = opts.minAgeNs ?? VERIFIED_MEMO_MIN_AGE_NS;
  const { fd, rel, before, identity, startNs } = openObjectFile(root, entry);
  let handedOut = false;
  try {
    const size = entry.byteLength;
    // `minAge` 0: the caller takes ranged reads of a file of any age (its own freshly staged object). Without this
    // guard a ctime in the same millisecond as `startNs` (or later: `Date.now()` is millisecond-truncated, and the
    // injected clock may lag the file system's) would still read as "too recent" and take the in-memory path.
    if (memo.identityOf(entry.contentSha256) !== identity && minAge > 0n && before.ctimeNs + minAge > startNs) {
      // Too recent to trust its identity later: hash and keep these very bytes.
      racyWholeReads++;
      fs.closeSync(fd);
      handedOut = true;
      return verifiedBytes(yield* readSteps(root, entry, memo));
    }
    if (memo.identityOf(entry.contentSha256) !== identity) {
      const hash = createHash('sha256');
      const chunk = Buffer.allocUnsafe(Math.min(HASH_READ_BYTES, Math.max(1, size)));
      const budget = new StepBudget(VERIFY_CHUNK_BYTES);
      let off = 0;
      while (off < size) {
        const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - off), off);
        if (n === 0) break;
        hash.update(chunk.subarray(0, n));
        off += n;
        if (budget.spend(n) && off < size) yield;
      }
      if (off !== size || fs.readSync(fd, chunk, 0, 1, off) !== 0) throw corrupt('participant object has the wrong length', rel);
      if (hash.digest('hex') !== entry.contentSha256) {
        memo.forget(entry.contentSha256);
        throw corrupt('participant object does not match its name', rel);
      }
      if (fileIdentityOf(fs.fstatSync(fd, { bigint: true })) !== identity) throw corrupt('participant object changed while it was verified', rel);
      // Only an identity old enough for the racy-clean rule is remembered: a caller that opens a younger file
      // (its own freshly staged object) gets ranged reads of it, and later opens hash it again.
      if (before.ctimeNs + VERIFIED_MEMO_MIN_AGE_NS <= startNs) memo.remember(entry.contentSha256, identity);
    }
    handedOut = true;
    return rangedObject(fd, rel, entry.contentSha256, identity, size, memo);
  } finally {
    if (!handedOut) fs.closeSync(fd);
  }
}

/** The synchronous pause point: nothing to wait for. */
function noPause(): void {}

/**
 * Opens one object for ranged reads once it is verified against its name
 * and manifest entry (see `openSteps`). Missing, truncated, extended or
 * altered bytes are `GF_PROJECT_CORRUPT`. The caller closes it.
 */
export function openObjectVerified(root: string, entry: Entry, memo: VerifiedObjectMemo, opts: OpenVerifiedOptions = {}): VerifiedObject {
  return runSteps(openSteps(root, entry, memo, opts), noPause);
}

/** `openObjectVerified`, awaiting `pause` between hashed chunks (a throwing `pause` aborts, nothing stays open). */
export async function openObjectVerifiedAsync(
  root: string,
  entry: Entry,
  memo: VerifiedObjectMemo,
  pause: () => Promise<void>,
  opts: OpenVerifiedOptions = {},
): Promise<VerifiedObject> {
  return runStepsAsync(openSteps(root, entry, memo, opts), pause);
}

/**
 * Reads one object and verifies it against its name and manifest entry.
 *
 * The bytes are SHA-256-verified against the object's name unless this
 * project already verified this exact file (same dev, inode, size, mtime
 * and ctime, see `VerifiedObjectMemo`); then only its length is checked and the
 * hash is skipped. Missing, truncated, extended or altered bytes are
 * `GF_PROJECT_CORRUPT`; no other object is ever substituted.
 */
export function readObjectVerified(root: string, entry: Entry, memo: VerifiedObjectMemo): Uint8Array {
  return runSteps(readSteps(root, entry, memo), noPause);
}

/**
 * `readObjectVerified` for long reads: awaits `pause` after every
 * `VERIFY_CHUNK_BYTES` read and hashed, so the event loop keeps running
 * and the caller can abort (by throwing from `pause`) mid-object.
 */
export async function readObjectVerifiedAsync(root: string, entry: Entry, memo: VerifiedObjectMemo, pause: () => Promise<void>): Promise<Uint8Array> {
  return runStepsAsync(readSteps(root, entry, memo), pause);
}
