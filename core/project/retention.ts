// Cleanup: which generations are kept (CURRENT, ancestors, checkpoints, leases) and
// the removal of the rest.
import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid } from '../canonical/index';
import { GfError, hasCode } from '../errors';
import { DEFAULT_RETAIN_ANCESTORS as CONTRACT_DEFAULT_RETAIN_ANCESTORS, RETAIN_ANCESTORS_MAX } from '../contract/history';
import { checkDir, fsyncDir, ioError, isErrno, listDir, removeTree, renameEntry } from './durable-fs';
import { fsx } from './fs-layer';
import { failpoint } from './failpoints';
import { flushDirs, runAsync, runSync } from './flush';
import type { Steps, Unlink } from './flush';
import type { Journal, Manifest, ManifestMemo } from './formats';
import { listJournals, readJournal } from './journal';
import { LAYOUT, generationDir, isObjectName, journalPlace, leasePlace, objectPlace, place } from './layout';
import type { Place } from './layout';
import { loadManifest, readCurrent, readManifestBytes } from './lease';
import { tryExclusive } from './sqlite-lock';
import type { HeldLock } from './sqlite-lock';

/** Default number of verified ancestors of CURRENT kept by cleanup. */
export const DEFAULT_RETAIN_ANCESTORS = CONTRACT_DEFAULT_RETAIN_ANCESTORS;
/** Upper bound for the ancestor window (retention is finite by design). */
export const MAX_RETAIN_ANCESTORS = RETAIN_ANCESTORS_MAX;

/**
 * Extra retention roots (the checkpoint registry plugs in here).
 *
 * Called under the writer lock before any generation is classified. Throwing
 * `GF_CHECKPOINT_REGISTRY_CORRUPT` makes cleanup delete nothing.
 */
export interface RetentionPins {
  /** UUIDs of generations named by active, valid checkpoints. */
  pinnedGenerations(): ReadonlySet<string>;
}

/** What cleanup kept, removed and reported (UUIDs, counts and relative names only). */
export interface CleanupReport {
  /** True when the pins were corrupt and nothing was deleted. */
  readonly skipped: boolean;
  readonly skippedReason: 'GF_CHECKPOINT_REGISTRY_CORRUPT' | null;
  /** Generations kept because they are CURRENT, in the ancestor window, or pinned. */
  readonly retained: readonly string[];
  /** Generations kept because a reader holds their lease. */
  readonly leased: readonly string[];
  /** Generations moved to trash and deleted. */
  readonly removedGenerations: readonly string[];
  /** Objects deleted (no kept manifest refers to them). */
  readonly removedObjects: number;
  /** Finished journals (PUBLISHED or ABORTED) whose generation no longer exists, deleted. */
  readonly removedJournals: number;
  /** True when some kept generation's manifest could not be read: no object was deleted. */
  readonly objectsSkipped: boolean;
  /** Unknown directories, files and symlinks: reported, never traversed or deleted. */
  readonly unknown: readonly string[];
}

/** Which objects one cleanup pass examines. */
export const CLEANUP_SCOPES = ['full', 'incremental'] as const;
/** `full`: every fan-out directory; `incremental`: the objects of the generations being removed. */
export type CleanupScope = (typeof CLEANUP_SCOPES)[number];

/** Options of one cleanup pass. */
export interface CleanupOptions {
  readonly retainAncestors?: number;
  readonly pins?: RetentionPins;
  /**
   * Which objects are examined (default `full`).
   *
   * `full` lists every fan-out directory and removes every object no kept
   * manifest names (orphans of aborted publications included). The
   * post-publication pass is `incremental`: its candidates are only the
   * objects named by the manifests of the generations it removes, so it
   * costs O(removed participants), not O(objects). It escalates to a full
   * sweep whenever an orphan may exist: a journal that is unreadable, not
   * PUBLISHED (aborted or interrupted), or a removed generation without a
   * readable manifest.
   */
  readonly scope?: CleanupScope;
  /**
   * Removes only what killed and refused publications left (`gf doctor --repair`): a generation is
   * a candidate only when a journal that is not PUBLISHED names it and none that is PUBLISHED does;
   * every other generation is kept, whatever the window (published history is retention's to remove,
   * at the next publication).
   */
  readonly onlyUnpublished?: boolean;
  /** The project's parsed manifests (`ProjectCaches.manifests`); without it each pass parses what it reads. */
  readonly manifests?: ManifestMemo;
}

function emptyReport(reason: CleanupReport['skippedReason'], unknown: string[]): CleanupReport {
  return {
    skipped: reason !== null,
    skippedReason: reason,
    retained: [],
    leased: [],
    removedGenerations: [],
    removedObjects: 0,
    removedJournals: 0,
    objectsSkipped: reason !== null,
    unknown,
  };
}

/** Deletes generation directories left in `trash/` by an interrupted cleanup. */
export function emptyTrash(root: string): { emptied: number; unknown: string[] } {
  const trash = place(root, LAYOUT.trash);
  const unknown: string[] = [];
  let emptied = 0;
  for (const ent of listDir(trash.abs, trash.rel)) {
    const rel = `${trash.rel}/${ent.name}`;
    if (ent.isDirectory() && isCanonicalUuid(ent.name)) {
      removeTree(place(root, rel).abs, rel);
      emptied++;
    } else unknown.push(rel);
  }
  if (emptied > 0) fsyncDir(trash.abs, trash.rel);
  return { emptied, unknown };
}

/** Walks CURRENT's parents; stops at the window, a missing or an unverifiable ancestor. */
function ancestors(start: Manifest, n: number, manifestOf: (uuid: string) => Manifest): string[] {
  const out: string[] = [];
  let m = start;
  while (out.length < n && m.parentGenerationUuid !== null) {
    const uuid = m.parentGenerationUuid;
    try {
      m = manifestOf(uuid);
    } catch {
      break;
    }
    out.push(uuid);
  }
  return out;
}

/**
 * CURRENT's ancestors the window keeps (nearest first): walks verified parents, stops at `n` or at a missing one.
 *
 * The same walk cleanup uses to decide reachability.
 */
export function ancestorWindow(root: string, generationUuid: string, n: number, memo: ManifestMemo | undefined): string[] {
  const manifestOf = (uuid: string): Manifest => loadManifest(root, uuid, readManifestBytes(root, uuid), memo);
  return ancestors(manifestOf(generationUuid), n, manifestOf);
}

/**
 * Generations a publication on top of CURRENT would push out of the ancestor window, minus `pinned`.
 *
 * Before: CURRENT + its `n` ancestors; after: the new generation + CURRENT and
 * its `n - 1` ancestors. What leaves is unnamed history the next cleanup
 * removes (unless a reader holds its lease then). Nearest first.
 */
export function prunableAfterPublication(root: string, currentUuid: string, n: number, pinned: ReadonlySet<string>, memo: ManifestMemo | undefined): string[] {
  const now = ancestorWindow(root, currentUuid, n, memo);
  const after = new Set([currentUuid, ...now].slice(0, n));
  return [currentUuid, ...now].filter((g) => !after.has(g) && !pinned.has(g));
}

/**
 * Conservative cleanup (GENERATIONS.md "Retention"); the caller holds the writer lock.
 *
 * Reachable = CURRENT + N verified ancestors + pinned + leased. Each other
 * generation is taken exclusively without waiting (busy → a reader holds
 * it → kept), then moved to trash, flushed, deleted, flushed. An object is
 * deleted only when no kept manifest refers to it, and not at all if some
 * kept manifest is unreadable. See `CleanupOptions.scope` for which objects
 * are examined.
 */
export function cleanupLocked(root: string, opts: CleanupOptions = {}): CleanupReport {
  return runSync(cleanupSteps(root, opts));
}

/** `cleanupLocked` with each step's independent directory flushes issued concurrently. */
export function cleanupLockedAsync(root: string, opts: CleanupOptions = {}): Promise<CleanupReport> {
  return runAsync(cleanupSteps(root, opts));
}

interface JournalEntry {
  readonly txn: string;
  readonly journal: Journal | undefined;
}

/** What one pass decides before it deletes anything (the doomed generations are locked exclusively until released). */
interface Classified {
  readonly cur: ReturnType<typeof readCurrent>;
  readonly skippedReason: CleanupReport['skippedReason'];
  readonly manifestOf: (uuid: string) => Manifest;
  readonly journals: readonly JournalEntry[];
  readonly sweepAll: boolean;
  readonly unknown: string[];
  readonly retained: string[];
  readonly leased: string[];
  readonly doomed: Map<string, HeldLock | undefined>;
  /** A generation holds a link or special file: no object is deleted. */
  readonly untrusted: boolean;
}

function retainedCount(opts: CleanupOptions): number {
  const n = opts.retainAncestors ?? DEFAULT_RETAIN_ANCESTORS;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_RETAIN_ANCESTORS) {
    throw new GfError('GF_VALIDATION', 'retained ancestor count is out of range', { limit: MAX_RETAIN_ANCESTORS }, false);
  }
  return n;
}

/**
 * Which generations a pass keeps, which a reader holds, and which it removes (locked, so no reader can take them).
 *
 * Shared by cleanup and by `planCleanup` (what `gf doctor` reports): both
 * decide from the same rules. `unknown` starts with `trashUnknown`. On a
 * throw, every lock taken is released.
 */
function classify(root: string, opts: CleanupOptions, trashUnknown: readonly string[]): Classified {
  const n = retainedCount(opts);
  const cur = readCurrent(root);
  const manifests = new Map<string, Manifest>();
  // Manifests are immutable: each is read and checked at most once per pass.
  const manifestOf = (uuid: string): Manifest => {
    let m = manifests.get(uuid);
    if (m === undefined) {
      m = loadManifest(root, uuid, readManifestBytes(root, uuid), opts.manifests);
      manifests.set(uuid, m);
    }
    return m;
  };
  const none = (reason: CleanupReport['skippedReason']): Classified => ({
    cur,
    skippedReason: reason,
    manifestOf,
    journals: [],
    sweepAll: false,
    unknown: [...trashUnknown],
    retained: [],
    leased: [],
    doomed: new Map(),
    untrusted: false,
  });
  if (cur === null) return none(null);
  let pinned: ReadonlySet<string>;
  try {
    pinned = opts.pins?.pinnedGenerations() ?? new Set<string>();
  } catch (e) {
    if (hasCode(e, 'GF_CHECKPOINT_REGISTRY_CORRUPT')) return none('GF_CHECKPOINT_REGISTRY_CORRUPT');
    throw e;
  }
  const keep = new Set<string>([cur.generationUuid, ...ancestors(manifestOf(cur.generationUuid), n, manifestOf), ...pinned]);

  // Journals: read once. Orphans may exist after an aborted or interrupted publication (a journal that is
  // unreadable or not PUBLISHED) or an interrupted cleanup (a finished journal whose generation is gone:
  // a complete pass deletes those journals only after its object deletions are durable).
  const journals: JournalEntry[] = listJournals(root).transactions.map((txn) => ({ txn, journal: readJournal(root, txn) }));
  const sweepAll =
    (opts.scope ?? 'full') === 'full' ||
    journals.some((j) => j.journal === undefined || j.journal.state !== 'PUBLISHED' || !generationExists(root, j.journal.generationUuid));

  let unpublished: Set<string> | undefined;
  if (opts.onlyUnpublished === true) {
    const named = (published: boolean): string[] => journals.flatMap((j) => (j.journal !== undefined && (j.journal.state === 'PUBLISHED') === published ? [j.journal.generationUuid] : []));
    const published = new Set(named(true));
    unpublished = new Set(named(false).filter((g) => !published.has(g)));
  }
  const unknown: string[] = [...trashUnknown];
  const gens = place(root, LAYOUT.generations);
  const leased: string[] = [];
  const retained: string[] = [];
  const doomed = new Map<string, HeldLock | undefined>();
  let untrusted = false;
  try {
    for (const ent of listDir(gens.abs, gens.rel)) {
      const rel = `${gens.rel}/${ent.name}`;
      if (!ent.isDirectory() || !isCanonicalUuid(ent.name)) {
        unknown.push(rel);
        continue;
      }
      if (keep.has(ent.name) || (unpublished !== undefined && !unpublished.has(ent.name))) {
        retained.push(ent.name);
        continue;
      }
      const lp = leasePlace(root, ent.name);
      if (!isPlainTree(place(root, rel).abs)) {
        // A symlink or special file inside: reported, kept, never traversed further.
        unknown.push(rel);
        untrusted = true;
        continue;
      }
      const attempt = tryExclusive(lp.abs, lp.rel);
      if (attempt.kind === 'busy') leased.push(ent.name);
      else doomed.set(ent.name, attempt.kind === 'held' ? attempt.lock : undefined);
    }
  } catch (e) {
    for (const l of doomed.values()) l?.release();
    throw e;
  }
  return { cur, skippedReason: null, manifestOf, journals, sweepAll, unknown, retained, leased, doomed, untrusted };
}

/** Why a pass removes one generation (`planCleanup`). */
export type DoomedReason = 'incomplete' | 'unpublished' | 'retired';

/** What a full cleanup pass would remove now, decided by the rules cleanup itself applies (nothing changes). */
export interface CleanupPlan {
  readonly skippedReason: CleanupReport['skippedReason'];
  /**
   * Generations it would remove: `incomplete` (no valid manifest: an
   * interrupted or refused publication's private directory), `unpublished`
   * (a complete manifest no PUBLISHED journal names: killed before or at the
   * CURRENT rename), `retired` (published, outside the ancestor window, named
   * by no checkpoint, held by no reader).
   */
  readonly generations: readonly { readonly uuid: string; readonly reason: DoomedReason }[];
  /** Finished journals whose generation is gone (or goes with this pass), by transaction UUID. */
  readonly journals: readonly string[];
  /** True when no object would be deleted (a kept manifest unreadable, or a generation holding a link). */
  readonly objectsSkipped: boolean;
  readonly unknown: readonly string[];
}

/**
 * The full pass cleanup would run now, without running it (`gf doctor`).
 *
 * Leases are tried and released at once (a generation a reader holds is
 * kept, as cleanup keeps it). The caller holds the writer lock, so no
 * publication is staging anything meanwhile.
 */
export function planCleanup(root: string, opts: Omit<CleanupOptions, 'scope'> = {}): CleanupPlan {
  const c = classify(root, { ...opts, scope: 'full' }, []);
  for (const l of c.doomed.values()) l?.release();
  const published = new Set(c.journals.filter((j) => j.journal?.state === 'PUBLISHED').map((j) => j.journal?.generationUuid));
  const generations = [...c.doomed.keys()].sort().map((uuid) => {
    let reason: DoomedReason = published.has(uuid) ? 'retired' : 'unpublished';
    try {
      c.manifestOf(uuid);
    } catch {
      reason = 'incomplete';
    }
    return { uuid, reason };
  });
  let objectsSkipped = c.untrusted || c.skippedReason !== null;
  for (const uuid of [...c.retained, ...c.leased]) {
    try {
      c.manifestOf(uuid);
    } catch {
      objectsSkipped = true;
    }
  }
  const gone = (uuid: string): boolean => c.doomed.has(uuid) || !generationExists(root, uuid);
  const journals = objectsSkipped
    ? []
    : c.journals.filter(({ journal: j }) => j !== undefined && (j.state === 'PUBLISHED' || j.state === 'ABORTED') && gone(j.generationUuid)).map((j) => j.txn);
  return { skippedReason: c.skippedReason, generations, journals, objectsSkipped, unknown: c.unknown };
}

function* cleanupSteps(root: string, opts: CleanupOptions): Steps<CleanupReport> {
  retainedCount(opts);
  const trashLeft = emptyTrash(root);
  const c = classify(root, opts, trashLeft.unknown);
  if (c.cur === null || c.skippedReason !== null) return emptyReport(c.skippedReason, c.unknown);
  const { manifestOf, journals, unknown, retained, leased, doomed, untrusted } = c;
  let sweepAll = c.sweepAll;
  try {
    // Fresh reachability with every doomed generation locked: objects of every kept manifest stay.
    const referenced = new Set<string>();
    let objectsSkipped = untrusted;
    for (const uuid of [...retained, ...leased]) {
      try {
        for (const p of manifestOf(uuid).participants) referenced.add(p.contentSha256);
      } catch {
        objectsSkipped = true;
      }
    }
    // Candidates of an incremental pass: the objects the doomed manifests name.
    const candidates = new Set<string>();
    if (!sweepAll) {
      for (const uuid of doomed.keys()) {
        try {
          for (const p of manifestOf(uuid).participants) candidates.add(p.contentSha256);
        } catch {
          // An incomplete generation (an interrupted publication) may have staged objects nothing names.
          sweepAll = true;
        }
      }
    }

    const trash = place(root, LAYOUT.trash);
    const moved: string[] = [];
    for (const uuid of [...doomed.keys()].sort()) {
      const from = generationDir(root, uuid);
      renameEntry(from.abs, place(root, `${trash.rel}/${uuid}`).abs, `${trash.rel}/${uuid}`);
      moved.push(uuid);
    }
    if (moved.length > 0) yield* flushDirs([place(root, LAYOUT.generations), trash]);
    for (const l of doomed.values()) l?.release();
    doomed.clear();
    if (moved.length > 0) failpoint('project.after_gc_move');

    // Delete: the trashed generations' files and the unreachable objects have no order among themselves.
    const deletions: Unlink[] = [];
    const emptied: Place[] = [];
    for (const uuid of moved) {
      const dir = place(root, `${trash.rel}/${uuid}`);
      const files = plainFiles(dir);
      if (files === undefined) removeTree(dir.abs, dir.rel);
      else {
        deletions.push(...files);
        emptied.push(dir);
      }
    }
    const touched: Place[] = [];
    let removedObjects = 0;
    if (!objectsSkipped) {
      const swept = sweepAll ? sweepObjects(root, referenced, unknown) : removeCandidates(root, candidates, referenced, unknown);
      removedObjects = swept.removed.length;
      deletions.push(...swept.removed);
      touched.push(...swept.fanouts);
    }
    if (deletions.length > 0) yield deletions;
    for (const dir of emptied) removeEmptyDir(dir);
    yield* flushDirs([...(moved.length > 0 ? [trash] : []), ...touched]);
    // Only now the journals: until they are gone, the next pass sweeps every object (see `sweepAll`).
    // While objects cannot be deleted at all, they stay as that evidence.
    const journalDeletions = objectsSkipped ? [] : pruneJournals(root, journals);
    if (journalDeletions.length > 0) {
      yield journalDeletions;
      yield* flushDirs([place(root, LAYOUT.transactions)]);
    }
    const removedJournals = journalDeletions.length;
    if (moved.length > 0 || removedObjects > 0) failpoint('project.after_gc_delete');
    return {
      skipped: false,
      skippedReason: null,
      retained: retained.sort(),
      leased: leased.sort(),
      removedGenerations: moved,
      removedObjects,
      removedJournals,
      objectsSkipped,
      unknown,
    };
  } finally {
    for (const l of doomed.values()) l?.release();
  }
}

/** Objects to delete and the fan-out directories whose entries change (both run by the caller). */
interface Swept {
  readonly removed: Unlink[];
  readonly fanouts: Place[];
}

/** The regular files directly inside a trashed generation, or undefined when it holds anything else (then `removeTree`). */
function plainFiles(dir: Place): Unlink[] | undefined {
  const out: Unlink[] = [];
  for (const ent of listDir(dir.abs, dir.rel)) {
    if (!ent.isFile()) return undefined;
    const rel = `${dir.rel}/${ent.name}`;
    out.push({ kind: 'unlink', abs: place(dir.abs, ent.name).abs, rel });
  }
  return out;
}

function removeEmptyDir(dir: Place): void {
  try {
    fsx.rmdirSync(dir.abs);
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) throw ioError(e, 'rmdir', dir.rel);
  }
}

/** Full sweep: every object file in every fan-out directory that no kept manifest names. */
function sweepObjects(root: string, referenced: ReadonlySet<string>, unknown: string[]): Swept {
  const objs = place(root, LAYOUT.objectsSha256);
  const fanouts: Place[] = [];
  const removed: Unlink[] = [];
  for (const fan of listDir(objs.abs, objs.rel)) {
    const fanRel = `${objs.rel}/${fan.name}`;
    if (!fan.isDirectory() || !/^[0-9a-f]{2}$/.test(fan.name)) {
      unknown.push(fanRel);
      continue;
    }
    const fanPlace = place(root, fanRel);
    let removedHere = 0;
    for (const o of listDir(fanPlace.abs, fanRel)) {
      const rel = `${fanRel}/${o.name}`;
      if (!o.isFile() || !isObjectName(fan.name, o.name)) {
        unknown.push(rel);
        continue;
      }
      if (referenced.has(fan.name + o.name)) continue;
      removed.push({ kind: 'unlink', abs: place(root, rel).abs, rel });
      removedHere++;
    }
    if (removedHere > 0) fanouts.push(fanPlace);
  }
  return { removed, fanouts };
}

function lstatOrUndefined(abs: string, rel: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw ioError(e, 'lstat', rel);
  }
}

/**
 * Incremental pass: only the doomed manifests' objects that no kept manifest names.
 *
 * Each fan-out directory and object is checked with lstat first: a planted
 * link or special entry is reported and never followed or deleted.
 */
function removeCandidates(root: string, candidates: ReadonlySet<string>, referenced: ReadonlySet<string>, unknown: string[]): Swept {
  const fanouts = new Map<string, Place>();
  const badFanouts = new Set<string>();
  const removed: Unlink[] = [];
  for (const sha of [...candidates].sort()) {
    if (referenced.has(sha)) continue;
    const obj = objectPlace(root, sha);
    const fanRel = path.posix.dirname(obj.rel);
    if (badFanouts.has(fanRel)) continue;
    if (!fanouts.has(fanRel)) {
      const fan = place(root, fanRel);
      const st = lstatOrUndefined(fan.abs, fanRel);
      if (st === undefined) continue;
      if (!st.isDirectory()) {
        unknown.push(fanRel);
        badFanouts.add(fanRel);
        continue;
      }
    }
    const st = lstatOrUndefined(obj.abs, obj.rel);
    if (st === undefined) continue;
    if (!st.isFile()) {
      unknown.push(obj.rel);
      continue;
    }
    removed.push({ kind: 'unlink', abs: obj.abs, rel: obj.rel });
    if (!fanouts.has(fanRel)) fanouts.set(fanRel, place(root, fanRel));
  }
  return { removed, fanouts: [...fanouts.values()] };
}

/** True when a directory tree holds only regular files and real directories (checked with lstat). */
function isPlainTree(abs: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fsx.readdirSync(abs);
  } catch (e) {
    throw ioError(e, 'readdir', path.basename(abs));
  }
  for (const ent of entries) {
    if (ent.isDirectory()) {
      if (!isPlainTree(path.join(abs, ent.name))) return false;
    } else if (!ent.isFile()) return false;
  }
  return true;
}

/**
 * Finished journals whose generation directory is gone, to delete (the caller deletes and flushes `transactions/`).
 *
 * Keeps the journal set bounded by retained generations, so recovery (which
 * reads every journal) stays O(retained), not O(history).
 */
function pruneJournals(root: string, journals: readonly JournalEntry[]): Unlink[] {
  const out: Unlink[] = [];
  for (const { txn, journal: j } of journals) {
    if (j === undefined || (j.state !== 'PUBLISHED' && j.state !== 'ABORTED')) continue;
    if (generationExists(root, j.generationUuid)) continue;
    const p = journalPlace(root, txn);
    out.push({ kind: 'unlink', abs: p.abs, rel: p.rel });
  }
  return out;
}

/** Generation directories present on disk with their manifest's parent (history for the UI). */
export interface GenerationInfo {
  readonly generationUuid: string;
  readonly parentGenerationUuid: string | null;
  readonly transactionUuid: string | null;
  /** Manifest digest, or null when the manifest is missing or invalid. */
  readonly manifestSha256: string | null;
  readonly participantCount: number;
  readonly isCurrent: boolean;
  /** `complete` (valid manifest) or `incomplete` (an unpublished or damaged directory). */
  readonly status: 'complete' | 'incomplete';
}

/** True when `generations/<uuid>` exists as a real directory. */
export function generationExists(root: string, uuid: string): boolean {
  const d = generationDir(root, uuid);
  return checkDir(d.abs, d.rel);
}
