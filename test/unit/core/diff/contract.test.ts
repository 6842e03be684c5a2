import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FixedSizeBinary, Uint64, Utf8 } from 'apache-arrow';
import type { Field, Schema, Table } from 'apache-arrow';
import { CURRENT_ENDPOINT_DOMAIN, DIFF_ADAPTER_CONTRACT, DIFF_API_VERSION, DIFF_PAGE_LIMITS, DIFF_SCOPES, RECORD_CHANGE_KINDS, RECORD_DIFF_SCHEMA, RECORD_DIFF_SORT, SUMMARY_CHANGE_KINDS, SUMMARY_DIFF_SCHEMA, SUMMARY_DIFF_SORT } from '../../../../core/diff/arrow-schemas';
import { diffEndpoints } from '../../../../core/diff/page-diff';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import { validateRequest } from '../../../../core/api/dispatcher';
import { sampleRecords } from '../participants/sample-workspace';
import { GfError } from '../../../../core/errors';
import { RECORD_FAMILIES } from '../../../../core/participants';
import { SECRET, endpoint, fam, stored, uuidOf, workspace, type StoredParticipant } from './diff-support';

const CONTRACT = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/checkpoint-api-v1.json', import.meta.url)), 'utf8')) as {
  contract: string;
  record_diff_adapter: Record<string, unknown>;
  limits: Record<string, number>;
  scopes: string[];
  operations: Record<string, { request: string[]; result_schemas?: string[] }>;
  schemas: Record<string, { sort: string[]; fields: [string, string, boolean][] }>;
};

/** The contract's type spelling of an Arrow field type (enumerated Utf8 spelled as the contract does). */
function spelling(f: Field): string {
  const t = f.type;
  if (t instanceof FixedSizeBinary) return `FixedSizeBinary(${t.byteWidth})`;
  if (t instanceof Uint64) return 'UInt64';
  if (t instanceof Utf8) return 'Utf8';
  return String(t);
}

/** `Utf8(a|b)` is a Utf8 column with an enumerated value set. */
function baseType(type: string): string {
  return type.startsWith('Utf8') ? 'Utf8' : type;
}

function enumOf(type: string): string[] | null {
  const m = /^Utf8\((.*)\)$/.exec(type);
  return m === null ? null : (m[1] as string).split('|');
}

function checkSchema(name: string, schema: Schema, sort: readonly string[], kinds: readonly string[]): void {
  const c = CONTRACT.schemas[name];
  expect(c).toBeDefined();
  expect(schema.fields.map((f) => f.name)).toEqual(c!.fields.map((f) => f[0]));
  schema.fields.forEach((f, k) => {
    const [, type, nullable] = c!.fields[k] as [string, string, boolean];
    expect(spelling(f)).toBe(baseType(type));
    expect(f.nullable).toBe(nullable);
    const e = enumOf(type);
    if (e !== null) expect([...kinds].sort()).toEqual([...e].sort());
  });
  expect([...sort]).toEqual(c!.sort);
}

function isSorted(t: Table, keys: readonly string[]): boolean {
  const rows = t.toArray().map((r) => r.toJSON() as Record<string, unknown>);
  const bytes = (v: unknown): Buffer => (v === null ? Buffer.alloc(0) : v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v), 'utf8'));
  for (let i = 1; i < rows.length; i++) {
    let c = 0;
    for (const k of keys) {
      const a = (rows[i - 1] as Record<string, unknown>)[k];
      const b = (rows[i] as Record<string, unknown>)[k];
      if (a === null && b !== null) c = -1;
      else if (a !== null && b === null) c = 1;
      else c = Buffer.compare(bytes(a), bytes(b));
      if (c !== 0) break;
    }
    if (c >= 0) return false;
  }
  return true;
}

describe('diff result schemas and constants match checkpoint-api-v1.json', () => {
  it('checkpoint_summary_diff@1: names, types, nullability, sort, enum spellings', () => {
    checkSchema('checkpoint_summary_diff@1', SUMMARY_DIFF_SCHEMA, SUMMARY_DIFF_SORT, SUMMARY_CHANGE_KINDS);
  });

  it('checkpoint_record_diff@1: names, types, nullability, sort, enum spellings', () => {
    checkSchema('checkpoint_record_diff@1', RECORD_DIFF_SCHEMA, RECORD_DIFF_SORT, RECORD_CHANGE_KINDS);
  });

  it('limits, scopes and the adapter contract id', () => {
    expect(DIFF_API_VERSION).toBe(CONTRACT.contract);
    expect(DIFF_PAGE_LIMITS.max).toBe(CONTRACT.limits.diff_page_max);
    expect(DIFF_PAGE_LIMITS.default).toBe(CONTRACT.limits.diff_page_default);
    expect([...DIFF_SCOPES]).toEqual(CONTRACT.scopes);
    expect(CONTRACT.record_diff_adapter.contract).toBe(DIFF_ADAPTER_CONTRACT);
    expect(CONTRACT.record_diff_adapter.current_endpoint_uuid_domain).toBe(CURRENT_ENDPOINT_DOMAIN);
  });

  it("diff_checkpoints request fields: the engine reads each of scope/detail/limit/after, binds from/to, and honours cancellation", () => {
    const request = CONTRACT.operations.diff_checkpoints!.request;
    // The fixture's own fields, each refused by the engine by name when its value is bad.
    const bad: Record<string, Record<string, unknown>> = {
      scope: { scope: 'nope', detail: 'summary' },
      detail: { scope: 'all', detail: 'nope' },
      limit: { scope: 'all', detail: 'summary', limit: DIFF_PAGE_LIMITS.max + 1 },
      after: { scope: 'all', detail: 'summary', after: 7 },
    };
    // Refused where every surface parses a request: the dispatcher's contract check (the engine takes parsed requests).
    const around = { project: '00000000-0000-4000-8000-000000000001', from: 'a', to: 'b' };
    for (const field of request.filter((f) => f in bad)) {
      let err: unknown;
      try {
        validateRequest('checkpoints.diff', { ...around, ...bad[field]! });
      } catch (e) {
        err = e;
      }
      expect(err, field).toBeInstanceOf(GfError);
      // A page token that cannot be one is a bad page on every surface (the dispatcher's rule for `after`).
      expect((err as GfError).code, field).toBe(field === 'after' ? 'GF_PAGE_INVALID' : 'GF_VALIDATION');
      if (field !== 'after') expect((err as GfError).details['field'], field).toBe(field);
    }
    expect(request.filter((f) => f in bad).sort()).toEqual(Object.keys(bad).sort());
    // A request with exactly the fixture's engine fields is accepted as given.
    expect(resolveDiffParams({ scope: 'all', detail: 'records', limit: 3, after: null })).toMatchObject({ scope: 'all', detail: 'records', limit: 3, after: null });
    const from = endpoint(uuidOf('f'), workspace(sampleRecords()));
    // The other side keeps only the mandatory one-document families (a generation always holds its documents); every other record is removed.
    const documents = Object.fromEntries(Object.entries(sampleRecords()).filter(([key]) => fam(key).documentFields !== undefined));
    const to = endpoint(uuidOf('t'), workspace(documents));
    const params = resolveDiffParams({ scope: 'all', detail: 'records', limit: 2 });
    // from/to: page tokens are bound to the selectors, so a token of one pair is refused by another.
    expect(request).toEqual(expect.arrayContaining(['from', 'to', 'cancellation']));
    const page = diffEndpoints(from, to, params, { selectorsSha256: selectorsDigest('a', 'b') }, { secret: SECRET });
    expect(page.nextPageToken).not.toBeNull();
    const next = resolveDiffParams({ scope: 'all', detail: 'records', limit: 2, after: page.nextPageToken });
    expect(() => diffEndpoints(from, to, next, { selectorsSha256: selectorsDigest('a', 'c') }, { secret: SECRET })).toThrow(expect.objectContaining({ code: 'GF_PAGE_INVALID' }));
    // cancellation: an aborted signal stops the diff with GF_CANCELLED and no table.
    const ac = new AbortController();
    ac.abort();
    expect(() => diffEndpoints(from, to, params, { selectorsSha256: selectorsDigest('a', 'b'), signal: ac.signal }, { secret: SECRET })).toThrow(expect.objectContaining({ code: 'GF_CANCELLED' }));
  });

  it('record_diff_adapter: an unregistered participant fails with the contract code, and is never diffed by physical bytes', () => {
    expect(CONTRACT.record_diff_adapter.physical_byte_fallback).toBe(false);
    const base = workspace(sampleRecords());
    const mystery = (bytes: Uint8Array): StoredParticipant => stored(RECORD_FAMILIES[0]!, bytes, { recordFamilyId: 'mystery' });
    const from = endpoint(uuidOf('f'), [...base, mystery(new Uint8Array([1, 2, 3]))]);
    const to = endpoint(uuidOf('t'), [...base, mystery(new Uint8Array([1, 2, 4]))]);
    const binding = { selectorsSha256: selectorsDigest('a', 'b') };
    for (const detail of ['summary', 'records'] as const) {
      let err: unknown;
      let table: unknown;
      try {
        table = diffEndpoints(from, to, resolveDiffParams({ scope: 'all', detail }), binding, { secret: SECRET }).table;
      } catch (e) {
        err = e;
      }
      expect(table, detail).toBeUndefined();
      expect((err as GfError).code, detail).toBe(CONTRACT.record_diff_adapter.unregistered_participant);
      expect((err as GfError).details['problem'], detail).toBe('unregistered');
    }
  });

  it('produced tables carry exactly these schemas and are sorted by the contract keys', () => {
    const base = sampleRecords();
    const next = structuredClone(base) as Record<string, Record<string, unknown>[]>;
    // Every record list loses a row, except the one-document families (a document keeps exactly its fields).
    for (const [key, recs] of Object.entries(next)) if (fam(key).documentFields === undefined) recs.pop();
    const from = endpoint(uuidOf('f'), workspace(base));
    const to = endpoint(uuidOf('t'), workspace(next));
    const binding = { selectorsSha256: selectorsDigest('a', 'b') };
    const summaryPage = diffEndpoints(from, to, resolveDiffParams({ scope: 'all', detail: 'summary' }), binding, { secret: SECRET });
    const recordsPage = diffEndpoints(from, to, resolveDiffParams({ scope: 'all', detail: 'records', limit: 10_000 }), binding, { secret: SECRET });
    const summary = summaryPage.table;
    const records = recordsPage.table;
    // The two result schemas diff_checkpoints declares, in order: summary detail, then record detail.
    const [summaryName, recordName] = CONTRACT.operations.diff_checkpoints!.result_schemas!;
    expect([summaryPage.schema, recordsPage.schema]).toEqual([summaryName, recordName]);
    expect(summary.schema.fields.map((f) => [f.name, spelling(f), f.nullable])).toEqual(CONTRACT.schemas[summaryName!]!.fields.map(([n, t, z]) => [n, baseType(t), z]));
    expect(records.schema.fields.map((f) => [f.name, spelling(f), f.nullable])).toEqual(CONTRACT.schemas[recordName!]!.fields.map(([n, t, z]) => [n, baseType(t), z]));
    expect(summary.numRows).toBeGreaterThan(5);
    expect(records.numRows).toBeGreaterThan(5);
    expect(new Set(records.getChild('scope')!.toArray() as string[]).size).toBeGreaterThan(3);
    expect(isSorted(summary, SUMMARY_DIFF_SORT)).toBe(true);
    expect(isSorted(records, RECORD_DIFF_SORT)).toBe(true);
  });
});
