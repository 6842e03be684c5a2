// The diff screen's link codec and record filter: what a diff link holds (the
// compared pair, the family, its filter and row) to and from link parameters,
// and the engine-side filter fields of a record-diff request.
import type { DiffScope, OperationInput, Row } from '../../core/contract/operations';
import { DIFF_SCOPES } from '../../core/contract/operations';
import { RECORD_CHANGE_KINDS, type DiffStatFamily, type RecordChangeKind } from '../../core/contract/diff';

const CHANGE_KINDS = RECORD_CHANGE_KINDS;
type ChangeKind = RecordChangeKind;
type SummaryRow = Row<'checkpoints.diff', 'checkpoint_summary_diff@1'>;

/** A family's key in the summary and the statistics. */
export const familyKeyOf = (f: { readonly capability_id: string | null; readonly record_family_id: string | null }): string => `${f.capability_id ?? ''}/${f.record_family_id ?? ''}`;

/** A family's key in a deep link (`capability/record_family`, as the summary keys it). */
export const familyParam = (r: Pick<SummaryRow, 'capability_id' | 'record_family_id'>): string => familyKeyOf(r);

/** The compared pair a diff link names (`from`, `to`, `scope`), or null when it names none. */
export function linkedPair(params: Readonly<Record<string, string>>): { readonly from: string; readonly to: string; readonly scope: DiffScope } | null {
  const from = params['from'];
  const to = params['to'];
  if (from === undefined || to === undefined) return null;
  const s = params['scope'];
  return { from, to, scope: s !== undefined && (DIFF_SCOPES as readonly string[]).includes(s) ? (s as DiffScope) : 'all' };
}

/** The link parameters of a compared pair (scope `all` left out). */
export function pairParams(pair: { readonly from: string; readonly to: string; readonly scope: DiffScope }): Record<string, string> {
  return { from: pair.from, to: pair.to, ...(pair.scope === 'all' ? {} : { scope: pair.scope }) };
}

/** The record filter and position a diff link holds (`kinds`, `field`, `q`, `row`); defaults for what it omits or garbles. */
export function linkedFilter(params: Readonly<Record<string, string>>): { readonly filter: RecordFilter; readonly position: number } {
  const k = params['kinds'];
  const kinds = k === undefined ? CHANGE_KINDS : CHANGE_KINDS.filter((x) => k.split(',').includes(x));
  const row = Number(params['row'] ?? '1');
  return {
    filter: { kinds: kinds.length === 0 ? CHANGE_KINDS : kinds, field: params['field'] ?? null, search: params['q'] ?? null },
    position: Number.isSafeInteger(row) && row >= 1 ? row - 1 : 0,
  };
}

/** The link parameters of a record filter and position (defaults omitted, so a plain family link stays short). */
export function filterParams(filter: RecordFilter, position: number): Record<string, string | null> {
  return {
    kinds: filter.kinds.length === CHANGE_KINDS.length ? null : filter.kinds.join(','),
    field: filter.field,
    q: filter.search,
    row: position === 0 ? null : String(position + 1),
  };
}

/** What the engine filters a family's change list by (page tokens are bound to it). */
export interface RecordFilter {
  readonly kinds: readonly ChangeKind[];
  /** Only modified records in which this field changed. */
  readonly field: string | null;
  /** Record-id prefix or display-text substring. */
  readonly search: string | null;
}

/**
 * Rows of the change list a filter selects, from the exact statistics; null
 * when only the engine's walk can tell (a search).
 */
export function filteredTotal(stat: Pick<DiffStatFamily, 'added' | 'removed' | 'modified' | 'changed_cells'> | null, filter: RecordFilter): number | null {
  if (stat === null || filter.search !== null) return null;
  if (filter.field !== null) return filter.kinds.includes('modified') ? (stat.changed_cells.find((c) => c.field === filter.field)?.records ?? 0) : 0;
  return filter.kinds.reduce((n, k) => n + stat[k], 0);
}

/** The engine-side filter fields of a record-diff request (none for the whole list). */
export function filterRequest(filter: RecordFilter): Pick<OperationInput<'checkpoints.diff'>, 'change_kinds' | 'changed_field' | 'search'> {
  return {
    ...(filter.kinds.length === CHANGE_KINDS.length ? {} : { change_kinds: [...filter.kinds] }),
    ...(filter.field === null ? {} : { changed_field: filter.field }),
    ...(filter.search === null ? {} : { search: filter.search }),
  };
}

/** Link parameters with the removed ones (null) left out. */
export function dropNulls(changes: Readonly<Record<string, string | null>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(changes)) if (v !== null) out[k] = v;
  return out;
}
