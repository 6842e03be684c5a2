import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../../core/contract/operations';
import { validateFamilyFilter } from '../../../../core/diff/engine';
import { RECORD_FAMILIES } from '../../../../core/participants/index';
import { familyRequestScope, fieldLines, middleTruncate, recordDiffRequest, summaryHeadline } from '../../../../renderer/screens/diff-screen';

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

  it('a domain scope is sent as itself; workspace bookkeeping and unknown scopes as `all`', () => {
    expect(familyRequestScope('graph')).toBe('graph');
    expect(familyRequestScope('configuration')).toBe('configuration');
    expect(familyRequestScope('workspace')).toBe('all');
    expect(familyRequestScope(null)).toBe('all');
  });
});

describe('diff screen: the summary headline', () => {
  const row = (scope: string, change_kind: string, from: number | null, to: number | null) => ({ scope, change_kind, from_row_count: from === null ? null : String(from), to_row_count: to === null ? null : String(to) });
  it('a revert back to a checkpoint reads as identical content and one restoration record', () => {
    expect(summaryHeadline([row('graph', 'unchanged', 5, 5), row('configuration', 'unchanged', 2, 2), row('workspace', 'modified', 0, 1)])).toBe('content identical; 1 restoration record');
  });
  it('content changes are counted apart from the bookkeeping', () => {
    expect(summaryHeadline([row('graph', 'modified', 5, 6), row('graph', 'unchanged', 2, 2), row('workspace', 'added', null, 2)])).toBe('1 of 2 participants changed; 2 restoration records');
    expect(summaryHeadline([row('graph', 'unchanged', 5, 5)])).toBe('content identical');
    expect(summaryHeadline([row('workspace', 'modified', 3, 1)])).toBe('content identical; 2 restoration records fewer');
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
