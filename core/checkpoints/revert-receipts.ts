// Receipts of reverts recorded in the journal, so a replay returns the original
// receipt; the extension kinds retention recognizes.
import { hash } from 'node:crypto';
import { canonicalJson, isCanonicalUuid, parseUuid } from '../canonical/index';
import { GfError } from '../errors';
import { atomicReplace, corrupt, fsyncDir, listDir, makeDir, readFileNoFollow, unlinkIfPresent } from '../project/durable-fs';
import type { JsonValue } from '../project/formats';
import { listJournals, readJournal } from '../project/journal';
import { LAYOUT, place } from '../project/layout';

/** The `kind` of a revert journal extension (the revert engine's, declared here so retention can recognize it). */
export const REVERT_EXTENSION_KIND = 'graphforge-checkpoint-revert/1';

/**
 * The `kind` of an ontology adopt/clear journal extension (core/workspace): its
 * receipts share this bounded record, so their replays outlive retention too.
 */
export const WORKSPACE_ONTOLOGY_EXTENSION_KIND = 'graphforge-workspace-ontology/1';

/** Journal extension kinds whose published receipts the record keeps. */
const RECORDED_KINDS: ReadonlySet<unknown> = new Set([REVERT_EXTENSION_KIND, WORKSPACE_ONTOLOGY_EXTENSION_KIND]);

/** The `kind` of one revert receipt record file. */
export const REVERT_RECEIPT_RECORD_KIND = 'graphforge-revert-receipt-record/1';

/**
 * The bound of the revert receipt record: the newest 4,096 revert receipts (same bound as the tombstones).
 *
 * A revert's journal is deleted by cleanup once its generation leaves
 * retention; its receipt record outlives that. Past the bound the oldest
 * records (by `restored_at`, then transaction UUID) are pruned in batches of
 * `REVERT_RECEIPTS_PRUNE_BATCH`, and every pruned transaction UUID is added to
 * a fixed-size Bloom filter (`REVERT_PRUNED_FILTER_BITS` bits, 7 probes), so a
 * replay of a pruned key is refused (never published again). A Bloom filter
 * has no false negatives; its false positives (a fresh key refused, the caller
 * uses another key) stay below 1e-7 up to 100,000 pruned keys and about 2% at
 * one million. Disk use is bounded: about 4,096 × 1 KiB of records plus 1 MiB.
 */
export const REVERT_RECEIPTS_MAX = 4096;
/** How many records one prune removes once the bound is exceeded (amortizes the directory scan). */
export const REVERT_RECEIPTS_PRUNE_BATCH = 512;
/** Size of the pruned-key Bloom filter in bits (1 MiB). */
export const REVERT_PRUNED_FILTER_BITS = 1 << 23;
const FILTER_PROBES = 7;
const RECORD_MAX_BYTES = 64 * 1024;
const PRUNED_FILTER_NAME = 'pruned.bloom';
const TMP_PREFIX = 'tmp-';
const UUID_JSON_RE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/;
const PRUNED_DOMAIN = new TextEncoder().encode('graphforge-revert-receipt-pruned/1');

/** What the record knows about one revert key. */
export type RevertReceiptLookup =
  | { readonly kind: 'record'; readonly extension: JsonValue }
  | { readonly kind: 'pruned' }
  | { readonly kind: 'unknown' };

function dirPlace(root: string): { abs: string; rel: string } {
  return place(root, LAYOUT.revertReceipts);
}

function recordPlace(root: string, txn: string): { abs: string; rel: string } {
  if (!isCanonicalUuid(txn)) throw new Error('invariant violated: receipt records are named by canonical UUIDs');
  return place(root, `${LAYOUT.revertReceipts}/${txn}.json`);
}

function ensureDir(root: string): void {
  const parent = place(root, LAYOUT.receipts);
  if (makeDir(parent.abs, parent.rel)) fsyncDir(place(root, '.').abs, '.');
  const d = dirPlace(root);
  if (makeDir(d.abs, d.rel)) fsyncDir(parent.abs, parent.rel);
}

function encodeRecord(txn: string, generationUuid: string, extension: JsonValue): Uint8Array {
  const doc = { kind: REVERT_RECEIPT_RECORD_KIND, transaction_uuid: txn, generation_uuid: generationUuid, extension };
  return new TextEncoder().encode(`${canonicalJson(doc)}\n`);
}

interface RecordDoc {
  readonly transaction_uuid: string;
  readonly generation_uuid: string;
  readonly extension: JsonValue;
}

function parseRecord(bytes: Uint8Array, txn: string, rel: string): RecordDoc {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw corrupt('unreadable revert receipt record', rel);
  }
  const d = doc as Partial<RecordDoc & { kind: unknown }> | null;
  if (d === null || typeof d !== 'object' || d.kind !== REVERT_RECEIPT_RECORD_KIND || d.transaction_uuid !== txn || typeof d.generation_uuid !== 'string' || d.extension === undefined) {
    throw corrupt('malformed revert receipt record', rel);
  }
  return d as RecordDoc;
}

/**
 * Makes one published revert's receipt record durable (idempotent).
 *
 * Temp write, fsync, rename, directory fsync: a crash leaves either no record
 * or the whole record. An existing record is kept as it is (its bytes are
 * a pure function of the journal extension).
 */
export function recordRevertReceipt(root: string, txn: string, generationUuid: string, extension: JsonValue): boolean {
  const p = recordPlace(root, txn);
  if (readFileNoFollow(p.abs, p.rel, RECORD_MAX_BYTES) !== undefined) return false;
  ensureDir(root);
  const tmpName = `${TMP_PREFIX}${txn}.json`;
  const d = dirPlace(root);
  unlinkIfPresent(place(root, `${d.rel}/${tmpName}`).abs, `${d.rel}/${tmpName}`);
  atomicReplace(p.abs, p.rel, tmpName, encodeRecord(txn, generationUuid, extension));
  return true;
}

function filterProbes(txn: string): number[] {
  const digest = hash('sha256', Buffer.concat([PRUNED_DOMAIN, parseUuid(txn)]), 'buffer');
  const out: number[] = [];
  for (let i = 0; i < FILTER_PROBES; i++) out.push(digest.readUInt32BE(i * 4) % REVERT_PRUNED_FILTER_BITS);
  return out;
}

function readFilter(root: string): Uint8Array | undefined {
  const p = place(root, `${LAYOUT.revertReceipts}/${PRUNED_FILTER_NAME}`);
  const bytes = readFileNoFollow(p.abs, p.rel, REVERT_PRUNED_FILTER_BITS / 8);
  if (bytes !== undefined && bytes.length !== REVERT_PRUNED_FILTER_BITS / 8) throw corrupt('malformed pruned-receipt filter', p.rel);
  return bytes;
}

/**
 * What the record knows about the revert transaction `txn`.
 *
 * `record` carries the journal extension exactly as published; `pruned`
 * means the key was used by a revert whose record left the bounded window;
 * `unknown` means never recorded (a first attempt, or a revert that never
 * published).
 */
export function lookupRevertReceipt(root: string, txn: string): RevertReceiptLookup {
  const p = recordPlace(root, txn);
  const bytes = readFileNoFollow(p.abs, p.rel, RECORD_MAX_BYTES);
  if (bytes !== undefined) return { kind: 'record', extension: parseRecord(bytes, txn, p.rel).extension };
  const filter = readFilter(root);
  if (filter !== undefined && filterProbes(txn).every((bit) => ((filter[bit >>> 3] as number) & (1 << (bit & 7))) !== 0)) return { kind: 'pruned' };
  return { kind: 'unknown' };
}

interface Listed {
  readonly txn: string;
  readonly restoredAt: bigint;
}

function restoredAtOf(extension: JsonValue): bigint {
  const at = (extension as { restored_at_micros?: unknown } | null)?.restored_at_micros;
  return typeof at === 'string' && /^-?\d{1,19}$/.test(at) ? BigInt(at) : 0n;
}

/**
 * Keeps at most `max` records: the oldest go, their keys into the pruned filter first.
 *
 * Order: filter replaced durably, then records unlinked, then the directory
 * flushed. A crash in between leaves a key both recorded and filtered, which
 * `lookupRevertReceipt` answers from the record. Returns how many were pruned.
 */
export function pruneRevertReceipts(root: string, max = REVERT_RECEIPTS_MAX, batch = REVERT_RECEIPTS_PRUNE_BATCH): number {
  if (!Number.isSafeInteger(max) || max < 0 || !Number.isSafeInteger(batch) || batch < 0) throw new Error('invariant violated: receipt bounds are non-negative integers');
  const d = dirPlace(root);
  const names = listDir(d.abs, d.rel)
    .filter((e) => e.isFile())
    .map((e) => UUID_JSON_RE.exec(e.name)?.[1])
    .filter((t): t is string => t !== undefined);
  if (names.length <= max + batch) return 0;
  const listed: Listed[] = names.map((txn) => {
    const p = recordPlace(root, txn);
    const bytes = readFileNoFollow(p.abs, p.rel, RECORD_MAX_BYTES);
    return { txn, restoredAt: bytes === undefined ? 0n : restoredAtOf(parseRecord(bytes, txn, p.rel).extension) };
  });
  listed.sort((a, b) => (a.restoredAt < b.restoredAt ? -1 : a.restoredAt > b.restoredAt ? 1 : a.txn < b.txn ? -1 : a.txn > b.txn ? 1 : 0));
  const doomed = listed.slice(0, listed.length - max);
  const filter = new Uint8Array(readFilter(root) ?? new Uint8Array(REVERT_PRUNED_FILTER_BITS / 8));
  for (const { txn } of doomed) for (const bit of filterProbes(txn)) filter[bit >>> 3] = (filter[bit >>> 3] as number) | (1 << (bit & 7));
  const fp = place(root, `${d.rel}/${PRUNED_FILTER_NAME}`);
  const tmpName = `${TMP_PREFIX}${PRUNED_FILTER_NAME}`;
  unlinkIfPresent(place(root, `${d.rel}/${tmpName}`).abs, `${d.rel}/${tmpName}`);
  atomicReplace(fp.abs, fp.rel, tmpName, filter);
  for (const { txn } of doomed) {
    const p = recordPlace(root, txn);
    unlinkIfPresent(p.abs, p.rel);
  }
  fsyncDir(d.abs, d.rel);
  return doomed.length;
}

/**
 * Records the receipt of every PUBLISHED revert journal that has none yet, then applies the bound.
 *
 * Runs under the writer lock at the start of every cleanup (through the
 * checkpoint retention pins), before cleanup may delete any journal: a revert
 * whose process died between its publication and its own record write is
 * recorded by the next cleanup, so no published revert loses its receipt.
 */
export function archiveRevertReceipts(root: string, max = REVERT_RECEIPTS_MAX): number {
  let added = 0;
  for (const txn of listJournals(root).transactions) {
    const j = readJournal(root, txn);
    if (j === undefined || j.state !== 'PUBLISHED') continue;
    const kind = (j.extension as { kind?: unknown } | null)?.kind;
    if (!RECORDED_KINDS.has(kind)) continue;
    if (recordRevertReceipt(root, txn, j.generationUuid, j.extension)) added++;
  }
  if (added > 0) pruneRevertReceipts(root, max);
  return added;
}

/** The refusal of a replay whose receipt left the bounded record (never a second publication). */
export function prunedReceiptError(operation: string, operationUuid: string): GfError {
  return new GfError(
    'GF_IDEMPOTENCY_CONFLICT',
    `this idempotency key was used by a revert whose receipt was pruned (only the newest ${REVERT_RECEIPTS_MAX.toLocaleString('en-US')} revert receipts are kept); use a new key`,
    { operation, operation_uuid: operationUuid, phase: 'receipt_pruned', limit: REVERT_RECEIPTS_MAX },
    false,
  );
}

/**
 * Temp files of receipt writes a killed revert left (`receipts/revert/tmp-*`), relative to the
 * workspace. Only a retry of the same revert key would overwrite one; under the writer lock nothing
 * is writing them, so they are safe to remove (`gf doctor --repair`).
 */
export function revertReceiptTemps(root: string): string[] {
  const d = dirPlace(root);
  return listDir(d.abs, d.rel)
    .filter((e) => e.isFile() && e.name.startsWith(TMP_PREFIX))
    .map((e) => `${d.rel}/${e.name}`)
    .sort();
}

/** Removes what `revertReceiptTemps` lists (the caller holds the writer lock). */
export function removeRevertReceiptTemps(root: string): void {
  const temps = revertReceiptTemps(root);
  for (const rel of temps) unlinkIfPresent(place(root, rel).abs, rel);
  if (temps.length > 0) fsyncDir(dirPlace(root).abs, dirPlace(root).rel);
}
