// The registry on disk: machine-owned paths under checkpoints/, observed and written
// with the pair-commit protocol.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { GfError, isGfError } from '../errors';
import { BoundedCache, sha256Hex } from '../canonical';
import { LAYOUT } from '../project/layout';
import { createLockFile, tryExclusive, tryShared } from '../project/sqlite-lock';
import type { HeldLock } from '../project/sqlite-lock';
import { registryFailpoint } from './failpoints';
import { decideRecovery } from './recovery';
import type { Observed, RecoveryDecision } from './recovery';
import { fsx } from '../project/fs-layer';
import { assertWriterLockHeld } from '../project/writer-proof';
import type { WriterLockProof } from '../project/writer-proof';
import { openRegularNoFollow, readFileNoFollow, writeNewFile } from '../project/durable-fs';
import { LINEAGE_MAX_BYTES, lineagePlace } from '../project/lineage';
import { VERIFIED_MEMO_MIN_AGE_NS, fileIdentityOf } from '../project/verified-objects';
import { REGISTRY_LIMITS, decodeIntent, decodeRegistry, encodeChecksum, encodeIntent, registryCorrupt, tempNames } from './registry-format';
import type { RegistryDoc, RegistryFile, RegistryIntent } from './registry-format';
import { isPlan } from './registry-core';
import type { CheckpointReceipt, RegistryPlan } from './registry-core';

/** Machine-owned names inside `checkpoints/` (ADR-0014 "Registry and paths"). */
export const REGISTRY_PATHS = {
  dir: 'checkpoints',
  registry: 'registry.json',
  checksum: 'registry.json.sha256',
  intent: 'registry.txn.json',
  lock: LAYOUT.checkpointsLock,
} as const;

/** Stray private files a crashed writer can leave before its intent existed. */
const STRAY_RE = /^\.registry\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(?:json|sha256|txn)\.next$/;

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;

/** The logical registry: the validated document (null when none was ever created) and its digest. */
export interface RegistryState {
  readonly doc: RegistryDoc | null;
  readonly sha256: string | null;
  readonly revision: number;
}

function errnoOf(e: unknown): string {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : 'unknown';
}

function ioFailure(e: unknown, operation: string, file: string, committed?: boolean): GfError {
  if (isGfError(e)) return e;
  return new GfError('GF_IO', `${operation} failed`, { operation, name: `checkpoints/${file}`, errno: errnoOf(e) }, committed);
}

/**
 * Reads one registry-owned file without following links.
 *
 * Only a single-link regular file within its bound is `present`; a
 * symlink, hard link, FIFO, directory or oversized file is `unsafe` and is
 * never read. `O_NONBLOCK` keeps a planted FIFO from blocking the open.
 */
export function observeFile(abs: string, maxBytes: number): Observed {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return { kind: 'absent' };
    if (code === 'ELOOP' || code === 'EMLINK') return { kind: 'unsafe', reason: 'symlink' };
    if (code === 'EISDIR' || code === 'ENXIO') return { kind: 'unsafe', reason: 'not_regular' };
    throw ioFailure(e, 'open', path.basename(abs));
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { kind: 'unsafe', reason: 'not_regular' };
    if (st.nlink !== 1) return { kind: 'unsafe', reason: 'linked' };
    if (st.size > maxBytes) return { kind: 'unsafe', reason: 'oversized' };
    // Sized by the file (one byte more to see growth), not by the bound: every diff and page reads the
    // registry, and an 8 MiB buffer per read was garbage that forced collections into the next call.
    let buf = Buffer.allocUnsafe(st.size + 1);
    let off = 0;
    for (;;) {
      if (off === buf.length) {
        const next = Buffer.allocUnsafe(Math.min(maxBytes + 1, 2 * buf.length));
        buf.copy(next, 0, 0, off);
        buf = next;
      }
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
      if (off > maxBytes) return { kind: 'unsafe', reason: 'oversized' };
    }
    return { kind: 'present', bytes: new Uint8Array(buf.buffer, buf.byteOffset, off) };
  } finally {
    fs.closeSync(fd);
  }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Options of the registry file shell. */
export interface RegistryStoreOptions {
  /**
   * How long to retry the checkpoints lock (monotonic clock, finite).
   *
   * Writers already hold writer.lock, so only short-lived readers can hold
   * it; they hold it for the few milliseconds a read takes.
   */
  readonly lockTimeoutMs?: number;
  /**
   * How long the installed registry files' ctime must precede a read for the
   * store to remember what it read (the racy-clean rule, as for verified
   * objects); default `VERIFIED_MEMO_MIN_AGE_NS`. Tests set 0.
   */
  readonly memoMinAgeNs?: bigint;
  /** What this store remembers between reads, shared with the other stores of its owner (default: its own). */
  readonly memos?: RegistryMemos;
}

/** A validated registry state and the identities (`dev:ino:size:mtimeNs:ctimeNs`) of the installed pair it was read from. */
interface RegistryMemo {
  readonly registry: string;
  readonly checksum: string;
  readonly state: RegistryState;
}

/** The identity of one registry-owned file, links not followed, and its ctime. */
interface FileIdentity {
  readonly id: string;
  readonly ctimeNs: bigint;
}

/** A lineage log scanned for a restored checkpoint and found none: the log file (`dev:ino`) and how far (whole lines). */
interface LineageScan {
  readonly file: string;
  readonly offset: number;
}

/**
 * What the registry stores of one open project remember between reads, for
 * as long as their owner keeps the project open (the API's project session:
 * core/api/project-session.ts); a store made without one remembers for itself.
 *
 * `reads`: what a read last validated, per registry directory. Every diff
 * page, listing and open reads the registry (twice per opened checkpoint),
 * and at a thousand checkpoints a full read re-reads and hashes half a
 * megabyte; an entry is only used while the installed files keep the
 * identities it was read from. `lineageScans`: how far the lineage log of a
 * project was scanned for a restored checkpoint and found none, per project
 * root: the log is append-only, so the next scan starts there.
 */
export class RegistryMemos {
  readonly reads = new BoundedCache<string, RegistryMemo>(16);
  readonly lineageScans = new BoundedCache<string, LineageScan>(16);
  /** Registry documents already fully validated, by the SHA-256 of their exact bytes (a pure function of them). */
  readonly decoded = new BoundedCache<string, RegistryDoc>(DECODED_DOCS);

  /** `decodeRegistry(bytes)`, answered from `decoded` when these very bytes (`sha256`: the caller's digest of them) were validated before. */
  decode(bytes: Uint8Array, sha256: string): RegistryDoc {
    const hit = this.decoded.get(sha256);
    if (hit !== undefined) return hit;
    const doc = decodeRegistry(bytes);
    this.decoded.set(sha256, doc);
    return doc;
  }

  /** Forgets everything (the owner closed the project). */
  clear(): void {
    this.reads.clear();
    this.lineageScans.clear();
    this.decoded.clear();
  }

  /** Registry reads, lineage scans and decoded documents remembered (the owner's evidence that it holds, or released, them). */
  get size(): number {
    return this.reads.size + this.lineageScans.size + this.decoded.size;
  }
}

/** Registry documents a memo keeps decoded (the installed one, a few recent revisions, a staged next). */
const DECODED_DOCS = 8;

const RESTORED_CHECKPOINT = Buffer.from('"restored_checkpoint_uuid":"');

/**
 * What shows that a checkpoint was once created in the project at `root`, or null.
 *
 * `locks/checkpoints.created` (written once the first registry pair is installed, never
 * removed), else a lineage line that restored a checkpoint. A missing registry pair is "none
 * was ever created" (ADR-0014) only when nothing here says otherwise. (`locks/checkpoints.lock`
 * alone is no proof: a first create that failed or crashed before its pair was installed leaves it.)
 */
export function checkpointEvidence(root: string, memos: RegistryMemos = new RegistryMemos()): string | null {
  try {
    fs.lstatSync(path.join(root, ...LAYOUT.checkpointsCreated.split('/')));
    return LAYOUT.checkpointsCreated;
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT' && errnoOf(e) !== 'ENOTDIR') throw ioFailure(e, 'lstat', 'checkpoints.created');
  }
  const log = lineagePlace(root);
  const opened = openRegularNoFollow(log.abs, log.rel);
  if (opened === undefined) return null;
  const { fd, st } = opened;
  try {
    const file = `${st.dev}:${st.ino}`;
    const known = memos.lineageScans.get(root);
    let offset = known !== undefined && known.file === file && known.offset <= st.size ? known.offset : 0;
    const end = Math.min(st.size, LINEAGE_MAX_BYTES);
    const chunk = Buffer.allocUnsafe(1 << 20);
    let carry = Buffer.alloc(0);
    while (offset < end) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, end - offset), offset);
      if (n === 0) break;
      const bytes = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (bytes.includes(RESTORED_CHECKPOINT)) return log.rel;
      offset += n;
      // Only whole lines count as scanned; a partial last line is scanned again next time.
      const nl = bytes.lastIndexOf(0x0a);
      carry = Buffer.from(nl < 0 ? bytes : bytes.subarray(nl + 1));
    }
    memos.lineageScans.setNewest(root, { file, offset: offset - carry.length });
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** `GF_CHECKPOINT_REGISTRY_CORRUPT` for a registry pair that is gone although `evidence` shows checkpoints existed. */
function pairMissing(evidence: string): GfError {
  return new GfError('GF_CHECKPOINT_REGISTRY_CORRUPT', `the checkpoint registry is missing, but ${evidence} shows that checkpoints were created`, {
    file: 'registry',
    reason: 'pair_missing',
    evidence,
  });
}

/** Reads that observed and validated the registry files (not answered from the memo), in this process. */
let registryObservations = 0;

/** Registry observations so far in this process (tests: evidence that a read was, or was not, answered from the memo). */
export function registryObservationsForTesting(): number {
  return registryObservations;
}

/**
 * The registry's file shell: observation, the pair-commit protocol, recovery and locking.
 *
 * All decisions are made by the pure cores (`decideRecovery`, the plan
 * functions); this class only moves bytes, flushes and takes locks. Lock
 * order is the caller's writer.lock, then `locks/checkpoints.lock`, never the
 * reverse: readers take only the shared checkpoints lock and never ask for
 * the writer lock while holding it.
 */
export class CheckpointRegistryStore {
  readonly #root: string;
  readonly #dir: string;
  readonly #lockTimeoutMs: number;
  readonly #memoMinAgeNs: bigint;
  readonly #memos: RegistryMemos;

  constructor(projectRoot: string, options: RegistryStoreOptions = {}) {
    this.#root = projectRoot;
    this.#dir = path.join(projectRoot, REGISTRY_PATHS.dir);
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
    this.#memoMinAgeNs = options.memoMinAgeNs ?? VERIFIED_MEMO_MIN_AGE_NS;
    this.#memos = options.memos ?? new RegistryMemos();
  }

  /** The project directory this store serves. */
  get root(): string {
    return this.#root;
  }

  #lockPath(): string {
    return path.join(this.#root, ...REGISTRY_PATHS.lock.split('/'));
  }

  #lockExists(): boolean {
    try {
      const st = fs.lstatSync(this.#lockPath());
      if (!st.isFile()) throw registryCorrupt('checkpoints', 'lock_not_regular');
      return true;
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return false;
      throw ioFailure(e, 'lstat', 'checkpoints.lock');
    }
  }

  #acquire(kind: 'shared' | 'exclusive'): HeldLock | null {
    const abs = this.#lockPath();
    const deadline = performance.now() + this.#lockTimeoutMs;
    for (;;) {
      const attempt = kind === 'shared' ? tryShared(abs, REGISTRY_PATHS.lock) : tryExclusive(abs, REGISTRY_PATHS.lock);
      if (attempt.kind === 'held') return attempt.lock;
      if (attempt.kind === 'absent') return null;
      if (performance.now() >= deadline) {
        throw new GfError('GF_WRITER_BUSY', 'the checkpoint registry lock is busy', { lock: REGISTRY_PATHS.lock, timeout_ms: this.#lockTimeoutMs }, kind === 'exclusive' ? false : undefined);
      }
      sleepMs(2);
    }
  }

  /** `checkpoints/` must be a real directory when present; returns whether it exists. */
  #dirExists(): boolean {
    try {
      const st = fs.lstatSync(this.#dir);
      if (!st.isDirectory()) throw registryCorrupt('checkpoints', 'not_directory');
      return true;
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return false;
      throw ioFailure(e, 'lstat', '.');
    }
  }

  #abs(name: string): string {
    return path.join(this.#dir, name);
  }

  /** Observes the three registry files and, on demand, the intent's temporaries. */
  #observe(): RecoveryDecision {
    if (!this.#dirExists()) {
      return decideRecovery({ registry: { kind: 'absent' }, checksum: { kind: 'absent' }, intent: { kind: 'absent' } });
    }
    return decideRecovery({
      registry: observeFile(this.#abs(REGISTRY_PATHS.registry), REGISTRY_LIMITS.registryBytes),
      checksum: observeFile(this.#abs(REGISTRY_PATHS.checksum), REGISTRY_LIMITS.checksumBytes),
      intent: observeFile(this.#abs(REGISTRY_PATHS.intent), REGISTRY_LIMITS.intentBytes),
      temps: (intent: RegistryIntent) => ({
        registryTemp: observeFile(this.#abs(intent.registry_temp), REGISTRY_LIMITS.registryBytes),
        checksumTemp: observeFile(this.#abs(intent.checksum_temp), REGISTRY_LIMITS.checksumBytes),
      }),
      decode: (bytes, sha256) => this.#memos.decode(bytes, sha256),
    });
  }

  /**
   * The logical registry state, read under the shared checkpoints lock. Never mutates.
   *
   * A crashed writer's leftover intent is interpreted by the recovery table
   * (previous or next, never a mixture); settling it on disk is left to the
   * next writer. Any unsafe state is `GF_CHECKPOINT_REGISTRY_CORRUPT`.
   *
   * `revalidate`: observe and validate the files even when the memo holds
   * them unchanged (`gf doctor` checks the bytes, not their identity).
   */
  read(options: { readonly revalidate?: boolean } = {}): RegistryState {
    const lock = this.#acquire('shared');
    if (lock === null) {
      // No lock file: no registry mutation has ever committed (a writer creates the lock first).
      const d = this.#observe();
      if (d.doc !== null || d.intent !== null || this.#lockExists()) {
        const again = this.#acquire('shared');
        if (again === null) throw registryCorrupt('checkpoints', 'lock_missing');
        try {
          return this.#present(toState(this.#observe()));
        } finally {
          again.release();
        }
      }
      return this.#present(toState(d));
    }
    try {
      return this.#present(this.#readShared(options.revalidate === true));
    } finally {
      lock.release();
    }
  }

  /** A state without a document is "never created" only when nothing in the project says checkpoints existed. */
  #present(state: RegistryState): RegistryState {
    if (state.doc !== null) return state;
    const evidence = checkpointEvidence(this.#root, this.#memos);
    if (evidence !== null) throw pairMissing(evidence);
    return state;
  }

  /** A registry-owned file's identity (`lstat`: a link is its own identity), or null when it is absent. */
  #identity(name: string): FileIdentity | null {
    try {
      const st = fs.lstatSync(this.#abs(name), { bigint: true });
      return { id: fileIdentityOf(st), ctimeNs: st.ctimeNs };
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return null;
      throw ioFailure(e, 'lstat', name);
    }
  }

  /**
   * The logical state, under the shared lock.
   *
   * From the memo when no intent exists and both installed files have the
   * identities the memo was validated from: writers replace them by rename
   * (a new inode), and any other write, truncation or link moves ctime,
   * which user space cannot set back. Otherwise a full observation, which
   * is remembered only when no intent was found and both files' ctimes are
   * at least `memoMinAgeNs` older than the read (a change within the same
   * coarse timestamp tick could otherwise look unchanged).
   */
  #readShared(revalidate: boolean): RegistryState {
    const memo = revalidate ? undefined : this.#memos.reads.get(this.#dir);
    if (memo !== undefined && this.#dirExists() && this.#identity(REGISTRY_PATHS.intent) === null) {
      if (this.#identity(REGISTRY_PATHS.registry)?.id === memo.registry && this.#identity(REGISTRY_PATHS.checksum)?.id === memo.checksum) return memo.state;
    }
    this.#memos.reads.delete(this.#dir);
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const registry = this.#identity(REGISTRY_PATHS.registry);
    const checksum = this.#identity(REGISTRY_PATHS.checksum);
    registryObservations++;
    const d = this.#observe();
    const state = toState(d);
    const aged = (f: FileIdentity | null): f is FileIdentity => f !== null && f.ctimeNs + this.#memoMinAgeNs <= startNs;
    if (d.intent === null && d.doc !== null && aged(registry) && aged(checksum)) {
      // The files read are the ones identified (the shared lock keeps writers out; a change meanwhile is not remembered).
      if (this.#identity(REGISTRY_PATHS.registry)?.id === registry.id && this.#identity(REGISTRY_PATHS.checksum)?.id === checksum.id) {
        this.#memos.reads.setNewest(this.#dir, { registry: registry.id, checksum: checksum.id, state });
      }
    }
    return state;
  }

  /**
   * Runs one registry mutation, holding the project's writer lock (`writer`, checked: a stale or foreign proof is refused).
   *
   * Takes the exclusive checkpoints lock, settles any crashed transaction
   * through the recovery table, then calls `decide` with the recovered
   * document (post-lock generation resolution happens inside `decide`). A
   * returned receipt is a replay (nothing written); a plan is committed by
   * the pair-commit protocol. Any failure reports `committed` truthfully.
   */
  mutate(writer: WriterLockProof, decide: (doc: RegistryDoc | null, revision: number) => RegistryPlan | CheckpointReceipt): CheckpointReceipt {
    assertWriterLockHeld(writer, this.#root, 'a checkpoint registry mutation');
    this.#ensureLockFile();
    const lock = this.#acquire('exclusive');
    if (lock === null) throw registryCorrupt('checkpoints', 'lock_missing');
    try {
      const state = toState(this.#settle());
      if (state.doc === null) {
        // No pair: a first mutation, unless something shows checkpoints existed (then the pair was deleted).
        const evidence = checkpointEvidence(this.#root, this.#memos);
        if (evidence !== null) throw pairMissing(evidence).withCommitted(false);
      } else this.#markCreated();
      let planned: RegistryPlan | CheckpointReceipt;
      try {
        planned = decide(state.doc, state.revision);
      } catch (e) {
        throw isGfError(e) && e.committed === undefined ? e.withCommitted(false) : e;
      }
      if (!isPlan(planned)) return planned;
      this.#commit(state, planned);
      this.#markCreated();
      return planned.receipt;
    } finally {
      lock.release();
    }
  }

  /** Writes `locks/checkpoints.created` once a pair is installed (exclusive lock held); a write that fails is retried by the next writer. */
  #markCreated(): void {
    const abs = path.join(this.#root, ...LAYOUT.checkpointsCreated.split('/'));
    try {
      fs.lstatSync(abs);
      return;
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') return;
    }
    try {
      writeNewFile(abs, LAYOUT.checkpointsCreated, new TextEncoder().encode('graphforge-checkpoints-created/1\n'));
      fsyncDir(path.join(this.#root, LAYOUT.locks), LAYOUT.locks);
    } catch {
      // The pair is installed and durable; the marker is written by the next mutation or recovery.
    }
  }

  /**
   * What an interrupted registry change left, read without locking or changing anything: the intent
   * (`checkpoints/registry.txn.json`, which the next registry write or recovery completes or rolls back)
   * with the next files it staged, and stray private files of a writer killed before its intent existed
   * (all removed by the same recovery). Paths are relative to the workspace.
   */
  leftovers(): { readonly intent: string | null; readonly staged: readonly string[]; readonly strays: readonly string[] } {
    if (!this.#dirExists()) return { intent: null, staged: [], strays: [] };
    const rel = (name: string) => `${REGISTRY_PATHS.dir}/${name}`;
    let names: fs.Dirent[];
    try {
      names = fsx.readdirSync(this.#dir);
    } catch {
      return { intent: null, staged: [], strays: [] }; // a folder gf cannot list: the permission report says so
    }
    const intent = names.some((e) => e.name === REGISTRY_PATHS.intent) ? rel(REGISTRY_PATHS.intent) : null;
    const temps = names.filter((e) => e.isFile() && STRAY_RE.test(e.name)).map((e) => e.name).sort();
    if (intent === null) return { intent, staged: [], strays: temps.map(rel) };
    let named: ReadonlySet<string>;
    try {
      const decoded = decodeIntent(readFileNoFollow(this.#abs(REGISTRY_PATHS.intent), intent, REGISTRY_LIMITS.intentBytes) ?? new Uint8Array());
      named = new Set([decoded.registry_temp, decoded.checksum_temp]);
    } catch {
      // An intent that does not decode: the registry reads as corrupt (its own finding); recovery refuses to touch any of it.
      return { intent, staged: temps.map(rel), strays: [] };
    }
    // The intent's own staged next files belong to that change; other private files are strays of an earlier killed write.
    return { intent, staged: temps.filter((n) => named.has(n)).map(rel), strays: temps.filter((n) => !named.has(n)).map(rel) };
  }

  /**
   * Settles the registry on disk (recovery with side effects). Caller holds writer.lock.
   *
   * Returns the accepted state; a corrupt registry is refused and left untouched.
   */
  recover(writer: WriterLockProof): RegistryState {
    assertWriterLockHeld(writer, this.#root, 'checkpoint registry recovery');
    if (!this.#lockExists()) return this.read();
    const lock = this.#acquire('exclusive');
    if (lock === null) throw registryCorrupt('checkpoints', 'lock_missing');
    try {
      const state = this.#present(toState(this.#settle()));
      if (state.doc !== null) this.#markCreated();
      return state;
    } finally {
      lock.release();
    }
  }

  #ensureLockFile(): void {
    if (this.#lockExists()) return;
    // Build under a private name and rename into place, so no reader ever opens a half-made lock.
    const locksDir = path.join(this.#root, LAYOUT.locks);
    const tmp = path.join(locksDir, `.checkpoints-lock-${randomUUID()}.tmp`);
    try {
      createLockFile(tmp, REGISTRY_PATHS.lock);
      fsx.renameSync(tmp, this.#lockPath());
      fsyncDir(locksDir, LAYOUT.locks);
    } catch (e) {
      try {
        fsx.unlinkSync(tmp);
      } catch {
        // already renamed or never created
      }
      throw ioFailure(e, 'create lock', 'checkpoints.lock', false);
    }
  }

  /** Applies a recovery decision's actions (exclusive lock held) and sweeps stray temporaries. */
  #settle(): RecoveryDecision {
    const d = this.#observe();
    const intent = d.intent;
    if (intent !== null) {
      for (const action of d.actions) {
        try {
          if (action === 'install_next_checksum') {
            fsx.renameSync(this.#abs(intent.checksum_temp), this.#abs(REGISTRY_PATHS.checksum));
            fsyncDir(this.#dir, REGISTRY_PATHS.dir);
          } else if (action === 'remove_intent') {
            // The intent goes first: a crash after this leaves only strays, never an intent without its temps.
            fsx.unlinkSync(this.#abs(REGISTRY_PATHS.intent));
            fsyncDir(this.#dir, REGISTRY_PATHS.dir);
          } else {
            unlinkIfPresent(this.#abs(intent.registry_temp));
            unlinkIfPresent(this.#abs(intent.checksum_temp));
            fsyncDir(this.#dir, REGISTRY_PATHS.dir);
          }
        } catch (e) {
          throw ioFailure(e, `recovery ${action}`, REGISTRY_PATHS.intent);
        }
      }
    } else if (this.#dirExists()) {
      this.#sweepStrays();
    }
    return d;
  }

  /** Without an intent, private `.registry.<uuid>.*.next` files are inert leftovers: remove them. */
  #sweepStrays(): void {
    let removed = false;
    let entries: fs.Dirent[];
    try {
      entries = fsx.readdirSync(this.#dir);
    } catch (e) {
      throw ioFailure(e, 'readdir', REGISTRY_PATHS.dir);
    }
    for (const ent of entries) {
      if (ent.isFile() && STRAY_RE.test(ent.name)) {
        unlinkIfPresent(this.#abs(ent.name));
        removed = true;
      }
    }
    if (removed) fsyncDir(this.#dir, REGISTRY_PATHS.dir);
  }

  /**
   * The pair-commit protocol (exclusive lock held, no intent present).
   *
   * 1. write + flush both next files; 2. install the intent atomically and
   * flush the directory; 3. replace registry.json; 4. replace its checksum;
   * 5. flush the directory; 6. remove the intent and flush again.
   */
  #commit(state: RegistryState, plan: RegistryPlan): void {
    const txn = randomUUID();
    const names = tempNames(txn);
    const nextSha = sha256Hex(plan.bytes);
    const intent: RegistryIntent = {
      transaction_uuid: txn,
      previous_revision: state.doc === null ? null : state.revision,
      previous_sha256: state.sha256,
      next_revision: plan.next.revision,
      next_sha256: nextSha,
      registry_temp: names.registryTemp,
      checksum_temp: names.checksumTemp,
    };
    const intentTemp = `.registry.${txn}.txn.next`;
    let intentInstalled = false;
    try {
      if (!this.#dirExists()) {
        fsx.mkdirSync(this.#dir, 0o755);
        fsyncDir(this.#root, '.');
      }
      writeNew(this.#abs(names.registryTemp), plan.bytes);
      writeNew(this.#abs(names.checksumTemp), encodeChecksum(plan.bytes));
      registryFailpoint('checkpoint.registry.after_file_fsync');
      writeNew(this.#abs(intentTemp), encodeIntent(intent));
      fsx.renameSync(this.#abs(intentTemp), this.#abs(REGISTRY_PATHS.intent));
      intentInstalled = true;
      fsyncDir(this.#dir, REGISTRY_PATHS.dir);
      registryFailpoint('checkpoint.registry.after_intent_install');
      registryFailpoint('checkpoint.registry.before_replace');
      fsx.renameSync(this.#abs(names.registryTemp), this.#abs(REGISTRY_PATHS.registry));
      registryFailpoint('checkpoint.registry.after_replace');
      fsx.renameSync(this.#abs(names.checksumTemp), this.#abs(REGISTRY_PATHS.checksum));
      registryFailpoint('checkpoint.registry.after_checksum_replace');
      fsyncDir(this.#dir, REGISTRY_PATHS.dir);
      registryFailpoint('checkpoint.registry.after_dir_fsync');
      fsx.unlinkSync(this.#abs(REGISTRY_PATHS.intent));
      fsyncDir(this.#dir, REGISTRY_PATHS.dir);
      registryFailpoint('checkpoint.registry.after_intent_remove');
    } catch (e) {
      if (!intentInstalled) {
        for (const n of [names.registryTemp, names.checksumTemp, intentTemp]) {
          try {
            unlinkIfPresent(this.#abs(n));
          } catch {
            // strays are swept by the next writer
          }
        }
        throw ioFailure(e, 'registry write', REGISTRY_PATHS.registry, false).withCommitted(false);
      }
      // Settle through the recovery table under the same locks, then say what is visible.
      let committed: boolean;
      try {
        committed = this.#settle().sha256 === nextSha;
      } catch (_) {
        committed = false;
      }
      const err = ioFailure(e, 'registry replace', REGISTRY_PATHS.registry);
      throw err.withCommitted(committed);
    }
  }
}

function toState(d: RecoveryDecision): RegistryState {
  return { doc: d.doc, sha256: d.sha256, revision: d.doc?.revision ?? 0 };
}

function unlinkIfPresent(abs: string): void {
  try {
    fsx.unlinkSync(abs);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT') throw ioFailure(e, 'unlink', path.basename(abs));
  }
}

function fsyncDir(abs: string, rel: string): void {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    if (errnoOf(e) === 'ELOOP' || errnoOf(e) === 'ENOTDIR') throw registryCorrupt('checkpoints', 'not_directory');
    throw ioFailure(e, 'open directory', rel);
  }
  try {
    fsx.fsyncSync(fd);
  } catch (e) {
    throw ioFailure(e, 'fsync directory', rel);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates a new private file (never through a link, never over an entry), writes it and flushes it. */
function writeNew(abs: string, bytes: Uint8Array): void {
  let fd: number;
  try {
    fd = fsx.openSync(abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (e) {
    if (errnoOf(e) === 'EEXIST' || errnoOf(e) === 'ELOOP') throw registryCorrupt(tempKind(abs), 'unexpected_entry');
    throw ioFailure(e, 'create', path.basename(abs));
  }
  let ok = false;
  try {
    let off = 0;
    while (off < bytes.length) off += fsx.writeSync(fd, bytes, off, bytes.length - off);
    fsx.fsyncSync(fd);
    ok = true;
  } catch (e) {
    throw ioFailure(e, 'write', path.basename(abs));
  } finally {
    fs.closeSync(fd);
    if (!ok) {
      try {
        fsx.unlinkSync(abs); // a failed write removes its own temp
      } catch {
        // Recovery sweeps stray temporaries.
      }
    }
  }
}

function tempKind(abs: string): RegistryFile {
  return abs.endsWith('.sha256.next') ? 'checksum_temp' : abs.endsWith('.json.next') ? 'registry_temp' : 'registry.txn.json';
}
