import { Field, FixedSizeBinary, Schema, Uint64, Utf8 } from 'apache-arrow';

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

// Scopes and detail levels live in a module without Arrow, so the CLI can list them in `--help` cheaply.
export { DIFF_SCOPES, DIFF_DETAILS, type DiffScope, type DiffDetail } from './scopes';

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

/** Domain of the synthetic CURRENT endpoint UUID (ADR-0014 "Diff"). */
export const CURRENT_ENDPOINT_DOMAIN = 'graphforge-current-checkpoint-endpoint/1';

/** Contract of the closed record-diff adapter registry. */
export const DIFF_ADAPTER_CONTRACT = 'checkpoint-diff-adapter/1';

/** Result schema names. */
export const SUMMARY_DIFF_SCHEMA_NAME = 'checkpoint_summary_diff@1';
/** Result schema names. */
export const RECORD_DIFF_SCHEMA_NAME = 'checkpoint_record_diff@1';

const uuid = (name: string, nullable: boolean): Field => new Field(name, new FixedSizeBinary(16), nullable);
const digest = (name: string, nullable: boolean): Field => new Field(name, new FixedSizeBinary(32), nullable);
const text = (name: string): Field => new Field(name, new Utf8(), false);
const count = (name: string): Field => new Field(name, new Uint64(), true);

/**
 * `checkpoint_summary_diff@1`: one row per participant, sorted by
 * `(scope, capability_id, record_family_id)`.
 */
export const SUMMARY_DIFF_SCHEMA = new Schema([
  uuid('from_checkpoint_uuid', false),
  uuid('to_checkpoint_uuid', false),
  text('scope'),
  text('capability_id'),
  text('record_family_id'),
  text('change_kind'),
  count('from_row_count'),
  count('to_row_count'),
  digest('from_schema_fingerprint', true),
  digest('to_schema_fingerprint', true),
  digest('from_content_sha256', true),
  digest('to_content_sha256', true),
]);

/**
 * `checkpoint_record_diff@1`: changed logical records only, sorted by
 * `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`.
 *
 * Carries identities and fingerprints, never values.
 */
export const RECORD_DIFF_SCHEMA = new Schema([
  uuid('from_checkpoint_uuid', false),
  uuid('to_checkpoint_uuid', false),
  text('scope'),
  text('record_family_id'),
  uuid('record_uuid', true),
  digest('record_identity_fingerprint', false),
  text('change_kind'),
  digest('from_record_fingerprint', true),
  digest('to_record_fingerprint', true),
]);

/** Sort keys of the two result schemas, as the contract lists them. */
export const SUMMARY_DIFF_SORT = ['scope', 'capability_id', 'record_family_id'] as const;
/** Sort keys of the two result schemas, as the contract lists them. */
export const RECORD_DIFF_SORT = ['scope', 'record_family_id', 'record_uuid', 'record_identity_fingerprint', 'change_kind'] as const;
