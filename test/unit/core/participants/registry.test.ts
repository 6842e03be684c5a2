import { readFileSync } from 'node:fs';
import { Schema, Type, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { DataType, FixedSizeBinary, Timestamp } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { GRAPHFORGE_DOMAINS, isDomainTag, schemaFingerprint } from '../../../../core/canonical';
import {
  FAMILY_METADATA_KEY,
  IDENTITY_METADATA_KEY,
  RECORD_FAMILIES,
  REGISTERED_CAPABILITIES,
  SCOPES,
  WORKSPACE_RESTORATION_TRANSITION,
  defineFamily,
  familiesInScope,
  familyKey,
  findFamily,
  tableFromRecords,
} from '../../../../core/participants';

const contract = JSON.parse(readFileSync(new URL('../../../fixtures/checkpoint-api-v1.json', import.meta.url), 'utf8')) as {
  restoration_transition: { capability_id: string; capability_version: number; record_family_id: string; record_version: number };
  schemas: Record<string, { fields: [string, string, boolean][] }>;
};

function contractTypeName(t: DataType): string {
  switch (t.typeId) {
    case Type.FixedSizeBinary:
      return `FixedSizeBinary(${(t as FixedSizeBinary).byteWidth})`;
    case Type.Utf8:
      return 'Utf8';
    case Type.Timestamp:
      return `Timestamp(Microsecond, ${(t as Timestamp).timezone})`;
    case Type.Int:
      return String(t) === 'Uint32' ? 'UInt32' : String(t);
    default:
      return String(t);
  }
}

describe('record family registry', () => {
  it('covers every scope and keeps keys, family ids and paths unique', () => {
    for (const scope of SCOPES) expect(familiesInScope(scope).length, scope).toBeGreaterThan(0);
    const keys = RECORD_FAMILIES.map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    // The record diff sorts by (scope, record_family_id) without the capability: family ids are unique.
    expect(new Set(RECORD_FAMILIES.map((f) => f.recordFamilyId)).size).toBe(RECORD_FAMILIES.length);
    for (const f of RECORD_FAMILIES) {
      expect(f.key).toBe(familyKey(f.capabilityId, f.recordFamilyId));
      expect(f.relativePath).toBe(`${f.capabilityId}/${f.recordFamilyId}.${f.encoding}`);
      expect(f.relativePath).toMatch(/^[a-z0-9_]+\/[a-z0-9_]+\.(arrow|json)$/);
      expect(findFamily(f.capabilityId, f.recordFamilyId)).toBe(f);
    }
    expect(findFamily('graph', 'nope')).toBeUndefined();
    expect(familiesInScope('ontology').map((f) => [f.key, f.encoding])).toEqual([['workspace/ontology', 'json']]);
    expect(familiesInScope('configuration').map((f) => [f.key, f.encoding])).toEqual([['workspace/configuration', 'json']]);
  });

  it('is ordered by scope, capability id and family id (the summary diff order)', () => {
    const order = RECORD_FAMILIES.map((f) => [SCOPES.indexOf(f.scope), f.capabilityId, f.recordFamilyId] as const);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]));
    expect(order).toEqual(sorted);
  });

  it('declares non-empty, non-nullable identities and a uuid record_uuid only where identity is one uuid', () => {
    for (const f of RECORD_FAMILIES) {
      expect(f.identityFields.length).toBeGreaterThan(0);
      for (const name of f.identityFields) expect(f.field(name)?.nullable, `${f.key}.${name}`).toBe(false);
      if (f.recordUuidField !== null) {
        expect(f.field(f.recordUuidField)?.kind).toBe('uuid');
        expect(f.identityFields).toEqual([f.recordUuidField]);
      }
      expect(f.schema.metadata.get(IDENTITY_METADATA_KEY)).toBe(f.identityFields.join(','));
      expect(f.schema.metadata.get(FAMILY_METADATA_KEY)).toBe(`${f.key}@${f.recordVersion}`);
    }
    const composite = RECORD_FAMILIES.filter((f) => f.recordUuidField === null).map((f) => f.key);
    expect(composite).toContain('graph/edge');
    expect(composite).toContain('knowledge/evidence_link');
  });

  it('uses contract fingerprint domains where they fit and distinct project domains otherwise', () => {
    const expected: Record<string, string> = {
      'knowledge/assertion': 'graphforge/assertion',
      'knowledge/evidence_link': 'graphforge/evidence-link',
      'knowledge/confidence_assessment': 'graphforge/confidence-assessment',
      'provenance/event': 'graphforge/provenance-event',
      'provenance/lineage': 'graphforge/lineage',
    };
    const all = new Set<string>();
    for (const f of RECORD_FAMILIES) {
      expect(isDomainTag(f.fingerprintDomain)).toBe(true);
      expect(isDomainTag(f.identityFingerprintDomain)).toBe(true);
      if (expected[f.key] !== undefined) expect(f.fingerprintDomain).toBe(expected[f.key]);
      else expect((GRAPHFORGE_DOMAINS as readonly string[]).includes(f.fingerprintDomain)).toBe(false);
      all.add(f.fingerprintDomain);
      all.add(f.identityFingerprintDomain);
    }
    expect(all.size).toBe(2 * RECORD_FAMILIES.length);
  });

  it('gives every family a stable schema fingerprint, distinct from every other family', () => {
    const prints = RECORD_FAMILIES.map((f) => f.schemaFingerprint);
    for (const p of prints) expect(p).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(prints).size).toBe(prints.length);
    for (const f of RECORD_FAMILIES) {
      // Memoized, equal to a fresh computation, and unchanged by an IPC round trip of the schema.
      expect(f.schemaFingerprint).toBe(prints[RECORD_FAMILIES.indexOf(f)]);
      expect(schemaFingerprint(new Schema(f.schema.fields, new Map(f.schema.metadata)))).toBe(f.schemaFingerprint);
      const decoded = tableFromIPC(tableToIPC(tableFromRecords(f, []), 'file'));
      expect(schemaFingerprint(decoded.schema)).toBe(f.schemaFingerprint);
    }
  });

  it('changes the fingerprint when an enum value, a nullability or the version changes', () => {
    const base = {
      capabilityId: 'probe',
      capabilityVersion: 1,
      recordFamilyId: 'probe',
      recordVersion: 1,
      scope: 'graph',
      encoding: 'arrow',
      description: 'probe',
      fields: [
        { name: 'id', kind: 'uuid', nullable: false },
        { name: 'state', kind: 'utf8', nullable: false, enumValues: ['a', 'b'] },
      ],
      identityFields: ['id'],
      recordUuidField: 'id',
    } as const;
    const a = defineFamily(base).schemaFingerprint;
    expect(defineFamily(base).schemaFingerprint).toBe(a);
    const enumChanged = defineFamily({
      ...base,
      fields: [base.fields[0], { name: 'state', kind: 'utf8', nullable: false, enumValues: ['a', 'b', 'c'] }],
    });
    const nullChanged = defineFamily({
      ...base,
      fields: [base.fields[0], { name: 'state', kind: 'utf8', nullable: true, enumValues: ['a', 'b'] }],
    });
    const versionChanged = defineFamily({ ...base, recordVersion: 2 });
    expect(new Set([a, enumChanged.schemaFingerprint, nullChanged.schemaFingerprint, versionChanged.schemaFingerprint]).size).toBe(4);
  });

  it('rejects inconsistent declarations as bugs', () => {
    const base = {
      capabilityId: 'probe',
      capabilityVersion: 1,
      recordFamilyId: 'probe',
      recordVersion: 1,
      scope: 'graph',
      encoding: 'arrow',
      description: 'probe',
      fields: [{ name: 'id', kind: 'uuid', nullable: true }],
      identityFields: ['id'],
      recordUuidField: 'id',
    } as const;
    expect(() => defineFamily(base)).toThrow(/invariant/);
    expect(() => defineFamily({ ...base, fields: [{ name: 'id', kind: 'uuid', nullable: false }], identityFields: [] })).toThrow(/invariant/);
    expect(() => defineFamily({ ...base, fields: [{ name: 'id', kind: 'utf8', nullable: false }] })).toThrow(/invariant/);
  });

  it('keeps restoration_transition@1 exactly as the checkpoint contract declares it (stored as Arrow IPC)', () => {
    const f = WORKSPACE_RESTORATION_TRANSITION;
    const c = contract.restoration_transition;
    expect([f.capabilityId, f.capabilityVersion, f.recordFamilyId, f.recordVersion]).toEqual([
      c.capability_id,
      c.capability_version,
      c.record_family_id,
      c.record_version,
    ]);
    expect(f.encoding).toBe('arrow');
    expect(f.relativePath).toBe('workspace/restoration_transition.arrow');
    const fields = f.schema.fields.map((x) => [x.name, contractTypeName(x.type), x.nullable]);
    expect(fields).toEqual(contract.schemas['restoration_transition@1']?.fields);
  });

  it('lists the registered capabilities sorted by id, one version each', () => {
    const ids = REGISTERED_CAPABILITIES.map((c) => c.capabilityId);
    expect(ids).toEqual([...new Set(RECORD_FAMILIES.map((f) => f.capabilityId))].sort());
    for (const c of REGISTERED_CAPABILITIES) {
      for (const f of RECORD_FAMILIES.filter((x) => x.capabilityId === c.capabilityId)) {
        expect(f.capabilityVersion).toBe(c.capabilityVersion);
      }
    }
  });
});
