// The record-family registry: every participant family of the closed set, by key and by scope (not the checkpoint registry of core/checkpoints).
import { ALL_FAMILIES } from './families';
import { familyKey } from './family';
import type { RecordFamily } from './family';
import { SCOPES } from './scopes';
import type { Scope } from './scopes';

export { familyKey } from './family';

/**
 * The closed registry of record families, declared in code.
 *
 * Ordered by (scope in `SCOPES` order, capability id, record family id), the
 * summary diff's order. Nothing registers a family at run time: a
 * participant whose family is not here is structurally unknown.
 */
export const RECORD_FAMILIES: readonly RecordFamily[] = Object.freeze(
  [...ALL_FAMILIES].sort(
    (a, b) =>
      SCOPES.indexOf(a.scope) - SCOPES.indexOf(b.scope) ||
      (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0) ||
      (a.recordFamilyId < b.recordFamilyId ? -1 : a.recordFamilyId > b.recordFamilyId ? 1 : 0),
  ),
);

const BY_KEY: ReadonlyMap<string, RecordFamily> = new Map(RECORD_FAMILIES.map((f) => [f.key, f] as const));

/** The family registered under (capability id, record family id), or undefined. */
export function findFamily(capabilityId: string, recordFamilyId: string): RecordFamily | undefined {
  return BY_KEY.get(familyKey(capabilityId, recordFamilyId));
}

/** The family registered under a `<capability>/<family>` key, or undefined. */
export function familyByKey(key: string): RecordFamily | undefined {
  return BY_KEY.get(key);
}

/** The families of one scope, in registry order. */
export function familiesInScope(scope: Scope): readonly RecordFamily[] {
  return RECORD_FAMILIES.filter((f) => f.scope === scope);
}

/** A capability and its version, as a manifest's `capabilities` list names it. */
export interface CapabilityRef {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
}

/** The capabilities the registered families belong to, sorted by id (the manifest order). */
export const REGISTERED_CAPABILITIES: readonly CapabilityRef[] = Object.freeze(
  [...new Map(RECORD_FAMILIES.map((f) => [f.capabilityId, f.capabilityVersion] as const))]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([capabilityId, capabilityVersion]) => Object.freeze({ capabilityId, capabilityVersion })),
);
