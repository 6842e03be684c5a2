// core/participants: the closed registry of record families a workspace generation is made of.
//
// A family fixes (capability id/version, record family id/version, scope,
// encoding), an Arrow schema and its fingerprint, owner-declared identity
// fields, domain rules and cross-domain references. Participants are stored
// in canonical physical form (sorted by identity, one batch) as Arrow IPC
// files or canonical JSON documents; `validateParticipant` and
// `validateSnapshot` judge them with stable rule ids.
export { SCOPES, isScope } from './scopes';
export type { Scope } from './scopes';
export {
  COLUMN_KINDS,
  ENUM_METADATA_KEY,
  JSON_METADATA_KEY,
  arrowTypeOf,
  arrowFieldOf,
  compareCells,
  utf8Column,
} from './columns';
export type { ColumnKind, CellValue, RecordValues, FieldSpec } from './columns';
export { FAMILY_METADATA_KEY, IDENTITY_METADATA_KEY, defineFamily } from './family';
export type { Encoding, Columns, RecordRule, ReferenceSpec, FamilySpec, RecordFamily } from './family';
export {
  GRAPH_NODE,
  GRAPH_EDGE,
  WORKSPACE_ONTOLOGY,
  WORKSPACE_CONFIGURATION,
  CAPABILITY_DECLARATION,
  PROVENANCE_EVENT,
  PROVENANCE_LINEAGE,
  KNOWLEDGE_ASSERTION,
  KNOWLEDGE_EVIDENCE_LINK,
  KNOWLEDGE_CONFIDENCE_ASSESSMENT,
  EPISTEMIC_HYPOTHESIS,
  EPISTEMIC_SUPERSESSION,
  WORKSPACE_RESTORATION_TRANSITION,
  ONTOLOGY_MODES,
  HYPOTHESIS_STATUSES,
  REASON_MAX_BYTES,
} from './families';
export {
  RECORD_FAMILIES,
  REGISTERED_CAPABILITIES,
  familyKey,
  findFamily,
  familyByKey,
  familiesInScope,
} from './family-registry';
export type { CapabilityRef } from './family-registry';
export { DISPLAY_FIELDS, displayFieldsOf } from './display-fields';
export type { DisplayFieldSpec } from './display-fields';
export {
  assertFamilySchema,
  columnsOf,
  tableFromRecords,
  recordsFromTable,
  identityComparator,
  canonicalizeParticipant,
} from './records';
export { JSON_DOCUMENT_VERSION, encodeParticipant, encodeRecords, decodeParticipant, canonicalJsonOrNull } from './codec';
export type { DecodeOptions } from './codec';
export { SETTING_RULES, SNAPSHOT_RULES, assertRule, participantIssues, runSnapshotRules, snapshotColumns, validateParticipant, validateSnapshot } from './validate';
export type {
  ValidationIssue,
  ParticipantSnapshot,
  SnapshotColumns,
  SnapshotRule,
  SnapshotValidationOptions,
} from './validate';
export {
  NO_ONTOLOGY,
  DEFAULT_CONFIGURATION,
  ONTOLOGY_MODEL_RULES,
  adoptedOntology,
  assertConfiguration,
  canonicalOntologyModel,
  canonicalOntologySha256,
  configurationMapIssue,
  documentRows,
  ontologyModelIssue,
} from './document-values';
export type { ConfigurationDocument, ConfigurationIssue, ModelIssue, OntologyClass, OntologyDocument, OntologyModel, OntologyRelation, SettingValue } from './document-values';
export { configurationDocumentBytes, mandatoryWorkspaceParticipants, ontologyDocumentBytes } from './workspace-bytes';
export { documentField } from './families';
export { identityProjection, identityFingerprints, wholeRecordFingerprints, recordUuids } from './fingerprints';
export { registryCatalog } from './family-catalog';
