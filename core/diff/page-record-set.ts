// The summary's logical content identity: a participant's record-set fingerprint,
// computed once per object and kept in cache/record-sets/.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { Table } from 'apache-arrow';
import { fingerprintHeader, fromHex, recordFingerprints, sha256Hex, toHex } from '../canonical/index';
import { canonicalizeParticipant } from '../participants/index';
import type { ProjectCaches } from '../project/index';
import type { DiffAdapter } from './plan-adapters';
import { objectCacheKey } from './changes-cache';
import type { ChangeCache } from './changes-cache';
import { inIdentityOrder } from './merge-raw-rows';
import { PAUSE } from './steps';
import type { DiffSteps } from './steps';
import type { ParticipantSource } from './plan-endpoint';
import { WindowedParticipant } from './merge-windowed';

/**
 * The record-set fingerprint of a participant: the summary diff's content
 * identity (`from_content_sha256` / `to_content_sha256` of
 * `checkpoint_summary_diff@1`).
 *
 * ADR-0014 asks that physical layout (batches, dictionary encoding, buffers,
 * JSON formatting) cannot affect diff output, and defines a record's identity
 * and its canonical whole-record fingerprint per family; it names no exact
 * construction for a whole participant. This is the one the project uses,
 * built only from the contract's primitives (CANONICAL.md):
 *
 *   fingerprint envelope, domain `<family record-set domain>`
 *   (`checkpoint-studio/<capability>.<family>@<version>/record-set`), over
 *   payload = schema fingerprint (32 bytes)
 *           ‖ u64 big-endian record count
 *           ‖ each record's canonical whole-record fingerprint (32 bytes,
 *             the family's record domain), records in identity order.
 *
 * Two participants of a family have equal record-set fingerprints exactly
 * when they hold the same records (same identities, same canonical values):
 * when the record diff between them is empty. The stored bytes' SHA-256 (the
 * manifest's `content_sha256`) is the physical digest; it is never shown as
 * the summary's content identity.
 */
export function recordSetFingerprint(adapter: DiffAdapter, table: Table, contentSha256?: string, windowRows = RECORD_SET_WINDOW_ROWS, caches?: ProjectCaches): string {
  const records = inIdentityOrder(adapter, table, contentSha256, caches) ? table : canonicalizeParticipant(adapter.family, table);
  const h = recordSetHash(adapter, records.numRows);
  for (let start = 0; start < records.numRows; start += windowRows) {
    h.update(recordFingerprints(records.slice(start, Math.min(records.numRows, start + windowRows)), adapter.recordFingerprintDomain));
  }
  return h.digest('hex');
}

/** The hash state after the envelope header, the schema fingerprint and the record count. */
function recordSetHash(adapter: DiffAdapter, records: number): Hash {
  const h = createHash('sha256');
  h.update(fingerprintHeader(adapter.family.recordSetFingerprintDomain, 32 + 8 + 32 * records));
  h.update(fromHex(adapter.schemaFingerprint));
  const count = new Uint8Array(8);
  new DataView(count.buffer).setBigUint64(0, BigInt(records));
  h.update(count);
  return h;
}

/**
 * `recordSetFingerprint` of an opened participant, as steps (a pause between windows).
 *
 * The plain stored layout is read a window of rows at a time (memory
 * follows the window, not the object), each window overlapping the one
 * before by a row so identity order is checked across windows too; any
 * other layout, or one found out of order, is decoded whole and
 * re-canonicalized, with the same result.
 */
export function* recordSetSteps(
  adapter: DiffAdapter,
  source: ParticipantSource,
  contentSha256: string,
  windowRows = RECORD_SET_WINDOW_ROWS,
  caches?: ProjectCaches,
): DiffSteps<string> {
  const w = WindowedParticipant.open(adapter, source, contentSha256, caches);
  if (w !== null) {
    try {
      const h = recordSetHash(adapter, w.rows);
      let ordered = true;
      for (let start = 0; start < w.rows && ordered; start += windowRows) {
        const from = Math.max(0, start - 1);
        const side = w.window(from, Math.min(w.rows, start + windowRows));
        ordered = inIdentityOrder(adapter, side.table);
        if (ordered) h.update(recordFingerprints(from === start ? side.table : side.table.slice(1), adapter.recordFingerprintDomain));
        yield PAUSE;
      }
      if (ordered) return h.digest('hex');
    } finally {
      w.release();
    }
  }
  const table = adapter.decode(source.read(0, source.byteLength));
  yield PAUSE;
  return recordSetFingerprint(adapter, table, contentSha256, windowRows, caches);
}

/** Records fingerprinted at once (a window's fingerprints are 32 bytes per record). */
export const RECORD_SET_WINDOW_ROWS = 1 << 16;

/** Format of a cached record-set fingerprint (part of its key). */
export const RECORD_SET_CACHE_FORMAT = 'graphforge-record-set-fingerprint/1';

/** The cache key of one object's record-set fingerprint under one adapter (a pure function of immutable inputs). */
export function recordSetKey(adapter: DiffAdapter, contentSha256: string): string {
  return objectCacheKey(RECORD_SET_CACHE_FORMAT, adapter, contentSha256);
}

/**
 * A cached fingerprint, or undefined.
 *
 * Stored as 64 bytes: the fingerprint, then SHA-256 over the key (hex) and
 * the fingerprint, so a torn or foreign entry is never taken for a value.
 */
export function loadRecordSet(cache: ChangeCache | undefined, key: string): string | undefined {
  const b = cache?.loadRecordSet?.(key);
  return b === undefined ? undefined : recordSetEntryValue(b, key);
}

/** The fingerprint a cache entry's bytes hold under `key`, or undefined when they are not a sound entry (torn, edited, another key's). */
export function recordSetEntryValue(b: Uint8Array, key: string): string | undefined {
  if (b.length !== 64) return undefined;
  const fp = b.subarray(0, 32);
  return toHex(b.subarray(32)) === entryCheck(key, fp) ? toHex(fp) : undefined;
}

/** Stores a fingerprint (failures ignored, as for every derived cache entry). */
export function storeRecordSet(cache: ChangeCache | undefined, key: string, fingerprintHex: string): void {
  if (cache?.storeRecordSet === undefined) return;
  const fp = fromHex(fingerprintHex);
  const entry = new Uint8Array(64);
  entry.set(fp, 0);
  entry.set(fromHex(entryCheck(key, fp)), 32);
  cache.storeRecordSet(key, entry);
}

function entryCheck(key: string, fp: Uint8Array): string {
  const bytes = new Uint8Array(64 + 32);
  bytes.set(new TextEncoder().encode(key), 0);
  bytes.set(fp, 64);
  return sha256Hex(bytes);
}
