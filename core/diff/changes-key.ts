// One changed record and the contract's sort order of record-diff rows.
import type { RecordChangeKind } from './arrow-schemas';

/**
 * One changed logical record: identity and fingerprints, never values.
 *
 * `recordUuid` is the owner-declared record UUID (16 bytes) or null for
 * families without one; fingerprints are 32 bytes.
 */
export interface RecordChange {
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly recordUuid: Uint8Array | null;
  readonly identityFingerprint: Uint8Array;
  readonly changeKind: RecordChangeKind;
  readonly fromFingerprint: Uint8Array | null;
  readonly toFingerprint: Uint8Array | null;
}

/** The sort tuple of a record row: `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`. */
export interface RecordSortKey {
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly recordUuid: Uint8Array | null;
  readonly identityFingerprint: Uint8Array;
  readonly changeKind: RecordChangeKind;
}

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

function cmpText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Compares `(scope, record_family_id)` pairs by UTF-8 bytes (the contract's sort). */
export function compareFamilyKey(a: { scope: string; recordFamilyId: string }, b: { scope: string; recordFamilyId: string }): number {
  if (a.scope === b.scope && a.recordFamilyId === b.recordFamilyId) return 0;
  return cmpText(a.scope, b.scope) || cmpText(a.recordFamilyId, b.recordFamilyId);
}

/** Total order of record rows (nulls first; within one family all `record_uuid` are null or none is). */
export function compareRecordKeys(a: RecordSortKey, b: RecordSortKey): number {
  const f = compareFamilyKey(a, b);
  if (f !== 0) return f;
  if (a.recordUuid === null || b.recordUuid === null) {
    if (a.recordUuid !== b.recordUuid) return a.recordUuid === null ? -1 : 1;
  } else {
    const u = cmpBytes(a.recordUuid, b.recordUuid);
    if (u !== 0) return u;
  }
  return cmpBytes(a.identityFingerprint, b.identityFingerprint) || (a.changeKind === b.changeKind ? 0 : cmpText(a.changeKind, b.changeKind));
}
