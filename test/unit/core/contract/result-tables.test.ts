// The contract's result tables are declared once (core/contract/tables.ts):
// the engine's Arrow schemas come from the declarations, the one decoder
// refuses a table whose names, kinds or nullability differ, its rows carry
// the declared value types on every surface, and one CSV writer serves the
// CLI and the app's exports.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Field, FixedSizeBinary, Schema, Timestamp, Uint32, Uint64, Utf8, makeData, tableToIPC, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeResult, kindOfArrowType } from '../../../../core/contract/arrow-decode';
import { csvText } from '../../../../core/contract/csv';
import { resultFields, arrowTypeOfKind } from '../../../../core/contract/result-schemas';
import { RESULT_COLUMN_KINDS, RESULT_TABLES, type ArrowSchemaName } from '../../../../core/contract/tables';
import { receiptTable, toIpc } from '../../../../core/checkpoints/arrow-results';
import { RECORD_DIFF_DISPLAY_SCHEMA, RECORD_DIFF_SCHEMA, RECORD_DIFF_VALUES_SCHEMA, SUMMARY_DIFF_SCHEMA } from '../../../../core/diff/arrow-schemas';
import { graphElementTable } from '../../../../core/graph/element-table';
import { tableOfColumns } from '../../../../core/participants/columns';
import { decodeArrow } from '../../../../renderer/arrow-rows';
import { hasCode } from '../../../../core/errors';

const UUID = '018f0f4e-7b8c-7000-8000-0000000000aa';
const GEN = '4084179c-38db-8b6b-9b6e-c0b0a855e002';
const RECEIPT = {
  operation: 'revert',
  operation_uuid: UUID,
  checkpoint_uuid: UUID,
  name: 'before import',
  source_generation_uuid: GEN,
  prior_current_generation_uuid: null,
  result_generation_uuid: GEN,
  registry_revision: 42,
  committed_at: 1_767_225_600_123_456,
} as const;

const fieldView = (fields: readonly Field[]) => fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));

describe('the contract declares each result table once', () => {
  it('every kind maps to one Arrow type and back', () => {
    for (const kind of RESULT_COLUMN_KINDS) expect(kindOfArrowType(arrowTypeOfKind(kind))).toBe(kind);
  });

  it('every table the frozen contract (checkpoint-api-v1.json) names is declared with its names, types and nullability, in order', () => {
    const contract = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/checkpoint-api-v1.json', import.meta.url)), 'utf8')) as { schemas: Record<string, { fields: [string, string, boolean][] }> };
    const named = Object.keys(contract.schemas).filter((n): n is ArrowSchemaName => n in RESULT_TABLES);
    expect(named).toEqual(['checkpoint@1', 'checkpoint_receipt@1', 'checkpoint_summary_diff@1', 'checkpoint_record_diff@1']);
    const spelling = (f: Field): string => (f.type instanceof FixedSizeBinary ? `FixedSizeBinary(${f.type.byteWidth})` : f.type instanceof Uint64 ? 'UInt64' : f.type instanceof Utf8 ? 'Utf8' : f.type instanceof Timestamp ? `Timestamp(Microsecond, ${f.type.timezone ?? ''})` : String(f.type));
    for (const name of named) {
      const frozen = contract.schemas[name]!.fields.map(([n, t, z]) => [n, t.startsWith('Utf8') ? 'Utf8' : t, z]);
      expect(resultFields(name).map((f) => [f.name, spelling(f), f.nullable])).toEqual(frozen);
    }
  });

  it("the diff engine's schemas are the declarations' (names, types, nullability, in order)", () => {
    const pairs: readonly [Schema, ArrowSchemaName][] = [
      [SUMMARY_DIFF_SCHEMA, 'checkpoint_summary_diff@1'],
      [RECORD_DIFF_SCHEMA, 'checkpoint_record_diff@1'],
      [RECORD_DIFF_DISPLAY_SCHEMA, 'checkpoint_record_diff_display@1'],
      [RECORD_DIFF_VALUES_SCHEMA, 'checkpoint_record_diff_values@1'],
    ];
    for (const [schema, name] of pairs) {
      expect(fieldView(schema.fields)).toEqual(RESULT_TABLES[name].map((c) => ({ name: c.name, type: String(arrowTypeOfKind(c.kind)), nullable: c.nullable })));
    }
  });

  it('a receipt decodes with its declared value types: the revision a number, times ISO text, a missing UUID null', () => {
    const page = decodeResult(toIpc(receiptTable(RECEIPT as never)), 'checkpoints.revert');
    expect(page.schema).toBe('checkpoint_receipt@1');
    const row = page.rows[0]!;
    expect(row.registry_revision).toBe(42);
    expect(row.committed_at).toBe('2026-01-01T00:00:00.123456Z');
    expect(row.prior_current_generation_uuid).toBeNull();
    expect(row.result_generation_uuid).toBe(GEN);
    // The renderer reads the same row through the same decoder.
    expect(decodeArrow(toIpc(receiptTable(RECEIPT as never)), 'checkpoints.revert').rows[0]).toEqual(row);
  });

  it('graph pages carry their counts as numbers (depth, row number, totals)', () => {
    const t = graphElementTable([{ element: 'node', node_uuid: UUID, label: 'Ada', class_id: 'person', depth: 2, change_kind: 'modified', changed_fields: 'label', row_number: 7 }], { totalChanges: 12, firstChange: 6 });
    const row = decodeResult(tableToIPC(t, 'stream'), 'graph.diff').rows[0]!;
    expect([row.depth, row.row_number, row.total_changes, row.first_change]).toEqual([2, 7, 12, 6]);
    expect(row.id).toBe(UUID);
  });

  it('a table with the declared names but another kind or nullability is GF_SCHEMA_MISMATCH, not rows read by the wrong type', () => {
    const wrongKind = resultFields('checkpoint_receipt@1').map((f) => (f.name === 'registry_revision' ? new Field(f.name, new Utf8(), false) : f));
    const wrongNull = resultFields('checkpoint_receipt@1').map((f) => (f.name === 'registry_revision' ? new Field(f.name, new Uint64(), true) : f));
    const good = receiptTable(RECEIPT as never);
    for (const fields of [wrongKind, wrongNull]) {
      const columns = fields.map((f, i) => (f.name === 'registry_revision' ? (DataTypeIsUtf8(f) ? vectorFromArray(['42'], new Utf8()).data[0]! : good.getChildAt(i)!.data[0]!) : good.getChildAt(i)!.data[0]!));
      const bytes = tableToIPC(tableOfColumns(new Schema(fields, good.schema.metadata), columns, 1), 'stream');
      expect(() => decodeResult(bytes, 'checkpoints.revert')).toThrow(expect.objectContaining({ code: 'GF_SCHEMA_MISMATCH' }));
      let caught: unknown;
      try {
        decodeArrow(bytes, 'checkpoints.revert');
      } catch (e) {
        caught = e;
      }
      expect(hasCode(caught, 'GF_SCHEMA_MISMATCH')).toBe(true);
    }
  });

  it('a 64-bit count beyond 2^53 is refused (GF_INTERNAL), never shown rounded', () => {
    const fields = [new Field('n', new Uint64(), false)];
    const data = makeData({ type: new Uint64(), length: 1, nullCount: 0, data: new BigUint64Array([2n ** 53n + 1n]) });
    const bytes = tableToIPC(tableOfColumns(new Schema(fields), [data], 1), 'stream');
    expect(() => decodeResult(bytes, 'view.records')).toThrow(expect.objectContaining({ code: 'GF_INTERNAL' }));
    const ok = makeData({ type: new Uint32(), length: 1, nullCount: 0, data: new Uint32Array([7]) });
    expect(decodeResult(tableToIPC(tableOfColumns(new Schema([new Field('n', new Uint32(), false)]), [ok], 1), 'stream'), 'view.records').rows[0]).toEqual({ n: 7 });
  });
});

describe('one CSV writer', () => {
  it('quotes commas, quotes and line breaks (quotes doubled), leaves null empty, ends every line', () => {
    const rows = [{ a: 'plain', b: 'x, "y"', c: null }, { a: 'line\nbreak', b: 3, c: true }];
    expect(csvText(['a', 'b', 'c'], rows)).toBe('a,b,c\nplain,"x, ""y""",\n"line\nbreak",3,true\n');
    expect(csvText(['a'], [])).toBe('a\n');
  });
});

function DataTypeIsUtf8(f: Field): boolean {
  return f.type instanceof Utf8;
}
