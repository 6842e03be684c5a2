import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid } from '../canonical/index';
import { GfError, isGfError } from '../errors';
import { atomicReplace, listDir } from './durable-fs';
import { encodeCurrent, manifestDigest } from './formats';
import { listJournals, readJournal } from './journal';
import { CURRENT_TMP_PREFIX, LAYOUT, isObjectName, leasePlace, manifestPlace, objectPlace, place } from './layout';
import type { ManifestParticipant } from './formats';
import { forgetVerifiedObjects } from './verified-objects';
import { loadManifest, publishedEvidence, readCurrent, readManifestBytes, readObjectVerified } from './lease';
import { recoverLocked } from './recovery';
import { tryExclusive } from './sqlite-lock';

/** One anomaly: where (a machine-owned relative path), what, and the safe remedy. */
export interface Anomaly {
  readonly path: string;
  readonly problem: string;
  readonly remedy: string;
  /** True when `gf doctor --repair` applies the remedy (only the recovery protocol's remedies). */
  readonly repairable: boolean;
}

const RECOVERY = 'recovery removes it (`gf doctor --repair`, or the next write)';

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
  });
  const unwritable = (rel: string): Anomaly => ({
    path: rel,
    problem: 'permission: gf cannot write here, so publish, checkpoint, revert and recovery fail (reads still work)',
    remedy: `if this workspace is meant to be writable, as the owner restore write permission (\`chmod u+w ${rel}\`); a read-only copy needs none`,
    repairable: false,
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
 * Objects no generation's manifest names (an interrupted publication's staged
 * objects, or files copied in by hand): they cost space only. Cleanup's full
 * sweep removes them; `--repair` does not (retention, not recovery, owns
 * deletions of content). An object named by any manifest present, retained or
 * not, is not an orphan.
 */
function orphanedObjects(root: string): Anomaly[] {
  const named = new Set<string>();
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
    try {
      for (const p of loadManifest(root, ent.name, readManifestBytes(root, ent.name)).participants) named.add(p.contentSha256);
    } catch {
      return []; // an unreadable manifest (reported above) may name anything: no object is called an orphan
    }
  }
  const out: Anomaly[] = [];
  const objs = place(root, LAYOUT.objectsSha256);
  for (const fan of listDir(objs.abs, objs.rel)) {
    const fanRel = `${objs.rel}/${fan.name}`;
    if (!fan.isDirectory() || !/^[0-9a-f]{2}$/.test(fan.name)) {
      out.push({ path: fanRel, problem: 'unexpected entry', remedy: 'inspect and remove by hand (never touched by gf)', repairable: false });
      continue;
    }
    for (const o of listDir(place(root, fanRel).abs, fanRel)) {
      const rel = `${fanRel}/${o.name}`;
      if (isObjectName(fan.name, o.name) && !o.isFile()) {
        // An object's own name, but not a file: reads of it fail (they never wait on a FIFO).
        out.push({ path: rel, problem: `an object that is ${kindWords(o)}, not a regular file`, remedy: 'with no gf process running, remove it and restore the object from a backup', repairable: false });
      } else if (!o.isFile() || !isObjectName(fan.name, o.name)) {
        out.push({ path: rel, problem: 'unexpected entry', remedy: 'inspect and remove by hand (never touched by gf)', repairable: false });
      } else if (!named.has(fan.name + o.name)) {
        out.push({
          path: rel,
          problem: 'orphaned object: no generation names it',
          remedy: "cleanup's full sweep removes it; by hand it is safe to delete only while no gf process runs (a publication in progress may be staging it)",
          repairable: false,
        });
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
    out.push({ path: rel, problem: `${kindWords(st)} where gf keeps a regular file: the commands that read or write it fail`, remedy: 'with no gf process running, remove it and restore the file from a backup', repairable: false });
  }
  return out;
}

/**
 * The objects of every generation on disk (CURRENT, the retained ancestors and
 * every checkpoint's pinned generation), read and hashed in full: a missing
 * object or one flipped byte is what create, publish and revert would trip on.
 * Each object is reported once (generations share objects).
 */
function objectIntegrityAnomalies(root: string): Anomaly[] {
  forgetVerifiedObjects(); // re-hash every byte now, even objects this process verified before
  const out: Anomaly[] = [];
  const seen = new Set<string>();
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) continue;
    let participants: readonly ManifestParticipant[];
    try {
      participants = loadManifest(root, ent.name, readManifestBytes(root, ent.name)).participants;
    } catch {
      continue; // reported by the manifest check
    }
    for (const p of participants) {
      if (seen.has(p.contentSha256)) continue;
      seen.add(p.contentSha256);
      try {
        readObjectVerified(root, p);
      } catch (e) {
        out.push({
          path: objectPlace(root, p.contentSha256).rel,
          problem: `${isGfError(e) ? e.message.replace(/^GF_[A-Z_]+: /, '').replace(/: [^:]*$/, '') : 'the object cannot be read'} (generation ${ent.name}, participant ${p.relativePath})`,
          remedy: 'restore this object from a backup (its name is its SHA-256); until then create, publish and revert refuse this generation',
          repairable: false,
        });
      }
    }
  }
  return out;
}

/**
 * A read-only check of a project's machine-owned files (changes nothing).
 *
 * Reports permission problems, leftover temp files, interrupted journals,
 * unknown entries, a missing or unreadable CURRENT, generations without a
 * manifest, orphaned objects and trash left by an interrupted cleanup, each
 * with its path and a safe remedy.
 */
export function diagnoseProject(root: string): Anomaly[] {
  const out: Anomaly[] = permissionAnomalies(root);
  // With a directory gf cannot list, the layout checks below cannot run: the permission report is the finding.
  if (out.some((a) => a.problem.includes('cannot list'))) return out;
  let current: ReturnType<typeof readCurrent> = null;
  try {
    current = readCurrent(root);
  } catch (e) {
    const missing = isGfError(e) && e.details['evidence'] !== undefined;
    out.push({
      path: LAYOUT.current,
      problem: isGfError(e) ? e.message : 'CURRENT cannot be read',
      remedy: missing ? 'rebuild CURRENT from the newest verified generation (`gf doctor --repair`)' : 'restore CURRENT from a backup; never edit it by hand',
      repairable: missing,
    });
  }
  const js = listJournals(root);
  for (const t of js.temps) out.push({ path: `${LAYOUT.transactions}/${t}`, problem: 'leftover journal temp file', remedy: RECOVERY, repairable: true });
  for (const u of js.unknown) out.push({ path: u, problem: 'unexpected entry', remedy: 'inspect and remove by hand (never touched by gf)', repairable: false });
  for (const txn of js.transactions) {
    const j = readJournal(root, txn);
    const rel = `${LAYOUT.transactions}/${txn}.json`;
    if (j === undefined) out.push({ path: rel, problem: 'unreadable journal (advisory)', remedy: 'none needed: CURRENT alone decides', repairable: false });
    else if (j.state !== 'PUBLISHED' && j.state !== 'ABORTED') out.push({ path: rel, problem: `interrupted transaction (${j.state})`, remedy: 'recovery labels it (`gf doctor --repair`)', repairable: true });
  }
  for (const ent of listDir(root, '.')) {
    if (ent.name.startsWith(CURRENT_TMP_PREFIX)) out.push({ path: ent.name, problem: 'leftover CURRENT temp file', remedy: RECOVERY, repairable: true });
  }
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) {
      out.push({ path: `${gens.rel}/${ent.name}`, problem: 'unexpected entry', remedy: 'inspect and remove by hand (never touched by gf)', repairable: false });
      continue;
    }
    try {
      loadManifest(root, ent.name, readManifestBytes(root, ent.name));
    } catch {
      if (current?.generationUuid !== ent.name) out.push({ path: `${gens.rel}/${ent.name}`, problem: 'generation without a valid manifest', remedy: 'cleanup removes it (the next publication)', repairable: false });
    }
  }
  out.push(...fileTypeAnomalies(root));
  const reported = new Set(out.map((a) => a.path));
  out.push(...objectIntegrityAnomalies(root).filter((a) => !reported.has(a.path))); // an unreadable object is already a permission finding
  out.push(...orphanedObjects(root));
  const trash = place(root, LAYOUT.trash);
  for (const ent of listDir(trash.abs, trash.rel)) out.push({ path: `${trash.rel}/${ent.name}`, problem: 'trash left by an interrupted cleanup', remedy: 'recovery empties it (`gf doctor --repair`)', repairable: true });
  const lock = place(root, LAYOUT.writerLock);
  // A lock file gf cannot write is already a permission finding; SQLite cannot lock it either way.
  if (!accessible(lock.abs, fs.constants.R_OK | fs.constants.W_OK)) return out;
  try {
    const a = tryExclusive(lock.abs, lock.rel);
    if (a.kind === 'held') a.lock.release();
  } catch {
    out.push({ path: lock.rel, problem: 'the writer lock file is not a lock file', remedy: 'with no gf process running, replace it with a fresh lock file (copy locks/checkpoints.lock)', repairable: false });
  }
  return out;
}

/**
 * `gf doctor --repair`: only the recovery protocol's remedies, under the writer lock.
 *
 * Runs recovery (temps, journals, trash) and, when CURRENT is missing from a
 * populated project, rebuilds it from the newest verified generation: the one
 * generation, named by a PUBLISHED journal and whose every participant
 * verifies, that is no other such generation's parent. Anything ambiguous is
 * refused (`GF_PROJECT_CORRUPT`), never guessed.
 */
export function repairProject(root: string): { readonly rebuiltCurrent: string | null } {
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
    if (missing) rebuilt = rebuildCurrent(root);
    recoverLocked(root);
    return { rebuiltCurrent: rebuilt };
  } finally {
    a.lock.release();
  }
}

function rebuildCurrent(root: string): string {
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
      const m = loadManifest(root, uuid, bytes);
      for (const p of m.participants) readObjectVerified(root, p);
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
