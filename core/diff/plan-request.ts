// The resolved diff request the engine runs, and the one typed resolver from a parsed
// contract request (cross-field and registry checks).
import { GfError } from '../errors';
import type { Scope } from '../participants/index';
import { DIFF_ADAPTERS } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import { DIFF_PAGE_LIMITS, RECORD_CHANGE_KINDS } from './arrow-schemas';
import type { DiffDetail, DiffScope, RecordChangeKind } from './arrow-schemas';
import type { FamilyFilter } from './page-token';
import type { OperationRequest } from '../contract/operations';

/** A resolved diff request (scope, detail, page size, cursor, optional record family): what the engine runs. */
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
 * The fields of a parsed `checkpoints.diff` request that shape the diff
 * (not its endpoints): the contract's schema has already checked each
 * field's type, range and spelling.
 */
export type DiffRequest = Pick<
  OperationRequest<'checkpoints.diff'>,
  'scope' | 'detail' | 'limit' | 'after' | 'record_family_id' | 'capability_id' | 'display' | 'change_kinds' | 'changed_field' | 'search' | 'position' | 'changed_values'
>;

/**
 * The record family a diff request names, or null when it names none.
 *
 * `record_family_id` must be a registered family (ids are unique across the
 * registry) selected by the request scope; `capability_id`, when given,
 * must be that family's capability and needs `record_family_id`. Anything
 * else is `GF_VALIDATION` (no caller text in the details).
 */
export function resolveFamily(
  input: Pick<DiffRequest, 'scope' | 'capability_id' | 'record_family_id'>,
  adapters: readonly DiffAdapter[] = DIFF_ADAPTERS,
): FamilyFilter | null {
  const id = input.record_family_id ?? null;
  const cap = input.capability_id ?? null;
  if (id === null) {
    if (cap !== null) validation('capability_id', 'needs_record_family_id');
    return null;
  }
  const found = adapters.filter((a) => a.recordFamilyId === id && (cap === null || a.capabilityId === cap));
  if (found.length !== 1) return validation(cap === null ? 'record_family_id' : 'capability_id', 'unknown');
  const a = found[0] as DiffAdapter;
  if (!scopeSelects(input.scope, a.scope)) validation('record_family_id', 'not_in_scope');
  return { capabilityId: a.capabilityId, recordFamilyId: a.recordFamilyId };
}

/**
 * The one typed resolver of a parsed diff request: the checks the contract's
 * schema cannot make (fields that need each other, and the registry: does
 * this family or field exist, is it in the scope), then the engine's params.
 *
 * `limit` defaults to 100; `record_family_id` (with an optional
 * `capability_id`) narrows the diff to one registered family of the scope
 * (see `resolveFamily`). Scope `summary` means "every participant, summary
 * only", so it refuses record detail. `GF_VALIDATION` on any refusal.
 */
export function resolveDiffParams(input: DiffRequest, adapters: readonly DiffAdapter[] = DIFF_ADAPTERS): DiffParams {
  const after = input.after ?? null;
  if (input.scope === 'summary' && input.detail === 'records') validation('detail', 'summary_scope_has_no_records');
  const family = resolveFamily(input, adapters);
  const view = resolveView(input, family, adapters, input.detail === 'records');
  const position = input.position ?? null;
  if (position !== null) {
    if (view === null) validation('position', 'needs_display');
    if (after !== null) validation('position', 'position_with_after');
  }
  return { scope: input.scope, detail: input.detail, limit: input.limit ?? DIFF_PAGE_LIMITS.default, after, family, view, position };
}

/**
 * The display view of a request (null without `display: true`).
 *
 * Display pages are record detail of one family (`record_family_id`);
 * `change_kinds`, `changed_field`, `search` and `position` need
 * `display: true`; `changed_field` must be a field of the family; a
 * search of only white space finds nothing to look for.
 */
function resolveView(
  input: Pick<DiffRequest, 'display' | 'change_kinds' | 'changed_field' | 'search' | 'changed_values'>,
  family: FamilyFilter | null,
  adapters: readonly DiffAdapter[],
  records: boolean,
): DiffView | null {
  const display = input.display ?? false;
  for (const f of ['change_kinds', 'changed_field', 'search'] as const) {
    if (input[f] !== undefined && input[f] !== null && !display) validation(f, 'needs_display');
  }
  const values = input.changed_values ?? false;
  if (values && !display) validation('changed_values', 'needs_display');
  if (!display) return null;
  if (!records) validation('display', 'needs_record_detail');
  if (family === null) validation('display', 'needs_record_family_id');
  const kinds = input.change_kinds ?? null;
  const field = input.changed_field ?? null;
  if (field !== null) {
    const a = adapters.find((x) => x.capabilityId === family.capabilityId && x.recordFamilyId === family.recordFamilyId);
    if (a?.family.field(field) === undefined) validation('changed_field', 'unknown');
  }
  const search = input.search ?? null;
  if (search !== null && search.trim().length === 0) validation('search', 'type');
  return {
    kinds: kinds === null ? null : RECORD_CHANGE_KINDS.filter((k) => kinds.includes(k)),
    field,
    search: search === null ? null : search.trim().normalize('NFC').toLowerCase(),
    ...(values ? { values: true } : {}),
  };
}

/** True when a participant scope is selected by a request scope. */
export function scopeSelects(scope: DiffScope, participantScope: Scope): boolean {
  return scope === 'all' || scope === 'summary' || scope === participantScope;
}
