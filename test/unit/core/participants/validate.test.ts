import { Data, Schema, Table, RecordBatch, Struct, makeData } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { GfError } from '../../../../core/errors';
import {
  ONTOLOGY_MODEL_RULES,
  RECORD_FAMILIES,
  SETTING_RULES,
  SNAPSHOT_RULES,
  canonicalizeParticipant,
  familyByKey,
  participantIssues,
  recordsFromTable,
  snapshotColumns,
  tableFromRecords,
  validateParticipant,
  validateSnapshot,
} from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { CAPABILITY_SETTINGS, CONFIGURATION_REFUSALS } from '../../../../core/contract/workspace';
import { canonicalJson } from '../../../../core/canonical/index';
import { sampleRecords, sampleTables, snapshotOf, u } from './sample-workspace';
import type { Rec } from './sample-workspace';

function fam(key: string): RecordFamily {
  const f = familyByKey(key);
  if (f === undefined) throw new Error(key);
  return f;
}

function errorOf(fn: () => unknown): GfError {
  try {
    fn();
  } catch (e) {
    return e as GfError;
  }
  throw new Error('expected a GF error');
}

type Mutate = (records: Rec[]) => Rec[];
const at =
  (i: number, patch: Rec): Mutate =>
  (rs) =>
    rs.map((r, j) => (j === i ? { ...r, ...patch } : r));
const add =
  (rec: Rec): Mutate =>
  (rs) => [...rs, rec];

/** [rule id, family key, mutation of that family's valid sample, canonicalize after mutating?] */
const DOMAIN_CASES: readonly [string, string, Mutate, boolean?][] = [
  ['participant.enum_value', 'provenance/event', at(0, { activity: 'teleport' })],
  ['participant.canonical_json', 'graph/node', at(0, { properties: '{"year": 2017}' })],
  ['participant.canonical_json', 'workspace/configuration', at(2, { value: '1.5' })],
  [
    'participant.identity_unique',
    'graph/edge',
    (rs) => {
      const sorted = recordsFromTable(fam('graph/edge'), canonicalTable('graph/edge', rs));
      return [sorted[0] as Rec, { ...sorted[0], weight: 3 }, ...sorted.slice(1)];
    },
  ],
  ['participant.identity_order', 'graph/node', (rs) => rs, false],
  ['graph.node.class_id_format', 'graph/node', at(0, { class_id: '1paper' })],
  ['graph.node.label_nonblank', 'graph/node', at(1, { label: ' \t' })],
  ['graph.node.properties_object', 'graph/node', at(0, { properties: '[1]' })],
  ['graph.node.time_order', 'graph/node', at(0, { updated_at: 1n })],
  ['graph.edge.kind_format', 'graph/edge', at(0, { kind: 'has space' })],
  ['graph.edge.weight_finite', 'graph/edge', at(0, { weight: Number.POSITIVE_INFINITY })],
  // workspace_ontology@1 rows in identity order: canonical_ontology, canonical_ontology_sha256, contract_version, mode, source_format.
  ['workspace.ontology.mode', 'workspace/ontology', at(3, { value: '"lenient"' })],
  ['workspace.ontology.contract_version', 'workspace/ontology', at(2, { value: '2' })],
  ['workspace.ontology.source_format', 'workspace/ontology', at(4, { value: '"xml"' })],
  ['workspace.ontology.absence_explicit', 'workspace/ontology', at(0, { value: 'null' })],
  ['workspace.ontology.digest', 'workspace/ontology', at(1, { value: `"${'0'.repeat(64)}"` })],
  // workspace_configuration@1 rows: capability_configuration, contract_version, embedding_configuration, ontology_mode.
  ['workspace.configuration.contract_version', 'workspace/configuration', at(1, { value: '2' })],
  ['workspace.configuration.ontology_mode', 'workspace/configuration', at(3, { value: '"lenient"' })],
  ['workspace.configuration.secret', 'workspace/configuration', at(2, { value: '{"api_key":"x"}' })],
  ['capabilities.declaration.id_format', 'capabilities/declaration', at(2, { capability_id: 'Embedding!' })],
  ['capabilities.declaration.version_positive', 'capabilities/declaration', at(2, { capability_version: 0 })],
  ['provenance.event.agent_nonblank', 'provenance/event', at(0, { agent: '' })],
  ['provenance.event.time_order', 'provenance/event', at(0, { ended_at: 0n })],
  ['provenance.lineage.not_self', 'provenance/lineage', at(1, { entity_uuid: u(102) })],
  ['knowledge.assertion.predicate_format', 'knowledge/assertion', at(0, { predicate: '' })],
  ['knowledge.assertion.object_exclusive', 'knowledge/assertion', at(0, { object_literal: 'both' })],
  ['knowledge.assertion.object_exclusive', 'knowledge/assertion', at(1, { object_literal: null })],
  ['knowledge.evidence_link.digest_nonzero', 'knowledge/evidence_link', at(0, { evidence_sha256: '0'.repeat(64) })],
  ['knowledge.evidence_link.locator_nonblank', 'knowledge/evidence_link', at(0, { locator: ' ' })],
  ['knowledge.confidence_assessment.confidence_range', 'knowledge/confidence_assessment', at(0, { confidence: 1.5 })],
  ['knowledge.confidence_assessment.confidence_range', 'knowledge/confidence_assessment', at(1, { confidence: -0.01 })],
  ['knowledge.confidence_assessment.confidence_range', 'knowledge/confidence_assessment', at(2, { confidence: Number.NaN })],
  ['epistemic.hypothesis.statement_nonblank', 'epistemic/hypothesis', at(1, { statement: '   ' })],
  ['epistemic.hypothesis.valid_time_order', 'epistemic/hypothesis', at(0, { valid_to: 0n })],
  ['epistemic.supersession.not_self', 'epistemic/supersession', at(0, { superseding_hypothesis_uuid: u(401) })],
  [
    'epistemic.supersession.acyclic',
    'epistemic/supersession',
    add({ superseded_hypothesis_uuid: u(402), superseding_hypothesis_uuid: u(401), recorded_at: 1n }),
  ],
  [
    'workspace.restoration_transition.cardinality',
    'workspace/restoration_transition',
    (rs) => [...rs, { ...rs[0], restoration_uuid: u(599) }],
  ],
  ['workspace.restoration_transition.reason', 'workspace/restoration_transition', at(0, { reason: '' })],
  ['workspace.restoration_transition.reason', 'workspace/restoration_transition', at(0, { reason: ' padded' })],
  ['workspace.restoration_transition.reason', 'workspace/restoration_transition', at(0, { reason: 'é'.repeat(513) })],
  ['workspace.restoration_transition.contract_version', 'workspace/restoration_transition', at(0, { contract_version: 2 })],
  [
    'workspace.restoration_transition.distinct_generations',
    'workspace/restoration_transition',
    at(0, { restored_generation_uuid: u(503) }),
  ],
];

/** [rule id, family key, mutation] applied to one participant of the valid sample snapshot. */
const CONTAINING = 'workspace.restoration_transition.containing_generation';

const SNAPSHOT_CASES: readonly [string, string, Mutate][] = [
  ['graph.edge.endpoint_exists', 'graph/edge', at(0, { target_node_uuid: u(99) })],
  ['graph.edge.endpoint_exists', 'graph/edge', at(2, { source_node_uuid: u(98) })],
  ['provenance.lineage.event_exists', 'provenance/lineage', at(0, { event_uuid: u(199) })],
  ['provenance.lineage.entity_exists', 'provenance/lineage', at(0, { entity_uuid: u(99) })],
  ['provenance.lineage.entity_exists', 'provenance/lineage', at(1, { entity_uuid: u(199) })],
  ['provenance.lineage.entity_exists', 'provenance/lineage', at(1, { entity_uuid: u(1) })],
  ['knowledge.assertion.subject_exists', 'knowledge/assertion', at(0, { subject_node_uuid: u(99) })],
  ['knowledge.assertion.object_exists', 'knowledge/assertion', at(0, { object_node_uuid: u(99) })],
  ['knowledge.assertion.event_exists', 'knowledge/assertion', at(0, { event_uuid: u(199) })],
  ['knowledge.evidence_link.assertion_exists', 'knowledge/evidence_link', at(1, { assertion_uuid: u(299) })],
  ['knowledge.confidence_assessment.assertion_exists', 'knowledge/confidence_assessment', at(0, { assertion_uuid: u(299) })],
  ['epistemic.supersession.hypothesis_exists', 'epistemic/supersession', at(0, { superseding_hypothesis_uuid: u(499) })],
  ['epistemic.supersession.hypothesis_exists', 'epistemic/supersession', at(0, { superseded_hypothesis_uuid: u(499) })],
  ['graph.node.class_in_ontology', 'graph/node', at(1, { class_id: 'Robot' })],
  ['workspace.configuration.ontology_mode_matches', 'workspace/configuration', at(3, { value: '"advisory"' })],
  ['knowledge.assertion.predicate_in_ontology', 'knowledge/assertion', at(1, { predicate: 'likes' })],
  ['epistemic.hypothesis.superseded_status', 'epistemic/hypothesis', at(2, { status: 'superseded' })],
  ['capabilities.declaration.registered_version', 'capabilities/declaration', at(0, { capability_version: 2 })],
];

/**
 * [rule id, capability_configuration, family key, mutation]: the sample's
 * records under that configuration, one participant mutated to break the
 * setting (or none: the sample's confidence 0 and its event without an agent
 * break min_confidence_percent 1 and record_agents true).
 */
const SETTING_CASES: readonly [string, object, string, Mutate][] = [
  ['graph.node.max_property_bytes', { graph: { max_property_bytes: 13 } }, 'graph/node', at(0, { properties: '{"year":20170}' })],
  // 12 UTF-16 units but 16 UTF-8 bytes: counted in bytes.
  ['graph.node.max_property_bytes', { graph: { max_property_bytes: 13 } }, 'graph/node', at(0, { properties: '{"t":"éééé"}' })],
  ['knowledge.confidence_assessment.min_confidence', { knowledge: { min_confidence_percent: 1 } }, 'workspace/configuration', (rs) => rs],
  ['knowledge.confidence_assessment.min_confidence', { knowledge: { min_confidence_percent: 29 } }, 'knowledge/confidence_assessment', at(1, { confidence: 0.28 })],
  ['provenance.event.agent_recorded', { provenance: { record_agents: true } }, 'workspace/configuration', (rs) => rs],
];

/** The sample's records with `capability_configuration` replaced (row 0 of the configuration in identity order). */
function withSettings(settings: object, records = sampleRecords()): Record<string, Rec[]> {
  records['workspace/configuration'] = at(0, { value: canonicalJson(settings) })(records['workspace/configuration'] ?? []);
  return records;
}

function canonicalTable(key: string, records: Rec[]): Table {
  return canonicalizeParticipant(fam(key), tableFromRecords(fam(key), records));
}

function validSnapshotTables(records = sampleRecords()): Map<string, Table> {
  const out = new Map<string, Table>();
  for (const [key, t] of sampleTables(records)) out.set(key, canonicalizeParticipant(fam(key), t));
  return out;
}

/** The same table with one cell of `field` marked null (bypassing the record builder, as a foreign writer could). */
function withNullCell(table: Table, field: string, row: number): Table {
  const children = table.schema.fields.map((f) => {
    const d = table.getChild(f.name)?.data[0] as Data;
    if (f.name !== field) return d;
    const bitmap = new Uint8Array(Math.ceil(d.length / 8)).fill(0xff);
    bitmap[row >> 3] = (bitmap[row >> 3] as number) & ~(1 << (row & 7));
    return new Data(d.type, 0, d.length, 1, [d.valueOffsets, d.values, bitmap, undefined] as never);
  });
  const struct = makeData({ type: new Struct(table.schema.fields), length: table.numRows, nullCount: 0, children });
  return new Table([new RecordBatch(new Schema(table.schema.fields, table.schema.metadata), struct)]);
}

describe('domain validators', () => {
  it('accept every valid sample participant', () => {
    for (const f of RECORD_FAMILIES) {
      const table = canonicalTable(f.key, sampleRecords()[f.key] ?? []);
      expect(participantIssues(f, table), f.key).toEqual([]);
      expect(() => validateParticipant(f, table)).not.toThrow();
    }
  });

  it.each(DOMAIN_CASES.map(([rule, key, mutate, canon], i) => [`${rule} #${i}`, rule, key, mutate, canon ?? true] as const))(
    '%s: a malformed record fails with GF_VALIDATION and its rule id',
    (_name, rule, key, mutate, canon) => {
      const f = fam(key);
      const records = mutate(sampleRecords()[key] ?? []);
      const table = canon && rule !== 'participant.identity_unique' ? canonicalTable(key, records) : tableFromRecords(f, records);
      const e = errorOf(() => validateParticipant(f, table));
      expect(e.code).toBe('GF_VALIDATION');
      expect(e.details.rule).toBe(rule);
      expect(e.details.record_family_id).toBe(f.recordFamilyId);
      expect(e.details.capability_id).toBe(f.capabilityId);
      expect(typeof e.details.row).toBe('number');
      expect(e.details.row).toBeLessThan(table.numRows);
    },
  );

  it('restoration_record_exactly_one_row: an empty restoration participant is refused as well as two rows', () => {
    const f = fam('workspace/restoration_transition');
    const empty = tableFromRecords(f, []);
    expect(empty.numRows).toBe(0);
    const e = errorOf(() => validateParticipant(f, empty));
    expect({ code: e.code, rule: e.details.rule }).toEqual({ code: 'GF_VALIDATION', rule: 'workspace.restoration_transition.cardinality' });
    expect(() => validateParticipant(f, canonicalTable(f.key, sampleRecords()[f.key] ?? []))).not.toThrow();
  });

  it('reports a null in a non-nullable column as participant.required_field, with the field name only', () => {
    const f = fam('graph/node');
    const table = withNullCell(canonicalTable(f.key, sampleRecords()[f.key] ?? []), 'label', 1);
    expect(table.getChild('label')?.get(1)).toBeNull();
    const e = errorOf(() => validateParticipant(f, table));
    expect(e.code).toBe('GF_VALIDATION');
    expect(e.details).toEqual({ rule: 'participant.required_field', capability_id: 'graph', record_family_id: 'node', row: 1, field: 'label' });
    // Encoding refuses it too.
    expect(errorOf(() => canonicalizeParticipant(f, table)).details.rule).toBe('participant.required_field');
  });

  it('never puts a value into error details', () => {
    const f = fam('knowledge/assertion');
    const secret = 'Sorbonne-secret-value';
    const table = canonicalTable(f.key, at(1, { predicate: secret.replace(/-/g, ' ') })(sampleRecords()[f.key] ?? []));
    const e = errorOf(() => validateParticipant(f, table));
    expect(e.details.rule).toBe('knowledge.assertion.predicate_format');
    expect(JSON.stringify(e.details) + e.message).not.toContain('Sorbonne');
  });

  it('lists several issues in a fixed order', () => {
    const f = fam('knowledge/confidence_assessment');
    const rs = sampleRecords()[f.key] ?? [];
    const table = canonicalTable(f.key, [{ ...rs[0], confidence: 2, method: 'guess' }, { ...rs[1], confidence: -1 }]);
    expect(participantIssues(f, table).map((i) => [i.rule, i.row])).toEqual([
      ['participant.enum_value', 0],
      ['knowledge.confidence_assessment.confidence_range', 0],
      ['knowledge.confidence_assessment.confidence_range', 1],
    ]);
    expect(participantIssues(f, table, 1)).toHaveLength(1);
  });
});

describe('cross-domain validation', () => {
  it('accepts the consistent sample snapshot', () => {
    expect(() => validateSnapshot(snapshotOf(validSnapshotTables()))).not.toThrow();
  });

  it.each(SNAPSHOT_CASES.map(([rule, key, mutate], i) => [`${rule} #${i}`, rule, key, mutate] as const))(
    '%s: a dangling or inconsistent record fails with GF_VALIDATION and its rule id',
    (_name, rule, key, mutate) => {
      const records = sampleRecords();
      records[key] = mutate(records[key] ?? []);
      const tables = validSnapshotTables(records);
      // Domain rules of the mutated participant alone still pass: this is a cross-domain failure.
      expect(participantIssues(fam(key), tables.get(key) as Table)).toEqual([]);
      const e = errorOf(() => validateSnapshot(snapshotOf(tables)));
      expect(e.code).toBe('GF_VALIDATION');
      expect(e.details.rule).toBe(rule);
      expect(e.details.record_family_id).toBe(fam(key).recordFamilyId);
      // Restricted to the changed participant, the same rule still fires.
      const e2 = errorOf(() => validateSnapshot(snapshotOf(tables), { changed: new Set([key]) }));
      expect(e2.details.rule).toBe(rule);
    },
  );

  it.each(SETTING_CASES.map(([rule, settings, key, mutate], i) => [`${rule} #${i}`, rule, settings, key, mutate] as const))(
    '%s: a record that breaks a configured capability setting fails with GF_VALIDATION and its rule id',
    (_name, rule, settings, key, mutate) => {
      const records = withSettings(settings);
      records[key] = mutate(records[key] ?? []);
      const tables = validSnapshotTables(records);
      const e = errorOf(() => validateSnapshot(snapshotOf(tables)));
      expect({ code: e.code, rule: e.details.rule }).toEqual({ code: 'GF_VALIDATION', rule });
      // Found whether the records or the configuration changed.
      const subject = SNAPSHOT_RULES.find((r) => r.id === rule)?.subject as string;
      for (const changed of [subject, 'workspace/configuration']) {
        expect(errorOf(() => validateSnapshot(snapshotOf(tables), { changed: new Set([changed]) })).details.rule).toBe(rule);
      }
      // Without the setting, the same records pass.
      const unset = validSnapshotTables({ ...records, 'workspace/configuration': withSettings({})['workspace/configuration'] ?? [] });
      expect(() => validateSnapshot(snapshotOf(unset))).not.toThrow();
    },
  );

  it('every recognized capability setting has the rule that enforces it, and the sample on each limit passes', () => {
    expect(Object.keys(SETTING_RULES).sort()).toEqual(Object.entries(CAPABILITY_SETTINGS).flatMap(([c, s]) => Object.keys(s).map((k) => `${c}.${k}`)).sort());
    for (const rule of Object.values(SETTING_RULES)) expect(SNAPSHOT_RULES).toContain(rule);
    expect(() => validateSnapshot(snapshotOf(validSnapshotTables()))).not.toThrow();
    // On each limit: 14-byte properties under 14, a confidence of exactly 0.29 under 29 percent; record_agents false constrains nothing.
    const records = sampleRecords();
    records['graph/node'] = at(0, { properties: '{"year":20170}' })(records['graph/node'] ?? []);
    records['knowledge/confidence_assessment'] = at(1, { confidence: 0.29 })(records['knowledge/confidence_assessment'] ?? []);
    const settings = { graph: { max_property_bytes: 14 }, knowledge: { min_confidence_percent: 29 }, provenance: { record_agents: false } };
    expect(() => validateSnapshot(snapshotOf(validSnapshotTables(withSettings(settings, records))))).not.toThrow();
  });

  it('restoration_transition@1: the row names the generation being published (checked only when publishing)', () => {
    const tables = validSnapshotTables();
    const restored = String(sampleRecords()['workspace/restoration_transition']?.[0]?.['restored_generation_uuid']);
    expect(() => validateSnapshot({ ...snapshotOf(tables), generationUuid: restored })).not.toThrow();
    expect(() => validateSnapshot(snapshotOf(tables))).not.toThrow();
    const e = errorOf(() => validateSnapshot({ ...snapshotOf(tables), generationUuid: u(999) }, { changed: new Set(['workspace/restoration_transition']) }));
    expect({ code: e.code, rule: e.details.rule, field: e.details.field }).toEqual({ code: 'GF_VALIDATION', rule: CONTAINING, field: 'restored_generation_uuid' });
  });

  it('treats a missing participant as empty: edges without nodes dangle', () => {
    const tables = validSnapshotTables();
    tables.delete('graph/node');
    const e = errorOf(() => validateSnapshot(snapshotOf(tables)));
    expect(e.details.rule).toBe('graph.edge.endpoint_exists');
    expect(e.details.row).toBe(0);
    expect(e.details.field).toBe('source_node_uuid');
  });

  it('checks ontology membership only in strict mode', () => {
    const records = sampleRecords();
    records['graph/node'] = at(1, { class_id: 'Robot' })(records['graph/node'] ?? []);
    records['workspace/configuration'] = at(3, { value: '"advisory"' })(records['workspace/configuration'] ?? []);
    records['workspace/ontology'] = at(3, { value: '"advisory"' })(records['workspace/ontology'] ?? []);
    expect(() => validateSnapshot(snapshotOf(validSnapshotTables(records)))).not.toThrow();
  });

  it('rejects an unregistered participant as GF_SCHEMA_MISMATCH', () => {
    const tables = validSnapshotTables();
    tables.set('graph/ghost', tables.get('graph/node') as Table);
    const e = errorOf(() => validateSnapshot(snapshotOf(tables)));
    expect(e.code).toBe('GF_SCHEMA_MISMATCH');
    expect(e.details.family_key).toBe('graph/ghost');
  });

  it('rejects a participant whose schema is not its family\'s as GF_SCHEMA_MISMATCH', () => {
    const tables = validSnapshotTables();
    tables.set('graph/node', tables.get('graph/edge') as Table);
    const e = errorOf(() => validateSnapshot(snapshotOf(tables)));
    expect(e.code).toBe('GF_SCHEMA_MISMATCH');
    expect(e.details.record_family_id).toBe('node');
  });

  it('runs domain rules of changed participants too, unless told not to', () => {
    const records = sampleRecords();
    records['provenance/event'] = at(0, { ended_at: 0n })(records['provenance/event'] ?? []);
    const tables = validSnapshotTables(records);
    expect(errorOf(() => validateSnapshot(snapshotOf(tables))).details.rule).toBe('provenance.event.time_order');
    expect(() => validateSnapshot(snapshotOf(tables), { domain: false })).not.toThrow();
  });

  it('with `changed`, reads only the participants the selected rules need and skips the rest', () => {
    const records = sampleRecords();
    records['graph/edge'] = at(0, { target_node_uuid: u(99) })(records['graph/edge'] ?? []);
    const tables = validSnapshotTables(records);
    const reads: string[] = [];
    // Only a hypothesis changed: the dangling edge is not looked at, and neither graph participant is read.
    validateSnapshot(snapshotOf(tables, reads), { changed: new Set(['epistemic/hypothesis']) });
    expect(new Set(reads)).toEqual(new Set(['epistemic/hypothesis', 'epistemic/supersession']));
    // Nodes changed: the edge rule runs and finds the dangling endpoint.
    const e = errorOf(() => validateSnapshot(snapshotOf(tables), { changed: new Set(['graph/node']) }));
    expect(e.details.rule).toBe('graph.edge.endpoint_exists');
    // Each participant is decoded at most once per validation.
    const all: string[] = [];
    expect(() => validateSnapshot(snapshotOf(tables, all))).toThrow();
    expect(all.length).toBe(new Set(all).size);
  });

  it('has a failing-record test for every rule id it can report', () => {
    const tested = new Set([...DOMAIN_CASES.map((c) => c[0]), ...SNAPSHOT_CASES.map((c) => c[0]), ...SETTING_CASES.map((c) => c[0]), 'participant.required_field', CONTAINING,
      // Ontology model rules and configuration refusals: one failing case each in test/unit/core/workspace/document-operations.test.ts.
      ...ONTOLOGY_MODEL_RULES, ...Object.values(CONFIGURATION_REFUSALS), 'participant.document_fields']);
    const declared = new Set<string>([
      'participant.document_fields',
      'participant.required_field',
      'participant.enum_value',
      'participant.canonical_json',
      'participant.identity_unique',
      'participant.identity_order',
    ]);
    for (const f of RECORD_FAMILIES) {
      for (const r of f.rules) declared.add(r.id);
      for (const r of f.references) declared.add(r.rule);
    }
    for (const r of SNAPSHOT_RULES) declared.add(r.id);
    const untested = [...declared].filter((id) => !tested.has(id));
    expect(untested).toEqual([]);
    for (const id of declared) expect(id).toMatch(/^[a-z_]+\.[a-z_]+(\.[a-z_]+)?$/);
  });
});

describe('snapshot key indexes', () => {
  it('builds one key index per family column for every reference rule of a validation, forgotten with the family', () => {
    const reads: string[] = [];
    const { view } = snapshotColumns(snapshotOf(sampleTables(), reads));
    const nodes = view.keys('graph/node', 'node_uuid');
    expect(view.keys('graph/node', 'node_uuid')).toBe(nodes); // edge endpoints, assertion subjects and objects, lineage: one index
    expect(reads.filter((k) => k === 'graph/node')).toHaveLength(1);
    expect(nodes.has(u(1))).toBe(true);
    view.release('graph/node');
    expect(() => view.keys('graph/node', 'node_uuid')).toThrow(/read after its last use/);
  });
});
