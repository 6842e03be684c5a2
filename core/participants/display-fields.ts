// The fields a person reads each record family by: what a diff
// row, a CLI table or a search shows instead of UUIDs and fingerprints.
// Declared here once per family, beside the registry; a family without a
// declaration (a newer one) shows its identity fields.
import { familyKey } from './family';
import type { RecordFamily } from './family';

/**
 * One display field of a record family.
 *
 * `name` is the key a person sees (and the key of the diff's `display`
 * object); `field` is the family's own field holding the value. With
 * `labelOf`, `field` holds a record UUID of the `target` family (same
 * endpoint) and the display value is that record's `show` field (e.g. an
 * edge shows its source node's label, not its UUID); the UUID is shown when
 * no such record exists there. `orField` is shown when `field` is null.
 */
export interface DisplayFieldSpec {
  readonly name: string;
  readonly field: string;
  readonly labelOf?: { readonly target: string; readonly show: string };
  readonly orField?: string;
}

const own = (name: string, field = name): DisplayFieldSpec => ({ name, field });
const nodeLabel = (name: string, field: string, orField?: string): DisplayFieldSpec => ({
  name,
  field,
  labelOf: { target: 'graph/node', show: 'label' },
  ...(orField === undefined ? {} : { orField }),
});

/** Display fields per registered family key (`<capability>/<family>`). */
export const DISPLAY_FIELDS: Readonly<Record<string, readonly DisplayFieldSpec[]>> = Object.freeze({
  'graph/node': [own('label'), own('kind', 'class_id')],
  'graph/edge': [nodeLabel('source', 'source_node_uuid'), nodeLabel('target', 'target_node_uuid'), own('type', 'kind')],
  'workspace/ontology': [own('field'), own('value')],
  'workspace/configuration': [own('field'), own('value')],
  'capabilities/declaration': [own('capability', 'capability_id'), own('enabled'), own('version', 'capability_version')],
  'provenance/event': [own('activity'), own('agent'), own('started_at')],
  'provenance/lineage': [own('role'), own('entity_kind'), own('entity', 'entity_uuid')],
  'knowledge/assertion': [nodeLabel('subject', 'subject_node_uuid'), own('predicate'), nodeLabel('object', 'object_node_uuid', 'object_literal')],
  'knowledge/evidence_link': [own('stance'), own('locator'), own('evidence', 'evidence_sha256')],
  'knowledge/confidence_assessment': [own('method'), own('confidence')],
  'epistemic/hypothesis': [own('statement'), own('status')],
  'epistemic/supersession': [
    { name: 'superseded', field: 'superseded_hypothesis_uuid', labelOf: { target: 'epistemic/hypothesis', show: 'statement' } },
    { name: 'superseding', field: 'superseding_hypothesis_uuid', labelOf: { target: 'epistemic/hypothesis', show: 'statement' } },
  ],
  'workspace/restoration_transition': [own('reason'), own('restored_at'), own('checkpoint', 'checkpoint_uuid')],
});

/** The display fields of a family: its declaration, or its identity fields when it has none. */
export function displayFieldsOf(family: Pick<RecordFamily, 'capabilityId' | 'recordFamilyId' | 'identityFields'>): readonly DisplayFieldSpec[] {
  return DISPLAY_FIELDS[familyKey(family.capabilityId, family.recordFamilyId)] ?? family.identityFields.map((n) => own(n));
}
