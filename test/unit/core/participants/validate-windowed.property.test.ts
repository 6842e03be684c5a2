import { Table } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGfError } from '../../../../core/errors';
import { RECORD_FAMILIES, SNAPSHOT_RULES, participantIssues, snapshotColumns, tableFromRecords, validateSnapshot } from '../../../../core/participants';
import type { FieldSpec, RecordFamily } from '../../../../core/participants';
import { digest, sampleRecords, snapshotOf, u } from './sample-workspace';
import type { Rec } from './sample-workspace';
import { wholeColumnIssues, wholeColumnReference } from './whole-column-validator';
import type { IssueTuple } from './whole-column-validator';

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
const familyInput = fc.record({ copies: fc.integer({ min: 0, max: 3 }), mutations: fc.array(mutation, { maxLength: 6 }), split: fc.nat() });

/** The family's sample rows, repeated, with cells replaced; as a table of two record batches (a window may cross them). */
function mutatedTable(family: RecordFamily, input: { copies: number; mutations: { row: number; field: number; pick: number }[]; split: number }): Table {
  const sample = sampleRecords()[family.key] ?? [];
  const rows: Rec[] = [];
  for (let c = 0; c < input.copies; c++) rows.push(...sample.map((r) => ({ ...r })));
  for (const m of input.mutations) {
    if (rows.length === 0) break;
    const spec = family.fields[m.field % family.fields.length] as FieldSpec;
    const values = pool(spec);
    (rows[m.row % rows.length] as Rec)[spec.name] = values[m.pick % values.length];
  }
  const table = tableFromRecords(family, rows);
  const at = table.numRows === 0 ? 0 : input.split % (table.numRows + 1);
  return new Table([...table.slice(0, at).batches, ...table.slice(at).batches]);
}

function outcome<T>(fn: () => T): T | { error: string; details: unknown } {
  try {
    return fn();
  } catch (e) {
    if (!isGfError(e)) throw e;
    return { error: e.code, details: e.details };
  }
}

const tuples = (issues: readonly { rule: string; row: number; field?: string }[]): IssueTuple[] =>
  issues.map((i) => (i.field === undefined ? [i.rule, i.row] : [i.rule, i.row, i.field]));

const ALL_REFS = RECORD_FAMILIES.flatMap((f) => f.references.map((ref) => ({ subject: f.key, ref })));

describe('windowed validation agrees with whole-column validation', () => {
  it('domain rules: the same issues, in the same order, at any window size and batch split', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RECORD_FAMILIES), familyInput, fc.integer({ min: 1, max: 4 }), (family, input, windowRows) => {
        const table = mutatedTable(family, input);
        const expected = outcome(() => wholeColumnIssues(family, table));
        expect(outcome(() => tuples(participantIssues(family, table, 10_000, windowRows)))).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('cross-domain rules: every reference yields the same violations (bytes vs UUID strings); the first snapshot error is the same', () => {
    const inputs = fc.tuple(...RECORD_FAMILIES.map(() => familyInput));
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 3 }), (perFamily, windowRows) => {
        const tables = new Map(RECORD_FAMILIES.map((f, i) => [f.key, mutatedTable(f, perFamily[i] as Parameters<typeof mutatedTable>[1])] as const));
        const windowed = snapshotColumns(snapshotOf(tables), windowRows).view;
        const whole = snapshotColumns(snapshotOf(tables)).view;
        ALL_REFS.forEach(({ subject, ref }, i) => {
          const rule = SNAPSHOT_RULES[i];
          expect(rule?.id).toBe(ref.rule);
          const got = outcome(() => [...(rule?.check(windowed) ?? [])].map((v) => [ref.rule, v.row, v.field] as IssueTuple));
          expect(got).toEqual(outcome(() => wholeColumnReference(subject, ref, whole)));
        });
        expect(outcome(() => validateSnapshot(snapshotOf(tables), { windowRows }))).toEqual(outcome(() => validateSnapshot(snapshotOf(tables), { windowRows: 1 << 30 })));
      }),
      { numRuns: 40 },
    );
  });
});
