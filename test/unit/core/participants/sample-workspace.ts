// A small, internally consistent workspace: valid records for every family.
import type { Table } from 'apache-arrow';
import { RECORD_FAMILIES, adoptedOntology, canonicalOntologyModel, documentRows, familyByKey, tableFromRecords } from '../../../../core/participants';
import { WORKSPACE_CONFIGURATION_FIELDS, WORKSPACE_ONTOLOGY_FIELDS } from '../../../../core/contract/workspace';
import type { ParticipantSnapshot } from '../../../../core/participants';

/** Deterministic UUID number `n`. */
export function u(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Deterministic SHA-256-shaped hex number `n`. */
export function digest(n: number): string {
  return n.toString(16).padStart(64, 'a');
}

const T0 = 1_750_000_000_000_000n;

export type Rec = Record<string, unknown>;

const byField = (a: Rec, b: Rec): number => (String(a.field) < String(b.field) ? -1 : 1);

/** workspace_ontology@1 rows (identity order): a strict ontology of people, agents and papers. */
const SAMPLE_ONTOLOGY_ROWS: Rec[] = documentRows(
  adoptedOntology(
    'strict',
    'yaml',
    canonicalOntologyModel({
      classes: [
        { id: 'Person', label: 'Person', parent_class_id: 'Agent' },
        { id: 'Agent', label: 'Agent' },
        { id: 'Paper', label: 'Paper' },
      ],
      relations: [
        { id: 'authored', label: 'authored', domain_class_id: 'Person', range_class_id: 'Paper' },
        { id: 'cites', label: 'cites', domain_class_id: 'Paper', range_class_id: 'Paper' },
        { id: 'affiliated', label: 'affiliated with', domain_class_id: 'Person', range_class_id: 'Agent' },
      ],
    }),
  ),
  WORKSPACE_ONTOLOGY_FIELDS,
).sort(byField);

/** workspace_configuration@1 rows (identity order): strict mode, recognized settings. */
const SAMPLE_CONFIGURATION_ROWS: Rec[] = documentRows(
  { contract_version: 1, ontology_mode: 'strict', capability_configuration: { graph: { max_property_bytes: 13 }, knowledge: { min_confidence_percent: 0 }, provenance: { record_agents: false } }, embedding_configuration: { dimensions: 384, distance: 'cosine' } },
  WORKSPACE_CONFIGURATION_FIELDS,
).sort(byField);

/** Valid records per family key. */
export function sampleRecords(): Record<string, Rec[]> {
  return {
    'graph/node': [
      { node_uuid: u(3), class_id: 'Paper', label: 'Attention', properties: '{"year":2017}', created_at: T0, updated_at: T0 + 5n },
      { node_uuid: u(1), class_id: 'Person', label: 'Ada', properties: null, created_at: T0, updated_at: null },
      { node_uuid: u(2), class_id: 'Person', label: 'Émile', properties: '{}', created_at: T0 + 1n, updated_at: null },
    ],
    'graph/edge': [
      { source_node_uuid: u(1), target_node_uuid: u(3), kind: 'authored', weight: 1, created_at: T0 },
      { source_node_uuid: u(2), target_node_uuid: u(3), kind: 'authored', weight: null, created_at: T0 },
      { source_node_uuid: u(1), target_node_uuid: u(2), kind: 'cites', weight: 0.25, created_at: T0 },
    ],
    'workspace/ontology': SAMPLE_ONTOLOGY_ROWS,
    'workspace/configuration': SAMPLE_CONFIGURATION_ROWS,
    'capabilities/declaration': [
      { capability_id: 'graph', capability_version: 1, enabled: true, declared_at: T0 },
      { capability_id: 'knowledge', capability_version: 1, enabled: true, declared_at: T0 },
      { capability_id: 'embedding', capability_version: 3, enabled: false, declared_at: T0 },
    ],
    'provenance/event': [
      { event_uuid: u(101), activity: 'import', agent: 'loader', started_at: T0, ended_at: T0 + 10n },
      { event_uuid: u(102), activity: 'extract', agent: null, started_at: T0 + 20n, ended_at: null },
    ],
    'provenance/lineage': [
      { event_uuid: u(101), entity_kind: 'node', entity_uuid: u(3), role: 'generated' },
      { event_uuid: u(102), entity_kind: 'event', entity_uuid: u(101), role: 'used' },
      { event_uuid: u(102), entity_kind: 'node', entity_uuid: u(1), role: 'generated' },
    ],
    'knowledge/assertion': [
      {
        assertion_uuid: u(201),
        subject_node_uuid: u(1),
        predicate: 'authored',
        object_node_uuid: u(3),
        object_literal: null,
        event_uuid: u(102),
        asserted_at: T0,
      },
      {
        assertion_uuid: u(202),
        subject_node_uuid: u(2),
        predicate: 'affiliated',
        object_node_uuid: null,
        object_literal: 'Sorbonne',
        event_uuid: null,
        asserted_at: T0,
      },
    ],
    'knowledge/evidence_link': [
      { assertion_uuid: u(201), evidence_sha256: digest(1), stance: 'supports', locator: 'p. 3', linked_at: T0 },
      { assertion_uuid: u(201), evidence_sha256: digest(2), stance: 'mentions', locator: null, linked_at: T0 },
    ],
    'knowledge/confidence_assessment': [
      { assessment_uuid: u(301), assertion_uuid: u(201), confidence: 0.9, method: 'model', assessed_at: T0 },
      { assessment_uuid: u(302), assertion_uuid: u(202), confidence: 0, method: 'manual', assessed_at: T0 },
      { assessment_uuid: u(303), assertion_uuid: u(202), confidence: 1, method: 'aggregate', assessed_at: T0 },
    ],
    'epistemic/hypothesis': [
      { hypothesis_uuid: u(401), statement: 'A causes B', status: 'superseded', valid_from: T0, valid_to: T0 + 100n, recorded_at: T0 },
      { hypothesis_uuid: u(402), statement: 'A and C cause B', status: 'supported', valid_from: T0 + 100n, valid_to: null, recorded_at: T0 },
      { hypothesis_uuid: u(403), statement: 'B is noise', status: 'proposed', valid_from: T0, valid_to: T0, recorded_at: T0 },
    ],
    'epistemic/supersession': [
      { superseded_hypothesis_uuid: u(401), superseding_hypothesis_uuid: u(402), recorded_at: T0 + 100n },
    ],
    'workspace/restoration_transition': [
      {
        restoration_uuid: u(501),
        checkpoint_uuid: u(502),
        source_generation_uuid: u(503),
        source_manifest_sha256: digest(3),
        prior_current_generation_uuid: u(504),
        restored_generation_uuid: u(505),
        operation_uuid: u(506),
        actor_uuid: null,
        reason: 'undo bad import',
        restored_at: T0,
        contract_version: 1,
      },
    ],
  };
}

/** Every family has sample records. */
export function sampleTables(records = sampleRecords()): Map<string, Table> {
  const out = new Map<string, Table>();
  for (const f of RECORD_FAMILIES) out.set(f.key, tableFromRecords(f, records[f.key] ?? []));
  return out;
}

/** A snapshot over in-memory tables that counts which participants were read. */
export function snapshotOf(tables: ReadonlyMap<string, Table>, reads: string[] = []): ParticipantSnapshot {
  return {
    families: () => tables.keys(),
    get(key) {
      if (familyByKey(key) !== undefined) reads.push(key);
      return tables.get(key);
    },
  };
}
