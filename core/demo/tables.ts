import { encodeParticipant } from '../participants/index';
import type { CellValue, RecordFamily } from '../participants/index';
import { buildColumn, tableOfColumns } from '../participants/columns';
import type { ParticipantChange } from '../project/index';

/** Column arrays by field name (every declared field present, equal lengths). */
export type ColumnValues = Readonly<Record<string, readonly CellValue[]>>;

/**
 * Participant bytes straight from column arrays (no per-record objects).
 *
 * For millions of graph records: one typed column per field, then the
 * registry's canonical encoder (identity order, one batch).
 */
export function participantFromColumns(family: RecordFamily, columns: ColumnValues): Uint8Array {
  const first = family.fields[0];
  const n = first === undefined ? 0 : (columns[first.name]?.length ?? 0);
  const data = family.fields.map((f) => {
    const values = columns[f.name];
    if (values === undefined || values.length !== n) throw new Error(`invariant violated: demo column ${f.name}`);
    return buildColumn(f, values);
  });
  return encodeParticipant(family, tableOfColumns(family.schema, data, n));
}

/** A `put` change of one family from columns. */
export function putColumns(family: RecordFamily, columns: ColumnValues): ParticipantChange {
  return { kind: 'put', capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId, bytes: participantFromColumns(family, columns) };
}

/** A `remove` change of one family. */
export function removeFamily(family: RecordFamily): ParticipantChange {
  return { kind: 'remove', capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId };
}
