// Protocol steps written once as generators, run sequentially or with parallel flushes.
import fs from 'node:fs';
import { GfError } from '../errors';
import path from 'node:path';
import { corrupt, createExclusiveWritten, discardCreated, ioError, isErrno } from './durable-fs';
import { fsx } from './fs-layer';
import { runSteps, runStepsAsync } from '../steps/driver';
import type { Steps as DriverSteps } from '../steps/driver';
import type { WriteMeter, WriteSteps } from './durable-fs';

/**
 * Protocol steps written once, run either sequentially or in parallel.
 *
 * A durable step is a generator that yields batches of flushes (and, for
 * cleanup, deletions) the protocol needs at that instant and that have no
 * order among themselves (a lease file and its manifest; a generation
 * directory and `generations/`; the files of a removed generation and its
 * unreachable objects). The generator resumes only after every operation of
 * the batch succeeded, so the state machine, its failpoints and its error
 * handling are one piece of code (driven by the one step driver,
 * core/steps/driver.ts: a failed operation is thrown into the step at its
 * `yield`). `runSync` runs one operation at a time
 * (callers that must stay synchronous); `runAsync` issues a batch
 * concurrently on the libuv pool, where the file system commits fsyncs
 * together and frees inodes in parallel.
 */

const NOFOLLOW = fs.constants.O_NOFOLLOW;
const { O_RDONLY, O_DIRECTORY } = fs.constants;

/** One fsync the protocol needs: an open descriptor, and the names used if it fails. */
export interface Flush {
  readonly kind?: 'flush';
  readonly fd: number;
  readonly rel: string;
  readonly op: 'write' | 'fsync directory';
}

/** One deletion of a machine-owned file (absent is fine; never follows a link: unlink removes the entry itself). */
export interface Unlink {
  readonly kind: 'unlink';
  readonly abs: string;
  readonly rel: string;
}

/** One operation of a batch: the operations of a batch have no order among themselves. */
export type StepOp = Flush | Unlink;

/** A durable step: yields batches of unordered operations, returns its result. */
export type Steps<R> = DriverSteps<readonly StepOp[], R>;

function opSync(o: StepOp): void {
  if (o.kind === 'unlink') {
    try {
      fsx.unlinkSync(o.abs);
    } catch (e) {
      if (!isErrno(e, 'ENOENT')) throw ioError(e, 'unlink', o.rel);
    }
    return;
  }
  try {
    fsx.fsyncSync(o.fd);
  } catch (e) {
    throw ioError(e, o.op, o.rel);
  }
}

function opAsync(o: StepOp): Promise<void> {
  return new Promise((resolve, reject) => {
    if (o.kind === 'unlink') {
      fsx.unlink(o.abs, (e) => (e === null || isErrno(e, 'ENOENT') ? resolve() : reject(ioError(e, 'unlink', o.rel))));
      return;
    }
    fsx.fsync(o.fd, (e) => (e === null ? resolve() : reject(ioError(e, o.op, o.rel))));
  });
}

/** Largest batch issued at once (a full sweep may delete many objects). */
const MAX_PARALLEL = 64;

function batchSync(batch: readonly StepOp[]): void {
  for (const o of batch) opSync(o);
}

/** Runs steps one operation at a time (for synchronous callers). */
export function runSync<R>(steps: Steps<R>): R {
  return runSteps(steps, batchSync);
}

async function batchAsync(batch: readonly StepOp[]): Promise<void> {
  for (let i = 0; i < batch.length; i += MAX_PARALLEL) {
    const settled = await Promise.allSettled(batch.slice(i, i + MAX_PARALLEL).map(opAsync));
    const bad = settled.find((s) => s.status === 'rejected');
    if (bad !== undefined) throw bad.reason;
  }
}

/**
 * Runs steps issuing each batch's operations concurrently.
 *
 * A batch of one runs synchronously (no thread-pool hop, no turn of the
 * event loop). Every operation of a batch is settled before the step
 * resumes, so no descriptor is closed while the pool still flushes it.
 */
export function runAsync<R>(steps: Steps<R>): Promise<R> {
  return runStepsAsync(steps, (batch) => (batch.length > 1 ? batchAsync(batch) : batchSync(batch)));
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // The flush already succeeded or failed on its own; nothing to add.
  }
}

/** Opens a directory for flushing (never through a link). */
export function openDir(abs: string, rel: string): Flush {
  try {
    return { fd: fsx.openSync(abs, O_RDONLY | O_DIRECTORY | NOFOLLOW), rel, op: 'fsync directory' };
  } catch (e) {
    if (isErrno(e, 'ELOOP') || isErrno(e, 'ENOTDIR')) throw corrupt('symlink at a machine-owned path', rel);
    throw ioError(e, 'open directory', rel);
  }
}

/** Flushes several directories' entries together (one batch). */
export function* flushDirs(dirs: readonly { readonly abs: string; readonly rel: string }[]): Steps<void> {
  const open: Flush[] = [];
  try {
    for (const d of dirs) open.push(openDir(d.abs, d.rel));
    if (open.length > 0) yield open;
  } finally {
    for (const f of open) closeQuietly(f.fd);
  }
}

/**
 * Creates a new file (never an existing one, never through a link) and writes all bytes, unflushed.
 *
 * `O_EXCL | O_NOFOLLOW`: a planted file or symlink at the name is refused,
 * not overwritten. The caller flushes and closes the returned descriptor.
 */
export function createWritten(abs: string, rel: string, bytes: Uint8Array, meter?: WriteMeter): Flush {
  return { fd: createExclusiveWritten(abs, rel, bytes, meter), rel, op: 'write' };
}

/** `writeNewFile` as a step: create, write, hooks, one flush. A failed write or flush removes the file it created. */
export function* writeNewFileSteps(abs: string, rel: string, bytes: Uint8Array, steps: WriteSteps = {}, meter?: WriteMeter): Steps<void> {
  const f = createWritten(abs, rel, bytes, meter);
  let ok = false;
  try {
    steps.afterWrite?.();
    yield [f];
    steps.afterFsync?.();
    ok = true;
  } finally {
    closeQuietly(f.fd);
    if (!ok) discardCreated(abs);
  }
}

/** Renames within the project; `rel` names the destination for errors. */
function rename(fromAbs: string, toAbs: string, rel: string): void {
  try {
    fsx.renameSync(fromAbs, toAbs);
  } catch (e) {
    throw e instanceof GfError ? e : ioError(e, 'rename', rel);
  }
}

/**
 * `atomicReplace` as a step: temp write, flush, rename, directory flush.
 *
 * The destination, if present, must be a regular file (checked by the
 * caller's `check`); a symlink there is refused before anything is written.
 */
export function* atomicReplaceSteps(
  abs: string,
  rel: string,
  tmpAbs: string,
  dir: { readonly abs: string; readonly rel: string },
  bytes: Uint8Array,
  meter?: WriteMeter,
): Steps<void> {
  const tmpRel = `${dir.rel}/${path.basename(tmpAbs)}`;
  yield* writeNewFileSteps(tmpAbs, tmpRel, bytes, {}, meter === undefined ? undefined : { wrote: (_r, n) => meter.wrote(rel, n) });
  try {
    rename(tmpAbs, abs, rel);
  } catch (e) {
    discardCreated(tmpAbs);
    throw e;
  }
  yield* flushDirs([dir]);
}
