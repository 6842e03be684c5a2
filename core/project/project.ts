// A project container: open or create, readers' leases, the writer lock and the
// writer that stages and publishes generations.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid } from '../canonical/index';
import { GfError, isGfError } from '../errors';
import type { ParticipantCatalog } from './catalog';
import { checkDir, checkFile, corrupt, fsyncDir, ioError, isErrno, listDir, makeDir, readFileNoFollow, renameEntry, writeNewFile } from './durable-fs';
import type { WriteMeter } from './durable-fs';
import { failpoint } from './failpoints';
import { fsx } from './fs-layer';
import { FORMAT_BYTES, manifestDigest } from './formats';
import type { CurrentPointer, Journal } from './formats';
import { readJournal } from './journal';
import { CONTAINER_DIRS, LAYOUT, leasePlace, place } from './layout';
import { Lease, leaseCurrent, loadManifest, readCurrent, readManifestBytes } from './lease';
import { publishLocked, publishLockedAsync } from './publication';
import type { PublishContext, PublishRequest, PublishResult } from './publication';
import { recoverLocked } from './recovery';
import type { RecoveryReport } from './recovery';
import { DEFAULT_RETAIN_ANCESTORS, ancestorWindow, cleanupLocked, cleanupLockedAsync, prunableAfterPublication } from './retention';
import { readLineage } from './lineage';
import type { LineageLog } from './lineage';
import { readRetentionPolicy, writeRetentionPolicyLocked } from './retention-policy';
import type { CleanupOptions, CleanupReport, CleanupScope, GenerationInfo, RetentionPins } from './retention';
import { ProjectCaches } from './project-caches';
import { createLockFile, tryExclusive } from './sqlite-lock';
import type { HeldLock } from './sqlite-lock';
import { issueWriterProof } from './writer-proof';
import type { WriterLockProof } from './writer-proof';

/** Options for opening (or creating) a project. */
export interface ProjectOptions<T = unknown> {
  /** The record-family registry port; required to publish or decode tables. */
  readonly catalog?: ParticipantCatalog<T>;
  /** Ancestors of CURRENT kept by cleanup (default 2, finite). */
  readonly retainAncestors?: number;
  /** Extra retention roots (the checkpoint registry). */
  readonly pins?: RetentionPins;
  /** Observer of durable bytes written (tests and benchmarks). */
  readonly meter?: WriteMeter;
  /** Run journal recovery at open when the writer lock is free (default true). */
  readonly recover?: boolean;
}

/** Options for taking the writer lock. */
export interface WriterOptions {
  /** Milliseconds to wait for a busy writer lock (monotonic clock); 0 or absent = fail at once. Never infinite. */
  readonly timeoutMs?: number;
}

/** The operations available while holding the writer lock. */
export interface Writer<T = unknown> {
  /** Proof that the writer lock is held, valid until `withWriter` ends (the checkpoint registry requires it). */
  readonly lockProof: WriterLockProof;
  /** CURRENT as validated now (null when uninitialized). */
  current(): CurrentPointer | null;
  /** Publishes one generation; see `PublishRequest`. Errors carry `committed`. */
  publish(req: PublishRequest): PublishResult & { readonly cleanup: CleanupReport };
  /**
   * `publish` with each step's independent flushes issued concurrently.
   *
   * Same protocol, failpoints and outcomes; only fsyncs the protocol does
   * not order among themselves overlap (fewer sequential flushes).
   */
  publishAsync(req: PublishRequest): Promise<PublishResult & { readonly cleanup: CleanupReport }>;
  /** Journal recovery (idempotent). */
  recover(): RecoveryReport;
  /** Conservative cleanup with the project's retention settings (a full sweep of every object). */
  cleanup(): CleanupReport;
  /** One transaction's journal (advisory), e.g. to load a revert extension on replay. */
  readJournal(transactionUuid: string): Journal | undefined;
  /** Pins CURRENT (also usable by the writer to read the parent). */
  leaseCurrent(): Lease<T>;
}

const POLL_MS = 5;

/** A cleanup failure after a publication: the publication itself is committed. */
function committedCleanupError(e: unknown): GfError {
  return isGfError(e) ? e.withCommitted(true) : new GfError('GF_IO', 'cleanup after publication failed', {}, true);
}

function isEmptyDir(abs: string): boolean {
  return fs.readdirSync(abs).length === 0;
}

/** No workspace here: a missing path, a file, or a folder without FORMAT (an empty one included); never "unsupported format". */
export function noWorkspace(reason: 'missing' | 'not_a_directory' | 'no_format'): GfError {
  return new GfError('GF_NO_WORKSPACE', 'No workspace at this location (no FORMAT file)', { reason });
}

/** Checks FORMAT and the fixed layout without changing anything. */
function verifyContainer(root: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch (e) {
    if (isErrno(e, 'ENOENT') || isErrno(e, 'ENOTDIR')) throw noWorkspace('missing');
    throw ioError(e, 'stat', '.');
  }
  if (!st.isDirectory()) throw noWorkspace('not_a_directory');
  const fmt = place(root, LAYOUT.format);
  const fst = fs.lstatSync(fmt.abs, { throwIfNoEntry: false });
  if (fst === undefined) throw noWorkspace('no_format');
  if (fst.isSymbolicLink()) throw corrupt('symlink at a machine-owned path', fmt.rel);
  const bytes = readFileNoFollow(fmt.abs, fmt.rel, 256);
  if (bytes === undefined || Buffer.compare(Buffer.from(bytes), Buffer.from(FORMAT_BYTES)) !== 0) {
    throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'FORMAT is not graphforge-project/v1', {});
  }
  for (const d of CONTAINER_DIRS) {
    const p = place(root, d);
    if (!checkDir(p.abs, p.rel)) throw corrupt('machine-owned directory is missing', p.rel);
  }
  for (const l of [LAYOUT.writerLock, LAYOUT.checkpointsLock]) {
    const p = place(root, l);
    if (checkFile(p.abs, p.rel) === undefined) throw corrupt('lock file is missing', p.rel);
  }
}

/**
 * One project directory: the read side (leases, history) and the writer entry point.
 *
 * Holds no lock by itself; every lease and every writer section takes its
 * own OS lock. Safe to use from several processes at once.
 */
export class Project<T = unknown> {
  /** The project directory as given by the caller (never placed in errors). */
  readonly root: string;
  /**
   * What this project remembers between reads (parsed manifests, verified
   * objects, the diff's and validation's memos), for as long as it is open:
   * a `ProjectSession` clears it at close; a library user who drops the
   * project drops it with it.
   */
  readonly caches = new ProjectCaches();
  readonly #opts: ProjectOptions<T>;

  /** @internal Use `openProject` or `createProject`. */
  constructor(root: string, opts: ProjectOptions<T>) {
    this.root = root;
    this.#opts = opts;
  }

  /** The catalog this project was opened with (undefined when none). */
  get catalog(): ParticipantCatalog<T> | undefined {
    return this.#opts.catalog;
  }

  /** Ancestors kept by cleanup: the open option, else the workspace's policy (`history/retention.json`), else the default. */
  get retainAncestors(): number {
    return this.#opts.retainAncestors ?? readRetentionPolicy(this.root)?.retainAncestors ?? DEFAULT_RETAIN_ANCESTORS;
  }

  /** Where `retainAncestors` comes from: `workspace` when the option or the workspace's policy sets it. */
  get retentionSource(): 'default' | 'workspace' {
    return this.#opts.retainAncestors !== undefined || readRetentionPolicy(this.root) !== undefined ? 'workspace' : 'default';
  }

  /**
   * Stores the workspace's ancestor window under the writer lock (crash-safe); returns the previous window.
   *
   * Nothing is removed now: the next cleanup (after the next publication) applies it.
   */
  async setRetainAncestors(n: number, opts: WriterOptions = {}): Promise<number> {
    return this.withWriter(() => {
      const previous = this.retainAncestors;
      writeRetentionPolicyLocked(this.root, { retainAncestors: n });
      return previous;
    }, opts);
  }

  /** The retention roots now: CURRENT's ancestor window and the pinned (checkpointed) generations. */
  retentionRoots(): { readonly current: string | null; readonly ancestors: readonly string[]; readonly pinned: ReadonlySet<string> } {
    const cur = readCurrent(this.root);
    if (cur === null) return { current: null, ancestors: [], pinned: new Set() };
    return {
      current: cur.generationUuid,
      ancestors: ancestorWindow(this.root, cur.generationUuid, this.retainAncestors, this.caches.manifests),
      pinned: this.#opts.pins?.pinnedGenerations() ?? new Set<string>(),
    };
  }

  /** Unnamed generations one more publication would push out of the ancestor window (nearest first). */
  prunableAfterPublication(): string[] {
    const roots = this.retentionRoots();
    return roots.current === null ? [] : prunableAfterPublication(this.root, roots.current, this.retainAncestors, roots.pinned, this.caches.manifests);
  }

  /**
   * Generations outside the retention roots that a reader holds a lease on now (cleanup would keep them).
   *
   * Probes each such lease without waiting and releases it at once.
   */
  generationsHeldByReaders(keep: ReadonlySet<string>): string[] {
    const gens = place(this.root, LAYOUT.generations);
    const out: string[] = [];
    for (const ent of listDir(gens.abs, gens.rel)) {
      if (!ent.isDirectory() || !isCanonicalUuid(ent.name) || keep.has(ent.name)) continue;
      const lp = leasePlace(this.root, ent.name);
      const a = tryExclusive(lp.abs, lp.rel);
      if (a.kind === 'held') a.lock.release();
      else if (a.kind === 'busy') out.push(ent.name);
    }
    return out.sort();
  }

  /**
   * The verified lineage log (GENERATIONS.md "Lineage log").
   *
   * A torn final line is repaired first when the writer lock is free
   * (recovery rebuilds it from the journal and manifest); while a writer
   * holds the lock, bytes after the last LF are its append in flight and are
   * not shown yet. A line that does not verify is `GF_PROJECT_CORRUPT`.
   */
  lineage(): LineageLog {
    const log = readLineage(this.root);
    const cur = readCurrent(this.root);
    if (log.tornBytes === 0 && (cur === null || log.records.at(-1)?.generationUuid === cur.generationUuid || !log.exists)) return log;
    const p = place(this.root, LAYOUT.writerLock);
    const a = tryExclusive(p.abs, p.rel);
    if (a.kind !== 'held') return log;
    try {
      recoverLocked(this.root, this.#opts.meter);
    } finally {
      a.lock.release();
    }
    return readLineage(this.root);
  }

  /** `uninitialized` until the first publication; throws `GF_PROJECT_CORRUPT` on a malformed CURRENT. */
  state(): 'uninitialized' | 'initialized' {
    return readCurrent(this.root) === null ? 'uninitialized' : 'initialized';
  }

  /** CURRENT as validated now, or null when uninitialized. */
  current(): CurrentPointer | null {
    return readCurrent(this.root);
  }

  /**
   * Pins the generation CURRENT names and returns its snapshot.
   *
   * `GF_PROJECT_UNINITIALIZED` before the first publication; a malformed
   * CURRENT, a missing generation or a digest mismatch is `GF_PROJECT_CORRUPT`.
   */
  lease(): Lease<T> {
    return leaseCurrent(this.root, this.#opts.catalog, this.caches);
  }

  /**
   * Runs `fn` holding the exclusive writer lock; recovery runs first.
   *
   * Non-blocking by default (`GF_WRITER_BUSY` at once); with `timeoutMs`
   * it retries until that much monotonic time has passed. The lock is the
   * OS's: a holder that dies releases it; nothing else ever takes it away.
   */
  async withWriter<R>(fn: (w: Writer<T>) => R | Promise<R>, opts: WriterOptions = {}): Promise<R> {
    const lock = await this.#acquireWriter(opts.timeoutMs ?? 0);
    const proof = issueWriterProof(this.root);
    try {
      failpoint('project.after_writer_lock');
      const w = this.#writer(proof.proof);
      w.recover();
      return await fn(w);
    } catch (e) {
      if (isGfError(e) && e.committed === undefined) throw e.withCommitted(false);
      throw e;
    } finally {
      proof.revoke();
      lock.release();
    }
  }

  /** `withWriter` + one publication. */
  async publish(req: PublishRequest, opts: WriterOptions = {}): Promise<PublishResult & { readonly cleanup: CleanupReport }> {
    return this.withWriter((w) => w.publishAsync(req), opts);
  }

  /** Journal recovery under the writer lock (idempotent; a second run changes no byte). */
  async recover(opts: WriterOptions = {}): Promise<RecoveryReport> {
    return this.withWriter((w) => w.recover(), opts);
  }

  /** Conservative cleanup under the writer lock. */
  async cleanup(opts: WriterOptions = {}): Promise<CleanupReport> {
    return this.withWriter(() => cleanupLockedAsync(this.root, { retainAncestors: this.retainAncestors, pins: this.#opts.pins, manifests: this.caches.manifests }), opts);
  }

  /**
   * The linear history from CURRENT back through retained parents (newest first).
   *
   * Stops at the first ancestor that is no longer retained or not verifiable.
   */
  history(): GenerationInfo[] {
    const cur = readCurrent(this.root);
    if (cur === null) return [];
    const out: GenerationInfo[] = [];
    let uuid: string | null = cur.generationUuid;
    const seen = new Set<string>();
    while (uuid !== null && !seen.has(uuid)) {
      seen.add(uuid);
      let bytes: Uint8Array;
      try {
        bytes = readManifestBytes(this.root, uuid);
      } catch (e) {
        if (out.length === 0) throw e;
        break;
      }
      const m = loadManifest(this.root, uuid, bytes, this.caches.manifests);
      const digest = manifestDigest(bytes);
      if (out.length === 0 && digest !== cur.manifestSha256) throw corrupt('manifest digest does not match', `generations/${uuid}/manifest.json`);
      out.push({
        generationUuid: uuid,
        parentGenerationUuid: m.parentGenerationUuid,
        transactionUuid: m.transactionUuid,
        manifestSha256: digest,
        participantCount: m.participants.length,
        isCurrent: out.length === 0,
        status: 'complete',
      });
      uuid = m.parentGenerationUuid;
    }
    return out;
  }

  /** Every generation directory on disk (complete or not), sorted by UUID. */
  listGenerations(): GenerationInfo[] {
    const cur = readCurrent(this.root);
    const gens = place(this.root, LAYOUT.generations);
    const out: GenerationInfo[] = [];
    for (const ent of listDir(gens.abs, gens.rel)) {
      if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
      try {
        const bytes = readManifestBytes(this.root, ent.name);
        const m = loadManifest(this.root, ent.name, bytes, this.caches.manifests);
        out.push({
          generationUuid: ent.name,
          parentGenerationUuid: m.parentGenerationUuid,
          transactionUuid: m.transactionUuid,
          manifestSha256: manifestDigest(bytes),
          participantCount: m.participants.length,
          isCurrent: cur?.generationUuid === ent.name,
          status: 'complete',
        });
      } catch {
        out.push({
          generationUuid: ent.name,
          parentGenerationUuid: null,
          transactionUuid: null,
          manifestSha256: null,
          participantCount: 0,
          isCurrent: false,
          status: 'incomplete',
        });
      }
    }
    return out.sort((a, b) => (a.generationUuid < b.generationUuid ? -1 : 1));
  }

  async #acquireWriter(timeoutMs: number): Promise<HeldLock> {
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
      throw new GfError('GF_VALIDATION', 'writer lock timeout must be finite and non-negative', {}, false);
    }
    const p = place(this.root, LAYOUT.writerLock);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const a = tryExclusive(p.abs, p.rel);
      if (a.kind === 'held') return a.lock;
      if (a.kind === 'absent') throw corrupt('lock file is missing', p.rel);
      const left = deadline - performance.now();
      if (left <= 0) throw new GfError('GF_WRITER_BUSY', 'another writer holds the project', { timeout_ms: timeoutMs }, false);
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
    }
  }

  #writer(lockProof: WriterLockProof): Writer<T> {
    const root = this.root;
    const opts = this.#opts;
    const caches = this.caches;
    const retention = (scope: CleanupScope): CleanupOptions => ({ retainAncestors: this.retainAncestors, pins: opts.pins, scope, manifests: caches.manifests });
    const cleanup = (): CleanupReport => cleanupLocked(root, retention('full'));
    const context = (req: PublishRequest): PublishContext<T> => {
      const base = opts.catalog;
      if (base === undefined) throw new GfError('GF_VALIDATION', 'no participant catalog configured', {}, false);
      return { root, catalog: req.wrapCatalog === undefined ? base : req.wrapCatalog(base, caches), meter: opts.meter, caches };
    };
    return {
      lockProof,
      current: () => readCurrent(root),
      recover: () => recoverLocked(root, opts.meter),
      cleanup,
      readJournal: (txn) => {
        if (!isCanonicalUuid(txn)) throw new GfError('GF_VALIDATION', 'transaction UUID is not canonical', {});
        return readJournal(root, txn);
      },
      leaseCurrent: () => leaseCurrent(root, opts.catalog, caches),
      publish: (req) => {
        const r = publishLocked(context(req), req);
        let report: CleanupReport;
        try {
          report = cleanupLocked(root, retention('incremental'));
        } catch (e) {
          throw committedCleanupError(e);
        }
        return { ...r, cleanup: report };
      },
      publishAsync: async (req) => {
        const r = await publishLockedAsync(context(req), req);
        let report: CleanupReport;
        try {
          report = await cleanupLockedAsync(root, retention('incremental'));
        } catch (e) {
          throw committedCleanupError(e);
        }
        return { ...r, cleanup: report };
      },
    };
  }
}

/**
 * Opens an existing project (GENERATIONS.md "Recovery").
 *
 * Verifies FORMAT (a non-project directory is
 * `GF_UNSUPPORTED_PROJECT_FORMAT`, nothing touched), the fixed layout, and
 * CURRENT with its manifest digest under a lease. With `recover` (default)
 * and a free writer lock, interrupted journals are labelled.
 */
export async function openProject<T = unknown>(dir: string, opts: ProjectOptions<T> = {}): Promise<Project<T>> {
  try {
    return await openProjectOnce<T>(dir, opts);
  } catch (e) {
    // Opening writes nothing a reader depends on: whatever the caller meant to do did not happen.
    if (isGfError(e) && e.committed === undefined) throw e.withCommitted(false);
    throw e;
  }
}

async function openProjectOnce<T>(dir: string, opts: ProjectOptions<T>): Promise<Project<T>> {
  const root = path.resolve(dir);
  verifyContainer(root);
  const project = new Project<T>(root, opts);
  if (readCurrent(root) !== null) project.lease().release();
  if (opts.recover !== false) {
    const p = place(root, LAYOUT.writerLock);
    let a: ReturnType<typeof tryExclusive> | undefined;
    try {
      a = tryExclusive(p.abs, p.rel);
    } catch (e) {
      // Readers never depend on the lock file's contents (garbage bytes there): the next writer reports it.
      if (!isGfError(e)) throw e;
    }
    if (a?.kind === 'held') {
      try {
        recoverLocked(root, opts.meter);
      } catch (e) {
        // Readers depend on CURRENT alone: a recovery that cannot write now (a
        // full disk, a read-only mount) runs again under the next writer lock.
        if (!isGfError(e) || e.code !== 'GF_IO') throw e;
      } finally {
        a.lock.release();
      }
    }
  }
  return project;
}

/**
 * Creates a new, uninitialized project atomically.
 *
 * Builds the container in a private sibling, flushes files and directories
 * bottom-up and renames it into place (over an absent or empty directory).
 * A non-empty directory is `GF_UNSUPPORTED_PROJECT_FORMAT` (or
 * `GF_VALIDATION` when it already is a project); nothing is touched.
 */
export async function createProject<T = unknown>(dir: string, opts: ProjectOptions<T> = {}): Promise<Project<T>> {
  const root = path.resolve(dir);
  const st = fs.lstatSync(root, { throwIfNoEntry: false });
  if (st !== undefined) {
    if (!st.isDirectory()) throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'the location is not a directory', {}, false);
    if (!isEmptyDir(root)) {
      let isProject = false;
      try {
        verifyContainer(root);
        isProject = true;
      } catch {
        isProject = false;
      }
      if (isProject) throw new GfError('GF_VALIDATION', 'a project already exists at this location', { reason: 'exists' }, false);
      throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'the directory is not empty and not a project', {}, false);
    }
  }
  const parent = path.dirname(root);
  const tmp = path.join(parent, `.${path.basename(root)}.gf-create-${randomBytes(8).toString('hex')}`);
  try {
    fsx.mkdirSync(tmp, 0o755);
  } catch (e) {
    throw ioError(e, 'mkdir', '.', false);
  }
  try {
    for (const d of CONTAINER_DIRS) makeDir(place(tmp, d).abs, d);
    createLockFile(place(tmp, LAYOUT.writerLock).abs, LAYOUT.writerLock);
    createLockFile(place(tmp, LAYOUT.checkpointsLock).abs, LAYOUT.checkpointsLock);
    writeNewFile(place(tmp, LAYOUT.format).abs, LAYOUT.format, FORMAT_BYTES, {}, opts.meter);
    failpoint('project.after_format_fsync');
    for (const d of [...CONTAINER_DIRS].reverse()) fsyncDir(place(tmp, d).abs, d);
    fsyncDir(tmp, '.');
    failpoint('project.after_container_dir_fsync');
    renameEntry(tmp, root, '.');
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw isGfError(e) ? (e.committed === undefined ? e.withCommitted(false) : e) : ioError(e, 'create', '.', false);
  }
  fsyncDir(parent, '..');
  return openProject<T>(root, { ...opts, recover: false });
}
