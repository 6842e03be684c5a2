import type { Table, Vector } from 'apache-arrow';
import { schemaFingerprint } from '../canonical';
import { GfError } from '../errors';
import { buildColumn, compareCells, firstNullRow, gatherColumn, normalizeCell, readColumn, tableOfColumns } from './columns';
import type { CellValue, FieldSpec, RecordValues } from './columns';
import type { Columns, RecordFamily } from './family';

/**
 * Throws `GF_SCHEMA_MISMATCH` unless `table` has the family's schema.
 *
 * Compared by canonical schema fingerprint, so producer metadata and
 * dictionary encoding do not matter and names, types, nullability and
 * `graphforge.contract.*` metadata do.
 */
export function assertFamilySchema(family: RecordFamily, table: { readonly schema: Table['schema'] }): void {
  if (table.schema === family.schema) return;
  const actual = schemaFingerprint(table.schema);
  if (actual !== family.schemaFingerprint) {
    throw new GfError('GF_SCHEMA_MISMATCH', 'participant schema does not match its registered family', {
      capability_id: family.capabilityId,
      record_family_id: family.recordFamilyId,
      expected_schema_fingerprint: family.schemaFingerprint,
      actual_schema_fingerprint: actual,
    });
  }
}

/**
 * Lazy, cached cell access to a participant table of `family`.
 *
 * The table's schema must already be the family's (see `assertFamilySchema`).
 */
export function columnsOf(family: RecordFamily, table: Table): Columns {
  const cache = new Map<string, readonly CellValue[]>();
  return {
    rowCount: table.numRows,
    col(name: string): readonly CellValue[] {
      let c = cache.get(name);
      if (c === undefined) {
        const spec = family.field(name);
        const vector = table.getChild(name);
        if (spec === undefined || vector === null) throw new Error(`invariant violated: undeclared column ${name}`);
        c = readColumn(vector, spec);
        cache.set(name, c);
      }
      return c;
    },
  };
}

/**
 * A participant table from plain records, in the given order.
 *
 * Every record must carry only declared fields; missing fields are null (an
 * error for a non-nullable one). Bad cells are `GF_VALIDATION` with rule
 * `participant.required_field`, `participant.field_type` or
 * `participant.unknown_field` and the row number, never the value. Domain
 * rules are not run here (see `validateParticipant`).
 */
export function tableFromRecords(family: RecordFamily, records: readonly object[]): Table {
  const specs = family.fields;
  const cols: CellValue[][] = specs.map(() => new Array<CellValue>(records.length));
  for (let row = 0; row < records.length; row++) {
    const rec = records[row];
    if (typeof rec !== 'object' || rec === null) {
      throw new GfError('GF_VALIDATION', 'a record must be an object', {
        rule: 'participant.field_type',
        record_family_id: family.recordFamilyId,
        row,
      });
    }
    const values = rec as Readonly<Record<string, unknown>>;
    for (const k in values) {
      if (Object.hasOwn(values, k) && family.field(k) === undefined) {
        throw new GfError('GF_VALIDATION', 'record has a field its family does not declare', {
          rule: 'participant.unknown_field',
          record_family_id: family.recordFamilyId,
          row,
        });
      }
    }
    for (let i = 0; i < specs.length; i++) {
      const spec = specs[i] as FieldSpec;
      (cols[i] as CellValue[])[row] = normalizeCell(spec, values[spec.name], row, family.recordFamilyId);
    }
  }
  return tableOfColumns(
    family.schema,
    family.fields.map((spec, i) => buildColumn(spec, cols[i] as CellValue[])),
    records.length,
  );
}

/** The records of a participant table, in row order, in their JS cell form. */
export function recordsFromTable(family: RecordFamily, table: Table): RecordValues[] {
  assertFamilySchema(family, table);
  const cols = columnsOf(family, table);
  const data = family.fields.map((f) => cols.col(f.name));
  const out: RecordValues[] = [];
  for (let row = 0; row < cols.rowCount; row++) {
    const rec: Record<string, CellValue> = {};
    family.fields.forEach((f, i) => {
      rec[f.name] = (data[i] as readonly CellValue[])[row] ?? null;
    });
    out.push(rec);
  }
  return out;
}

/** Compares rows `a` and `b` by the family's identity fields, in declared order. */
export function identityComparator(family: RecordFamily, cols: Columns): (a: number, b: number) => number {
  const ids = family.identityFields.map((f) => cols.col(f));
  const ascii = family.identityFields.map((f) => {
    const kind = family.field(f)?.kind;
    return kind === 'uuid' || kind === 'digest';
  });
  if (ids.length === 1 && ascii[0] === true) {
    // The common case (one UUID): lowercase ASCII hex, so native string order is byte order.
    const c = ids[0] as readonly string[];
    return (a, b) => {
      const x = c[a] as string;
      const y = c[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  return (a, b) => {
    for (const c of ids) {
      const r = compareCells(c[a] ?? null, c[b] ?? null);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** Row numbers in identity order (stable: equal identities keep input order); no sort when already sorted. */
function sortedOrder(cols: Columns, cmp: (a: number, b: number) => number): number[] {
  const n = cols.rowCount;
  const order = Array.from({ length: n }, (_, i) => i);
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = cmp(i - 1, i) < 0;
  if (!sorted) order.sort((a, b) => cmp(a, b) || a - b);
  return order;
}

/**
 * The participant in canonical physical form: rows sorted by identity, one
 * batch, fresh buffers.
 *
 * Two tables with the same records in any order and any chunking give
 * identical results (and therefore identical IPC bytes). A duplicate identity
 * is `GF_VALIDATION` (`participant.identity_unique`); a foreign schema
 * `GF_SCHEMA_MISMATCH`.
 */
export function canonicalizeParticipant(family: RecordFamily, table: Table): Table {
  assertFamilySchema(family, table);
  const cols = columnsOf(family, table);
  const cmp = identityComparator(family, cols);
  const n = cols.rowCount;
  const order = sortedOrder(cols, cmp);
  for (let i = 1; i < n; i++) {
    if (cmp(order[i - 1] as number, order[i] as number) === 0) {
      throw new GfError('GF_VALIDATION', 'two records share one identity', {
        rule: 'participant.identity_unique',
        record_family_id: family.recordFamilyId,
        row: order[i] as number,
      });
    }
  }
  const columns = family.fields.map((spec) => {
    const vector = table.getChild(spec.name) as Vector;
    if (!spec.nullable) {
      const row = firstNullRow(vector);
      if (row >= 0) {
        throw new GfError('GF_VALIDATION', 'a required field is null', {
          rule: 'participant.required_field',
          record_family_id: family.recordFamilyId,
          row,
          field: spec.name,
        });
      }
    }
    const fast = gatherColumn(vector, spec, order);
    if (fast !== undefined) return fast;
    const src = cols.col(spec.name);
    return buildColumn(
      spec,
      order.map((i) => src[i] ?? null),
    );
  });
  return tableOfColumns(family.schema, columns, n);
}
