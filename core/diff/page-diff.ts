// The engine's entry points for plain pages: one summary or record page with its
// signed next-page token, and the whole record diff in one table.
import { Table } from 'apache-arrow';
import { sha256Hex } from '../canonical/index';
import { DIFF_ADAPTERS, resolveAdapter } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import { checkCancelled, runAsync, runSync } from './steps';
import type { DiffSteps } from './steps';
import type { ChangeCache } from './changes-cache';
import type { ChangeRange } from './changes-list';
import { DIFF_PAGE_LIMITS, RECORD_DIFF_DISPLAY_SCHEMA_NAME, RECORD_DIFF_SCHEMA, RECORD_DIFF_SCHEMA_NAME, RECORD_DIFF_VALUES_SCHEMA_NAME, SUMMARY_DIFF_SCHEMA_NAME } from './arrow-schemas';
import type { DiffScope } from './arrow-schemas';
import type { DiffEndpoint, EndpointParticipant } from './plan-endpoint';
import { checkTokenEndpoints, checkTokenRequest, decodePageToken, encodePageToken } from './page-token';
import type { PagePosition, RecordPosition, SummaryPosition, TokenEndpoint, TokenState, TokenView } from './page-token';
import { recordTable, summaryTable } from './page-result-tables';
import { loadRecordSet, recordSetKey, recordSetSteps, storeRecordSet } from './page-record-set';
import type { DiffTuning } from './tuning';
import type { SummaryRow } from './page-result-tables';
import { keyOfPosition, orderedChanges, recordPosition, pullRanges } from './changes-ordered';
import { openSource } from './merge-family-changes';
import { familyKey, byFamily, sameContent, compareSummary, summaryRows } from './plan-families';
import { validation } from './plan-request';
import type { DiffParams, DiffView } from './plan-request';

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

/** The token binding of a display view (the search text as a digest, never echoed). */
export function tokenViewOf(view: DiffView | null): TokenView | null {
  if (view === null) return null;
  return { kinds: view.kinds, field: view.field, searchSha256: view.search === null ? null : sha256Hex(new TextEncoder().encode(view.search)) };
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
 * (`page-record-set.ts`), not its stored bytes' digest; a participant on both
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
    fp = yield* recordSetSteps(adapter, source, p.contentSha256, undefined, endpoint.caches);
  } finally {
    source.close();
  }
  storeRecordSet(cache, key, fp);
  return fp;
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
