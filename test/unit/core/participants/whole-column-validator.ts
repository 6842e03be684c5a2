// The validator as it was before row windows (whole decoded columns, a Set of UUID strings per reference):
// the oracle the windowed validator is compared with (validate-windowed.property.test.ts).
import type { Table } from 'apache-arrow';
import { canonicalJsonOrNull, columnsOf, identityComparator } from '../../../../core/participants';
import type { CellValue, RecordFamily, ReferenceSpec, SnapshotColumns } from '../../../../core/participants';

/** One issue as [rule, row, field?]. */
export type IssueTuple = readonly [string, number, string?];

/** Every domain-rule violation of `table`, in the validator's fixed order, from whole columns. */
export function wholeColumnIssues(family: RecordFamily, table: Table): IssueTuple[] {
  const cols = columnsOf(family, table);
  const out: IssueTuple[] = [];
  for (const f of family.fields) {
    const values = cols.col(f.name);
    if (!f.nullable) values.forEach((v, row) => v === null && out.push(['participant.required_field', row, f.name]));
    if (f.enumValues !== undefined) {
      const allowed: ReadonlySet<CellValue> = new Set(f.enumValues);
      values.forEach((v, row) => v !== null && !allowed.has(v) && out.push(['participant.enum_value', row, f.name]));
    }
    if (f.json === true) {
      values.forEach((v, row) => {
        if (v === null) return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(v as string);
        } catch (_e) {
          parsed = undefined;
        }
        if (parsed === undefined || canonicalJsonOrNull(parsed) !== v) out.push(['participant.canonical_json', row, f.name]);
      });
    }
  }
  const cmp = identityComparator(family, cols);
  for (let row = 1; row < cols.rowCount; row++) {
    const c = cmp(row - 1, row);
    if (c === 0) out.push(['participant.identity_unique', row]);
    else if (c > 0) out.push(['participant.identity_order', row]);
  }
  for (const rule of family.rules) for (const row of rule.check(cols)) out.push([rule.id, row]);
  return out;
}

/** Every violation of one declared reference, from whole columns and a Set of the target's cells. */
export function wholeColumnReference(subject: string, ref: ReferenceSpec, snapshot: SnapshotColumns): IssueTuple[] {
  const rows = snapshot.columns(subject);
  const out: IssueTuple[] = [];
  if (rows === undefined || rows.rowCount === 0) return out;
  const keys = new Set(snapshot.columns(ref.target)?.col(ref.targetField) ?? []);
  const when = ref.when === undefined ? undefined : rows.col(ref.when.field);
  for (let row = 0; row < rows.rowCount; row++) {
    if (when !== undefined && when[row] !== ref.when?.equals) continue;
    for (const field of ref.fields) {
      const v = rows.col(field)[row] ?? null;
      if (v !== null && !keys.has(v)) out.push([ref.rule, row, field]);
    }
  }
  return out;
}
