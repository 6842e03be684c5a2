// Arrow result schemas of the contract: each schema's column names, declared
// once `as const`. The engine builds its tables from these names, and the
// renderer and the CLI read rows typed by them (`ArrowRow`, `Row<Op>`), so a
// renamed column fails `tsc` wherever a screen or a formatter reads it.
import {
  RECORD_DIFF_COLUMNS,
  RECORD_DIFF_DISPLAY_COLUMNS,
  RECORD_DIFF_DISPLAY_SCHEMA_NAME,
  RECORD_DIFF_SCHEMA_NAME,
  RECORD_DIFF_VALUES_COLUMNS,
  RECORD_DIFF_VALUES_SCHEMA_NAME,
  SUMMARY_DIFF_COLUMNS,
  SUMMARY_DIFF_SCHEMA_NAME,
} from './diff';
import { GRAPH_ELEMENT_COLUMNS, GRAPH_ELEMENT_SCHEMA_NAME } from './graph';

/** Schema-metadata key naming the result schema of an Arrow result. */
export const RESULT_SCHEMA_KEY = 'graphforge.contract.result_schema';

/** Schema-metadata key carrying the next-page token inside Arrow bytes. */
export const NEXT_PAGE_TOKEN_KEY = 'gf.next_page_token';

/** `checkpoint@1`: an active checkpoint (checkpoint-api-v1.json order). */
export const CHECKPOINT_COLUMNS = [
  'checkpoint_uuid',
  'name',
  'description',
  'generation_uuid',
  'generation_manifest_sha256',
  'created_at',
  'created_by',
] as const;

/** `checkpoint_receipt@1`: the receipt of a create, delete or revert. */
export const RECEIPT_COLUMNS = [
  'operation',
  'operation_uuid',
  'checkpoint_uuid',
  'name',
  'source_generation_uuid',
  'prior_current_generation_uuid',
  'result_generation_uuid',
  'registry_revision',
  'committed_at',
] as const;

/** `checkpoint_tombstone@1`: a deleted checkpoint's public history. */
export const TOMBSTONE_COLUMNS = ['name', 'checkpoint_uuid', 'generation_uuid', 'deleted_at', 'deleted_revision'] as const;

// ---- workspace documents (o21, issue 21) ----
/** `workspace_ontology_info@1`: what `workspace_ontology()` returns (the user's view first, identities after). */
export const WORKSPACE_ONTOLOGY_INFO_COLUMNS = [
  'mode',
  'class_count',
  'relation_count',
  'source_format',
  'contract_version',
  'canonical_ontology_sha256',
  'generation_uuid',
  'document_sha256',
  'canonical_ontology',
] as const;

/** `workspace_configuration_info@1`: what `workspace_configuration()` returns. */
export const WORKSPACE_CONFIGURATION_INFO_COLUMNS = [
  'ontology_mode',
  'capability_configuration',
  'embedding_configuration',
  'contract_version',
  'generation_uuid',
  'document_sha256',
] as const;

/** `ontology_receipt@1`: the receipt of `adopt_ontology` / `clear_ontology` (identical on replay). */
export const ONTOLOGY_RECEIPT_COLUMNS = [
  'operation',
  'operation_uuid',
  'mode',
  'source_format',
  'canonical_ontology_sha256',
  'prior_current_generation_uuid',
  'result_generation_uuid',
] as const;
// ---- end workspace documents ----

/**
 * Every named Arrow result schema and its columns, in schema order.
 *
 * `view.records` / `view.record` pages are participant tables: their columns
 * are the record family's (core/participants), not a result schema.
 */
export const ARROW_RESULT_SCHEMAS = {
  'checkpoint@1': CHECKPOINT_COLUMNS,
  'checkpoint_receipt@1': RECEIPT_COLUMNS,
  'checkpoint_tombstone@1': TOMBSTONE_COLUMNS,
  [SUMMARY_DIFF_SCHEMA_NAME]: SUMMARY_DIFF_COLUMNS,
  [RECORD_DIFF_SCHEMA_NAME]: RECORD_DIFF_COLUMNS,
  'workspace_ontology_info@1': WORKSPACE_ONTOLOGY_INFO_COLUMNS,
  'workspace_configuration_info@1': WORKSPACE_CONFIGURATION_INFO_COLUMNS,
  'ontology_receipt@1': ONTOLOGY_RECEIPT_COLUMNS,
  [RECORD_DIFF_DISPLAY_SCHEMA_NAME]: RECORD_DIFF_DISPLAY_COLUMNS,
  [RECORD_DIFF_VALUES_SCHEMA_NAME]: RECORD_DIFF_VALUES_COLUMNS,
  [GRAPH_ELEMENT_SCHEMA_NAME]: GRAPH_ELEMENT_COLUMNS,
} as const;

/** One named Arrow result schema. */
export type ArrowSchemaName = keyof typeof ARROW_RESULT_SCHEMAS;

/** The column names of a result schema. */
export type ArrowColumn<S extends ArrowSchemaName> = (typeof ARROW_RESULT_SCHEMAS)[S][number];

/**
 * One decoded row of a result schema: column → display text.
 *
 * Every cell is text or null as the decoders render it (UUIDs canonical,
 * digests lowercase hex, timestamps ISO-8601 UTC with microseconds, counts
 * decimal). Reading a column the schema does not declare fails `tsc`.
 */
export type ArrowRow<S extends ArrowSchemaName> = { readonly [C in ArrowColumn<S>]: string | null };

/** A row of a participant table (`view.records`): the family's own columns. */
export type RecordRow = Readonly<Record<string, string | null>>;
