import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../../core/contract/operations';
import { resolveFamily } from '../../../../core/diff/plan-request';
import { RECORD_FAMILIES } from '../../../../core/participants/index';
import { formatRoute, parseRoute } from '../../../../renderer/routes';
import { middleTruncate } from '../../../../renderer/screens/diff-screen';
import { filterParams, filterRequest, filteredTotal, linkedFilter, linkedPair, pairParams } from '../../../../renderer/screens/diff-link';
import { fieldLines, recordDiffRequest } from '../../../../renderer/screens/diff-record';

const OP = '00000000-0000-4000-8000-000000000001';
const PROJECT = '00000000-0000-4000-8000-000000000002';

describe('diff screen: every family of the registry opens', () => {
  it('the record-diff request of each family (scope from its declared scope) passes the contract and the engine\'s family filter', () => {
    expect(RECORD_FAMILIES.some((f) => f.recordFamilyId === 'restoration_transition' && f.scope === 'workspace')).toBe(true);
    for (const f of RECORD_FAMILIES) {
      const request = recordDiffRequest(
        { project: PROJECT, from: 'Release 1.0', to: 'CURRENT', family: { scope: f.scope, capability_id: f.capabilityId, record_family_id: f.recordFamilyId } },
        { limit: 500, after: null, operation_id: OP },
      );
      const parsed = OPERATIONS['checkpoints.diff'].request.safeParse(request);
      expect(parsed.success, `${f.capabilityId}/${f.recordFamilyId}`).toBe(true);
      expect(resolveFamily(request)).toEqual({ capabilityId: f.capabilityId, recordFamilyId: f.recordFamilyId });
    }
  });

});

describe('diff screen: the engine-side filter', () => {
  const stat = { added: 4003, removed: 12, modified: 796, changed_cells: [{ field: 'label', records: 312 }, { field: 'updated_at', records: 796 }] };
  it('the total of a filter comes from the exact statistics (a search has none until the engine walked it)', () => {
    expect(filteredTotal(stat, { kinds: ['added', 'modified', 'removed'], field: null, search: null })).toBe(4811);
    expect(filteredTotal(stat, { kinds: ['modified'], field: null, search: null })).toBe(796);
    expect(filteredTotal(stat, { kinds: ['added', 'modified'], field: 'label', search: null })).toBe(312);
    expect(filteredTotal(stat, { kinds: ['added'], field: 'label', search: null })).toBe(0);
    expect(filteredTotal(stat, { kinds: ['modified'], field: null, search: 'Author' })).toBeNull();
  });
  it('the request carries the filter; the whole list carries none', () => {
    expect(filterRequest({ kinds: ['added', 'modified', 'removed'], field: null, search: null })).toEqual({});
    expect(filterRequest({ kinds: ['modified'], field: 'label', search: 'Author 9' })).toEqual({ change_kinds: ['modified'], changed_field: 'label', search: 'Author 9' });
  });
});

describe('diff screen: a record change as field lines', () => {
  it('a modified record: every field of either side in order, exactly the engine\'s changed fields marked, timestamps with microseconds', () => {
    const lines = fieldLines({
      change_kind: 'modified',
      from: { node_uuid: 'u', label: 'A', created_at: '1767225600000004', gone: 1 },
      to: { node_uuid: 'u', label: 'B', created_at: '1767225600000004', extra: true },
      changed_fields: ['label'],
      timestamp_fields: ['created_at'],
    });
    expect(lines).toEqual([
      { field: 'node_uuid', before: 'u', after: 'u', changed: false },
      { field: 'label', before: 'A', after: 'B', changed: true },
      { field: 'created_at', before: '2026-01-01T00:00:00.000004Z', after: '2026-01-01T00:00:00.000004Z', changed: false },
      { field: 'gone', before: '1', after: '—', changed: false },
      { field: 'extra', before: '—', after: 'true', changed: false },
    ]);
  });
  it('an added record shows its fields on the after side, none marked changed', () => {
    const lines = fieldLines({ change_kind: 'added', from: null, to: { key: 'k', value: null }, changed_fields: ['key', 'value'], timestamp_fields: [] });
    expect(lines).toEqual([
      { field: 'key', before: '—', after: 'k', changed: false },
      { field: 'value', before: '—', after: '—', changed: false },
    ]);
  });
  it('long ids keep both ends', () => {
    expect(middleTruncate('a'.repeat(10) + 'b'.repeat(44) + 'c'.repeat(10), 8)).toBe('aaaaaaaa…cccccccc');
    expect(middleTruncate('short', 8)).toBe('short');
  });
});

describe('diff screen: the link holds the compared pair, the family, its filter and position', () => {
  it('a pair, a family, a filter and a position survive link → hash → link', () => {
    const pair = { from: 'Before curation', to: 'CURRENT', scope: 'graph' } as const;
    const filter = { kinds: ['added', 'modified'] as const, field: 'label', search: 'node-1' };
    const hash = formatRoute({ screen: 'diff', params: { ...pairParams(pair), family: 'graph/node', ...Object.fromEntries(Object.entries(filterParams(filter, 1000)).filter(([, v]) => v !== null)) } });
    const params = parseRoute(hash)?.params ?? {};
    expect(linkedPair(params)).toEqual(pair);
    expect(params['family']).toBe('graph/node');
    expect(linkedFilter(params)).toEqual({ filter: { kinds: ['added', 'modified'], field: 'label', search: 'node-1' }, position: 1000 });
  });

  it('defaults stay out of the link; a link without both endpoints names no pair; garbled filter values fall back to the whole list', () => {
    expect(pairParams({ from: 'a', to: 'b', scope: 'all' })).toEqual({ from: 'a', to: 'b' });
    expect(filterParams({ kinds: ['added', 'removed', 'modified'], field: null, search: null }, 0)).toEqual({ kinds: null, field: null, q: null, row: null });
    expect(linkedPair({ from: 'a' })).toBeNull();
    expect(linkedPair({ from: 'a', to: 'CURRENT', scope: 'nonsense' })).toEqual({ from: 'a', to: 'CURRENT', scope: 'all' });
    expect(linkedFilter({ kinds: 'bogus', row: '-3' })).toEqual({ filter: { kinds: ['added', 'modified', 'removed'], field: null, search: null }, position: 0 });
  });
});
