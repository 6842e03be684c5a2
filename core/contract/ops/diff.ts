// The diff operations: the summary or record diff between two checkpoints or
// CURRENT, its exact statistics, one record's two versions, and cancelling a
// running diff. Each declared once with its request schema and result.
// Browser-safe (zod and core/contract).
import { z } from 'zod';
import { DIFF_DETAILS, DIFF_SCOPES, DIFF_SEARCH_MAX_CHARS, RECORD_CHANGE_KINDS, type DiffStatResult } from '../diff';
import { afterSchema, fieldNameSchema, handleSchema, identifierSchema, identitySchema, limitSchema, selectorSchema, uuidSchema } from './atoms';
import { arrowOp, jsonOp, returns, type DomainOperations } from './declare';

/** A record's values as JSON: timestamps and 64-bit integers as decimal text, binary as lowercase hex. */
export type RecordJson = Readonly<Record<string, string | number | boolean | null>>;

/** One record between two endpoints (`checkpoints.record_change`). */
export interface RecordChangeEntry {
  readonly from_checkpoint_uuid: string;
  readonly to_checkpoint_uuid: string;
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  /** The diff's three kinds, or `unchanged` when both versions are equal. */
  readonly change_kind: 'added' | 'removed' | 'modified' | 'unchanged';
  /** The record at `from` (null when added). */
  readonly from: RecordJson | null;
  /** The record at `to` (null when removed). */
  readonly to: RecordJson | null;
  /** Declared fields whose values differ, in schema order. */
  readonly changed_fields: readonly string[];
  /** Fields holding UTC microsecond timestamps (their values are decimal text), for display. */
  readonly timestamp_fields: readonly string[];
  readonly from_record_fingerprint: string | null;
  readonly to_record_fingerprint: string | null;
}

/** The diff operations. */
export const DIFF_OPERATIONS = {
  'checkpoints.diff': arrowOp(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      scope: z.enum(DIFF_SCOPES),
      detail: z.enum(DIFF_DETAILS),
      limit: limitSchema,
      after: afterSchema,
      /** Only this record family of the scope (its drill-down); page tokens are bound to it. */
      record_family_id: identifierSchema.optional(),
      /** The family's capability (optional; only with `record_family_id`, and must be its capability). */
      capability_id: identifierSchema.optional(),
      operation_id: uuidSchema.optional(),
      // The reviewer fields: every one below needs record detail of one family.
      /** Record pages with display values, changed fields, row numbers and totals (`checkpoint_record_diff_display@1`). */
      display: z.boolean().optional(),
      /** Only these change kinds (engine-side filter; page tokens are bound to it). Needs `display`. */
      change_kinds: z.array(z.enum(RECORD_CHANGE_KINDS)).min(1).max(RECORD_CHANGE_KINDS.length).optional(),
      /** Only modified records in which this field changed (engine-side; bound into page tokens). Needs `display`. */
      changed_field: fieldNameSchema.optional(),
      /** Record-id prefix (UUID text or hex) or display-text substring, case-insensitive (engine-side, paged, bound). Needs `display`. */
      search: z.string().min(1).max(DIFF_SEARCH_MAX_CHARS).optional(),
      /** Jump: the page starting at this 0-based row of the (filtered) change list; not with `after`. Needs `display`. */
      position: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      /** Also the changed fields' before and after values of modified records (`checkpoint_record_diff_values@1`; exports). Needs `display`. */
      changed_values: z.boolean().optional(),
    }).strict(),
    ['checkpoint_summary_diff@1', 'checkpoint_record_diff@1', 'checkpoint_record_diff_display@1', 'checkpoint_record_diff_values@1'], false, 'Summary or record diff between two checkpoints or CURRENT (optionally one record family), paged and cancellable.'),
  /**
   * Exact statistics of a diff: per participant the added, removed and
   * modified record counts and the changed cells per field.
   *
   * Reads each changed family once (the change lists it stores make later
   * pages, totals and jumps cheap); cancellable by `operation_id`.
   */
  'checkpoints.diff_stat': jsonOp(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      scope: z.enum(DIFF_SCOPES),
      record_family_id: identifierSchema.optional(),
      capability_id: identifierSchema.optional(),
      operation_id: uuidSchema.optional(),
    }).strict(),
    returns<DiffStatResult>(), false, 'Exact per-family counts of added, removed and modified records and changed cells per field between two checkpoints or CURRENT.'),
  'operation.cancel': jsonOp(z.object({ operation_id: uuidSchema }).strict(), returns<{ readonly cancelled: boolean }>(), false, 'Cancel a running diff by its operation id.'),
  /**
   * Both versions of one record between two checkpoints or CURRENT, and the
   * fields that differ (the record inspector of a diff).
   *
   * The diff itself carries fingerprints only; this shows values, to the
   * user who asked, for one record at a time. The record is named by its
   * identity field values, or (for any family, with or without a record
   * UUID) by a record-diff row's `record_identity_fingerprint`, optionally
   * with that row's `record_uuid`: exactly one of `identity` and
   * `record_identity_fingerprint` (`GF_VALIDATION` otherwise, and when no
   * such record is on either side).
   */
  'checkpoints.record_change': jsonOp(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      record_family_id: identifierSchema,
      identity: identitySchema.optional(),
      record_identity_fingerprint: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      record_uuid: uuidSchema.nullable().optional(),
    }).strict(),
    returns<RecordChangeEntry>(), false, 'Both versions of one record between two checkpoints or CURRENT, and the fields that differ.'),
} as const satisfies DomainOperations;
