// core/workspace: the workspace documents of ADR-0014 — adopt_ontology,
// clear_ontology, workspace_ontology() and workspace_configuration().
export { WorkspaceDocuments, configurationInfo, ontologyInfo, ontologyTransactionUuid } from './document-operations';
export type { AdoptInput, ClearInput, ConfigurationInfo, DocumentSource, OntologyInfo, OntologyOperation, OntologyReceipt } from './document-operations';
export { parseOntologyInput, prescanDepth } from './ontology-input';
