// The advisory transaction journal: written durably, read back by recovery.
import path from 'node:path';
import { checkFile, listDir, readFileNoFollow, unlinkIfPresent } from './durable-fs';
import type { WriteMeter } from './durable-fs';
import { atomicReplaceSteps, runSync } from './flush';
import type { Steps } from './flush';
import { JOURNAL_MAX_BYTES, encodeJournal, parseJournal } from './formats';
import type { Journal } from './formats';
import { JOURNAL_TMP_PREFIX, LAYOUT, journalPlace, place } from './layout';

/**
 * The advisory transaction journal: every write is temp, fsync, rename, dir fsync.
 *
 * CURRENT, not the journal, decides what is published; the journal lets
 * recovery label an interrupted transaction and carries caller extensions
 * (revert metadata) that must be durable before staging.
 */
export function writeJournal(root: string, j: Journal, meter?: WriteMeter): void {
  runSync(writeJournalSteps(root, j, meter));
}

/** `writeJournal` as a durable step (temp flush, rename, `transactions/` flush). */
export function* writeJournalSteps(root: string, j: Journal, meter?: WriteMeter): Steps<void> {
  const p = journalPlace(root, j.transactionUuid);
  checkFile(p.abs, p.rel);
  const dir = place(root, LAYOUT.transactions);
  const tmp = path.join(dir.abs, `${JOURNAL_TMP_PREFIX}${j.transactionUuid}.json`);
  yield* atomicReplaceSteps(p.abs, p.rel, tmp, dir, encodeJournal(j), meter);
}

/** Reads one journal; undefined when missing or malformed (advisory only). */
export function readJournal(root: string, transactionUuid: string): Journal | undefined {
  const p = journalPlace(root, transactionUuid);
  const bytes = readFileNoFollow(p.abs, p.rel, JOURNAL_MAX_BYTES);
  if (bytes === undefined) return undefined;
  const j = parseJournal(bytes);
  return j !== undefined && j.transactionUuid === transactionUuid ? j : undefined;
}

/** Every journal file's transaction UUID, plus leftover temp names (removed by recovery). */
export function listJournals(root: string): { readonly transactions: string[]; readonly temps: string[]; readonly unknown: string[] } {
  const dir = place(root, LAYOUT.transactions);
  const transactions: string[] = [];
  const temps: string[] = [];
  const unknown: string[] = [];
  for (const ent of listDir(dir.abs, dir.rel)) {
    const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/.exec(ent.name);
    if (ent.isFile() && m !== null) transactions.push(m[1] as string);
    else if (ent.isFile() && ent.name.startsWith(JOURNAL_TMP_PREFIX)) temps.push(ent.name);
    else unknown.push(`${dir.rel}/${ent.name}`);
  }
  transactions.sort();
  return { transactions, temps, unknown };
}

/** Removes a leftover journal temp file. */
export function removeJournalTemp(root: string, name: string): void {
  const p = place(root, `${LAYOUT.transactions}/${name}`);
  unlinkIfPresent(p.abs, p.rel);
}
