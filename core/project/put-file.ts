// Copying a participant file into the object store while hashing it, and verifying
// a stored object by streaming.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { corrupt, discardCreated, ioError, isErrno, openRegularNoFollow } from './durable-fs';
import { fsx } from './fs-layer';
import type { WriteSteps } from './durable-fs';
import type { Steps } from './flush';

/** Bytes read (and hashed) at a time from a participant file. */
const CHUNK_BYTES = 1 << 20;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Closing a file we only read or already flushed adds nothing to report.
  }
}

/**
 * Copies a caller's participant file into a new project file, hashing what it copies.
 *
 * Why: a participant of millions of records is never whole in memory on its
 * way into the store. The copy is made exclusively (`wx`) and flushed once,
 * with the same hooks and clean-up as `writeNewFileSteps`; the digest and
 * length are of the bytes actually copied, so a file changed by its writer
 * meanwhile can only be stored under its own name.
 */
export function* copyNewFileSteps(
  source: string,
  abs: string,
  rel: string,
  steps: WriteSteps = {},
): Steps<{ readonly sha256: string; readonly byteLength: number }> {
  let src: number;
  try {
    src = fs.openSync(source, O_RDONLY | O_NOFOLLOW);
  } catch (e) {
    throw ioError(e, 'read', 'participant file');
  }
  let fd: number | undefined;
  let ok = false;
  try {
    try {
      fd = fsx.openSync(abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    } catch (e) {
      if (isErrno(e, 'EEXIST') || isErrno(e, 'ELOOP')) throw corrupt('unexpected entry at a machine-owned path', rel);
      throw ioError(e, 'create', rel);
    }
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let total = 0;
    for (;;) {
      const n = fs.readSync(src, buf, 0, buf.length, total);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      let off = 0;
      try {
        while (off < n) off += fsx.writeSync(fd, chunk, off, n - off);
      } catch (e) {
        throw ioError(e, 'write', rel);
      }
      total += n;
    }
    steps.afterWrite?.();
    yield [{ fd, rel, op: 'write' }];
    steps.afterFsync?.();
    ok = true;
    return { sha256: hash.digest('hex'), byteLength: total };
  } finally {
    closeQuietly(src);
    if (fd !== undefined) closeQuietly(fd);
    if (!ok && fd !== undefined) discardCreated(abs);
  }
}

/**
 * Verifies a stored object against its name and length by reading it in chunks.
 *
 * `GF_PROJECT_CORRUPT` when it is missing, of another length or another
 * content; memory stays one chunk whatever the object's size.
 */
export function verifyObjectStreaming(abs: string, rel: string, sha256: string, byteLength: number): void {
  const opened = openRegularNoFollow(abs, rel);
  if (opened === undefined) throw corrupt('participant object is missing', rel);
  try {
    if (opened.st.size !== byteLength) throw corrupt('participant object has the wrong length', rel);
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let off = 0;
    for (;;) {
      const n = fs.readSync(opened.fd, buf, 0, buf.length, off);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      off += n;
    }
    if (off !== byteLength) throw corrupt('participant object has the wrong length', rel);
    if (hash.digest('hex') !== sha256) throw corrupt('participant object does not match its name', rel);
  } finally {
    closeQuietly(opened.fd);
  }
}
