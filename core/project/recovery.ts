// Recovery under the writer lock: finishes or rolls back what a crashed writer left.
import { fsyncDir, isErrno, listDir, unlinkIfPresent } from './durable-fs';
import type { WriteMeter } from './durable-fs';
import { listJournals, readJournal, removeJournalTemp, writeJournal } from './journal';
import { CURRENT_TMP_PREFIX, LAYOUT, place } from './layout';
import { readCurrent } from './lease';
import { emptyTrash } from './retention';
import { repairLineageLocked } from './lineage';
import { removeRetentionPolicyTemp } from './retention-policy';
import type { LineageRepair } from './lineage';

/** What one recovery pass did (counts and UUIDs only). */
export interface RecoveryReport {
  /** Interrupted transactions whose generation CURRENT names, now labelled PUBLISHED. */
  readonly finished: readonly string[];
  /** Interrupted transactions of any other generation, now labelled ABORTED (cleanup-eligible). */
  readonly aborted: readonly string[];
  /** Journal files that could not be read (advisory only, left as they are). */
  readonly unreadableJournals: readonly string[];
  /** Leftover temp files removed (CURRENT temps, journal temps). */
  readonly removedTemps: number;
  /** Generation directories emptied out of `trash/`. */
  readonly trashEmptied: number;
  /** Unknown entries reported, never touched. */
  readonly unknown: readonly string[];
  /** The lineage log's repair: a torn final line cut, missing lines rebuilt from journals and manifests. */
  readonly lineage: LineageRepair;
}

/**
 * Labels interrupted transactions and removes machine temp files; idempotent.
 *
 * CURRENT alone decides: a journal whose generation CURRENT names is
 * finished to PUBLISHED, any other unfinished one becomes ABORTED. A
 * malformed CURRENT throws `GF_PROJECT_CORRUPT` before anything changes.
 * The caller holds the writer lock.
 */
export function recoverLocked(root: string, meter?: WriteMeter): RecoveryReport {
  const cur = readCurrent(root);
  const finished: string[] = [];
  const aborted: string[] = [];
  const unreadable: string[] = [];
  const js = listJournals(root);
  // Leftover temps first: a relabel below writes the same fixed temp name, and
  // a leftover must never block it (GENERATIONS.md "Recovery").
  let removedTemps = 0;
  for (const t of js.temps) {
    removeJournalTemp(root, t);
    removedTemps++;
  }
  if (js.temps.length > 0) {
    const d = place(root, LAYOUT.transactions);
    fsyncDir(d.abs, d.rel);
  }
  const rootPlace = place(root, '.');
  let rootTemps = 0;
  for (const ent of listDir(rootPlace.abs, '.')) {
    if (ent.isFile() && ent.name.startsWith(CURRENT_TMP_PREFIX)) {
      try {
        unlinkIfPresent(place(root, ent.name).abs, ent.name);
        rootTemps++;
      } catch (e) {
        if (!isErrno(e, 'ENOENT')) throw e;
      }
    }
  }
  if (rootTemps > 0) fsyncDir(rootPlace.abs, '.');
  if (removeRetentionPolicyTemp(root)) rootTemps++;
  // Before any journal becomes PUBLISHED: CURRENT's line (and any line a kill left out or tore) from journals and manifests.
  const lineage = repairLineageLocked(root, cur, meter);
  for (const txn of js.transactions) {
    const j = readJournal(root, txn);
    if (j === undefined) {
      unreadable.push(txn);
      continue;
    }
    if (j.state === 'PUBLISHED' || j.state === 'ABORTED') continue;
    const published = cur !== null && cur.generationUuid === j.generationUuid;
    writeJournal(root, { ...j, state: published ? 'PUBLISHED' : 'ABORTED' }, meter);
    (published ? finished : aborted).push(txn);
  }
  const trash = emptyTrash(root);
  return {
    finished,
    aborted,
    unreadableJournals: unreadable,
    removedTemps: removedTemps + rootTemps,
    trashEmptied: trash.emptied,
    unknown: [...js.unknown, ...trash.unknown],
    lineage,
  };
}
