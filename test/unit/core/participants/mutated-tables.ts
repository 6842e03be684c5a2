// Mutated participants for the validation property tests: sample rows repeated, cells replaced from per-kind pools.
import { Table } from 'apache-arrow';
import fc from 'fast-check';
import { isGfError } from '../../../../core/errors';
import { tableFromRecords } from '../../../../core/participants';
import type { FieldSpec, RecordFamily } from '../../../../core/participants';
import { digest, sampleRecords, u } from './sample-workspace';
import type { Rec } from './sample-workspace';

const T0 = 1_750_000_000_000_000n;
const UUIDS = [1, 2, 3, 4, 101, 102, 201, 202, 401, 402, 403].map(u);
const TEXTS = ['Paper', 'Person', 'cites', 'authored', 'affiliated', 'node', 'event', 'import', 'generated', '', ' ', 'x y', 'A causes B'];

/** Values a mutation may put into a cell of `f` (never null in a required field: encoding refuses that before validation). */
function pool(f: FieldSpec): readonly unknown[] {
  const base: readonly unknown[] =
    f.kind === 'uuid'
      ? UUIDS
      : f.kind === 'digest'
        ? [digest(1), digest(2), digest(3), '0'.repeat(64)]
        : f.kind === 'utf8'
          ? f.enumValues !== undefined
            ? [...f.enumValues, 'bogus']
            : f.json === true
              ? ['{}', '{"year":1}', '{"b":1,"a":2}', 'nope', '[1]']
              : TEXTS
          : f.kind === 'bool'
            ? [true, false]
            : f.kind === 'float64'
              ? [0, 0.5, 1, 2, -1]
              : f.kind === 'timestamp_us'
                ? [T0, T0 + 5n, T0 - 5n]
                : [0, 1, 3];
  return f.nullable ? [...base, null] : base;
}

const mutation = fc.record({ row: fc.nat(), field: fc.nat(), pick: fc.nat() });
export const familyInput = fc.record({ copies: fc.integer({ min: 0, max: 3 }), mutations: fc.array(mutation, { maxLength: 6 }), split: fc.nat() });

/** The family's sample rows, repeated, with cells replaced. */
export function mutatedRecords(family: RecordFamily, input: { copies: number; mutations: { row: number; field: number; pick: number }[] }): Rec[] {
  const sample = sampleRecords()[family.key] ?? [];
  const rows: Rec[] = [];
  for (let c = 0; c < input.copies; c++) rows.push(...sample.map((r) => ({ ...r })));
  for (const m of input.mutations) {
    if (rows.length === 0) break;
    const spec = family.fields[m.field % family.fields.length] as FieldSpec;
    const values = pool(spec);
    (rows[m.row % rows.length] as Rec)[spec.name] = values[m.pick % values.length];
  }
  return rows;
}

/** `mutatedRecords` as a table of two record batches (a window may cross them). */
export function mutatedTable(family: RecordFamily, input: { copies: number; mutations: { row: number; field: number; pick: number }[]; split: number }): Table {
  const table = tableFromRecords(family, mutatedRecords(family, input));
  const at = table.numRows === 0 ? 0 : input.split % (table.numRows + 1);
  return new Table([...table.slice(0, at).batches, ...table.slice(at).batches]);
}

/** What `fn` gives, or its GF_* refusal as `{ error, details }` (anything else is rethrown): outcomes compared across two validation paths. */
export function outcome<T>(fn: () => T): T | { error: string; details: unknown } {
  try {
    return fn();
  } catch (e) {
    if (!isGfError(e)) throw e;
    return { error: e.code, details: e.details };
  }
}
