// The record inspector: both versions of one record between two endpoints and the
// fields that differ (values shown to the user who asked).
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Data, Field } from 'apache-arrow';
import { toHex } from '../canonical/index';
import { GfError } from '../errors';
import { compareCells, recordsFromTable } from '../participants/index';
import type { CellValue, RecordValues } from '../participants/index';
import { buildColumn, normalizeCell } from '../participants/columns';
import { DIFF_ADAPTERS, resolveAdapter } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import { CANCEL_CHECK_INTERVAL, checkCancelled } from './steps';
import { selectorOf, withPinnedPair } from './plan-pinned-pair';
import type { EndpointResolver } from './plan-pinned-pair';
import type { DiffEndpoint, EndpointParticipant } from './plan-endpoint';
import { bindIdentityCompare, lowerBound, prepareSide } from './merge-raw-rows';
import type { RawSide } from './merge-raw-rows';
import { RowFingerprinter, rowFingerprinter } from '../canonical/row-fingerprints';
import type { RowHasher } from '../canonical/row-fingerprints';
import { WindowedParticipant } from './merge-windowed';

/**
 * Request of `recordChange`: two selectors, a record family id and the
 * record's identity — either its identity field values, or the identity
 * fingerprint a record-diff row carries (exactly one of the two).
 */
export interface RecordChangeRequest {
  readonly from: string;
  readonly to: string;
  /** The record family (e.g. `node`); record family ids are unique across the registry. */
  readonly record_family_id: string;
  /** Exactly the family's identity fields, in their JS cell form (UUID text, hex digest, text, …); checked against the family here. */
  readonly identity?: Readonly<Record<string, unknown>>;
  /**
   * The record's `record_identity_fingerprint` (64 lowercase hex), as a
   * record-diff row carries it: works for every family, including those
   * without a `record_uuid`.
   */
  readonly record_identity_fingerprint?: string;
  /**
   * The diff row's `record_uuid` beside its fingerprint (optional): for a
   * family whose identity is its record UUID the record is then found by
   * binary search instead of by hashing identities until one matches.
   */
  readonly record_uuid?: string | null;
  readonly signal?: AbortSignal;
}

/** How `recordChangeBetween` finds the record: identity values, or an identity fingerprint (with an optional record UUID hint). */
export type RecordLookup =
  | { readonly identity: unknown }
  | { readonly identityFingerprint: unknown; readonly recordUuid?: unknown };

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

/** The record of `side` whose identity equals `probe` (binary search on the stored identity order), or null. */
function findIn(adapter: DiffAdapter, side: RawSide | null, probe: readonly Data[]): Found | null {
  if (side === null) return null;
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
  const fp = new RowFingerprinter(adapter.family.schema.fields, adapter.family.schema.metadata, side.columns, adapter.recordFingerprintDomain);
  return { record: recordAt(adapter, side, at), fingerprint: toHex(fp.of(at)) };
}

/** Row `at` of a side as plain record values (through a fresh one-row table at offset 0). */
function recordAt(adapter: DiffAdapter, side: RawSide, at: number): RecordValues {
  const one = tableFromIPC(tableToIPC(side.table.slice(at, at + 1), 'stream'));
  return recordsFromTable(adapter.family, one)[0] as RecordValues;
}

const HEX64 = /^[0-9a-f]{64}$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Identity fingerprints of a prepared side's rows, computed the way the record diff computes them. */
function identityHasher(adapter: DiffAdapter, side: RawSide): RowHasher {
  const fields = adapter.family.schema.fields;
  const idFields = adapter.identityFields.map((n) => fields.find((f) => f.name === n) as Field);
  return rowFingerprinter(idFields, adapter.family.schema.metadata, side.identity, adapter.identityFingerprintDomain);
}

/** The endpoint's participant of `adapter`'s family (undefined when it has none), checked against the registry. */
function entryIn(adapters: readonly DiffAdapter[], adapter: DiffAdapter, e: DiffEndpoint): EndpointParticipant | undefined {
  const entries = e.participants.filter((p) => p.capabilityId === adapter.capabilityId && p.recordFamilyId === adapter.recordFamilyId);
  if (entries.length === 0) return undefined;
  const entry = entries[0] as EndpointParticipant;
  if (entries.length > 1) {
    throw new GfError('GF_SCHEMA_MISMATCH', 'participant is listed twice', { record_family_id: adapter.recordFamilyId, problem: 'duplicate' });
  }
  resolveAdapter(adapters, entry);
  return entry;
}

/** The side of one endpoint's participant of `adapter`'s family (null when the endpoint has none). */
function sideIn(adapters: readonly DiffAdapter[], adapter: DiffAdapter, e: DiffEndpoint, signal: AbortSignal | undefined): RawSide | null {
  const entry = entryIn(adapters, adapter, e);
  if (entry === undefined) return null;
  checkCancelled(signal, 'participant');
  return prepareSide(adapter, adapter.decode(e.readParticipantBytes(entry)), entry.contentSha256, e.caches);
}

/**
 * The record whose record UUID is `uuid` in one endpoint's participant,
 * as a side of at most one row, read by ranged reads (binary search on
 * the stored UUIDs, then that row's cells): null when the endpoint has no
 * participant, undefined when it cannot be read that way (no ranged
 * access, or not the plain stored layout) and must be decoded whole.
 */
function rowByUuid(adapters: readonly DiffAdapter[], adapter: DiffAdapter, e: DiffEndpoint, uuid: Uint8Array, signal: AbortSignal | undefined): RawSide | null | undefined {
  const entry = entryIn(adapters, adapter, e);
  if (entry === undefined) return null;
  if (e.openParticipant === undefined) return undefined;
  checkCancelled(signal, 'participant');
  const source = e.openParticipant(entry);
  try {
    const w = WindowedParticipant.open(adapter, source, undefined, e.caches);
    if (w === null) return undefined;
    const at = w.seekAfter(uuid) - 1;
    const hit = at >= 0 && Buffer.compare(w.identityBytes(at, at + 1), uuid) === 0;
    return hit ? w.window(at, at + 1) : w.window(0, 0);
  } finally {
    source.close();
  }
}

/**
 * The row of `side` whose identity fingerprint is `target` (or -1): every
 * row's identity is hashed until one matches, cancellation checked every
 * 4,096 rows. Identities are unique within a participant.
 */
function scanIdentity(adapter: DiffAdapter, side: RawSide, target: Uint8Array, signal: AbortSignal | undefined): number {
  const h = identityHasher(adapter, side);
  const out = new Uint8Array(32);
  for (let row = 0; row < side.rows; row++) {
    if ((row & (CANCEL_CHECK_INTERVAL - 1)) === 0 && row > 0) checkCancelled(signal, 'records');
    h.into(row, out, 0);
    if (Buffer.compare(out, target) === 0) return row;
  }
  return -1;
}

/** The identity field values of row `at` of a side (JS cell form, as `identityProbe` takes them). */
function identityValuesAt(adapter: DiffAdapter, side: RawSide, at: number): Record<string, CellValue> {
  const record = recordAt(adapter, side, at);
  return Object.fromEntries(adapter.identityFields.map((n) => [n, record[n] ?? null]));
}

/**
 * The identity field values of the record whose identity fingerprint is
 * given, found on either endpoint (null when on neither).
 *
 * With a record UUID hint for a family whose identity is exactly its
 * record UUID, the UUID is the identity (binary search) and the given
 * fingerprint must be that identity's (`GF_VALIDATION`
 * `identity_mismatch` otherwise); without one, each side is scanned
 * (`from` first; the other side is then found by binary search).
 */
function identityOfFingerprint(
  adapter: DiffAdapter,
  fingerprint: unknown,
  recordUuid: unknown,
  sides: () => readonly (RawSide | null)[],
  signal: AbortSignal | undefined,
): Record<string, CellValue> | null {
  if (typeof fingerprint !== 'string' || !HEX64.test(fingerprint)) bad('record_identity_fingerprint');
  const target = new Uint8Array(Buffer.from(fingerprint, 'hex'));
  if (recordUuid !== undefined && recordUuid !== null) {
    if (typeof recordUuid !== 'string' || !UUID_TEXT.test(recordUuid) || adapter.recordUuidField === null) bad('record_uuid');
    if (adapter.identityFields.length === 1 && adapter.identityFields[0] === adapter.recordUuidField) {
      const identity = { [adapter.recordUuidField]: recordUuid };
      const probe = identityProbe(adapter, identity);
      // The identity fingerprint of this UUID, computed over a one-row probe side.
      const probeSide: RawSide = { table: new Table(), rows: 1, columns: [], identity: probe };
      const out = new Uint8Array(32);
      identityHasher(adapter, probeSide).into(0, out, 0);
      if (Buffer.compare(out, target) !== 0) bad('identity_mismatch', { record_family_id: adapter.recordFamilyId });
      return identity;
    }
  }
  for (const side of sides()) {
    if (side === null) continue;
    const at = scanIdentity(adapter, side, target, signal);
    if (at >= 0) return identityValuesAt(adapter, side, at);
  }
  return null;
}

function isUuidIdentity(adapter: DiffAdapter): boolean {
  return adapter.recordUuidField !== null && adapter.identityFields.length === 1 && adapter.identityFields[0] === adapter.recordUuidField;
}

function same(a: CellValue, b: CellValue): boolean {
  return typeof a === typeof b && compareCells(a, b) === 0;
}

/**
 * Both versions of one record between two pinned endpoints (pure core).
 *
 * The record is named by its identity field values, or by its identity
 * fingerprint (a record-diff row's `record_identity_fingerprint`, for any
 * family, with or without a `record_uuid`); see `RecordLookup`. It is then
 * found on each side by binary search on the stored identity order. A
 * record absent on both sides is `GF_VALIDATION` (`no_such_record`).
 */
export function recordChangeBetween(
  from: DiffEndpoint,
  to: DiffEndpoint,
  recordFamilyId: unknown,
  lookup: RecordLookup,
  opts: { readonly adapters?: readonly DiffAdapter[]; readonly signal?: AbortSignal } = {},
): RecordChangeResult {
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  const adapter = adapterByFamilyId(adapters, recordFamilyId);
  // Request problems are judged before anything is read; each side is read once.
  const early = 'identity' in lookup ? identityProbe(adapter, lookup.identity) : null;
  let read: readonly (RawSide | null)[] | undefined;
  const sides = (): readonly (RawSide | null)[] => (read ??= [sideIn(adapters, adapter, from, opts.signal), sideIn(adapters, adapter, to, opts.signal)]);
  let probe = early;
  if (probe === null) {
    const l = lookup as { readonly identityFingerprint: unknown; readonly recordUuid?: unknown };
    const identity = identityOfFingerprint(adapter, l.identityFingerprint, l.recordUuid, sides, opts.signal);
    if (identity === null) bad('no_such_record', { record_family_id: adapter.recordFamilyId });
    probe = identityProbe(adapter, identity);
  }
  // A family identified by its record UUID is looked up by ranged reads when nothing was decoded yet.
  const uuid = read === undefined && isUuidIdentity(adapter) ? (probe[0] as Data).values.subarray(0, 16) : null;
  const sideOf = (e: DiffEndpoint, k: number): RawSide | null => {
    const one = uuid === null ? undefined : rowByUuid(adapters, adapter, e, uuid as Uint8Array, opts.signal);
    return one !== undefined ? one : (sides()[k] ?? null);
  };
  const a = findIn(adapter, sideOf(from, 0), probe);
  const b = findIn(adapter, sideOf(to, 1), probe);
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
  const byIdentity = req.identity !== undefined && req.identity !== null;
  const byFingerprint = req.record_identity_fingerprint !== undefined && req.record_identity_fingerprint !== null;
  if (byIdentity === byFingerprint) bad('identity_or_fingerprint');
  if (byIdentity && req.record_uuid !== undefined && req.record_uuid !== null) bad('record_uuid');
  const lookup: RecordLookup = byIdentity ? { identity: req.identity } : { identityFingerprint: req.record_identity_fingerprint, recordUuid: req.record_uuid };
  checkCancelled(req.signal, 'start');
  return withPinnedPair(resolver, selectorOf(req.from), selectorOf(req.to), (a, b) => recordChangeBetween(a, b, req.record_family_id, lookup, { signal: req.signal }));
}
