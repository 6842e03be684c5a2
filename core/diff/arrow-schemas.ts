// The diff results' Arrow schemas (summary, record, display and values pages),
// built from the contract's table declarations, and the contract constants the
// engine uses, re-exported from core/contract/diff.
import {
  RECORD_DIFF_DISPLAY_SCHEMA_NAME,
  RECORD_DIFF_SCHEMA_NAME,
  RECORD_DIFF_VALUES_SCHEMA_NAME,
  SUMMARY_DIFF_SCHEMA_NAME,
  type RecordDiffColumn,
  type SummaryDiffColumn,
} from '../contract/diff';
import { resultSchema } from '../contract/result-schemas';

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

/**
 * `checkpoint_summary_diff@1`: one row per participant, sorted by
 * `(scope, capability_id, record_family_id)` (declared in core/contract/tables.ts).
 */
export const SUMMARY_DIFF_SCHEMA = resultSchema(SUMMARY_DIFF_SCHEMA_NAME, false);

/**
 * `checkpoint_record_diff@1`: changed logical records only, sorted by
 * `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`.
 * Carries identities and fingerprints, never values.
 */
export const RECORD_DIFF_SCHEMA = resultSchema(RECORD_DIFF_SCHEMA_NAME, false);

/** `checkpoint_record_diff_display@1`: a record-diff page of one family with what a person reads (`display: true`). */
export const RECORD_DIFF_DISPLAY_SCHEMA = resultSchema(RECORD_DIFF_DISPLAY_SCHEMA_NAME, false);

/** `checkpoint_record_diff_values@1`: a display page with the changed fields' `before` and `after` values. */
export const RECORD_DIFF_VALUES_SCHEMA = resultSchema(RECORD_DIFF_VALUES_SCHEMA_NAME, false);

/** Sort keys of the two result schemas, as the contract lists them. */
export const SUMMARY_DIFF_SORT = ['scope', 'capability_id', 'record_family_id'] as const satisfies readonly SummaryDiffColumn[];
/** Sort keys of the two result schemas, as the contract lists them. */
export const RECORD_DIFF_SORT = ['scope', 'record_family_id', 'record_uuid', 'record_identity_fingerprint', 'change_kind'] as const satisfies readonly RecordDiffColumn[];
