import { GfError } from '../../errors';
import type { Scope } from '../../participants/index';
import { DIFF_ADAPTERS } from './adapters';
import type { DiffAdapter } from './adapters';
import { DIFF_DETAILS, DIFF_PAGE_LIMITS, DIFF_SCOPES, DIFF_SEARCH_MAX_CHARS, RECORD_CHANGE_KINDS } from '../arrow-schemas';
import type { DiffDetail, DiffScope, RecordChangeKind } from '../arrow-schemas';
import type { FamilyFilter } from '../page/page-token';

/** A validated diff request (scope, detail, page size, cursor, optional record family). */
export interface DiffParams {
  readonly scope: DiffScope;
  readonly detail: DiffDetail;
  readonly limit: number;
  readonly after: string | null;
  /**
   * Only this record family's participant (absent or null: every family of the scope).
   *
   * A family-scoped record diff reads and pages one family alone instead of
   * the whole scope; its page tokens are bound to the family.
   */
  readonly family?: FamilyFilter | null;
  /** Display pages (`checkpoint_record_diff_display@1`) and their engine-side filters; null or absent: plain pages. */
  readonly view?: DiffView | null;
  /** Jump: the 0-based row of the (filtered) list a display page starts at; null or absent: from `after` or the start. */
  readonly position?: number | null;
}

/**
 * The reviewer view of a display page: engine-side filters (each null when
 * not asked). `search` is normalized (NFC, lower case).
 */
export interface DiffView {
  readonly kinds: readonly RecordChangeKind[] | null;
  readonly field: string | null;
  readonly search: string | null;
  /** Also the changed fields' before/after values (`checkpoint_record_diff_values@1`); not a filter, so not bound into tokens. */
  readonly values?: boolean;
}

export function validation(field: string, problem: string): never {
  throw new GfError('GF_VALIDATION', 'invalid diff request', { operation: 'diff_checkpoints', field, problem });
}

/**
 * The record family a diff request names, or null when it names none.
 *
 * `record_family_id` must be a registered family (ids are unique across the
 * registry) selected by the request scope; `capability_id`, when given,
 * must be that family's capability and needs `record_family_id`. Anything
 * else is `GF_VALIDATION` (no caller text in the details).
 */
export function validateFamilyFilter(
  input: { readonly scope?: unknown; readonly capability_id?: unknown; readonly record_family_id?: unknown },
  adapters: readonly DiffAdapter[] = DIFF_ADAPTERS,
): FamilyFilter | null {
  const id = input.record_family_id ?? null;
  const cap = input.capability_id ?? null;
  if (id === null) {
    if (cap !== null) validation('capability_id', 'needs_record_family_id');
    return null;
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > 128) return validation('record_family_id', 'type');
  const found = adapters.filter((a) => a.recordFamilyId === id && (cap === null || a.capabilityId === cap));
  if (found.length !== 1) return validation(cap === null ? 'record_family_id' : 'capability_id', 'unknown');
  const a = found[0] as DiffAdapter;
  if ((DIFF_SCOPES as readonly unknown[]).includes(input.scope) && !scopeSelects(input.scope as DiffScope, a.scope)) {
    validation('record_family_id', 'not_in_scope');
  }
  return { capabilityId: a.capabilityId, recordFamilyId: a.recordFamilyId };
}

/**
 * The fields of a `diff_checkpoints` request that shape the diff (not its
 * endpoints), as a caller sends them: unchecked until `validateDiffParams`.
 */
export interface DiffRequestFields {
  readonly scope?: unknown;
  readonly detail?: unknown;
  readonly limit?: unknown;
  readonly after?: unknown;
  /**
   * Only this record family (optional): one registered family of the scope.
   *
   * The drill-down into one family reads and pages that family alone, not
   * the whole scope; tokens of such pages are bound to the family.
   */
  readonly record_family_id?: unknown;
  /** The family's capability (optional, only with `record_family_id`; must match it). */
  readonly capability_id?: unknown;
  /** Display pages (`checkpoint_record_diff_display@1`) of one family; the fields below need it. */
  readonly display?: unknown;
  /** Only these change kinds (engine-side; bound into tokens). */
  readonly change_kinds?: unknown;
  /** Only modified records in which this field changed (engine-side; bound into tokens). */
  readonly changed_field?: unknown;
  /** Record-id prefix or display-text substring (engine-side; bound into tokens as a digest). */
  readonly search?: unknown;
  /** Jump: the page starting at this 0-based row of the (filtered) list (not with `after`). */
  readonly position?: unknown;
  /** Also the changed fields' before/after values (`checkpoint_record_diff_values@1`). */
  readonly changed_values?: unknown;
}

/**
 * Validates the request fields of `diff_checkpoints` (`GF_VALIDATION` on any bad one).
 *
 * `scope` and `detail` are required; `limit` is an integer 1–10,000
 * (default 100); `after` is an opaque token or absent; `record_family_id`
 * (with an optional `capability_id`) narrows the diff to one registered
 * family of the scope (see `validateFamilyFilter`). Scope `summary`
 * means "every participant, summary only", so it refuses record detail.
 */
export function validateDiffParams(
  input: DiffRequestFields,
  adapters: readonly DiffAdapter[] = DIFF_ADAPTERS,
): DiffParams {
  if (!(DIFF_SCOPES as readonly unknown[]).includes(input.scope)) validation('scope', 'unknown');
  if (!(DIFF_DETAILS as readonly unknown[]).includes(input.detail)) validation('detail', 'unknown');
  const limit = input.limit ?? DIFF_PAGE_LIMITS.default;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < DIFF_PAGE_LIMITS.min || limit > DIFF_PAGE_LIMITS.max) {
    throw new GfError('GF_VALIDATION', 'limit must be an integer from 1 to 10000', {
      operation: 'diff_checkpoints',
      field: 'limit',
      min: DIFF_PAGE_LIMITS.min,
      max: DIFF_PAGE_LIMITS.max,
    });
  }
  const after = input.after ?? null;
  if (after !== null && typeof after !== 'string') validation('after', 'type');
  if (input.scope === 'summary' && input.detail === 'records') validation('detail', 'summary_scope_has_no_records');
  const family = validateFamilyFilter(input, adapters);
  const view = validateView(input, family, adapters, input.detail === 'records');
  const position = input.position ?? null;
  if (position !== null) {
    if (view === null) validation('position', 'needs_display');
    if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) validation('position', 'type');
    if (after !== null) validation('position', 'position_with_after');
  }
  return { scope: input.scope as DiffScope, detail: input.detail as DiffDetail, limit, after, family, view, position: position as number | null };
}

/**
 * The display view of a request (null without `display: true`).
 *
 * Display pages are record detail of one family (`record_family_id`);
 * `change_kinds`, `changed_field`, `search` and `position` need
 * `display: true`; `changed_field` must be a field of the family.
 */
function validateView(
  input: Pick<DiffRequestFields, 'display' | 'change_kinds' | 'changed_field' | 'search' | 'changed_values'>,
  family: FamilyFilter | null,
  adapters: readonly DiffAdapter[],
  records: boolean,
): DiffView | null {
  const display = input.display ?? false;
  if (typeof display !== 'boolean') validation('display', 'type');
  for (const f of ['change_kinds', 'changed_field', 'search'] as const) {
    if (input[f] !== undefined && input[f] !== null && display !== true) validation(f, 'needs_display');
  }
  const values = input.changed_values ?? false;
  if (typeof values !== 'boolean') validation('changed_values', 'type');
  if (values && display !== true) validation('changed_values', 'needs_display');
  if (display !== true) return null;
  if (!records) validation('display', 'needs_record_detail');
  if (family === null) validation('display', 'needs_record_family_id');
  const kinds = input.change_kinds ?? null;
  if (kinds !== null && (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((k) => (RECORD_CHANGE_KINDS as readonly unknown[]).includes(k)))) {
    validation('change_kinds', 'unknown');
  }
  const field = input.changed_field ?? null;
  if (field !== null) {
    const a = adapters.find((x) => x.capabilityId === family.capabilityId && x.recordFamilyId === family.recordFamilyId);
    if (typeof field !== 'string' || a?.family.field(field) === undefined) validation('changed_field', 'unknown');
  }
  const search = input.search ?? null;
  if (search !== null && (typeof search !== 'string' || search.trim().length === 0 || search.length > DIFF_SEARCH_MAX_CHARS)) validation('search', 'type');
  return {
    kinds: kinds === null ? null : RECORD_CHANGE_KINDS.filter((k) => (kinds as unknown[]).includes(k)),
    field: field as string | null,
    search: search === null ? null : (search as string).trim().normalize('NFC').toLowerCase(),
    ...(values ? { values: true } : {}),
  };
}

/** True when a participant scope is selected by a request scope. */
export function scopeSelects(scope: DiffScope, participantScope: Scope): boolean {
  return scope === 'all' || scope === 'summary' || scope === participantScope;
}
