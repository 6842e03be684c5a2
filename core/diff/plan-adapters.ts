// The closed registry of record-diff adapters: one per registered family, resolved
// from a participant's capability, family, versions and schema.
import type { Table } from 'apache-arrow';
import type { DomainTag } from '../canonical/index';
import { GfError } from '../errors';
import { RECORD_FAMILIES, decodeParticipant } from '../participants/index';
import type { RecordFamily, Scope } from '../participants/index';
import { DIFF_ADAPTER_CONTRACT } from './arrow-schemas';
import type { EndpointParticipant } from './plan-endpoint';

/**
 * One registration of the closed `checkpoint-diff-adapter/1` registry.
 *
 * The participant owner declares the exact (capability, version, family,
 * version, encoding) tuple, the schema fingerprint the decoder accepts, the
 * ordered identity fields (owner-declared, never guessed from column names),
 * whether the identity projects to `record_uuid`, and the two fingerprint
 * domains. Record detail is only ever computed through one of these.
 */
export interface DiffAdapter {
  readonly contract: typeof DIFF_ADAPTER_CONTRACT;
  readonly capabilityId: string;
  readonly capabilityVersion: number;
  readonly recordFamilyId: string;
  readonly recordVersion: number;
  readonly encoding: string;
  readonly scope: Scope;
  /** The only schema fingerprint (64 hex) this adapter decodes. */
  readonly schemaFingerprint: string;
  /** Ordered, non-empty, non-nullable; participants are stored sorted by them. */
  readonly identityFields: readonly string[];
  /** The identity field projected to the nullable `record_uuid`, or null (identity fingerprint only). */
  readonly recordUuidField: string | null;
  readonly identityFingerprintDomain: DomainTag;
  readonly recordFingerprintDomain: DomainTag;
  /** The owning family (schema and field kinds). */
  readonly family: RecordFamily;
  /** Canonical logical decoder of the stored bytes (validates the schema before returning). */
  decode(bytes: Uint8Array): Table;
}

/** The adapter of a registered record family. */
export function adapterOfFamily(family: RecordFamily): DiffAdapter {
  return Object.freeze({
    contract: DIFF_ADAPTER_CONTRACT,
    capabilityId: family.capabilityId,
    capabilityVersion: family.capabilityVersion,
    recordFamilyId: family.recordFamilyId,
    recordVersion: family.recordVersion,
    encoding: family.encoding,
    scope: family.scope,
    get schemaFingerprint(): string {
      return family.schemaFingerprint;
    },
    identityFields: family.identityFields,
    recordUuidField: family.recordUuidField,
    identityFingerprintDomain: family.identityFingerprintDomain,
    recordFingerprintDomain: family.fingerprintDomain,
    family,
    decode: (bytes: Uint8Array) => decodeParticipant(family, bytes, { schemaFingerprint: family.schemaFingerprint }),
  });
}

/**
 * The checked-in adapter inventory: one adapter per registered record family.
 *
 * Closed: nothing registers an adapter at run time. The omission test
 * checks that every family that can appear in a workspace has exactly one.
 */
export const DIFF_ADAPTERS: readonly DiffAdapter[] = Object.freeze(RECORD_FAMILIES.map(adapterOfFamily));

/** Why a participant has no usable adapter. */
export const ADAPTER_REFUSALS = ['unregistered', 'duplicate', 'version_mismatch', 'schema_mismatch'] as const;

/** One refusal reason. */
export type AdapterRefusal = (typeof ADAPTER_REFUSALS)[number];

function refuse(p: Pick<EndpointParticipant, 'capabilityId' | 'recordFamilyId'>, problem: AdapterRefusal, extra: Record<string, string> = {}): never {
  throw new GfError('GF_SCHEMA_MISMATCH', 'participant has no matching record-diff adapter', {
    contract: DIFF_ADAPTER_CONTRACT,
    capability_id: p.capabilityId.slice(0, 128),
    record_family_id: p.recordFamilyId.slice(0, 128),
    problem,
    ...extra,
  });
}

/** Adapters registered for (capability, family), whatever their versions. */
export function adaptersFor(adapters: readonly DiffAdapter[], capabilityId: string, recordFamilyId: string): DiffAdapter[] {
  return adapters.filter((a) => a.capabilityId === capabilityId && a.recordFamilyId === recordFamilyId);
}

/**
 * The one adapter for a participant, or `GF_SCHEMA_MISMATCH`.
 *
 * Structural: an unregistered family, two registrations, a capability or
 * record version or encoding that differs, or a schema fingerprint that is
 * not the adapter's fails the record detail; it is never reduced to a
 * summary row or diffed by physical bytes.
 */
export function resolveAdapter(adapters: readonly DiffAdapter[], p: EndpointParticipant): DiffAdapter {
  const found = adaptersFor(adapters, p.capabilityId, p.recordFamilyId);
  if (found.length === 0) refuse(p, 'unregistered');
  if (found.length > 1) refuse(p, 'duplicate');
  const a = found[0] as DiffAdapter;
  if (a.capabilityVersion !== p.capabilityVersion || a.recordVersion !== p.recordVersion || a.encoding !== p.encoding) {
    refuse(p, 'version_mismatch');
  }
  if (a.schemaFingerprint !== p.schemaFingerprint) {
    refuse(p, 'schema_mismatch', {
      expected_schema_fingerprint: a.schemaFingerprint,
      actual_schema_fingerprint: /^[0-9a-f]{64}$/.test(p.schemaFingerprint) ? p.schemaFingerprint : 'invalid',
    });
  }
  return a;
}
