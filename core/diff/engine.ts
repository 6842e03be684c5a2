import { Table } from 'apache-arrow';
import { sha256Hex, toHex } from '../canonical/index';
import { GfError } from '../errors';
import type { Scope } from '../participants/index';
import { DIFF_ADAPTERS, adaptersFor, resolveAdapter } from './plan/adapters';
import type { DiffAdapter } from './plan/adapters';
import { PARTICIPANT_PAUSE, checkCancelled, isEffect, runAsync, runSync } from './steps';
import type { DiffEffect, DiffSteps } from './steps';
import { changeCacheKey, changeListFromTable, changesTable, loadListWindow, loadWholeList, storeWholeList } from './changes/change-cache';
import type { ListWindow } from './changes/change-cache';
import type { ChangeCache } from './changes/change-cache';
import { ChangeList } from './changes/change-list';
import type { ChangeRange } from './changes/change-list';
import { DIFF_DETAILS, DIFF_PAGE_LIMITS, DIFF_SCOPES, DIFF_SEARCH_MAX_CHARS, RECORD_CHANGE_KINDS, RECORD_DIFF_DISPLAY_SCHEMA_NAME, RECORD_DIFF_SCHEMA, RECORD_DIFF_SCHEMA_NAME, RECORD_DIFF_VALUES_SCHEMA_NAME, SUMMARY_DIFF_SCHEMA_NAME } from './arrow-schemas';
import type { DiffDetail, DiffScope, RecordChangeKind, SummaryChangeKind } from './arrow-schemas';
import type { DiffEndpoint, EndpointParticipant, ParticipantSource } from './plan/endpoint';
import { checkTokenEndpoints, checkTokenRequest, decodePageToken, encodePageToken } from './page/page-token';
import type { FamilyFilter, PagePosition, RecordPosition, SummaryPosition, TokenEndpoint, TokenState, TokenView } from './page/page-token';
import { lowerBound, prepareSide } from './merge/raw-rows';
import type { RawSide } from './merge/raw-rows';
import { FamilyDiff, compareFamilyKey } from './merge/family-diff';
import type { RecordSortKey } from './merge/family-diff';
import { recordTable, summaryTable } from './page/result-tables';
import { WindowedParticipant, collectWindowed } from './merge/windowed';
import type { WindowedEnd } from './merge/windowed';
import { CorruptIndexError, buildRecordIndex, changedRuns, openRecordIndex, recordIndexKey } from './merge/record-index';
import type { ChangedRun, RecordIndex } from './merge/record-index';
import { DeferredDigests } from './merge/deferred-digests';
import { loadRecordSet, recordSetKey, recordSetSteps, storeRecordSet } from './page/record-set';
import { DigestPool } from './merge/digest-pool';
import { DEFAULT_DIFF_TUNING } from './tuning';
import type { DiffTuning } from './tuning';
import type { SummaryRow } from './page/result-tables';

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

function validation(field: string, problem: string): never {
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

/** Engine configuration: the token key and (for tests) the adapter registry. */
export interface DiffEngineOptions {
  /** The per-project HMAC key of page tokens (32 bytes, never in a token). */
  readonly secret: Uint8Array;
  /** The closed adapter registry (default: `DIFF_ADAPTERS`). */
  readonly adapters?: readonly DiffAdapter[];
  /** Derived store of complete per-family change lists (default: none). */
  readonly cache?: ChangeCache;
  /** Frozen tuning knobs (default: `DEFAULT_DIFF_TUNING`). */
  readonly tuning?: DiffTuning;
}

/** One page of a diff. */
export interface DiffPage {
  /** `checkpoint_summary_diff@1`, `checkpoint_record_diff@1` or (display pages) `checkpoint_record_diff_display@1`. */
  readonly schema: typeof SUMMARY_DIFF_SCHEMA_NAME | typeof RECORD_DIFF_SCHEMA_NAME | typeof RECORD_DIFF_DISPLAY_SCHEMA_NAME | typeof RECORD_DIFF_VALUES_SCHEMA_NAME;
  /** The rows of this page, exactly the contract's schema and sort. */
  readonly table: Table;
  /** Token of the next page, or null when this page is the last. */
  readonly nextPageToken: string | null;
  readonly from: TokenEndpoint;
  readonly to: TokenEndpoint;
}

/** What binds a page to its request besides the validated params. */
export interface DiffBinding {
  /** `selectorsDigest(from, to)` of the request's selectors. */
  readonly selectorsSha256: string;
  readonly signal?: AbortSignal;
}

export function identityOf(e: DiffEndpoint): TokenEndpoint {
  return { checkpointUuid: e.checkpointUuid, manifestSha256: e.manifestSha256 };
}

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

function compareSummary(a: Omit<SummaryPosition, 'detail'>, b: Omit<SummaryPosition, 'detail'>): number {
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

/** Opens one participant of one endpoint (a `read` effect), after a pause. */
function* openSource(endpoint: DiffEndpoint, p: EndpointParticipant): DiffSteps<ParticipantSource> {
  yield PARTICIPANT_PAUSE;
  const source = yield { effect: 'read', endpoint, entry: p };
  if (source === undefined) throw new Error('invariant violated: a read step got no participant');
  return source;
}

/** Decodes a whole opened participant into merge form. */
function* decodeSide(adapter: DiffAdapter, source: ParticipantSource, p: EndpointParticipant): DiffSteps<RawSide> {
  const table = adapter.decode(source.read(0, source.byteLength));
  yield PARTICIPANT_PAUSE;
  return prepareSide(adapter, table, p.contentSha256);
}

/**
 * A family's changes in storage (identity) order — contract order for a
 * family identified by its record UUID — from the first record after
 * `cursor` (a record UUID; only for such a family) or the start, until
 * `out` holds `stopAt` rows or both sides end; returns whether it reached
 * the end.
 *
 * Both participants are opened for ranged reads and merged window by
 * window (`collectWindowed`): a page reads only the rows it needs, a whole
 * diff holds one window per side. A participant not in the plain stored
 * layout (or one found out of order) is decoded whole instead and merged
 * the same way, so layout never changes the result. With `defer`, an
 * unbounded stream hashes its fingerprints off this thread.
 */
function* familyChanges(
  plan: FamilyPlan,
  from: DiffEndpoint,
  to: DiffEndpoint,
  cursor: Uint8Array | null,
  out: ChangeList,
  stopAt: number,
  defer: boolean,
  tuning: DiffTuning,
  indexes?: ChangeCache,
): DiffSteps<boolean> {
  const adapter = plan.adapter;
  if (cursor !== null && !isSeekable(adapter)) throw new Error('invariant violated: only a record-UUID family seeks');
  const sa = plan.from === undefined ? null : yield* openSource(from, plan.from);
  const sb = plan.to === undefined ? null : yield* openSource(to, plan.to);
  const wa = sa === null ? null : WindowedParticipant.open(adapter, sa, (plan.from as EndpointParticipant).contentSha256);
  const wb = sb === null ? null : WindowedParticipant.open(adapter, sb, (plan.to as EndpointParticipant).contentSha256);
  if ((sa === null || wa !== null) && (sb === null || wb !== null)) {
    const ia = wa === null ? null : { participant: wa, contentSha256: (plan.from as EndpointParticipant).contentSha256 };
    const ib = wb === null ? null : { participant: wb, contentSha256: (plan.to as EndpointParticipant).contentSha256 };
    const a0 = cursor === null || wa === null ? 0 : wa.seekAfter(cursor);
    const b0 = cursor === null || wb === null ? 0 : wb.seekAfter(cursor);
    const start = out.length;
    // A whole-family diff of two indexed objects merges only the runs of rows whose chunks differ.
    const indexed = cursor === null && !Number.isFinite(stopAt) && indexes?.loadIndex !== undefined ? openIndexes(adapter, plan, wa, wb, indexes, tuning) : null;
    // A whole-family stream under the cooperative driver hashes its changed rows off this thread.
    const newDeferred = (): DeferredDigests => new DeferredDigests(tuning.pool ?? DigestPool.shared(), tuning.deferred.items, tuning.deferred.inFlight);
    let deferred = defer && !Number.isFinite(stopAt) ? newDeferred() : null;
    for (;;) {
      let end: WindowedEnd = 'complete';
      if (indexed?.runs !== undefined) {
        for (const run of indexed.runs) {
          end = yield* collectWindowed(adapter, ia, ib, run.a0, run.b0, out, stopAt, deferred, tuning.windowRows, { a: run.a1, b: run.b1 });
          if (end !== 'complete') break;
        }
      } else end = yield* collectWindowed(adapter, ia, ib, a0, b0, out, stopAt, deferred, tuning.windowRows);
      if (end === 'unsorted') break;
      if (deferred === null || (yield* deferred.settle(out))) {
        // Without both indexes, this whole-family merge read every row: build the missing ones for the next diff.
        if (indexed !== null && end === 'complete') yield* buildMissingIndexes(adapter, plan, indexed, wa, wb, indexes as ChangeCache);
        // `out` holds copies and every digest is settled: no window is used any more.
        wa?.release();
        wb?.release();
        return end === 'complete';
      }
      // The digest worker died holding a batch: the family again, hashed here.
      out.truncate(start);
      deferred = null;
    }
    out.truncate(start);
    wa?.release();
    wb?.release();
  }
  const fd = new FamilyDiff({
    adapter,
    from: sa === null ? null : yield* decodeSide(adapter, sa, plan.from as EndpointParticipant),
    to: sb === null ? null : yield* decodeSide(adapter, sb, plan.to as EndpointParticipant),
  });
  const pos = cursor === null ? { a: 0, b: 0 } : fd.seekAfterUuid(cursor);
  return yield* fd.collect(out, pos.a, pos.b, stopAt);
}

export function keyOfPosition(pos: RecordPosition): RecordSortKey {
  return {
    scope: pos.scope,
    recordFamilyId: pos.recordFamilyId,
    recordUuid: pos.recordUuid === null ? null : new Uint8Array(Buffer.from(pos.recordUuid, 'hex')),
    identityFingerprint: new Uint8Array(Buffer.from(pos.identityFingerprint, 'hex')),
    changeKind: pos.changeKind,
  };
}

/** The first row of `list` strictly after `cursor` (or 0 without one), by binary search. */
export function seekList(list: ChangeList, cursor: RecordSortKey | null): number {
  return cursor === null ? 0 : lowerBound(list.length, (k) => list.compareAt(k, cursor), false);
}

/** Both sides' record indexes of a whole-family diff, as far as they are sound, and the runs they leave to merge. */
interface IndexedFamily {
  readonly a: RecordIndex | null;
  readonly b: RecordIndex | null;
  /** Runs of rows to merge; undefined when either index is missing or damaged, or the changes touch most chunks (the merge reads everything). */
  readonly runs: readonly ChangedRun[] | undefined;
}

function openIndexes(adapter: DiffAdapter, plan: FamilyPlan, wa: WindowedParticipant | null, wb: WindowedParticipant | null, store: ChangeCache, tuning: DiffTuning): IndexedFamily | null {
  if (wa === null || wb === null || !wa.uuidIdentity || !wb.uuidIdentity || plan.from === undefined || plan.to === undefined) return null;
  const open = (w: WindowedParticipant, sha: string): RecordIndex | null => {
    const key = recordIndexKey(adapter, sha);
    const bytes = store.loadIndex?.(key);
    return bytes === undefined ? null : openRecordIndex(bytes, w.rows, key);
  };
  const a = open(wa, plan.from.contentSha256);
  const b = open(wb, plan.to.contentSha256);
  if (a === null || b === null) return { a, b, runs: undefined };
  try {
    const runs = coalesced(changedRuns(a, b), tuning.index.gapRows);
    // Changes in most chunks (a dense change mix): one straight merge costs less than many short runs.
    const covered = runs.reduce((n, r) => n + (r.a1 - r.a0) + (r.b1 - r.b0), 0);
    return { a, b, runs: covered > tuning.index.mergeShare * (wa.rows + wb.rows) ? undefined : runs };
  } catch (e) {
    // Entries that contradict their digests: never trusted; both are rebuilt after the full merge.
    if (e instanceof CorruptIndexError) return { a: null, b: null, runs: undefined };
    throw e;
  }
}

/** `runs` with every gap shorter than `gapRows` closed (the gap's rows are equal on both sides, so merging them finds nothing). */
function coalesced(runs: readonly ChangedRun[], gapRows: number): ChangedRun[] {
  const out: ChangedRun[] = [];
  for (const r of runs) {
    const last = out[out.length - 1];
    if (last !== undefined && r.a0 - last.a1 < gapRows && r.b0 - last.b1 < gapRows) out[out.length - 1] = { a0: last.a0, a1: r.a1, b0: last.b0, b1: r.b1 };
    else out.push(r);
  }
  return out;
}

function* buildMissingIndexes(adapter: DiffAdapter, plan: FamilyPlan, indexed: IndexedFamily, wa: WindowedParticipant | null, wb: WindowedParticipant | null, store: ChangeCache): DiffSteps<void> {
  const sides: [RecordIndex | null, WindowedParticipant | null, EndpointParticipant | undefined][] = [
    [indexed.a, wa, plan.from],
    [indexed.b, wb, plan.to],
  ];
  // A store that cannot keep an index (a read-only workspace) would make every diff pay for a build it throws away.
  if (store.canStoreIndex?.() === false) return;
  for (const [have, w, p] of sides) {
    if (have !== null || w === null || p === undefined) continue;
    const key = recordIndexKey(adapter, p.contentSha256);
    const built = yield* buildRecordIndex(w, key);
    if (built !== null) store.storeIndex?.(key, built.bytes);
  }
}

/** A family's whole change list in contract order (one merge of both sides; memory O(changes)). */
export function* wholeFamily(plan: FamilyPlan, from: DiffEndpoint, to: DiffEndpoint, defer: boolean, tuning: DiffTuning = DEFAULT_DIFF_TUNING, indexes?: ChangeCache): DiffSteps<ChangeList> {
  const list = newListOf(plan.adapter);
  yield* familyChanges(plan, from, to, null, list, Number.POSITIVE_INFINITY, defer, tuning, indexes);
  // A family ordered by its record UUID already comes out in contract order; others are ordered by identity fingerprint.
  if (!isSeekable(plan.adapter)) list.sortByIdentity();
  return list;
}

/** What `orderedChanges` walks: the scope, where to start, how many rows are needed, and its collaborators. */
export interface OrderedChangesOptions {
  readonly scope: DiffScope;
  /** Rows strictly after this sort key (absent or null: from the start). */
  readonly after?: RecordSortKey | null;
  /** The closed adapter registry (default: `DIFF_ADAPTERS`). */
  readonly adapters?: readonly DiffAdapter[];
  /** Derived change-list store (absent: nothing cached). */
  readonly cache?: ChangeCache;
  /** Rows the caller needs (default: all; a page needs its rows plus one). */
  readonly need?: number;
  /** Only this record family (absent or null: every family of the scope). */
  readonly family?: FamilyFilter | null;
  /** Hash fingerprints of an unbounded stream off this thread (the cooperative driver only). */
  readonly defer?: boolean;
  /** Frozen tuning knobs (default: `DEFAULT_DIFF_TUNING`). */
  readonly tuning?: DiffTuning;
}

/**
 * Changed records of the two endpoints in contract order, strictly after
 * `after` (or from the start), as runs of rows of per-family change lists.
 *
 * Unchanged participants are skipped without reading; families before the
 * cursor are skipped without reading. A family whose identity is its
 * record UUID is stored in contract order, so it is streamed: the merge
 * starts at the cursor (binary search on the stored, sorted identity
 * column of both sides) and stops as soon as `need` rows are found — a
 * page never merges the whole family. Other families (composite identity,
 * ordered by identity fingerprint) are merged once and sorted.
 *
 * With a derived change cache: a hit answers by binary search in the
 * cached list without reading either participant (a stored prefix of the
 * list answers too when it holds every row the call needs); on a miss a
 * page of a streamable family is streamed as above (a later page from its
 * cursor, so it costs about what the first page costs), and what the
 * first page found is stored (the whole list if the stream reached the
 * end, else as a prefix); the whole diff, and any page of a family
 * ordered by identity fingerprint, merges the family once and stores its
 * whole list.
 */
export function* orderedChanges(from: DiffEndpoint, to: DiffEndpoint, opts: OrderedChangesOptions): Generator<ChangeRange | DiffEffect, void, ParticipantSource | undefined> {
  const { scope, after = null, cache, need = Number.POSITIVE_INFINITY, family = null, defer = false, tuning = DEFAULT_DIFF_TUNING } = opts;
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  const plans = planFamilies(from, to, scope, adapters, family);
  let remaining = need;
  for (const plan of plans) {
    if (remaining <= 0) return;
    yield PARTICIPANT_PAUSE;
    const rel = after === null ? 1 : compareFamilyKey(plan, after);
    if (rel < 0) continue;
    if (plan.from !== undefined && plan.to !== undefined && sameContent(plan.from, plan.to)) continue;
    const cursor = rel === 0 ? after : null;
    const seekable = isSeekable(plan.adapter);
    const key = cache === undefined ? undefined : changeCacheKey(plan.adapter, plan.from, plan.to);
    const prefixKey = cache === undefined || !seekable ? undefined : changeCacheKey(plan.adapter, plan.from, plan.to, true);
    let list: ChangeList | undefined = key === undefined ? undefined : loadWholeList(cache as ChangeCache, plan.adapter, plan.from, plan.to, key, tuning.chunkRows);
    let start = list === undefined ? 0 : seekList(list, cursor);
    if (list === undefined && prefixKey !== undefined && Number.isFinite(remaining)) {
      // A prefix stored by an earlier streamed page answers when it holds every row this call needs.
      const pre = loadList(cache as ChangeCache, prefixKey, plan.adapter);
      const at = pre === undefined ? 0 : seekList(pre, cursor);
      if (pre !== undefined && pre.length - at >= remaining) {
        list = pre;
        start = at;
      }
    }
    if (list !== undefined) {
      // Cached (whole list or a long enough prefix): no participant is read.
    } else if (seekable && Number.isFinite(remaining)) {
      // Stream: seek both sides past the cursor (binary search on the stored UUIDs), merge only until the page is full.
      if (cursor !== null && cursor.recordUuid === null) continue; // a null-UUID cursor sorts before every row of a UUID family
      list = newListOf(plan.adapter);
      const complete = yield* familyChanges(plan, from, to, cursor === null ? null : cursor.recordUuid, list, remaining, false, tuning);
      // From the start, a stream is the family's first changes in contract order: the whole list when it
      // reached the end of both sides, else a prefix that answers the same first page again without reading.
      if (cursor === null && cache !== undefined) {
        if (complete) storeWholeList(cache, plan.adapter, plan.from, plan.to, key as string, list, tuning.chunkRows);
        else if (prefixKey !== undefined) cache.store(prefixKey, changesTable(list));
      }
      start = 0;
    } else {
      list = yield* wholeFamily(plan, from, to, defer, tuning, cache);
      if (key !== undefined) storeWholeList(cache as ChangeCache, plan.adapter, plan.from, plan.to, key, list, tuning.chunkRows);
      start = seekList(list, cursor);
    }
    yield PARTICIPANT_PAUSE;
    if (start < list.length) {
      remaining -= list.length - start;
      yield { list, start, end: list.length };
    }
  }
}

export function newListOf(a: DiffAdapter): ChangeList {
  return new ChangeList(a.scope, a.recordFamilyId, a.recordUuidField !== null);
}

export function isSeekable(a: DiffAdapter): boolean {
  return a.recordUuidField !== null && a.identityFields.length === 1 && a.identityFields[0] === a.recordUuidField;
}

export function loadList(cache: ChangeCache, key: string, adapter: DiffAdapter): ChangeList | undefined {
  const t = cache.load(key);
  return t === undefined ? undefined : changeListFromTable(t, adapter);
}

export function recordPosition(list: ChangeList, i: number): RecordPosition {
  const k = list.kind[i] as number;
  return {
    detail: 'records',
    scope: list.scope,
    recordFamilyId: list.recordFamilyId,
    recordUuid: list.hasUuid ? toHex(list.uuid.subarray(i * 16, i * 16 + 16)) : null,
    identityFingerprint: toHex(list.identity.subarray(i * 32, i * 32 + 32)),
    changeKind: RECORD_CHANGE_KINDS[k] as RecordChangeKind,
  };
}

/** The token binding of a display view (the search text as a digest, never echoed). */
export function tokenViewOf(view: DiffView | null): TokenView | null {
  if (view === null) return null;
  return { kinds: view.kinds, field: view.field, searchSha256: view.search === null ? null : sha256Hex(new TextEncoder().encode(view.search)) };
}

/**
 * A family's whole change list in contract order: from the derived cache
 * when stored, else merged once (and stored). Equal participants give an
 * empty list without reading.
 */
export function* familyListSteps(
  plan: FamilyPlan,
  from: DiffEndpoint,
  to: DiffEndpoint,
  cache: ChangeCache | undefined,
  defer: boolean,
  tuning: DiffTuning = DEFAULT_DIFF_TUNING,
): DiffSteps<ChangeList> {
  if (plan.from !== undefined && plan.to !== undefined && sameContent(plan.from, plan.to)) return newListOf(plan.adapter);
  const key = cache === undefined ? undefined : changeCacheKey(plan.adapter, plan.from, plan.to);
  const hit = key === undefined ? undefined : loadWholeList(cache as ChangeCache, plan.adapter, plan.from, plan.to, key, tuning.chunkRows);
  if (hit !== undefined) return hit;
  yield PARTICIPANT_PAUSE;
  const list = yield* wholeFamily(plan, from, to, defer, tuning, cache);
  if (key !== undefined) storeWholeList(cache as ChangeCache, plan.adapter, plan.from, plan.to, key, list, tuning.chunkRows);
  return list;
}

/**
 * Rows `[start, start + count)` of a family's stored whole change list and
 * its row count, read from the stored chunks only (a jump), or undefined
 * when they are not stored (the list is short, or not yet merged).
 */
export function cachedListWindow(plan: FamilyPlan, cache: ChangeCache | undefined, tuning: DiffTuning, start: number, count: number): ListWindow | undefined {
  if (cache === undefined || (plan.from !== undefined && plan.to !== undefined && sameContent(plan.from, plan.to))) return undefined;
  return loadListWindow(cache, plan.adapter, plan.from, plan.to, tuning.chunkRows, start, count);
}

/** The cached whole change list of a family, or undefined when not stored (nothing is read). */
export function cachedFamilyList(plan: FamilyPlan, cache: ChangeCache | undefined, tuning: DiffTuning = DEFAULT_DIFF_TUNING): ChangeList | undefined {
  if (plan.from !== undefined && plan.to !== undefined && sameContent(plan.from, plan.to)) return newListOf(plan.adapter);
  return cache === undefined ? undefined : loadWholeList(cache, plan.adapter, plan.from, plan.to, changeCacheKey(plan.adapter, plan.from, plan.to), tuning.chunkRows);
}

/**
 * Decodes `params.after` and checks it against this request and endpoints.
 *
 * `GF_PAGE_INVALID` for a forged, edited or foreign token;
 * `GF_PAGE_SNAPSHOT_GONE` when it is valid but an endpoint changed.
 */
export function pageState(params: DiffParams, binding: DiffBinding, secret: Uint8Array, from?: TokenEndpoint, to?: TokenEndpoint): TokenState | null {
  if (params.after === null) return null;
  const state = decodePageToken(params.after, secret);
  checkTokenRequest(state, {
    selectorsSha256: binding.selectorsSha256,
    scope: params.scope,
    detail: params.detail,
    limit: params.limit,
    family: params.family ?? null,
    view: tokenViewOf(params.view ?? null),
  });
  if (from !== undefined && to !== undefined) checkTokenEndpoints(state, from, to);
  return state;
}

/**
 * A summary row whose content identity and `change_kind` are logical
 * (`checkpoint_diff_ignores_physical_layout`).
 *
 * Each side's `content_sha256` is that participant's record-set fingerprint
 * (`record-set.ts`), not its stored bytes' digest; a participant on both
 * sides is `unchanged` exactly when the two fingerprints are equal (the same
 * records, whatever their Arrow layout). A fingerprint is read from the
 * cache, or computed once per object and stored there; an object on both
 * sides is read once.
 */
function* logicalSummaryRow(
  from: DiffEndpoint,
  to: DiffEndpoint,
  row: SummaryRow,
  adapters: readonly DiffAdapter[],
  cache: ChangeCache | undefined,
): DiffSteps<SummaryRow> {
  const key = familyKey(row);
  const x = byFamily(from).get(key);
  const y = byFamily(to).get(key);
  const fromFp = x === undefined ? null : yield* recordSetOf(from, x, adapters, cache);
  const toFp = y === undefined ? null : x !== undefined && sameContent(x, y) ? fromFp : yield* recordSetOf(to, y, adapters, cache);
  const changeKind = row.changeKind === 'added' || row.changeKind === 'removed' ? row.changeKind : fromFp === toFp ? 'unchanged' : 'modified';
  return { ...row, changeKind, fromContentSha256: fromFp, toContentSha256: toFp };
}

/** One participant's record-set fingerprint: from the cache, else read, computed and stored. */
function* recordSetOf(endpoint: DiffEndpoint, p: EndpointParticipant, adapters: readonly DiffAdapter[], cache: ChangeCache | undefined): DiffSteps<string> {
  const adapter = resolveAdapter(adapters, p);
  const key = recordSetKey(adapter, p.contentSha256);
  const known = loadRecordSet(cache, key);
  if (known !== undefined) return known;
  const source = yield* openSource(endpoint, p);
  let fp: string;
  try {
    fp = yield* recordSetSteps(adapter, source, p.contentSha256);
  } finally {
    source.close();
  }
  storeRecordSet(cache, key, fp);
  return fp;
}

/** Pulls change ranges from `orderedChanges`, forwarding its effects, until `take` returns false; returns whether it stopped early. */
export function* pullRanges(
  source: Generator<ChangeRange | DiffEffect, void, ParticipantSource | undefined>,
  take: (r: ChangeRange) => boolean,
): DiffSteps<boolean> {
  try {
    let r = source.next();
    while (r.done !== true) {
      const v = r.value;
      if (isEffect(v)) {
        r = source.next(yield v);
        continue;
      }
      if (!take(v)) return true;
      r = source.next();
    }
    return false;
  } finally {
    source.return();
  }
}

function* pageSteps(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions, defer: boolean): DiffSteps<DiffPage> {
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  const fromId = identityOf(from);
  const toId = identityOf(to);
  const state = pageState(params, binding, opts.secret, fromId, toId);
  const signal = binding.signal;
  const family = params.family ?? null;
  checkCancelled(signal, 'start');
  const token = (last: PagePosition): string =>
    encodePageToken(
      { selectorsSha256: binding.selectorsSha256, from: fromId, to: toId, scope: params.scope, detail: params.detail, limit: params.limit, family, last },
      opts.secret,
    );
  if (params.detail === 'summary') {
    const last = state?.last;
    const rows = summaryRows(from, to, params.scope, adapters, family).filter((r) => last === undefined || compareSummary(r, last as SummaryPosition) > 0);
    const page: SummaryRow[] = [];
    for (const r of rows.slice(0, params.limit)) page.push(yield* logicalSummaryRow(from, to, r, adapters, opts.cache));
    const end = page[page.length - 1];
    const next =
      rows.length > params.limit && end !== undefined
        ? token({ detail: 'summary', scope: end.scope, capabilityId: end.capabilityId, recordFamilyId: end.recordFamilyId })
        : null;
    checkCancelled(signal, 'finish');
    return { schema: SUMMARY_DIFF_SCHEMA_NAME, table: summaryTable(from.checkpointUuid, to.checkpointUuid, page), nextPageToken: next, from: fromId, to: toId };
  }
  const after = state === null ? null : keyOfPosition(state.last as RecordPosition);
  const page: ChangeRange[] = [];
  let rows = 0;
  // One row beyond the page tells whether a next page exists.
  const more = yield* pullRanges(orderedChanges(from, to, { scope: params.scope, after, adapters, cache: opts.cache, need: params.limit + 1, family, defer, tuning: opts.tuning }), (r) => {
    if (rows === params.limit) return false;
    const end = Math.min(r.end, r.start + (params.limit - rows));
    page.push({ list: r.list, start: r.start, end });
    rows += end - r.start;
    return end === r.end;
  });
  const last = page[page.length - 1];
  checkCancelled(signal, 'finish');
  return {
    schema: RECORD_DIFF_SCHEMA_NAME,
    table: recordTable(from.checkpointUuid, to.checkpointUuid, page),
    nextPageToken: more && last !== undefined ? token(recordPosition(last.list, last.end - 1)) : null,
    from: fromId,
    to: toId,
  };
}

/**
 * One page of `diff_checkpoints` between two pinned endpoints (pure core,
 * synchronous driver).
 *
 * Summary or record detail per `params`, at most `params.limit` rows in
 * contract order, and a token for the next page when more rows exist.
 * Cancellation (`binding.signal`) is checked before each participant and
 * every 4,096 records; a cancelled call throws `GF_CANCELLED` and returns
 * nothing. Runs to completion without yielding: a signal aborted by
 * another request of the same process can only land with
 * `diffEndpointsAsync`. Kept for pure-core callers (tests, in-memory
 * endpoints).
 */
export function diffEndpoints(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions): DiffPage {
  return runSync(pageSteps(from, to, params, binding, opts, false), binding.signal);
}

/**
 * `diffEndpoints`, cooperatively: the same rows and errors, but at every
 * cancellation point (before each participant, every 4,096 records, and
 * between chunks of a participant read) it yields to the event loop before
 * checking `binding.signal`, so a cancel from another request stops a
 * running diff (`GF_CANCELLED`, nothing returned).
 */
export function diffEndpointsAsync(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions): Promise<DiffPage> {
  return runAsync(pageSteps(from, to, params, binding, opts, true), binding.signal);
}

/** Options of the whole-record diff. */
export interface AllRecordsOptions {
  readonly batchRows?: number;
  readonly signal?: AbortSignal;
  readonly adapters?: readonly DiffAdapter[];
  readonly cache?: ChangeCache;
  /** Frozen tuning knobs (default: `DEFAULT_DIFF_TUNING`). */
  readonly tuning?: DiffTuning;
}

function* allRecordSteps(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, opts: AllRecordsOptions, defer: boolean): DiffSteps<Table> {
  if (scope === 'summary') validation('scope', 'summary_scope_has_no_records');
  const size = opts.batchRows ?? DIFF_PAGE_LIMITS.max;
  const tables: Table[] = [];
  let batch: ChangeRange[] = [];
  let rows = 0;
  yield* pullRanges(orderedChanges(from, to, { scope, adapters: opts.adapters, cache: opts.cache, defer, tuning: opts.tuning }), (r) => {
    for (let s = r.start; s < r.end; ) {
      const e = Math.min(r.end, s + (size - rows));
      batch.push({ list: r.list, start: s, end: e });
      rows += e - s;
      s = e;
      if (rows === size) {
        tables.push(recordTable(from.checkpointUuid, to.checkpointUuid, batch));
        batch = [];
        rows = 0;
      }
    }
    return true;
  });
  checkCancelled(opts.signal, 'finish');
  if (rows > 0 || tables.length === 0) tables.push(recordTable(from.checkpointUuid, to.checkpointUuid, batch));
  return new Table(RECORD_DIFF_SCHEMA, tables.flatMap((t) => t.batches));
}

/**
 * The whole record diff in one Arrow table (batches of at most `batchRows`
 * rows), in contract order, reading each changed participant once
 * (synchronous driver; see `diffAllRecordsAsync`).
 *
 * For previews and exports that want everything; memory is O(changes).
 * Pages remain the API for interactive use. Cancellation gives
 * `GF_CANCELLED` and no table.
 */
export function diffAllRecords(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, opts: AllRecordsOptions = {}): Table {
  return runSync(allRecordSteps(from, to, scope, opts, false), opts.signal);
}

/** `diffAllRecords`, cooperatively (yields to the event loop at every cancellation point). */
export function diffAllRecordsAsync(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, opts: AllRecordsOptions = {}): Promise<Table> {
  return runAsync(allRecordSteps(from, to, scope, opts, true), opts.signal);
}
