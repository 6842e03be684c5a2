import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../../core/contract/operations';
import { validateFamilyFilter } from '../../../../core/diff/engine';
import { RECORD_FAMILIES } from '../../../../core/participants/index';
import { fieldLines, filterRequest, filteredTotal, middleTruncate, recordDiffRequest } from '../../../../renderer/screens/diff-screen';

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
      expect(validateFamilyFilter(request)).toEqual({ capabilityId: f.capabilityId, recordFamilyId: f.recordFamilyId });
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
