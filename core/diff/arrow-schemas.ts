// The diff results' Arrow schemas (summary, record, display and values pages) and the
// contract constants the engine uses, re-exported from core/contract/diff.
import { Field, FixedSizeBinary, Schema, Uint64, Utf8 } from 'apache-arrow';
import { RECORD_DIFF_COLUMNS, RECORD_DIFF_DISPLAY_COLUMNS, RECORD_DIFF_VALUES_COLUMNS, SUMMARY_DIFF_COLUMNS, type RecordDiffColumn, type SummaryDiffColumn } from '../contract/diff';

/**
 * Frozen names, limits and result schemas of `diff_checkpoints`
 * (`graphforge-checkpoint-api/1`, schemas `checkpoint_summary_diff@1` and
 * `checkpoint_record_diff@1`).
 *
 * Declared in code, never read from the contract file at run time; the
 * schema tests compare these against the checked-in contract fixture.
 */
export const DIFF_API_VERSION = 'graphforge-checkpoint-api/1';

/** The method a page token is bound to. */
export const DIFF_METHOD = 'diff_checkpoints';

export {
  CURRENT_SELECTOR,
  DIFF_DETAILS,
  DIFF_PAGE_LIMITS,
  DIFF_SCOPES,
  DIFF_SEARCH_MAX_CHARS,
  RECORD_CHANGE_KINDS,
  RECORD_DIFF_DISPLAY_COLUMNS,
  RECORD_DIFF_DISPLAY_SCHEMA_NAME,
  RECORD_DIFF_VALUES_COLUMNS,
  RECORD_DIFF_VALUES_SCHEMA_NAME,
  RECORD_DIFF_COLUMNS,
  RECORD_DIFF_SCHEMA_NAME,
  SUMMARY_CHANGE_KINDS,
  SUMMARY_DIFF_COLUMNS,
  SUMMARY_DIFF_SCHEMA_NAME,
} from '../contract/diff';
export type { DiffDetail, DiffScope, RecordChangeKind, RecordDiffColumn, SummaryChangeKind, SummaryDiffColumn } from '../contract/diff';

/** Domain of the synthetic CURRENT endpoint UUID (ADR-0014 "Diff"). */
export const CURRENT_ENDPOINT_DOMAIN = 'graphforge-current-checkpoint-endpoint/1';

/** Contract of the closed record-diff adapter registry. */
export const DIFF_ADAPTER_CONTRACT = 'checkpoint-diff-adapter/1';

/** A column's Arrow type and nullability (its name comes from the contract). */
type ColumnType = (name: string) => Field;
const uuid = (nullable: boolean): ColumnType => (name) => new Field(name, new FixedSizeBinary(16), nullable);
const digest = (nullable: boolean): ColumnType => (name) => new Field(name, new FixedSizeBinary(32), nullable);
const text: ColumnType = (name) => new Field(name, new Utf8(), false);
const count: ColumnType = (name) => new Field(name, new Uint64(), true);

/** A schema in the contract's column order; the type map must name exactly the contract's columns. */
function schemaOf<C extends string>(columns: readonly C[], types: { readonly [K in C]: ColumnType }): Schema {
  return new Schema(columns.map((c) => types[c](c)));
}

/**
 * `checkpoint_summary_diff@1`: one row per participant, sorted by
 * `(scope, capability_id, record_family_id)`.
 */
export const SUMMARY_DIFF_SCHEMA = schemaOf(SUMMARY_DIFF_COLUMNS, {
  from_checkpoint_uuid: uuid(false),
  to_checkpoint_uuid: uuid(false),
  scope: text,
  capability_id: text,
  record_family_id: text,
  change_kind: text,
  from_row_count: count,
  to_row_count: count,
  from_schema_fingerprint: digest(true),
  to_schema_fingerprint: digest(true),
  from_content_sha256: digest(true),
  to_content_sha256: digest(true),
});

/** Types of the `checkpoint_record_diff@1` columns (the display schema starts with the same columns). */
const recordTypes = {
  from_checkpoint_uuid: uuid(false),
  to_checkpoint_uuid: uuid(false),
  scope: text,
  record_family_id: text,
  record_uuid: uuid(true),
  record_identity_fingerprint: digest(false),
  change_kind: text,
  from_record_fingerprint: digest(true),
  to_record_fingerprint: digest(true),
} as const;

/**
 * `checkpoint_record_diff@1`: changed logical records only, sorted by
 * `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`.
 *
 * Carries identities and fingerprints, never values.
 */
export const RECORD_DIFF_SCHEMA = schemaOf(RECORD_DIFF_COLUMNS, recordTypes);

/**
 * `checkpoint_record_diff_display@1`: a record-diff page of one family with
 * what a person reads (`display: true`): the record-diff columns, the row's
 * 1-based `row_number` in the (filtered) list, `total_rows` (null while
 * unknown), the `display` JSON object and the modified row's `changed_fields`.
 */
export const RECORD_DIFF_DISPLAY_SCHEMA = schemaOf(RECORD_DIFF_DISPLAY_COLUMNS, {
  ...recordTypes,
  row_number: (name) => new Field(name, new Uint64(), false),
  total_rows: count,
  display: text,
  changed_fields: (name) => new Field(name, new Utf8(), true),
});

/**
 * `checkpoint_record_diff_values@1`: a display page with, for modified
 * records, the changed fields' `before` and `after` values (JSON objects;
 * null for added and removed records).
 */
export const RECORD_DIFF_VALUES_SCHEMA = schemaOf(RECORD_DIFF_VALUES_COLUMNS, {
  ...recordTypes,
  row_number: (name) => new Field(name, new Uint64(), false),
  total_rows: count,
  display: text,
  changed_fields: (name) => new Field(name, new Utf8(), true),
  before: (name) => new Field(name, new Utf8(), true),
  after: (name) => new Field(name, new Utf8(), true),
});

/** Sort keys of the two result schemas, as the contract lists them. */
export const SUMMARY_DIFF_SORT = ['scope', 'capability_id', 'record_family_id'] as const satisfies readonly SummaryDiffColumn[];
/** Sort keys of the two result schemas, as the contract lists them. */
export const RECORD_DIFF_SORT = ['scope', 'record_family_id', 'record_uuid', 'record_identity_fingerprint', 'change_kind'] as const satisfies readonly RecordDiffColumn[];
