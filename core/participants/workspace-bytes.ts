// Stored bytes of the workspace documents (canonical JSON + LF, ADR field order).
import { WORKSPACE_CONFIGURATION_FIELDS, WORKSPACE_ONTOLOGY_FIELDS } from '../contract/workspace';
import { encodeRecords } from './codec';
import { WORKSPACE_CONFIGURATION, WORKSPACE_ONTOLOGY } from './families';
import { DEFAULT_CONFIGURATION, NO_ONTOLOGY, documentRows } from './document-values';
import type { ConfigurationDocument, OntologyDocument } from './document-values';

/** The `workspace_ontology@1` participant bytes of a document (domain rules are run by publication). */
export function ontologyDocumentBytes(doc: OntologyDocument): Uint8Array {
  return encodeRecords(WORKSPACE_ONTOLOGY, documentRows(doc, WORKSPACE_ONTOLOGY_FIELDS));
}

/** The `workspace_configuration@1` participant bytes of a document. */
export function configurationDocumentBytes(doc: ConfigurationDocument): Uint8Array {
  return encodeRecords(WORKSPACE_CONFIGURATION, documentRows(doc, WORKSPACE_CONFIGURATION_FIELDS));
}

/** The mandatory workspace@1 participants with their explicit defaults (no ontology, no settings). */
export function mandatoryWorkspaceParticipants(): readonly { capabilityId: string; recordFamilyId: string; bytes: Uint8Array }[] {
  return [
    { capabilityId: WORKSPACE_ONTOLOGY.capabilityId, recordFamilyId: WORKSPACE_ONTOLOGY.recordFamilyId, bytes: ontologyDocumentBytes(NO_ONTOLOGY) },
    { capabilityId: WORKSPACE_CONFIGURATION.capabilityId, recordFamilyId: WORKSPACE_CONFIGURATION.recordFamilyId, bytes: configurationDocumentBytes(DEFAULT_CONFIGURATION) },
  ];
}
