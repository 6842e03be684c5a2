import { defineFamily } from './family';
import type { RecordFamily, RecordRule } from './family';
import { IDENTIFIER, NON_BLANK, cell, orderRule, rowRule, textRule } from './rules';
import type { Columns } from './family';
import { sha256Hex } from '../canonical/index';
import {
  CONFIGURATION_REFUSALS,
  ONTOLOGY_MODES,
  WORKSPACE_CONFIGURATION_FIELDS,
  WORKSPACE_DOCUMENT_VERSION,
  WORKSPACE_ONTOLOGY_FIELDS,
} from '../contract/workspace';
import { ONTOLOGY_MODEL_RULES, configurationMapIssue, isSourceFormat, ontologyModelIssue } from './document-values';
import { REASON_MAX_UTF8_BYTES as REASON_MAX_BYTES, reasonRefusal, trimReason } from '../contract/reasons';

// The record families of a Checkpoint Studio workspace: a research knowledge
// graph with its ontology, configuration, capability declarations,
// provenance, knowledge layer, epistemic layer and restoration record.
// Every UUID column is FixedSizeBinary(16); every timestamp is
// Timestamp(Microsecond, UTC).

/** Graph nodes: entities of the research graph, typed by an ontology class id. */
export const GRAPH_NODE = defineFamily({
  capabilityId: 'graph',
  capabilityVersion: 1,
  recordFamilyId: 'node',
  recordVersion: 1,
  scope: 'graph',
  encoding: 'arrow',
  description: 'Graph nodes',
  fields: [
    { name: 'node_uuid', kind: 'uuid', nullable: false },
    { name: 'class_id', kind: 'utf8', nullable: false },
    { name: 'label', kind: 'utf8', nullable: false },
    { name: 'properties', kind: 'utf8', nullable: true, json: true },
    { name: 'created_at', kind: 'timestamp_us', nullable: false },
    { name: 'updated_at', kind: 'timestamp_us', nullable: true },
  ],
  identityFields: ['node_uuid'],
  recordUuidField: 'node_uuid',
  rules: [
    textRule('graph.node.class_id_format', 'class_id', IDENTIFIER),
    textRule('graph.node.label_nonblank', 'label', NON_BLANK),
    rowRule('graph.node.properties_object', (cols, row) => {
      const v = cell(cols, 'properties', row);
      return v !== null && !(typeof v === 'string' && v.startsWith('{'));
    }),
    orderRule('graph.node.time_order', 'created_at', 'updated_at'),
  ],
});

/** Graph edges, identified by (source, target, kind); both endpoints must be nodes. */
export const GRAPH_EDGE = defineFamily({
  capabilityId: 'graph',
  capabilityVersion: 1,
  recordFamilyId: 'edge',
  recordVersion: 1,
  scope: 'graph',
  encoding: 'arrow',
  description: 'Graph edges',
  fields: [
    { name: 'source_node_uuid', kind: 'uuid', nullable: false },
    { name: 'target_node_uuid', kind: 'uuid', nullable: false },
    { name: 'kind', kind: 'utf8', nullable: false },
    { name: 'weight', kind: 'float64', nullable: true },
    { name: 'created_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['source_node_uuid', 'target_node_uuid', 'kind'],
  recordUuidField: null,
  rules: [
    textRule('graph.edge.kind_format', 'kind', IDENTIFIER),
    rowRule('graph.edge.weight_finite', (cols, row) => {
      const w = cell(cols, 'weight', row);
      return w !== null && !Number.isFinite(w);
    }),
  ],
  references: [
    {
      rule: 'graph.edge.endpoint_exists',
      fields: ['source_node_uuid', 'target_node_uuid'],
      target: 'graph/node',
      targetField: 'node_uuid',
    },
  ],
});

/** The two columns of a one-document family: the document field and its canonical JSON value. */
const DOCUMENT_COLUMNS = [
  { name: 'field', kind: 'utf8', nullable: false },
  { name: 'value', kind: 'utf8', nullable: false, json: true },
] as const;

/** Per-validation cache of a document's parsed fields (rules of one participant share one parse). */
const parsedDocuments = new WeakMap<Columns, Map<string, { row: number; value: unknown }>>();

/** The parsed value and row of one document field, or undefined when the field is absent. */
export function documentField(cols: Columns, field: string): { row: number; value: unknown } | undefined {
  let parsed = parsedDocuments.get(cols);
  if (parsed === undefined) {
    parsed = new Map();
    const names = cols.col('field');
    const values = cols.col('value');
    for (let row = 0; row < cols.rowCount; row++) {
      let value: unknown;
      try {
        value = JSON.parse(String(values[row]));
      } catch (_e) {
        value = undefined;
      }
      parsed.set(String(names[row]), { row, value });
    }
    parsedDocuments.set(cols, parsed);
  }
  return parsed.get(field);
}

/** A rule over one document field: `broken(value, cols)` true → the field's row breaks it. */
function fieldRule(id: string, field: string, broken: (value: unknown, cols: Columns) => boolean): RecordRule {
  return {
    id,
    *check(cols) {
      const f = documentField(cols, field);
      if (f !== undefined && broken(f.value, cols)) yield f.row;
    },
  };
}

const docValue = (cols: Columns, field: string): unknown => documentField(cols, field)?.value;
const isMode = (v: unknown): boolean => typeof v === 'string' && (ONTOLOGY_MODES as readonly string[]).includes(v);

/**
 * The adopted ontology, `workspace_ontology@1` (ADR-0014): one canonical JSON document + LF.
 *
 * Fields in order `contract_version, mode, source_format,
 * canonical_ontology_sha256, canonical_ontology`. `mode` none / advisory /
 * strict; absence is explicit (mode none, source format, digest and model
 * null). The model is `{"classes":[…],"relations":[…]}`, canonical JSON,
 * entries sorted by id; the digest is SHA-256 over its canonical JSON bytes.
 * The table has one `(field, value)` row per document field.
 */
export const WORKSPACE_ONTOLOGY = defineFamily({
  capabilityId: 'workspace',
  capabilityVersion: 1,
  recordFamilyId: 'ontology',
  recordVersion: 1,
  scope: 'ontology',
  encoding: 'json',
  description: 'Workspace ontology',
  fields: DOCUMENT_COLUMNS,
  identityFields: ['field'],
  recordUuidField: null,
  documentFields: WORKSPACE_ONTOLOGY_FIELDS,
  rules: [
    fieldRule('workspace.ontology.contract_version', 'contract_version', (v) => v !== WORKSPACE_DOCUMENT_VERSION),
    fieldRule('workspace.ontology.mode', 'mode', (v) => !isMode(v)),
    fieldRule('workspace.ontology.source_format', 'source_format', (v, cols) =>
      docValue(cols, 'mode') === 'none' ? v !== null : !isSourceFormat(v),
    ),
    fieldRule('workspace.ontology.absence_explicit', 'canonical_ontology', (v, cols) =>
      (docValue(cols, 'mode') === 'none') !== (v === null) || (v === null) !== (docValue(cols, 'canonical_ontology_sha256') === null),
    ),
    fieldRule('workspace.ontology.digest', 'canonical_ontology_sha256', (v, cols) => {
      const model = documentField(cols, 'canonical_ontology');
      if (v === null || model === undefined || model.value === null) return false;
      return v !== sha256Hex(new TextEncoder().encode(String(cols.col('value')[model.row])));
    }),
    ...ONTOLOGY_MODEL_RULES.map((id) =>
      fieldRule(id, 'canonical_ontology', (v) => v !== null && ontologyModelIssue(v, true)?.rule === id),
    ),
  ],
});

/** Ontology modes (declared by the contract). */
export { ONTOLOGY_MODES };

/**
 * Project configuration, `workspace_configuration@1` (ADR-0014): one canonical JSON document + LF.
 *
 * Fields in order `contract_version, ontology_mode,
 * capability_configuration, embedding_configuration`; the maps are keyed by
 * registered stable ids (core/contract/workspace.ts), in id order, and hold
 * only engine-recognized settings. Secrets, credentials, local paths and
 * environment overrides are refused with their own rule ids.
 */
export const WORKSPACE_CONFIGURATION = defineFamily({
  capabilityId: 'workspace',
  capabilityVersion: 1,
  recordFamilyId: 'configuration',
  recordVersion: 1,
  scope: 'configuration',
  encoding: 'json',
  description: 'Workspace configuration',
  fields: DOCUMENT_COLUMNS,
  identityFields: ['field'],
  recordUuidField: null,
  documentFields: WORKSPACE_CONFIGURATION_FIELDS,
  rules: [
    fieldRule('workspace.configuration.contract_version', 'contract_version', (v) => v !== WORKSPACE_DOCUMENT_VERSION),
    fieldRule('workspace.configuration.ontology_mode', 'ontology_mode', (v) => !isMode(v)),
    ...Object.values(CONFIGURATION_REFUSALS).map((id) => ({
      id,
      *check(cols: Columns) {
        for (const field of ['capability_configuration', 'embedding_configuration'] as const) {
          const f = documentField(cols, field);
          if (f !== undefined && configurationMapIssue(field, f.value)?.rule === id) yield f.row;
        }
      },
    })),
  ],
});

/** The capabilities a generation declares, keyed by capability id. */
export const CAPABILITY_DECLARATION = defineFamily({
  capabilityId: 'capabilities',
  capabilityVersion: 1,
  recordFamilyId: 'declaration',
  recordVersion: 1,
  scope: 'capabilities',
  encoding: 'arrow',
  description: 'Capability declarations',
  fields: [
    { name: 'capability_id', kind: 'utf8', nullable: false },
    { name: 'capability_version', kind: 'uint32', nullable: false },
    { name: 'enabled', kind: 'bool', nullable: false },
    { name: 'declared_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['capability_id'],
  recordUuidField: null,
  rules: [
    textRule('capabilities.declaration.id_format', 'capability_id', /^[a-z][a-z0-9_]{0,63}$/),
    rowRule('capabilities.declaration.version_positive', (cols, row) => cell(cols, 'capability_version', row) === 0),
  ],
});

/** Provenance events: activities that produced or changed workspace content. */
export const PROVENANCE_EVENT = defineFamily({
  capabilityId: 'provenance',
  capabilityVersion: 1,
  recordFamilyId: 'event',
  recordVersion: 1,
  scope: 'provenance',
  encoding: 'arrow',
  description: 'Provenance events',
  fields: [
    { name: 'event_uuid', kind: 'uuid', nullable: false },
    {
      name: 'activity',
      kind: 'utf8',
      nullable: false,
      enumValues: ['import', 'extract', 'curate', 'merge', 'infer', 'revert'],
    },
    { name: 'agent', kind: 'utf8', nullable: true },
    { name: 'started_at', kind: 'timestamp_us', nullable: false },
    { name: 'ended_at', kind: 'timestamp_us', nullable: true },
  ],
  identityFields: ['event_uuid'],
  recordUuidField: 'event_uuid',
  fingerprintDomain: 'graphforge/provenance-event',
  rules: [
    textRule('provenance.event.agent_nonblank', 'agent', NON_BLANK),
    orderRule('provenance.event.time_order', 'started_at', 'ended_at'),
  ],
});

/** Lineage: an event used, generated or invalidated a node or another event. */
export const PROVENANCE_LINEAGE = defineFamily({
  capabilityId: 'provenance',
  capabilityVersion: 1,
  recordFamilyId: 'lineage',
  recordVersion: 1,
  scope: 'provenance',
  encoding: 'arrow',
  description: 'Lineage links',
  fields: [
    { name: 'event_uuid', kind: 'uuid', nullable: false },
    { name: 'entity_kind', kind: 'utf8', nullable: false, enumValues: ['node', 'event'] },
    { name: 'entity_uuid', kind: 'uuid', nullable: false },
    { name: 'role', kind: 'utf8', nullable: false, enumValues: ['used', 'generated', 'invalidated'] },
  ],
  identityFields: ['event_uuid', 'entity_kind', 'entity_uuid', 'role'],
  recordUuidField: null,
  fingerprintDomain: 'graphforge/lineage',
  rules: [
    rowRule(
      'provenance.lineage.not_self',
      (cols, row) =>
        cell(cols, 'entity_kind', row) === 'event' && cell(cols, 'entity_uuid', row) === cell(cols, 'event_uuid', row),
    ),
  ],
  references: [
    { rule: 'provenance.lineage.event_exists', fields: ['event_uuid'], target: 'provenance/event', targetField: 'event_uuid' },
    {
      rule: 'provenance.lineage.entity_exists',
      fields: ['entity_uuid'],
      target: 'graph/node',
      targetField: 'node_uuid',
      when: { field: 'entity_kind', equals: 'node' },
    },
    {
      rule: 'provenance.lineage.entity_exists',
      fields: ['entity_uuid'],
      target: 'provenance/event',
      targetField: 'event_uuid',
      when: { field: 'entity_kind', equals: 'event' },
    },
  ],
});

/** Knowledge assertions: subject (a node) – predicate – object (a node or a literal). */
export const KNOWLEDGE_ASSERTION = defineFamily({
  capabilityId: 'knowledge',
  capabilityVersion: 1,
  recordFamilyId: 'assertion',
  recordVersion: 1,
  scope: 'knowledge',
  encoding: 'arrow',
  description: 'Assertions',
  fields: [
    { name: 'assertion_uuid', kind: 'uuid', nullable: false },
    { name: 'subject_node_uuid', kind: 'uuid', nullable: false },
    { name: 'predicate', kind: 'utf8', nullable: false },
    { name: 'object_node_uuid', kind: 'uuid', nullable: true },
    { name: 'object_literal', kind: 'utf8', nullable: true },
    { name: 'event_uuid', kind: 'uuid', nullable: true },
    { name: 'asserted_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['assertion_uuid'],
  recordUuidField: 'assertion_uuid',
  fingerprintDomain: 'graphforge/assertion',
  rules: [
    textRule('knowledge.assertion.predicate_format', 'predicate', IDENTIFIER),
    rowRule(
      'knowledge.assertion.object_exclusive',
      (cols, row) => (cell(cols, 'object_node_uuid', row) === null) === (cell(cols, 'object_literal', row) === null),
    ),
  ],
  references: [
    {
      rule: 'knowledge.assertion.subject_exists',
      fields: ['subject_node_uuid'],
      target: 'graph/node',
      targetField: 'node_uuid',
    },
    { rule: 'knowledge.assertion.object_exists', fields: ['object_node_uuid'], target: 'graph/node', targetField: 'node_uuid' },
    { rule: 'knowledge.assertion.event_exists', fields: ['event_uuid'], target: 'provenance/event', targetField: 'event_uuid' },
  ],
});

/** Evidence links: an assertion is supported or refuted by content identified by its SHA-256. */
export const KNOWLEDGE_EVIDENCE_LINK = defineFamily({
  capabilityId: 'knowledge',
  capabilityVersion: 1,
  recordFamilyId: 'evidence_link',
  recordVersion: 1,
  scope: 'knowledge',
  encoding: 'arrow',
  description: 'Evidence links',
  fields: [
    { name: 'assertion_uuid', kind: 'uuid', nullable: false },
    { name: 'evidence_sha256', kind: 'digest', nullable: false },
    { name: 'stance', kind: 'utf8', nullable: false, enumValues: ['supports', 'refutes', 'mentions'] },
    { name: 'locator', kind: 'utf8', nullable: true },
    { name: 'linked_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['assertion_uuid', 'evidence_sha256'],
  recordUuidField: null,
  fingerprintDomain: 'graphforge/evidence-link',
  rules: [
    rowRule('knowledge.evidence_link.digest_nonzero', (cols, row) => /^0{64}$/.test(String(cell(cols, 'evidence_sha256', row)))),
    textRule('knowledge.evidence_link.locator_nonblank', 'locator', NON_BLANK),
  ],
  references: [
    {
      rule: 'knowledge.evidence_link.assertion_exists',
      fields: ['assertion_uuid'],
      target: 'knowledge/assertion',
      targetField: 'assertion_uuid',
    },
  ],
});

/** Confidence assessments of assertions, confidence in [0, 1]. */
export const KNOWLEDGE_CONFIDENCE_ASSESSMENT = defineFamily({
  capabilityId: 'knowledge',
  capabilityVersion: 1,
  recordFamilyId: 'confidence_assessment',
  recordVersion: 1,
  scope: 'knowledge',
  encoding: 'arrow',
  description: 'Confidence assessments',
  fields: [
    { name: 'assessment_uuid', kind: 'uuid', nullable: false },
    { name: 'assertion_uuid', kind: 'uuid', nullable: false },
    { name: 'confidence', kind: 'float64', nullable: false },
    { name: 'method', kind: 'utf8', nullable: false, enumValues: ['manual', 'model', 'aggregate'] },
    { name: 'assessed_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['assessment_uuid'],
  recordUuidField: 'assessment_uuid',
  fingerprintDomain: 'graphforge/confidence-assessment',
  rules: [
    rowRule('knowledge.confidence_assessment.confidence_range', (cols, row) => {
      const c = cell(cols, 'confidence', row);
      return !(typeof c === 'number' && c >= 0 && c <= 1);
    }),
  ],
  references: [
    {
      rule: 'knowledge.confidence_assessment.assertion_exists',
      fields: ['assertion_uuid'],
      target: 'knowledge/assertion',
      targetField: 'assertion_uuid',
    },
  ],
});

/** The closed set of hypothesis statuses. */
export const HYPOTHESIS_STATUSES = ['proposed', 'supported', 'refuted', 'superseded', 'retracted'] as const;

/** Epistemic hypotheses with a status and a valid-time interval [valid_from, valid_to]. */
export const EPISTEMIC_HYPOTHESIS = defineFamily({
  capabilityId: 'epistemic',
  capabilityVersion: 1,
  recordFamilyId: 'hypothesis',
  recordVersion: 1,
  scope: 'epistemic',
  encoding: 'arrow',
  description: 'Hypotheses',
  fields: [
    { name: 'hypothesis_uuid', kind: 'uuid', nullable: false },
    { name: 'statement', kind: 'utf8', nullable: false },
    { name: 'status', kind: 'utf8', nullable: false, enumValues: HYPOTHESIS_STATUSES },
    { name: 'valid_from', kind: 'timestamp_us', nullable: false },
    { name: 'valid_to', kind: 'timestamp_us', nullable: true },
    { name: 'recorded_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['hypothesis_uuid'],
  recordUuidField: 'hypothesis_uuid',
  rules: [
    textRule('epistemic.hypothesis.statement_nonblank', 'statement', NON_BLANK),
    orderRule('epistemic.hypothesis.valid_time_order', 'valid_from', 'valid_to'),
  ],
});

/** Supersession: one hypothesis replaced by another; both must exist, never itself, never in a cycle. */
export const EPISTEMIC_SUPERSESSION = defineFamily({
  capabilityId: 'epistemic',
  capabilityVersion: 1,
  recordFamilyId: 'supersession',
  recordVersion: 1,
  scope: 'epistemic',
  encoding: 'arrow',
  description: 'Hypothesis supersession',
  fields: [
    { name: 'superseded_hypothesis_uuid', kind: 'uuid', nullable: false },
    { name: 'superseding_hypothesis_uuid', kind: 'uuid', nullable: false },
    { name: 'recorded_at', kind: 'timestamp_us', nullable: false },
  ],
  identityFields: ['superseded_hypothesis_uuid', 'superseding_hypothesis_uuid'],
  recordUuidField: null,
  rules: [
    rowRule(
      'epistemic.supersession.not_self',
      (cols, row) => cell(cols, 'superseded_hypothesis_uuid', row) === cell(cols, 'superseding_hypothesis_uuid', row),
    ),
    {
      id: 'epistemic.supersession.acyclic',
      *check(cols) {
        const from = cols.col('superseded_hypothesis_uuid') as readonly string[];
        const to = cols.col('superseding_hypothesis_uuid') as readonly string[];
        const next = new Map<string, string[]>();
        for (let i = 0; i < cols.rowCount; i++) {
          const list = next.get(from[i] as string) ?? [];
          list.push(to[i] as string);
          next.set(from[i] as string, list);
        }
        // Iterative three-colour DFS; a back edge closes a cycle.
        const state = new Map<string, 1 | 2>();
        const onCycle = new Set<string>();
        for (const start of next.keys()) {
          if (state.has(start)) continue;
          const stack: [string, number][] = [[start, 0]];
          state.set(start, 1);
          while (stack.length > 0) {
            const top = stack[stack.length - 1] as [string, number];
            const succ = next.get(top[0]) ?? [];
            if (top[1] >= succ.length) {
              state.set(top[0], 2);
              stack.pop();
              continue;
            }
            const n = succ[top[1]++] as string;
            const s = state.get(n);
            if (s === 1) onCycle.add(n);
            else if (s === undefined) {
              state.set(n, 1);
              stack.push([n, 0]);
            }
          }
        }
        if (onCycle.size === 0) return;
        for (let row = 0; row < cols.rowCount; row++) {
          if (from[row] !== to[row] && onCycle.has(from[row] as string)) {
            yield row;
            return;
          }
        }
      },
    },
  ],
  references: [
    {
      rule: 'epistemic.supersession.hypothesis_exists',
      fields: ['superseded_hypothesis_uuid', 'superseding_hypothesis_uuid'],
      target: 'epistemic/hypothesis',
      targetField: 'hypothesis_uuid',
    },
  ],
});

/** Largest persisted revert reason (UTF-8 bytes, after trimming), per ADR-0014: declared once, by the contract. */
export { REASON_MAX_BYTES };

/**
 * The restoration record of a revert (`restoration_transition@1` of `graphforge-checkpoint-api/1`).
 *
 * Field names, types and nullability are the contract's exactly; exactly one
 * row in the generation a revert publishes. Stored as Arrow IPC here (the
 * contract's reference implementation uses Parquet).
 */
export const WORKSPACE_RESTORATION_TRANSITION = defineFamily({
  capabilityId: 'workspace',
  capabilityVersion: 1,
  recordFamilyId: 'restoration_transition',
  recordVersion: 1,
  scope: 'workspace',
  encoding: 'arrow',
  description: 'Restoration record',
  fields: [
    { name: 'restoration_uuid', kind: 'uuid', nullable: false },
    { name: 'checkpoint_uuid', kind: 'uuid', nullable: false },
    { name: 'source_generation_uuid', kind: 'uuid', nullable: false },
    { name: 'source_manifest_sha256', kind: 'digest', nullable: false },
    { name: 'prior_current_generation_uuid', kind: 'uuid', nullable: false },
    { name: 'restored_generation_uuid', kind: 'uuid', nullable: false },
    { name: 'operation_uuid', kind: 'uuid', nullable: false },
    { name: 'actor_uuid', kind: 'uuid', nullable: true },
    { name: 'reason', kind: 'utf8', nullable: false },
    { name: 'restored_at', kind: 'timestamp_us', nullable: false },
    { name: 'contract_version', kind: 'uint32', nullable: false },
  ],
  identityFields: ['restoration_uuid'],
  recordUuidField: 'restoration_uuid',
  // The record of one revert: the next publication drops it (a later generation was not restored).
  carriedForward: false,
  rules: [
    {
      id: 'workspace.restoration_transition.cardinality',
      // Exactly one row (ADR-0014): a present participant with none is as invalid as one with two.
      *check(cols) {
        if (cols.rowCount !== 1) yield cols.rowCount === 0 ? 0 : 1;
      },
    },
    rowRule('workspace.restoration_transition.reason', (cols, row) => {
      const r = cell(cols, 'reason', row);
      if (typeof r !== 'string') return false;
      // Stored trimmed, within the contract's one reason rule.
      return reasonRefusal(r) !== null || trimReason(r) !== r;
    }),
    rowRule('workspace.restoration_transition.contract_version', (cols, row) => cell(cols, 'contract_version', row) !== 1),
    rowRule(
      'workspace.restoration_transition.distinct_generations',
      (cols, row) =>
        cell(cols, 'restored_generation_uuid', row) === cell(cols, 'source_generation_uuid', row) ||
        cell(cols, 'restored_generation_uuid', row) === cell(cols, 'prior_current_generation_uuid', row),
    ),
  ],
});

/** Every family, in registry order (sorted by scope order, then key). */
export const ALL_FAMILIES: readonly RecordFamily[] = [
  GRAPH_NODE,
  GRAPH_EDGE,
  WORKSPACE_ONTOLOGY,
  WORKSPACE_CONFIGURATION,
  CAPABILITY_DECLARATION,
  PROVENANCE_EVENT,
  PROVENANCE_LINEAGE,
  KNOWLEDGE_ASSERTION,
  KNOWLEDGE_CONFIDENCE_ASSESSMENT,
  KNOWLEDGE_EVIDENCE_LINK,
  EPISTEMIC_HYPOTHESIS,
  EPISTEMIC_SUPERSESSION,
  WORKSPACE_RESTORATION_TRANSITION,
];
