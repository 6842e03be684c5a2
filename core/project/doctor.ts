// The project doctor: finds anomalies in a container and names the safe remedy of each.
import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid } from '../canonical/index';
import { GfError, isGfError } from '../errors';
import { atomicReplace, listDir } from './durable-fs';
import { encodeCurrent, manifestDigest } from './formats';
import { listJournals, readJournal } from './journal';
import { CURRENT_TMP_PREFIX, LAYOUT, isObjectName, leasePlace, manifestPlace, objectPlace, place } from './layout';
import type { ManifestParticipant } from './formats';
import { ProjectCaches } from './project-caches';
import { loadManifest, publishedEvidence, readCurrent, readManifestBytes, readObjectVerified } from './lease';
import { recoverLocked } from './recovery';
import { tryExclusive } from './sqlite-lock';
import { issueWriterProof, type WriterLockProof } from './writer-proof';
import type { LeftoverKind } from '../contract/maintenance';
import { lineageFindings } from './lineage';
import { RETENTION_POLICY_TMP, readRetentionPolicy } from './retention-policy';
import { DEFAULT_RETAIN_ANCESTORS, cleanupLocked, planCleanup } from './retention';
import type { CleanupPlan, DoomedReason, RetentionPins } from './retention';

/** One anomaly: where (a machine-owned relative path), what, and the safe remedy. */
export interface Anomaly {
  readonly path: string;
  readonly problem: string;
  readonly remedy: string;
  /** True when `gf doctor --repair` applies the remedy (every leftover, and a missing CURRENT). */
  readonly repairable: boolean;
  /** The leftover's kind when the anomaly is one a killed or refused write left (safe to remove); null otherwise. */
  readonly leftover: LeftoverKind | null;
}

/** What doctor needs to decide what cleanup keeps: the checkpoint registry's pins and the retention window. */
export interface DoctorOptions {
  readonly pins?: RetentionPins;
  /** Defaults to the workspace's policy (`history/retention.json`), else the default window. */
  readonly retainAncestors?: number;
}

const RECOVERY = 'recovery removes it (`gf doctor --repair`, or the next write)';
const CLEANUP = 'cleanup removes it (`gf doctor --repair`, or the next publication)';

/** An anomaly that is not a leftover (damage, permissions, unknown entries): never removed by repair. */
function finding(path: string, problem: string, remedy: string): Anomaly {
  return { path, problem, remedy, repairable: false, leftover: null };
}

/** A leftover of a killed or refused write: `--repair` removes it (or labels it, for a journal). */
function leftover(kind: LeftoverKind, path: string, problem: string, remedy: string): Anomaly {
  return { path, problem, remedy, repairable: true, leftover: kind };
}

/** Files gf opens for writing in place (SQLite lock files and databases); every other file is written once, by rename. */
const WRITTEN_IN_PLACE = /(\.lock|\.sqlite(-wal|-shm|-journal)?)$/;

function accessible(abs: string, mode: number): boolean {
  try {
    fs.accessSync(abs, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Permission problems of the machine-owned tree under `root` (no link followed).
 *
 * A directory gf cannot list or enter, or a file it cannot read, breaks reads;
 * a directory it cannot write (entries are created, renamed and removed
 * there) or a lock file or ledger it cannot open for writing breaks writes
 * while reads still work. Checked with `access(2)` only, never by opening:
 * closing any descriptor of a lock file would drop this process's POSIX locks
 * on it. The walk does not enter a directory it cannot list.
 */
export function permissionAnomalies(root: string): Anomaly[] {
  const out: Anomaly[] = [];
  const unreadable = (rel: string, dir: boolean): Anomaly => ({
    path: rel,
    problem: dir ? 'permission: gf cannot list or enter this directory, so reads fail' : 'permission: gf cannot read this file, so reads fail',
    remedy: `as the owner, restore read permission for the user running gf (\`chmod u+r${dir ? 'x' : ''} ${rel}\`)`,
    repairable: false,
    leftover: null,
  });
  const unwritable = (rel: string): Anomaly => ({
    path: rel,
    problem: 'permission: gf cannot write here, so publish, checkpoint, revert and recovery fail (reads still work)',
    remedy: `if this workspace is meant to be writable, as the owner restore write permission (\`chmod u+w ${rel}\`); a read-only copy needs none`,
    repairable: false,
    leftover: null,
  });
  const visit = (abs: string, rel: string): void => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      return; // gone meanwhile, or under a directory already reported
    }
    if (st.isDirectory()) {
      const listable = accessible(abs, fs.constants.R_OK | fs.constants.X_OK);
      if (!listable) out.push(unreadable(rel, true));
      if (!accessible(abs, fs.constants.W_OK | fs.constants.X_OK)) out.push(unwritable(rel));
      if (!listable) return;
      let names: string[];
      try {
        names = fs.readdirSync(abs).sort();
      } catch {
        return;
      }
      for (const name of names) visit(path.join(abs, name), rel === '.' ? name : `${rel}/${name}`);
      return;
    }
    if (!st.isFile()) return; // links and special files are reported by the layout checks
    if (!accessible(abs, fs.constants.R_OK)) out.push(unreadable(rel, false));
    if (WRITTEN_IN_PLACE.test(rel) && !accessible(abs, fs.constants.W_OK)) out.push(unwritable(rel));
  };
  visit(root, '.');
  return out;
}

/**
 * Objects no generation's manifest names (an interrupted or refused
 * publication's staged objects, or files copied in by hand): they cost space
 * only. Cleanup's full sweep removes them, and so does `--repair` (under the
 * writer lock, so no publication is staging one), unless cleanup would delete
 * no object now (`objectsRemovable` false: then they are reported, kept). An
 * object named by any manifest present, retained or not, is not an orphan.
 */
function orphanedObjects(root: string, objectsRemovable: boolean, doomed: ReadonlySet<string>, caches: ProjectCaches): Anomaly[] {
  const named = new Set<string>();
  const namedByLeftovers = new Set<string>();
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
    const into = doomed.has(ent.name) ? namedByLeftovers : named;
    try {
      for (const p of loadManifest(root, ent.name, readManifestBytes(root, ent.name), caches.manifests).participants) into.add(p.contentSha256);
    } catch {
      // A generation without a valid manifest names nothing cleanup keeps (it is reported itself).
    }
  }
  const out: Anomaly[] = [];
  const objs = place(root, LAYOUT.objectsSha256);
  const unexpected = (rel: string): Anomaly => finding(rel, 'unexpected entry', 'inspect and remove by hand (never touched by gf)');
  for (const fan of listDir(objs.abs, objs.rel)) {
    const fanRel = `${objs.rel}/${fan.name}`;
    if (!fan.isDirectory() || !/^[0-9a-f]{2}$/.test(fan.name)) {
      out.push(unexpected(fanRel));
      continue;
    }
    for (const o of listDir(place(root, fanRel).abs, fanRel)) {
      const rel = `${fanRel}/${o.name}`;
      if (isObjectName(fan.name, o.name) && !o.isFile()) {
        // An object's own name, but not a file: reads of it fail (they never wait on a FIFO).
        out.push(finding(rel, `an object that is ${kindWords(o)}, not a regular file`, 'with no gf process running, remove it and restore the object from a backup'));
      } else if (!o.isFile() || !isObjectName(fan.name, o.name)) {
        out.push(unexpected(rel));
      } else if (!named.has(fan.name + o.name)) {
        const problem = namedByLeftovers.has(fan.name + o.name) ? 'orphaned object: only a leftover generation names it (it goes with that generation)' : 'orphaned object: no generation names it';
        out.push(
          objectsRemovable
            ? leftover('orphaned_object', rel, problem, CLEANUP)
            : finding(rel, problem, 'cleanup deletes no object until every kept generation reads (see the other findings); then `gf doctor --repair` removes it'),
        );
      }
    }
  }
  return out;
}

/** What a directory entry or file is, in words ("a FIFO (named pipe)"). */
function kindWords(st: { isFIFO(): boolean; isSocket(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'a device';
}

/**
 * Machine-owned files that exist but are not regular files (a FIFO, a link,
 * a directory…): every command that opens one fails (none waits on it).
 * FORMAT, CURRENT, the lock files, the lineage log, the retention policy,
 * the registry, and each generation's manifest and lease lock.
 */
function fileTypeAnomalies(root: string): Anomaly[] {
  const rels: string[] = [LAYOUT.format, LAYOUT.current, LAYOUT.writerLock, LAYOUT.checkpointsLock, LAYOUT.lineage, LAYOUT.retentionPolicy, 'checkpoints/registry.json'];
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
    rels.push(manifestPlace(root, ent.name).rel, leasePlace(root, ent.name).rel);
  }
  const out: Anomaly[] = [];
  for (const rel of rels) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(place(root, rel).abs, { throwIfNoEntry: false });
    } catch {
      continue; // under a directory gf cannot enter: the permission report says so
    }
    if (st === undefined || st.isFile()) continue;
    out.push(finding(rel, `${kindWords(st)} where gf keeps a regular file: the commands that read or write it fail`, 'with no gf process running, remove it and restore the file from a backup'));
  }
  return out;
}

/**
 * The objects of every generation on disk (CURRENT, the retained ancestors and
 * every checkpoint's pinned generation), read and hashed in full: a missing
 * object or one flipped byte is what create, publish and revert would trip on.
 * Each object is reported once (generations share objects).
 */
function objectIntegrityAnomalies(root: string, caches: ProjectCaches): Anomaly[] {
  const out: Anomaly[] = [];
  const seen = new Set<string>();
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
    let participants: readonly ManifestParticipant[];
    try {
      participants = loadManifest(root, ent.name, readManifestBytes(root, ent.name), caches.manifests).participants;
    } catch {
      continue; // reported by the manifest check
    }
    for (const p of participants) {
      if (seen.has(p.contentSha256)) continue;
      seen.add(p.contentSha256);
      try {
        readObjectVerified(root, p, caches.verifiedObjects);
      } catch (e) {
        out.push(
          finding(
            objectPlace(root, p.contentSha256).rel,
            `${isGfError(e) ? e.message.replace(/^GF_[A-Z_]+: /, '').replace(/: [^:]*$/, '') : 'the object cannot be read'} (generation ${ent.name}, participant ${p.relativePath})`,
            'restore this object from a backup (its name is its SHA-256); until then create, publish and revert refuse this generation',
          ),
        );
      }
    }
  }
  return out;
}

/** Planned with `onlyUnpublished`, so never `retired` (published history is retention's, at the next publication). */
const DOOMED_WORDS: Record<Exclude<DoomedReason, 'retired'>, { readonly kind: LeftoverKind; readonly problem: string }> = {
  incomplete: { kind: 'incomplete_generation', problem: 'generation without a valid manifest: the private directory of a publication that was killed or refused' },
  unpublished: { kind: 'unpublished_generation', problem: 'generation that never became CURRENT: its publication was killed or refused before the CURRENT rename' },
};

function retention(root: string, opts: DoctorOptions): { readonly pins?: RetentionPins; readonly retainAncestors: number } {
  return { ...(opts.pins !== undefined ? { pins: opts.pins } : {}), retainAncestors: opts.retainAncestors ?? readRetentionPolicy(root)?.retainAncestors ?? DEFAULT_RETAIN_ANCESTORS };
}

/**
 * What the next write's cleanup would remove, decided under the writer lock
 * (tried without waiting, released at once); undefined when a writer holds it
 * (its staging is no leftover), the lock file is unusable (reported
 * elsewhere) or the decision itself fails (a damaged manifest of CURRENT:
 * reported elsewhere).
 */
function cleanupPlan(root: string, opts: DoctorOptions, caches: ProjectCaches): CleanupPlan | undefined {
  const lock = place(root, LAYOUT.writerLock);
  if (!accessible(lock.abs, fs.constants.R_OK | fs.constants.W_OK)) return undefined;
  let a: ReturnType<typeof tryExclusive>;
  try {
    a = tryExclusive(lock.abs, lock.rel);
  } catch {
    return undefined;
  }
  if (a.kind !== 'held') return undefined;
  try {
    return planCleanup(root, { ...retention(root, opts), onlyUnpublished: true, manifests: caches.manifests });
  } catch {
    return undefined;
  } finally {
    a.lock.release();
  }
}

/** The lineage log's leftovers (a torn final line, CURRENT's missing line) or its damage. */
function lineageAnomalies(root: string, current: ReturnType<typeof readCurrent>): Anomaly[] {
  try {
    const f = lineageFindings(root, current);
    const out: Anomaly[] = [];
    if (f.tornBytes > 0) out.push(leftover('lineage_tail', LAYOUT.lineage, `lineage log ends with ${f.tornBytes} bytes of a torn line (a publication was killed while appending)`, RECOVERY));
    else if (f.lacksCurrent) out.push(leftover('lineage_tail', LAYOUT.lineage, "lineage log lacks CURRENT's record (a publication was killed before its line landed)", 'recovery rebuilds it from the journal (`gf doctor --repair`, or the next write)'));
    return out;
  } catch (e) {
    return [finding(LAYOUT.lineage, isGfError(e) ? e.message.replace(/^GF_[A-Z_]+: /, '') : 'the lineage log cannot be read', 'restore history/lineage.jsonl from a backup (publications refuse until then)')];
  }
}

/**
 * A read-only check of a project's machine-owned files (changes nothing).
 *
 * Reports permission problems, damage the other commands would trip on, and
 * every leftover the next write would clean (temps, interrupted and finished
 * journals, generations cleanup removes, orphaned objects, trash, the lineage
 * log's torn tail), each with its path and a safe remedy.
 */
export function diagnoseProject(root: string, opts: DoctorOptions = {}): Anomaly[] {
  // The diagnosis's own caches: every object is hashed now, even one an open project verified before.
  const caches = new ProjectCaches();
  const out: Anomaly[] = permissionAnomalies(root);
  // With a directory gf cannot list, the layout checks below cannot run: the permission report is the finding.
  if (out.some((a) => a.problem.includes('cannot list'))) return out;
  let current: ReturnType<typeof readCurrent> = null;
  let currentRead = true;
  try {
    current = readCurrent(root);
  } catch (e) {
    currentRead = false;
    const missing = isGfError(e) && e.details['evidence'] !== undefined;
    const problem = isGfError(e) ? e.message : 'CURRENT cannot be read';
    out.push(
      missing
        ? { path: LAYOUT.current, problem, remedy: 'rebuild CURRENT from the newest verified generation (`gf doctor --repair`)', repairable: true, leftover: null }
        : finding(LAYOUT.current, problem, 'restore CURRENT from a backup; never edit it by hand'),
    );
  }
  const js = listJournals(root);
  for (const t of js.temps) out.push(leftover('temp_file', `${LAYOUT.transactions}/${t}`, 'leftover journal temp file', RECOVERY));
  for (const u of js.unknown) out.push(finding(u, 'unexpected entry', 'inspect and remove by hand (never touched by gf)'));
  for (const txn of js.transactions) {
    const j = readJournal(root, txn);
    const rel = `${LAYOUT.transactions}/${txn}.json`;
    if (j === undefined) out.push(finding(rel, 'unreadable journal (advisory)', 'none needed: CURRENT alone decides'));
    else if (j.state !== 'PUBLISHED' && j.state !== 'ABORTED') out.push(leftover('interrupted_journal', rel, `interrupted transaction (${j.state})`, 'recovery labels it (`gf doctor --repair`, or the next write)'));
  }
  for (const ent of listDir(root, '.')) {
    if (ent.name.startsWith(CURRENT_TMP_PREFIX)) out.push(leftover('temp_file', ent.name, 'leftover CURRENT temp file', RECOVERY));
  }
  const policyTmp = `${LAYOUT.history}/${RETENTION_POLICY_TMP}`;
  if (fs.lstatSync(place(root, policyTmp).abs, { throwIfNoEntry: false })?.isFile() === true) out.push(leftover('temp_file', policyTmp, 'leftover retention policy temp file', RECOVERY));
  const plan = currentRead && current !== null ? cleanupPlan(root, opts, caches) : undefined;
  const doomed = new Set<string>();
  for (const g of plan?.generations ?? []) {
    if (g.reason === 'retired') continue;
    const rel = `${LAYOUT.generations}/${g.uuid}`;
    doomed.add(g.uuid);
    out.push(leftover(DOOMED_WORDS[g.reason].kind, rel, DOOMED_WORDS[g.reason].problem, CLEANUP));
  }
  for (const txn of plan?.journals ?? []) out.push(leftover('finished_journal', `${LAYOUT.transactions}/${txn}.json`, 'journal of a finished transaction whose generation is gone (a refused publication, or an interrupted cleanup)', CLEANUP));
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    const rel = `${gens.rel}/${ent.name}`;
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) {
      out.push(finding(rel, 'unexpected entry', 'inspect and remove by hand (never touched by gf)'));
      continue;
    }
    if (doomed.has(ent.name)) continue;
    if (plan?.unknown.includes(rel) === true) {
      out.push(finding(rel, 'generation directory holding a link or special file: cleanup never enters it, and deletes no object while it is there', 'inspect and remove by hand'));
      continue;
    }
    try {
      loadManifest(root, ent.name, readManifestBytes(root, ent.name), caches.manifests);
    } catch {
      if (current?.generationUuid !== ent.name) {
        out.push(
          plan === undefined
            ? finding(rel, 'generation without a valid manifest', 'cleanup removes it (the next publication), unless a checkpoint names it')
            : finding(rel, 'generation without a valid manifest that cleanup keeps (a checkpoint names it)', 'restore its manifest from a backup'),
        );
      }
    }
  }
  out.push(...fileTypeAnomalies(root));
  const reported = new Set(out.map((a) => a.path));
  out.push(...objectIntegrityAnomalies(root, caches).filter((a) => !reported.has(a.path))); // an unreadable object is already a permission finding
  out.push(...orphanedObjects(root, plan !== undefined && !plan.objectsSkipped, doomed, caches));
  if (!reported.has(LAYOUT.lineage)) out.push(...lineageAnomalies(root, currentRead ? current : null));
  const trash = place(root, LAYOUT.trash);
  for (const ent of listDir(trash.abs, trash.rel)) {
    const rel = `${trash.rel}/${ent.name}`;
    out.push(
      ent.isDirectory() && isCanonicalUuid(ent.name)
        ? leftover('trash', rel, 'trash left by an interrupted cleanup', 'recovery empties it (`gf doctor --repair`, or the next write)')
        : finding(rel, 'unexpected entry', 'inspect and remove by hand (never touched by gf)'),
    );
  }
  const lock = place(root, LAYOUT.writerLock);
  // A lock file gf cannot write is already a permission finding; SQLite cannot lock it either way.
  if (!accessible(lock.abs, fs.constants.R_OK | fs.constants.W_OK)) return out;
  try {
    const a = tryExclusive(lock.abs, lock.rel);
    if (a.kind === 'held') a.lock.release();
  } catch {
    out.push(finding(lock.rel, 'the writer lock file is not a lock file', 'with no gf process running, replace it with a fresh lock file (copy locks/checkpoints.lock)'));
  }
  return out;
}

/**
 * `gf doctor --repair`: the recovery protocol and the cleanup the next write would run, under the writer lock.
 *
 * When CURRENT is missing from a populated project, rebuilds it from the
 * newest verified generation: the one generation, named by a PUBLISHED
 * journal and whose every participant verifies, that is no other such
 * generation's parent (anything ambiguous is refused, `GF_PROJECT_CORRUPT`,
 * never guessed). Then recovery (temps, journals, trash, the lineage log's
 * tail) and a full cleanup pass, by cleanup's own code, restricted to what
 * killed and refused publications left (`onlyUnpublished`: generations only
 * unfinished or aborted journals name, the objects no kept manifest names,
 * finished journals whose generation is gone). Published history outside
 * the window is retention's, at the next publication; a reader's leased
 * generation, an unknown entry, every object while a kept manifest is
 * unreadable, and everything while the registry is corrupt are kept. `alsoLocked` runs
 * last under the same lock, with a proof of it (the caller's registry recovery and derived-cache sweep).
 */
export function repairProject(root: string, opts: DoctorOptions & { readonly alsoLocked?: (writer: WriterLockProof) => void } = {}): { readonly rebuiltCurrent: string | null } {
  const caches = new ProjectCaches(); // a repair verifies afresh: nothing it reads is taken from an open project's memos
  const lock = place(root, LAYOUT.writerLock);
  const a = tryExclusive(lock.abs, lock.rel);
  if (a.kind !== 'held') throw new GfError('GF_WRITER_BUSY', 'another writer holds the project', {}, false);
  try {
    let rebuilt: string | null = null;
    let missing = false;
    try {
      readCurrent(root);
    } catch (e) {
      missing = isGfError(e) && e.details['evidence'] !== undefined && publishedEvidence(root) !== undefined;
      if (!missing) throw e;
    }
    if (missing) rebuilt = rebuildCurrent(root, caches);
    recoverLocked(root);
    cleanupLocked(root, { ...retention(root, opts), scope: 'full', onlyUnpublished: true, manifests: caches.manifests });
    if (opts.alsoLocked !== undefined) {
      const { proof, revoke } = issueWriterProof(root);
      try {
        opts.alsoLocked(proof);
      } finally {
        revoke();
      }
    }
    return { rebuiltCurrent: rebuilt };
  } finally {
    a.lock.release();
  }
}

function rebuildCurrent(root: string, caches: ProjectCaches): string {
  const published = new Set<string>();
  const js = listJournals(root);
  for (const txn of js.transactions) {
    const j = readJournal(root, txn);
    if (j?.state === 'PUBLISHED') published.add(j.generationUuid);
  }
  const verified = new Map<string, { parent: string | null; digest: string }>();
  for (const uuid of published) {
    try {
      const bytes = readManifestBytes(root, uuid);
      const m = loadManifest(root, uuid, bytes, caches.manifests);
      for (const p of m.participants) readObjectVerified(root, p, caches.verifiedObjects);
      verified.set(uuid, { parent: m.parentGenerationUuid, digest: manifestDigest(bytes) });
    } catch {
      // Not verifiable: never a candidate.
    }
  }
  const parents = new Set([...verified.values()].map((v) => v.parent));
  const heads = [...verified.keys()].filter((u) => !parents.has(u));
  if (heads.length !== 1) {
    throw new GfError('GF_PROJECT_CORRUPT', 'no single newest verified generation to rebuild CURRENT from', { name: LAYOUT.current, candidates: heads.length }, false);
  }
  const uuid = heads[0] as string;
  const cur = place(root, LAYOUT.current);
  atomicReplace(cur.abs, cur.rel, `${CURRENT_TMP_PREFIX}repair`, encodeCurrent({ generationUuid: uuid, manifestSha256: (verified.get(uuid) as { digest: string }).digest }));
  return uuid;
}
