// core/workspace: the workspace documents of ADR-0014 — adopt_ontology,
// clear_ontology, workspace_ontology() and workspace_configuration().
export { WorkspaceDocuments, configurationInfo, ontologyInfo, ontologyTransactionUuid } from './workspace-documents';
export type { AdoptInput, ClearInput, ConfigurationInfo, DocumentSource, OntologyInfo, OntologyOperation, OntologyReceipt } from './workspace-documents';
export { parseOntologyInput, prescanDepth } from './ontology-input';
