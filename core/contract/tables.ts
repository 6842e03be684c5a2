// The contract's Arrow result tables, each declared once: its schema name and,
// in schema order, every column's name, value kind and nullability. A leaf
// module (no import, no apache-arrow): the engine builds its Arrow schemas
// from these declarations (core/contract/result-schemas.ts), the one decoder
// (core/contract/arrow-decode.ts) checks a result against them and types its
// rows by them (`TableRow`), and the column-name lists every surface reads
// (`CHECKPOINT_COLUMNS`, `SUMMARY_DIFF_COLUMNS`, ...) are derived from them.

/**
 * The column kinds of a participant (record family) table.
 *
 * A deliberately small set: every kind has one JS value form, one Arrow type
 * and one total order, so records, tables, JSON documents and sort order
 * never disagree. `uuid` is `FixedSizeBinary(16)`, `digest` is
 * `FixedSizeBinary(32)` (a SHA-256), `timestamp_us` is
 * `Timestamp(Microsecond, UTC)`.
 */
export const COLUMN_KINDS = ['uuid', 'digest', 'utf8', 'bool', 'int32', 'uint32', 'float64', 'timestamp_us'] as const;

/** One participant column kind. */
export type ColumnKind = (typeof COLUMN_KINDS)[number];

/** The column kinds of a result table: a participant's, and `uint64` (counts and revisions). */
export const RESULT_COLUMN_KINDS = [...COLUMN_KINDS, 'uint64'] as const;

/** One result column kind. */
export type ResultColumnKind = (typeof RESULT_COLUMN_KINDS)[number];

/**
 * The decoded value of each kind, as every surface reads it: UUIDs canonical
 * lowercase text, digests lowercase hex, timestamps ISO-8601 UTC with six
 * fractional digits, counts exact numbers.
 */
export interface KindValue {
  readonly uuid: string;
  readonly digest: string;
  readonly utf8: string;
  readonly bool: boolean;
  readonly int32: number;
  readonly uint32: number;
  readonly uint64: number;
  readonly float64: number;
  readonly timestamp_us: string;
}

/**
 * One decoded cell (core/contract/arrow-decode.ts): UUIDs canonical lowercase
 * text, digests lowercase hex, timestamps ISO-8601 UTC with six fractional
 * digits, integers and floats numbers (64-bit integers exact or refused),
 * booleans, texts; any other Arrow value as JSON text.
 */
export type Cell = string | number | boolean | null;

/** A row of a table no result schema declares (a participant's): column → cell. */
export type CellRow = Readonly<Record<string, Cell>>;

/** One declared column. */
export interface ColumnDecl {
  readonly name: string;
  readonly kind: ResultColumnKind;
  readonly nullable: boolean;
}

/** The names of a declaration's columns, in order (a tuple type for `as const` declarations). */
export type ColumnNames<T extends readonly ColumnDecl[]> = { readonly [I in keyof T]: T[I] extends ColumnDecl ? T[I]['name'] : never };

/** The column names of a declaration, in schema order. */
export function columnNames<const T extends readonly ColumnDecl[]>(columns: T): ColumnNames<T> {
  return columns.map((c) => c.name) as unknown as ColumnNames<T>;
}

/** A decoded row of a declaration: each column's value type, null only where the column is nullable. */
export type RowOf<T extends readonly ColumnDecl[]> = {
  readonly [C in T[number] as C['name']]: C['nullable'] extends true ? KindValue[C['kind']] | null : KindValue[C['kind']];
};

// ------------------------------------------------------------ checkpoints

/** `checkpoint@1`: an active checkpoint (checkpoint-api-v1.json order). */
export const CHECKPOINT_TABLE = [
  { name: 'checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'name', kind: 'utf8', nullable: false },
  { name: 'description', kind: 'utf8', nullable: true },
  { name: 'generation_uuid', kind: 'uuid', nullable: false },
  { name: 'generation_manifest_sha256', kind: 'digest', nullable: false },
  { name: 'created_at', kind: 'timestamp_us', nullable: false },
  { name: 'created_by', kind: 'uuid', nullable: true },
] as const satisfies readonly ColumnDecl[];

/** `checkpoint_receipt@1`: the receipt of a create, delete or revert. */
export const RECEIPT_TABLE = [
  { name: 'operation', kind: 'utf8', nullable: false },
  { name: 'operation_uuid', kind: 'uuid', nullable: false },
  { name: 'checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'name', kind: 'utf8', nullable: false },
  { name: 'source_generation_uuid', kind: 'uuid', nullable: false },
  { name: 'prior_current_generation_uuid', kind: 'uuid', nullable: true },
  { name: 'result_generation_uuid', kind: 'uuid', nullable: true },
  { name: 'registry_revision', kind: 'uint64', nullable: false },
  { name: 'committed_at', kind: 'timestamp_us', nullable: false },
] as const satisfies readonly ColumnDecl[];

/** `checkpoint_tombstone@1`: a deleted checkpoint's public history. */
export const TOMBSTONE_TABLE = [
  { name: 'name', kind: 'utf8', nullable: false },
  { name: 'checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'generation_uuid', kind: 'uuid', nullable: false },
  { name: 'deleted_at', kind: 'timestamp_us', nullable: false },
  { name: 'deleted_revision', kind: 'uint64', nullable: false },
] as const satisfies readonly ColumnDecl[];

// ----------------------------------------------------- workspace documents

/** `workspace_ontology_info@1`: what `workspace_ontology()` returns (the user's view first, identities after). */
export const WORKSPACE_ONTOLOGY_INFO_TABLE = [
  { name: 'mode', kind: 'utf8', nullable: false },
  { name: 'class_count', kind: 'uint32', nullable: false },
  { name: 'relation_count', kind: 'uint32', nullable: false },
  { name: 'source_format', kind: 'utf8', nullable: true },
  { name: 'contract_version', kind: 'uint32', nullable: false },
  { name: 'canonical_ontology_sha256', kind: 'digest', nullable: true },
  { name: 'generation_uuid', kind: 'uuid', nullable: false },
  { name: 'document_sha256', kind: 'digest', nullable: true },
  { name: 'canonical_ontology', kind: 'utf8', nullable: true },
] as const satisfies readonly ColumnDecl[];

/** `workspace_configuration_info@1`: what `workspace_configuration()` returns. */
export const WORKSPACE_CONFIGURATION_INFO_TABLE = [
  { name: 'ontology_mode', kind: 'utf8', nullable: false },
  { name: 'capability_configuration', kind: 'utf8', nullable: false },
  { name: 'embedding_configuration', kind: 'utf8', nullable: false },
  { name: 'contract_version', kind: 'uint32', nullable: false },
  { name: 'generation_uuid', kind: 'uuid', nullable: false },
  { name: 'document_sha256', kind: 'digest', nullable: true },
] as const satisfies readonly ColumnDecl[];

/** `ontology_receipt@1`: the receipt of `adopt_ontology` / `clear_ontology` (identical on replay). */
export const ONTOLOGY_RECEIPT_TABLE = [
  { name: 'operation', kind: 'utf8', nullable: false },
  { name: 'operation_uuid', kind: 'uuid', nullable: false },
  { name: 'mode', kind: 'utf8', nullable: false },
  { name: 'source_format', kind: 'utf8', nullable: true },
  { name: 'canonical_ontology_sha256', kind: 'digest', nullable: true },
  { name: 'prior_current_generation_uuid', kind: 'uuid', nullable: true },
  { name: 'result_generation_uuid', kind: 'uuid', nullable: false },
] as const satisfies readonly ColumnDecl[];

// ------------------------------------------------------------------- diff

/** Result schema names. */
export const SUMMARY_DIFF_SCHEMA_NAME = 'checkpoint_summary_diff@1';
/** Result schema names. */
export const RECORD_DIFF_SCHEMA_NAME = 'checkpoint_record_diff@1';
/** Result schema of a record diff page with display values (`display: true`). */
export const RECORD_DIFF_DISPLAY_SCHEMA_NAME = 'checkpoint_record_diff_display@1';
/** Result schema of a display page with the changed fields' values (`display: true, changed_values: true`). */
export const RECORD_DIFF_VALUES_SCHEMA_NAME = 'checkpoint_record_diff_values@1';

/**
 * `checkpoint_summary_diff@1`: one row per participant, sorted by
 * `(scope, capability_id, record_family_id)`.
 *
 * `from_content_sha256` / `to_content_sha256` are each side's record-set
 * fingerprint (logical: the same records in any layout give the same value;
 * core/diff/page-record-set.ts), not the stored object's digest. Row counts are
 * null on the side where the participant is absent.
 */
export const SUMMARY_DIFF_TABLE = [
  { name: 'from_checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'to_checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'scope', kind: 'utf8', nullable: false },
  { name: 'capability_id', kind: 'utf8', nullable: false },
  { name: 'record_family_id', kind: 'utf8', nullable: false },
  { name: 'change_kind', kind: 'utf8', nullable: false },
  { name: 'from_row_count', kind: 'uint64', nullable: true },
  { name: 'to_row_count', kind: 'uint64', nullable: true },
  { name: 'from_schema_fingerprint', kind: 'digest', nullable: true },
  { name: 'to_schema_fingerprint', kind: 'digest', nullable: true },
  { name: 'from_content_sha256', kind: 'digest', nullable: true },
  { name: 'to_content_sha256', kind: 'digest', nullable: true },
] as const satisfies readonly ColumnDecl[];

/**
 * `checkpoint_record_diff@1`: changed logical records only, sorted by
 * `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`.
 *
 * Identities and fingerprints, never values.
 */
export const RECORD_DIFF_TABLE = [
  { name: 'from_checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'to_checkpoint_uuid', kind: 'uuid', nullable: false },
  { name: 'scope', kind: 'utf8', nullable: false },
  { name: 'record_family_id', kind: 'utf8', nullable: false },
  { name: 'record_uuid', kind: 'uuid', nullable: true },
  { name: 'record_identity_fingerprint', kind: 'digest', nullable: false },
  { name: 'change_kind', kind: 'utf8', nullable: false },
  { name: 'from_record_fingerprint', kind: 'digest', nullable: true },
  { name: 'to_record_fingerprint', kind: 'digest', nullable: true },
] as const satisfies readonly ColumnDecl[];

/**
 * `checkpoint_record_diff_display@1`: the record-diff columns, then
 *
 * - `row_number`: 1-based position of the row in the (filtered) change list;
 * - `total_rows`: rows of the (filtered) change list, or null while the
 *   engine has streamed only a prefix of it (a first page before any
 *   statistics or jump); the same on every row of a page;
 * - `display`: the family's display fields of the record (the `to` version,
 *   or `from` for a removed record) as a JSON object `{field: text|null}`
 *   in declaration order (`parseDisplay`);
 * - `changed_fields`: for a modified record the changed field names in
 *   schema order, comma-separated (`changedFieldList`); null otherwise.
 *
 * Fingerprints stay: the UI shows them behind "technical columns", the CLI
 * with `--wide`.
 */
export const RECORD_DIFF_DISPLAY_TABLE = [
  ...RECORD_DIFF_TABLE,
  { name: 'row_number', kind: 'uint64', nullable: false },
  { name: 'total_rows', kind: 'uint64', nullable: true },
  { name: 'display', kind: 'utf8', nullable: false },
  { name: 'changed_fields', kind: 'utf8', nullable: true },
] as const satisfies readonly ColumnDecl[];

/**
 * `checkpoint_record_diff_values@1`: the display columns, then `before` and
 * `after` as JSON objects `{field: text|null}` in schema order (the same
 * texts as `display`: timestamps as ISO-8601 UTC microseconds): for a
 * modified record its changed fields in the `from` and `to` version; for an
 * added record every field in `after` (`before` null); for a removed record
 * every field in `before` (`after` null). What an export leads with
 * (`parseDisplay` reads both).
 */
export const RECORD_DIFF_VALUES_TABLE = [
  ...RECORD_DIFF_DISPLAY_TABLE,
  { name: 'before', kind: 'utf8', nullable: true },
  { name: 'after', kind: 'utf8', nullable: true },
] as const satisfies readonly ColumnDecl[];

// ------------------------------------------------------------------ graph

/** Result schema of the graph operations. */
export const GRAPH_ELEMENT_SCHEMA_NAME = 'graph_element@1';

/**
 * `graph_element@1`: one row per node or edge.
 *
 * - `element`: `node` or `edge`; `id`: the element id (`graphElementId`);
 * - nodes: `node_uuid`, `label`, `class_id`, `depth` (hops from the start
 *   node; null in a diff graph);
 * - edges: `source_node_uuid`, `target_node_uuid`, `relation` (the edge kind);
 * - diff graphs: `change_kind` (`added`, `removed`, `modified`; null for an
 *   unchanged neighbour drawn as context), `changed_fields` (modified:
 *   comma-separated, schema order), `row_number` (1-based position of the
 *   change in the filtered record diff of its family, the record diff's own
 *   `row_number`), `total_changes` (changes of the filtered diff, every page;
 *   the same on every row) and `first_change` (0-based position of this page's
 *   first change in the filtered graph change sequence);
 * - neighbourhoods: `total_changes` and `first_change` are null.
 */
export const GRAPH_ELEMENT_TABLE = [
  { name: 'element', kind: 'utf8', nullable: false },
  { name: 'id', kind: 'utf8', nullable: false },
  { name: 'node_uuid', kind: 'uuid', nullable: true },
  { name: 'label', kind: 'utf8', nullable: true },
  { name: 'class_id', kind: 'utf8', nullable: true },
  { name: 'source_node_uuid', kind: 'uuid', nullable: true },
  { name: 'target_node_uuid', kind: 'uuid', nullable: true },
  { name: 'relation', kind: 'utf8', nullable: true },
  { name: 'depth', kind: 'uint32', nullable: true },
  { name: 'change_kind', kind: 'utf8', nullable: true },
  { name: 'changed_fields', kind: 'utf8', nullable: true },
  { name: 'row_number', kind: 'uint32', nullable: true },
  { name: 'total_changes', kind: 'uint32', nullable: true },
  { name: 'first_change', kind: 'uint32', nullable: true },
] as const satisfies readonly ColumnDecl[];

// ------------------------------------------------------------ every table

/**
 * Every named Arrow result table and its columns, in schema order.
 *
 * `view.records` / `view.record` pages are participant tables: their columns
 * are the record family's (core/participants), not a result table.
 */
export const RESULT_TABLES = {
  'checkpoint@1': CHECKPOINT_TABLE,
  'checkpoint_receipt@1': RECEIPT_TABLE,
  'checkpoint_tombstone@1': TOMBSTONE_TABLE,
  [SUMMARY_DIFF_SCHEMA_NAME]: SUMMARY_DIFF_TABLE,
  [RECORD_DIFF_SCHEMA_NAME]: RECORD_DIFF_TABLE,
  'workspace_ontology_info@1': WORKSPACE_ONTOLOGY_INFO_TABLE,
  'workspace_configuration_info@1': WORKSPACE_CONFIGURATION_INFO_TABLE,
  'ontology_receipt@1': ONTOLOGY_RECEIPT_TABLE,
  [RECORD_DIFF_DISPLAY_SCHEMA_NAME]: RECORD_DIFF_DISPLAY_TABLE,
  [RECORD_DIFF_VALUES_SCHEMA_NAME]: RECORD_DIFF_VALUES_TABLE,
  [GRAPH_ELEMENT_SCHEMA_NAME]: GRAPH_ELEMENT_TABLE,
} as const;

/** One named Arrow result schema. */
export type ArrowSchemaName = keyof typeof RESULT_TABLES;

/** A decoded row of a named result table. */
export type TableRow<S extends ArrowSchemaName> = RowOf<(typeof RESULT_TABLES)[S]>;
