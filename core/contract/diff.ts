// The diff operation's browser-safe vocabulary: scopes, detail levels, change
// kinds, page bounds and the result column names. The engine builds its Arrow
// schemas from these names (core/diff/contract.ts), the renderer and the CLI
// read rows typed by them: a renamed column fails the build on every side.

/** The user-facing domain scopes of `graphforge-checkpoint-api/1` (participants add `workspace`, which no diff scope names). */
export const DOMAIN_SCOPES = ['graph', 'ontology', 'configuration', 'capabilities', 'provenance', 'knowledge', 'epistemic'] as const;

/** Request scopes: `summary` (every participant, summary only), one domain scope, or `all`. */
export const DIFF_SCOPES = ['summary', ...DOMAIN_SCOPES, 'all'] as const;

/** One request scope. */
export type DiffScope = (typeof DIFF_SCOPES)[number];

/** Result detail levels. */
export const DIFF_DETAILS = ['summary', 'records'] as const;

/** One detail level. */
export type DiffDetail = (typeof DIFF_DETAILS)[number];

/** `change_kind` of summary rows. */
export const SUMMARY_CHANGE_KINDS = ['added', 'removed', 'modified', 'unchanged'] as const;

/** One summary change kind. */
export type SummaryChangeKind = (typeof SUMMARY_CHANGE_KINDS)[number];

/** `change_kind` of record rows (sort order of the contract is by these strings' bytes). */
export const RECORD_CHANGE_KINDS = ['added', 'modified', 'removed'] as const;

/** One record change kind. */
export type RecordChangeKind = (typeof RECORD_CHANGE_KINDS)[number];

/** Page size bounds (`limits.diff_page_*` of the contract). */
export const DIFF_PAGE_LIMITS = { min: 1, max: 10_000, default: 100 } as const;

/** The reserved selector naming the live generation. */
export const CURRENT_SELECTOR = 'CURRENT';

/** Result schema names. */
export const SUMMARY_DIFF_SCHEMA_NAME = 'checkpoint_summary_diff@1';
/** Result schema names. */
export const RECORD_DIFF_SCHEMA_NAME = 'checkpoint_record_diff@1';

/**
 * `checkpoint_summary_diff@1` columns, in schema order.
 *
 * One row per participant, sorted by `(scope, capability_id, record_family_id)`.
 */
export const SUMMARY_DIFF_COLUMNS = [
  'from_checkpoint_uuid',
  'to_checkpoint_uuid',
  'scope',
  'capability_id',
  'record_family_id',
  'change_kind',
  'from_row_count',
  'to_row_count',
  'from_schema_fingerprint',
  'to_schema_fingerprint',
  'from_content_sha256',
  'to_content_sha256',
] as const;

/**
 * `checkpoint_record_diff@1` columns, in schema order.
 *
 * Changed logical records only; identities and fingerprints, never values.
 */
export const RECORD_DIFF_COLUMNS = [
  'from_checkpoint_uuid',
  'to_checkpoint_uuid',
  'scope',
  'record_family_id',
  'record_uuid',
  'record_identity_fingerprint',
  'change_kind',
  'from_record_fingerprint',
  'to_record_fingerprint',
] as const;

/** One summary-diff column name. */
export type SummaryDiffColumn = (typeof SUMMARY_DIFF_COLUMNS)[number];
/** One record-diff column name. */
export type RecordDiffColumn = (typeof RECORD_DIFF_COLUMNS)[number];

/**
 * Diagnostics channel on which an async diff publishes `{ phase }` at each
 * pause (the CLI's progress lines listen to it by this name).
 */
export const DIFF_PROGRESS_CHANNEL = 'graphforge:diff:pause';

/**
 * Diagnostics channel on which the diff engine publishes notices a person
 * should see beside the result, e.g. `{ kind: 'token_key_in_memory' }` when the
 * workspace cannot be written and page tokens are valid in this process only.
 */
export const DIFF_NOTICE_CHANNEL = 'graphforge:diff:notice';
