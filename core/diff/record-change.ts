import { tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { toHex } from '../canonical/index';
import { GfError } from '../errors';
import { compareCells, recordsFromTable } from '../participants/index';
import type { CellValue, RecordValues } from '../participants/index';
import { buildColumn, normalizeCell } from '../participants/columns';
import { DIFF_ADAPTERS, resolveAdapter } from './adapters';
import type { DiffAdapter } from './adapters';
import { checkCancelled } from './cancel';
import { parseSelector } from './diff-checkpoints';
import type { EndpointResolver } from './diff-checkpoints';
import type { DiffEndpoint, EndpointParticipant } from './endpoint';
import { bindIdentityCompare, lowerBound, prepareSide } from './raw-rows';
import { RowFingerprinter } from './row-fingerprints';

/** Request of `recordChange`: two selectors, a record family id and the record's identity values. */
export interface RecordChangeRequest {
  readonly from: unknown;
  readonly to: unknown;
  /** The record family (e.g. `node`); record family ids are unique across the registry. */
  readonly record_family_id: unknown;
  /** Exactly the family's identity fields, in their JS cell form (UUID text, hex digest, text, …). */
  readonly identity: unknown;
  readonly signal?: AbortSignal;
}

/** Kinds of `recordChange`: the diff's three, or `unchanged` when both versions are equal. */
export type RecordChangeKindOrUnchanged = 'added' | 'removed' | 'modified' | 'unchanged';

/** Both versions of one record and the fields that differ (values included: this is for the user who asked). */
export interface RecordChangeResult {
  readonly from_checkpoint_uuid: string;
  readonly to_checkpoint_uuid: string;
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  readonly change_kind: RecordChangeKindOrUnchanged;
  readonly from: RecordValues | null;
  readonly to: RecordValues | null;
  /** Declared fields whose values differ, in schema order (every field for added/removed). */
  readonly changed_fields: readonly string[];
  readonly from_record_fingerprint: string | null;
  readonly to_record_fingerprint: string | null;
}

function bad(problem: string, extra: Record<string, string> = {}): never {
  throw new GfError('GF_VALIDATION', 'invalid record change request', { operation: 'record_change', problem, ...extra });
}

function adapterByFamilyId(adapters: readonly DiffAdapter[], id: unknown): DiffAdapter {
  if (typeof id !== 'string' || id.length === 0 || id.length > 128) bad('record_family_id');
  const found = adapters.filter((a) => a.recordFamilyId === id);
  if (found.length !== 1) bad('record_family_id');
  return found[0] as DiffAdapter;
}

function identityProbe(adapter: DiffAdapter, identity: unknown): Data[] {
  if (typeof identity !== 'object' || identity === null || Array.isArray(identity)) bad('identity');
  const given = identity as Readonly<Record<string, unknown>>;
  const keys = Object.keys(given);
  if (keys.length !== adapter.identityFields.length || !adapter.identityFields.every((n) => Object.prototype.hasOwnProperty.call(given, n))) {
    bad('identity_fields');
  }
  return adapter.identityFields.map((n) => {
    const spec = adapter.family.field(n);
    if (spec === undefined) throw new Error('invariant violated: identity field is declared');
    return buildColumn(spec, [normalizeCell(spec, given[n], 0, adapter.recordFamilyId)]);
  });
}

interface Found {
  readonly record: RecordValues;
  readonly fingerprint: string;
}

function findIn(adapters: readonly DiffAdapter[], adapter: DiffAdapter, e: DiffEndpoint, probe: readonly Data[], signal: AbortSignal | undefined): Found | null {
  const entries = e.participants.filter((p) => p.capabilityId === adapter.capabilityId && p.recordFamilyId === adapter.recordFamilyId);
  if (entries.length === 0) return null;
  const entry = entries[0] as EndpointParticipant;
  if (entries.length > 1) {
    throw new GfError('GF_SCHEMA_MISMATCH', 'participant is listed twice', { record_family_id: adapter.recordFamilyId, problem: 'duplicate' });
  }
  resolveAdapter(adapters, entry);
  checkCancelled(signal, 'participant');
  const side = prepareSide(adapter, adapter.decode(e.readParticipantBytes(entry)), entry.contentSha256);
  const cmps = side.identity.map((d, k) => bindIdentityCompare(d, probe[k] as Data));
  const cmp = (row: number): number => {
    for (const c of cmps) {
      const r = c(row, 0);
      if (r !== 0) return r;
    }
    return 0;
  };
  const at = lowerBound(side.rows, cmp, true);
  if (at >= side.rows || cmp(at) !== 0) return null;
  // A fresh one-row table (offset 0) read as plain records.
  const one = tableFromIPC(tableToIPC(side.table.slice(at, at + 1), 'stream'));
  const record = recordsFromTable(adapter.family, one)[0] as RecordValues;
  const fp = new RowFingerprinter(adapter.family.schema.fields, adapter.family.schema.metadata, side.columns, adapter.recordFingerprintDomain);
  return { record, fingerprint: toHex(fp.of(at)) };
}

function same(a: CellValue, b: CellValue): boolean {
  return typeof a === typeof b && compareCells(a, b) === 0;
}

/**
 * Both versions of one record between two pinned endpoints (pure core).
 *
 * Finds the record by binary search on the stored identity order; a record
 * absent on both sides is `GF_VALIDATION` (`no_such_record`).
 */
export function recordChangeBetween(
  from: DiffEndpoint,
  to: DiffEndpoint,
  recordFamilyId: unknown,
  identity: unknown,
  opts: { readonly adapters?: readonly DiffAdapter[]; readonly signal?: AbortSignal } = {},
): RecordChangeResult {
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  const adapter = adapterByFamilyId(adapters, recordFamilyId);
  const probe = identityProbe(adapter, identity);
  const a = findIn(adapters, adapter, from, probe, opts.signal);
  const b = findIn(adapters, adapter, to, probe, opts.signal);
  if (a === null && b === null) bad('no_such_record', { record_family_id: adapter.recordFamilyId });
  const names = adapter.family.fields.map((f) => f.name);
  const changed = a === null || b === null ? names : names.filter((n) => !same(a.record[n] ?? null, b.record[n] ?? null));
  const kind: RecordChangeKindOrUnchanged =
    a === null ? 'added' : b === null ? 'removed' : a.fingerprint === b.fingerprint ? 'unchanged' : 'modified';
  return {
    from_checkpoint_uuid: from.checkpointUuid,
    to_checkpoint_uuid: to.checkpointUuid,
    scope: adapter.scope,
    capability_id: adapter.capabilityId,
    record_family_id: adapter.recordFamilyId,
    change_kind: kind,
    from: a?.record ?? null,
    to: b?.record ?? null,
    changed_fields: kind === 'unchanged' ? [] : changed,
    from_record_fingerprint: a?.fingerprint ?? null,
    to_record_fingerprint: b?.fingerprint ?? null,
  };
}

/**
 * `recordChange` through an endpoint resolver: both endpoints are
 * lease-pinned for the call and released before returning.
 */
export function recordChangeOf(req: RecordChangeRequest, resolver: EndpointResolver): RecordChangeResult {
  const fromSel = parseSelector(req.from, 'from');
  const toSel = parseSelector(req.to, 'to');
  checkCancelled(req.signal, 'start');
  const a = resolver.open(fromSel);
  try {
    const b = resolver.open(toSel);
    try {
      return recordChangeBetween(a, b, req.record_family_id, req.identity, { signal: req.signal });
    } finally {
      b.release();
    }
  } finally {
    a.release();
  }
}
