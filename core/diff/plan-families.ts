// The plan: both endpoints' participants joined by family, the summary rows from
// manifests alone, and the families of record detail with their adapters.
import { GfError } from '../errors';
import type { Scope } from '../participants/index';
import { DIFF_ADAPTERS, adaptersFor, resolveAdapter } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import type { DiffScope, SummaryChangeKind } from './arrow-schemas';
import type { DiffEndpoint, EndpointParticipant } from './plan-endpoint';
import type { FamilyFilter, SummaryPosition } from './page-token';
import { compareFamilyKey } from './changes-key';
import type { SummaryRow } from './page-result-tables';
import { scopeSelects } from './plan-request';

export function familyKey(p: Pick<EndpointParticipant, 'capabilityId' | 'recordFamilyId'>): string {
  return `${p.capabilityId}/${p.recordFamilyId}`;
}

function structural(p: EndpointParticipant, problem: string): never {
  throw new GfError('GF_SCHEMA_MISMATCH', 'participant has no matching record-diff adapter', {
    capability_id: p.capabilityId.slice(0, 128),
    record_family_id: p.recordFamilyId.slice(0, 128),
    problem,
  });
}

/** Participants of one endpoint by family key; a family listed twice is structural (`GF_SCHEMA_MISMATCH`). */
export function byFamily(e: DiffEndpoint): Map<string, EndpointParticipant> {
  const m = new Map<string, EndpointParticipant>();
  for (const p of e.participants) {
    const k = familyKey(p);
    if (m.has(k)) structural(p, 'duplicate');
    m.set(k, p);
  }
  return m;
}

/** The scope of a participant from the registry; an unregistered family is `GF_SCHEMA_MISMATCH`. */
export function scopeOf(adapters: readonly DiffAdapter[], p: EndpointParticipant): Scope {
  const found = adaptersFor(adapters, p.capabilityId, p.recordFamilyId);
  if (found.length === 0) structural(p, 'unregistered');
  return (found[0] as DiffAdapter).scope;
}

export function sameContent(a: EndpointParticipant, b: EndpointParticipant): boolean {
  return a.contentSha256 === b.contentSha256 && a.schemaFingerprint === b.schemaFingerprint && a.byteLength === b.byteLength;
}

function cmpText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function compareSummary(a: Omit<SummaryPosition, 'detail'>, b: Omit<SummaryPosition, 'detail'>): number {
  return cmpText(a.scope, b.scope) || cmpText(a.capabilityId, b.capabilityId) || cmpText(a.recordFamilyId, b.recordFamilyId);
}

/**
 * Every summary row of the two endpoints in the request scope, sorted by
 * `(scope, capability_id, record_family_id)`.
 *
 * Reads manifests only: equal `content_sha256` is `unchanged` without
 * reading a byte. A version or schema change shows as `modified` with both
 * schema fingerprints.
 */
export function summaryRows(
  from: DiffEndpoint,
  to: DiffEndpoint,
  scope: DiffScope,
  adapters: readonly DiffAdapter[] = DIFF_ADAPTERS,
  family: FamilyFilter | null = null,
): SummaryRow[] {
  const a = byFamily(from);
  const b = byFamily(to);
  const rows: SummaryRow[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (family !== null && key !== familyKey(family)) continue;
    const x = a.get(key);
    const y = b.get(key);
    const p = (x ?? y) as EndpointParticipant;
    const s = scopeOf(adapters, p);
    if (!scopeSelects(scope, s)) continue;
    const kind: SummaryChangeKind = x === undefined ? 'added' : y === undefined ? 'removed' : sameContent(x, y) ? 'unchanged' : 'modified';
    rows.push({
      scope: s,
      capabilityId: p.capabilityId,
      recordFamilyId: p.recordFamilyId,
      changeKind: kind,
      fromRowCount: x?.rowCount ?? null,
      toRowCount: y?.rowCount ?? null,
      fromSchemaFingerprint: x?.schemaFingerprint ?? null,
      toSchemaFingerprint: y?.schemaFingerprint ?? null,
      fromContentSha256: x?.contentSha256 ?? null,
      toContentSha256: y?.contentSha256 ?? null,
    });
  }
  return rows.sort(compareSummary);
}

/** A family selected for record detail: its adapter and its participant on each side. */
export interface FamilyPlan {
  readonly adapter: DiffAdapter;
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly from: EndpointParticipant | undefined;
  readonly to: EndpointParticipant | undefined;
}

/**
 * The families of record detail, sorted by `(scope, record_family_id)`.
 *
 * Every participant in scope on either side must resolve to exactly one
 * adapter with the same versions, encoding and schema fingerprint — even an
 * unchanged one — or the whole record detail fails with `GF_SCHEMA_MISMATCH`.
 */
export function planFamilies(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, adapters: readonly DiffAdapter[], family: FamilyFilter | null): FamilyPlan[] {
  const a = byFamily(from);
  const b = byFamily(to);
  const plans: FamilyPlan[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (family !== null && key !== familyKey(family)) continue;
    const x = a.get(key);
    const y = b.get(key);
    const s = scopeOf(adapters, (x ?? y) as EndpointParticipant);
    if (!scopeSelects(scope, s)) continue;
    const ax = x === undefined ? undefined : resolveAdapter(adapters, x);
    const ay = y === undefined ? undefined : resolveAdapter(adapters, y);
    const adapter = (ax ?? ay) as DiffAdapter;
    plans.push({ adapter, scope: adapter.scope, recordFamilyId: adapter.recordFamilyId, from: x, to: y });
  }
  plans.sort(compareFamilyKey);
  for (let i = 1; i < plans.length; i++) {
    if (compareFamilyKey(plans[i - 1] as FamilyPlan, plans[i] as FamilyPlan) === 0) {
      throw new Error('invariant violated: two adapters share (scope, record_family_id)');
    }
  }
  return plans;
}
