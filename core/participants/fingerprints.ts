import type { Table } from 'apache-arrow';
import { recordFingerprints } from '../canonical';
import type { RecordFamily } from './family';
import { assertFamilySchema, columnsOf } from './records';

/**
 * The identity projection of a participant: its identity columns, in declared order.
 *
 * Keeps the family's schema metadata, so identity fingerprints are bound to
 * the family as well as to the values.
 */
export function identityProjection(family: RecordFamily, table: Table): Table {
  assertFamilySchema(family, table);
  return table.select([...family.identityFields]);
}

/**
 * Identity fingerprint of every row (`rowCount × 32` bytes).
 *
 * The family's identity domain over the canonical bytes of the one-row
 * identity projection: equal exactly when the owner-declared identity is
 * equal, whatever the other fields hold. The record diff's
 * `record_identity_fingerprint`.
 */
export function identityFingerprints(family: RecordFamily, table: Table): Uint8Array {
  return recordFingerprints(identityProjection(family, table), family.identityFingerprintDomain);
}

/**
 * Whole-record fingerprint of every row (`rowCount × 32` bytes) in the family's record domain.
 *
 * The record diff's `from_record_fingerprint` / `to_record_fingerprint`:
 * two records with the same identity are "modified" exactly when these differ.
 */
export function wholeRecordFingerprints(family: RecordFamily, table: Table): Uint8Array {
  assertFamilySchema(family, table);
  return recordFingerprints(table, family.fingerprintDomain);
}

/**
 * The diff's nullable `record_uuid` of every row: the owner-declared UUID
 * identity field, or all null for a family with composite identity.
 */
export function recordUuids(family: RecordFamily, table: Table): readonly (string | null)[] {
  assertFamilySchema(family, table);
  if (family.recordUuidField === null) return new Array<null>(table.numRows).fill(null);
  return columnsOf(family, table).col(family.recordUuidField) as readonly string[];
}
