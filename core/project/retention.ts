import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid } from '../canonical/index';
import { GfError, hasCode } from '../errors';
import { checkDir, fsyncDir, listDir, removeTree, renameEntry, unlinkIfPresent } from './durable-fs';
import { failpoint } from './failpoints';
import type { Manifest } from './formats';
import { listJournals, readJournal } from './journal';
import { LAYOUT, generationDir, isObjectName, journalPlace, leasePlace, place } from './layout';
import { loadManifest, readCurrent, readManifestBytes } from './lease';
import { tryExclusive } from './sqlite-lock';
import type { HeldLock } from './sqlite-lock';

/** Default number of verified ancestors of CURRENT kept by cleanup. */
export const DEFAULT_RETAIN_ANCESTORS = 2;
/** Upper bound for the ancestor window (retention is finite by design). */
export const MAX_RETAIN_ANCESTORS = 1024;

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

/** Options of one cleanup pass. */
export interface CleanupOptions {
  readonly retainAncestors?: number;
  readonly pins?: RetentionPins;
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
function ancestors(root: string, start: Manifest, n: number): string[] {
  const out: string[] = [];
  let m = start;
  while (out.length < n && m.parentGenerationUuid !== null) {
    const uuid = m.parentGenerationUuid;
    try {
      m = loadManifest(root, uuid, readManifestBytes(root, uuid));
    } catch {
      break;
    }
    out.push(uuid);
  }
  return out;
}

/**
 * Conservative cleanup (GENERATIONS.md "Retention"); the caller holds the writer lock.
 *
 * Reachable = CURRENT + N verified ancestors + pinned + leased. Each other
 * generation is taken exclusively without waiting (busy → a reader holds
 * it → kept), then moved to trash, flushed, deleted, flushed. An object is
 * deleted only when no kept manifest refers to it, and not at all if some
 * kept manifest is unreadable.
 */
export function cleanupLocked(root: string, opts: CleanupOptions = {}): CleanupReport {
  const n = opts.retainAncestors ?? DEFAULT_RETAIN_ANCESTORS;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_RETAIN_ANCESTORS) {
    throw new GfError('GF_VALIDATION', 'retained ancestor count is out of range', { limit: MAX_RETAIN_ANCESTORS }, false);
  }
  const trashLeft = emptyTrash(root);
  const cur = readCurrent(root);
  if (cur === null) return emptyReport(null, trashLeft.unknown);
  let pinned: ReadonlySet<string>;
  try {
    pinned = opts.pins?.pinnedGenerations() ?? new Set<string>();
  } catch (e) {
    if (hasCode(e, 'GF_CHECKPOINT_REGISTRY_CORRUPT')) return emptyReport('GF_CHECKPOINT_REGISTRY_CORRUPT', trashLeft.unknown);
    throw e;
  }
  const curManifest = loadManifest(root, cur.generationUuid, readManifestBytes(root, cur.generationUuid));
  const keep = new Set<string>([cur.generationUuid, ...ancestors(root, curManifest, n), ...pinned]);

  const unknown: string[] = [...trashLeft.unknown];
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
      if (keep.has(ent.name)) {
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

    // Fresh reachability with every doomed generation locked: objects of every kept manifest stay.
    const referenced = new Set<string>();
    let objectsSkipped = untrusted;
    for (const uuid of [...retained, ...leased]) {
      try {
        for (const p of loadManifest(root, uuid, readManifestBytes(root, uuid)).participants) referenced.add(p.contentSha256);
      } catch {
        objectsSkipped = true;
      }
    }

    const trash = place(root, LAYOUT.trash);
    const moved: string[] = [];
    for (const uuid of [...doomed.keys()].sort()) {
      const from = generationDir(root, uuid);
      renameEntry(from.abs, place(root, `${trash.rel}/${uuid}`).abs, `${trash.rel}/${uuid}`);
      moved.push(uuid);
    }
    if (moved.length > 0) {
      fsyncDir(gens.abs, gens.rel);
      fsyncDir(trash.abs, trash.rel);
    }
    for (const l of doomed.values()) l?.release();
    doomed.clear();
    if (moved.length > 0) failpoint('project.after_gc_move');

    for (const uuid of moved) removeTree(place(root, `${trash.rel}/${uuid}`).abs, `${trash.rel}/${uuid}`);
    if (moved.length > 0) fsyncDir(trash.abs, trash.rel);

    let removedObjects = 0;
    if (!objectsSkipped) {
      const objs = place(root, LAYOUT.objectsSha256);
      for (const fan of listDir(objs.abs, objs.rel)) {
        const fanRel = `${objs.rel}/${fan.name}`;
        if (!fan.isDirectory() || !/^[0-9a-f]{2}$/.test(fan.name)) {
          unknown.push(fanRel);
          continue;
        }
        let removedHere = 0;
        for (const o of listDir(place(root, fanRel).abs, fanRel)) {
          const rel = `${fanRel}/${o.name}`;
          if (!o.isFile() || !isObjectName(fan.name, o.name)) {
            unknown.push(rel);
            continue;
          }
          if (referenced.has(fan.name + o.name)) continue;
          unlinkIfPresent(place(root, rel).abs, rel);
          removedHere++;
        }
        if (removedHere > 0) fsyncDir(place(root, fanRel).abs, fanRel);
        removedObjects += removedHere;
      }
    }
    const removedJournals = pruneJournals(root);
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

/** True when a directory tree holds only regular files and real directories (checked with lstat). */
function isPlainTree(abs: string): boolean {
  for (const ent of fs.readdirSync(abs, { withFileTypes: true })) {
    if (ent.isDirectory()) {
      if (!isPlainTree(path.join(abs, ent.name))) return false;
    } else if (!ent.isFile()) return false;
  }
  return true;
}

/**
 * Deletes finished journals whose generation directory is gone.
 *
 * Keeps the journal set bounded by retained generations, so recovery (which
 * reads every journal) stays O(retained), not O(history).
 */
function pruneJournals(root: string): number {
  let removed = 0;
  for (const txn of listJournals(root).transactions) {
    const j = readJournal(root, txn);
    if (j === undefined || (j.state !== 'PUBLISHED' && j.state !== 'ABORTED')) continue;
    if (generationExists(root, j.generationUuid)) continue;
    const p = journalPlace(root, txn);
    unlinkIfPresent(p.abs, p.rel);
    removed++;
  }
  if (removed > 0) {
    const d = place(root, LAYOUT.transactions);
    fsyncDir(d.abs, d.rel);
  }
  return removed;
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
