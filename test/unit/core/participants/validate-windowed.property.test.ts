import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORD_FAMILIES, SNAPSHOT_RULES, participantIssues, snapshotColumns, validateSnapshot } from '../../../../core/participants';
import { familyInput, mutatedTable, outcome } from './mutated-tables';
import { snapshotOf } from './sample-workspace';
import { wholeColumnIssues, wholeColumnReference } from './whole-column-validator';
import type { IssueTuple } from './whole-column-validator';

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
