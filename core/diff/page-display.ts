// Display pages (display values, changed fields, row numbers, totals, jumps, filters)
// and the exact statistics of a diff.
import { Uint64, makeData } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { parseUuid, toHex } from '../canonical/index';
import { diffHeadline, isBookkeepingScope } from '../contract/diff';
import type { DiffStatFamily, DiffStatResult, FieldCellCount } from '../contract/diff';
import { DIFF_ADAPTERS } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import { DEFAULT_DIFF_TUNING } from './tuning';
import type { DiffTuning } from './tuning';
import { loadChunk } from './changes-cache';
import type { ChangeCache, StoredChunk } from './changes-cache';
import { PARTICIPANT_PAUSE, checkCancelled, runAsync, runSync } from './steps';
import type { DiffSteps } from './steps';
import { KIND_ADDED, KIND_MODIFIED, KIND_REMOVED, changeColumns, oneBatchTable } from './changes-list';
import type { ChangeList, ChangeRange } from './changes-list';
import { RECORD_CHANGE_KINDS, RECORD_DIFF_DISPLAY_SCHEMA, RECORD_DIFF_DISPLAY_SCHEMA_NAME, RECORD_DIFF_VALUES_SCHEMA, RECORD_DIFF_VALUES_SCHEMA_NAME } from './arrow-schemas';
import { displayFieldsOf, utf8Column } from '../participants/index';
import { cachedFamilyList, cachedListWindow, familyListSteps, keyOfPosition, orderedChanges, pullRanges, recordPosition } from './changes-ordered';
import { identityOf, pageState, tokenViewOf } from './page-diff';
import { planFamilies, sameContent, summaryRows } from './plan-families';
import type { DiffBinding, DiffEngineOptions, DiffPage } from './page-diff';
import type { DiffParams, DiffView } from './plan-request';
import type { FamilyPlan } from './plan-families';
import { encodePageToken } from './page-token';
import { lowerBound } from './merge-raw-rows';
import { DisplayResolver } from './page-record-display';
import type { RecordDisplay } from './page-record-display';
import type { DiffEndpoint } from './plan-endpoint';
import type { DiffScope } from './arrow-schemas';
import type { FamilyFilter } from './page-token';

/** One row of a display page: a row of a family's change list and its 0-based row number in the (filtered) list. */
interface PageRow {
  readonly list: ChangeList;
  readonly row: number;
}

const UUID_HEX_PREFIX = /^[0-9a-f-]{1,36}$/;

/** True when row `i` passes the view's kind and changed-field filters (search is judged apart). */
function passes(view: DiffView, fieldBit: number, list: ChangeList, i: number): boolean {
  const k = list.kind[i] as number;
  if (view.kinds !== null && !view.kinds.includes(RECORD_CHANGE_KINDS[k] as (typeof RECORD_CHANGE_KINDS)[number])) return false;
  if (fieldBit !== 0 && (k !== KIND_MODIFIED || ((list.fieldMask[i] as number) & fieldBit) === 0)) return false;
  return true;
}

/**
 * True when row `i`'s record id starts with `search`: its record UUID (text
 * with or without dashes) or, for a family without one, its identity
 * fingerprint (hex).
 */
function idMatches(search: string, list: ChangeList, i: number): boolean {
  if (!UUID_HEX_PREFIX.test(search)) return false;
  if (list.hasUuid) {
    const hex = toHex(list.uuid.subarray(i * 16, i * 16 + 16));
    const text = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return text.startsWith(search) || hex.startsWith(search.replaceAll('-', ''));
  }
  return toHex(list.identity.subarray(i * 32, i * 32 + 32)).startsWith(search);
}

/** True when some display value contains `search` (both compared NFC, lower case). */
function displayMatches(search: string, d: RecordDisplay): boolean {
  for (const v of Object.values(d.display)) if (v !== null && v.normalize('NFC').toLowerCase().includes(search)) return true;
  return false;
}

/** The rows of `list` that the view keeps, in list order (engine-side filter and search; display read only for search). */
function* filteredRows(view: DiffView, plan: FamilyPlan, list: ChangeList, resolver: DisplayResolver): DiffSteps<Int32Array> {
  const fieldIndex = view.field === null ? -1 : plan.adapter.family.fields.findIndex((f) => f.name === view.field);
  const fieldBit = fieldIndex < 0 ? 0 : (1 << fieldIndex) >>> 0;
  const out = new Int32Array(list.length);
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    if ((i & 1023) === 1023) yield PARTICIPANT_PAUSE;
    if (!passes(view, fieldBit, list, i)) continue;
    if (view.search !== null && !idMatches(view.search, list, i) && !displayMatches(view.search, resolver.of(list, i))) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}

function uint64Column(values: readonly (number | null)[]): Data {
  const data = new BigUint64Array(values.length);
  let nulls = 0;
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else {
      data[i] = BigInt(v);
      bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
    }
  });
  return makeData({ type: new Uint64(), length: values.length, data, nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bitmap } : {}) });
}

/**
 * The `checkpoint_record_diff_display@1` table of `rows` (first row number
 * `first + 1`), or with `values` the `checkpoint_record_diff_values@1` one.
 */
function displayTable(from: DiffEndpoint, to: DiffEndpoint, rows: readonly PageRow[], first: number, total: number | null, resolver: DisplayResolver | null, values: boolean) {
  const ranges: ChangeRange[] = rows.map((r) => ({ list: r.list, start: r.row, end: r.row + 1 }));
  const { length, children } = changeColumns(ranges);
  const shown = resolver === null ? [] : rows.map((r) => resolver.of(r.list, r.row));
  const endpoint = (uuid: string): Data => {
    const one = parseUuid(uuid);
    const data = new Uint8Array(16 * length);
    for (let i = 0; i < length; i++) data.set(one, i * 16);
    return makeData({ type: RECORD_DIFF_DISPLAY_SCHEMA.fields[0]!.type, length, data, nullCount: 0 });
  };
  const changed = values && resolver !== null ? rows.map((r) => resolver.valuesOf(r.list, r.row)) : null;
  const json = (v: Readonly<Record<string, string | null>> | null): string | null => (v === null ? null : JSON.stringify(v));
  return oneBatchTable(
    values ? RECORD_DIFF_VALUES_SCHEMA : RECORD_DIFF_DISPLAY_SCHEMA,
    [
      endpoint(from.checkpointUuid),
      endpoint(to.checkpointUuid),
      ...children,
      uint64Column(rows.map((_, k) => first + k + 1)),
      uint64Column(rows.map(() => total)),
      utf8Column(shown.map((d) => JSON.stringify(d.display))),
      utf8Column(shown.map((d) => d.changedFields)),
      ...(values ? [utf8Column(rows.map((_, k) => json(changed?.[k]?.before ?? null))), utf8Column(rows.map((_, k) => json(changed?.[k]?.after ?? null)))] : []),
    ],
    length,
  );
}

/**
 * Rows `[start, start + count)` of a family's stored whole change list
 * filtered by change kind and/or changed field (no search), and the
 * filtered row count: chunk 0's per-chunk counts say which chunks hold
 * them, and only those are read. Undefined when the chunks or their counts
 * are not stored, or a chunk read disagrees with its counts.
 */
function filteredListWindow(plan: FamilyPlan, cache: ChangeCache | undefined, tuning: DiffTuning, view: DiffView, start: number, count: number): { rows: PageRow[]; total: number } | undefined {
  if (cache === undefined || (plan.from !== undefined && plan.to !== undefined && sameContent(plan.from, plan.to))) return undefined;
  const { adapter } = plan;
  const chunk = (c: number): StoredChunk | undefined => loadChunk(cache, adapter, plan.from, plan.to, tuning.chunkRows, c);
  const head = chunk(0);
  if (head?.counts === undefined) return undefined;
  const fieldIndex = view.field === null ? -1 : adapter.family.fields.findIndex((f) => f.name === view.field);
  const fieldBit = fieldIndex < 0 ? 0 : (1 << fieldIndex) >>> 0;
  const kinds = view.kinds ?? RECORD_CHANGE_KINDS;
  // Rows of a chunk the view keeps: a changed-field filter keeps modified rows only.
  const kept = (n: readonly number[]): number =>
    fieldBit !== 0 ? (kinds.includes('modified') ? (n[3 + fieldIndex] as number) : 0) : kinds.reduce((sum, k) => sum + (n[RECORD_CHANGE_KINDS.indexOf(k)] as number), 0);
  const per = head.counts.map(kept);
  const total = per.reduce((a, b) => a + b, 0);
  const rows: PageRow[] = [];
  let before = 0;
  for (let c = 0; c < per.length && rows.length < count && before < start + count; c++) {
    const n = per[c] as number;
    if (n === 0 || before + n <= start) {
      before += n;
      continue;
    }
    const got = c === 0 ? head : chunk(c);
    if (got === undefined || got.total !== head.total) return undefined;
    let seen = 0;
    for (let i = 0; i < got.list.length; i++) {
      if (!passes(view, fieldBit, got.list, i)) continue;
      if (before + seen >= start && rows.length < count) rows.push({ list: got.list, row: i });
      seen++;
    }
    if (seen !== n) return undefined;
    before += n;
  }
  return { rows, total };
}

/**
 * A display page without search read from the stored chunks of the
 * family's whole change list alone (filtered by kind or changed field
 * through chunk 0's per-chunk counts): a jump at `position`; else the page
 * after `cursor`, which starts at row `rows` of the (filtered) list (the
 * count the token carries) and is taken only when the stored row before
 * it is the token's last row; a first page from row 0. Undefined when the
 * chunks are not stored (the list is short or not merged yet) or the
 * cursor does not match: the caller then reads the whole list or streams.
 */
function chunkedPage(
  plan: FamilyPlan,
  opts: DiffEngineOptions,
  view: DiffView,
  position: number | null,
  cursor: ReturnType<typeof keyOfPosition> | null,
  rows: number,
  limit: number,
): { rows: PageRow[]; first: number; total: number } | undefined {
  const tuning = opts.tuning ?? DEFAULT_DIFF_TUNING;
  const afterCursor = position === null && cursor !== null;
  if (view.search !== null || (afterCursor && rows < 1)) return undefined;
  const start = position ?? (afterCursor ? rows - 1 : 0);
  const take = afterCursor ? limit + 1 : limit;
  let win: { rows: PageRow[]; total: number } | undefined;
  if (view.kinds !== null || view.field !== null) win = filteredListWindow(plan, opts.cache, tuning, view, start, take);
  else {
    const w = cachedListWindow(plan, opts.cache, tuning, start, take);
    const out: PageRow[] = [];
    for (const r of w?.ranges ?? []) for (let i = r.start; i < r.end; i++) out.push({ list: r.list, row: i });
    win = w === undefined ? undefined : { rows: out, total: w.total };
  }
  if (win === undefined) return undefined;
  const out = win.rows;
  if (afterCursor) {
    const head = out.shift();
    if (head === undefined || head.list.compareAt(head.row, cursor as NonNullable<typeof cursor>) !== 0) return undefined;
  }
  return { rows: out, first: Math.min(afterCursor ? rows : start, win.total), total: win.total };
}

/**
 * One display page of a family's record diff (`display: true`).
 *
 * Rows carry display values, changed field names, their 1-based row
 * number in the (filtered) list and the list's total. An unfiltered page
 * with no stored whole list streams like a plain page (its total is null
 * until the stream reaches the end). A filtered page, a search or a jump
 * works on the family's whole change list (stored after the first time, so
 * a jump is a slice of it): kind and changed-field filters read nothing
 * else; a search reads display values only for rows whose id does not
 * match. Tokens bind the view (`GF_PAGE_INVALID` with another filter) and
 * carry the row count before the next page.
 */
function* displayPageSteps(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions, defer: boolean): DiffSteps<DiffPage> {
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  const view = params.view as DiffView;
  const family = params.family as FamilyFilter;
  const fromId = identityOf(from);
  const toId = identityOf(to);
  const state = pageState(params, binding, opts.secret, fromId, toId);
  checkCancelled(binding.signal, 'start');
  const plan = planFamilies(from, to, params.scope, adapters, family)[0];
  const values = view.values === true;
  const resolver = plan === undefined ? null : new DisplayResolver(plan.adapter, adapters, from, to, values);
  try {
    const cursor = state === null ? null : keyOfPosition(state.last as Parameters<typeof keyOfPosition>[0]);
    const filtered = view.kinds !== null || view.field !== null || view.search !== null;
    let rows: PageRow[] = [];
    let first = state?.rows ?? 0;
    let total: number | null = 0;
    let more = false;
    const position = params.position ?? null;
    // A page without search reads only the stored chunks holding it (the whole list is not loaded).
    const chunked = plan !== undefined ? chunkedPage(plan, opts, view, position, cursor, state?.rows ?? 0, params.limit) : undefined;
    if (chunked !== undefined) {
      rows = chunked.rows;
      first = chunked.first;
      total = chunked.total;
      more = first + rows.length < total;
    } else if (plan !== undefined) {
      const stored = cachedFamilyList(plan, opts.cache, opts.tuning ?? DEFAULT_DIFF_TUNING);
      if (stored === undefined && !filtered && position === null) {
        // Stream the page like a plain one: merge only until limit + 1 rows are found.
        const found: PageRow[] = [];
        more = yield* pullRanges(orderedChanges(from, to, { scope: params.scope, after: cursor, adapters, cache: opts.cache, need: params.limit + 1, family, defer, tuning: opts.tuning }), (r) => {
          for (let i = r.start; i < r.end; i++) {
            if (found.length === params.limit) return false;
            found.push({ list: r.list, row: i });
          }
          return true;
        });
        rows = found;
        total = more ? null : first + rows.length;
      } else {
        const list = stored ?? (yield* familyListSteps(plan, from, to, opts.cache, defer, opts.tuning));
        const keep = filtered ? yield* filteredRows(view, plan, list, resolver as DisplayResolver) : null;
        const count = keep === null ? list.length : keep.length;
        const at = (k: number): number => (keep === null ? k : (keep[k] as number));
        const start =
          position !== null
            ? position
            : cursor === null
              ? 0
              : lowerBound(count, (k) => list.compareAt(at(k), cursor), false);
        first = Math.min(start, count);
        const end = Math.min(count, first + params.limit);
        for (let k = first; k < end; k++) rows.push({ list, row: at(k) });
        more = end < count;
        total = count;
      }
    }
    checkCancelled(binding.signal, 'finish');
    const last = rows[rows.length - 1];
    const next =
      more && last !== undefined
        ? encodePageToken(
            {
              selectorsSha256: binding.selectorsSha256,
              from: fromId,
              to: toId,
              scope: params.scope,
              detail: params.detail,
              limit: params.limit,
              family,
              view: tokenViewOf(view),
              rows: first + rows.length,
              last: recordPosition(last.list, last.row),
            },
            opts.secret,
          )
        : null;
    const table = displayTable(from, to, rows, first, total, resolver, values);
    return { schema: values ? RECORD_DIFF_VALUES_SCHEMA_NAME : RECORD_DIFF_DISPLAY_SCHEMA_NAME, table, nextPageToken: next, from: fromId, to: toId };
  } finally {
    resolver?.close();
  }
}

/** `displayPageSteps` under the synchronous driver (pure-core callers and tests). */
export function displayPage(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions): DiffPage {
  return runSync(displayPageSteps(from, to, params, binding, opts, false), binding.signal);
}

/** `displayPageSteps` cooperatively (yields to the event loop at every cancellation point). */
export function displayPageAsync(from: DiffEndpoint, to: DiffEndpoint, params: DiffParams, binding: DiffBinding, opts: DiffEngineOptions): Promise<DiffPage> {
  return runAsync(displayPageSteps(from, to, params, binding, opts, true), binding.signal);
}

/** Exact counts of one family's change list: kinds and, over modified rows, changed cells per field. */
function countList(plan: FamilyPlan, list: ChangeList): { added: number; removed: number; modified: number; cells: FieldCellCount[] } {
  const fields = plan.adapter.family.fields;
  const perField = new Array<number>(fields.length).fill(0);
  let added = 0;
  let removed = 0;
  let modified = 0;
  for (let i = 0; i < list.length; i++) {
    const k = list.kind[i] as number;
    if (k === KIND_ADDED) added++;
    else if (k === KIND_REMOVED) removed++;
    else {
      modified++;
      let m = list.fieldMask[i] as number;
      for (let f = 0; m !== 0; f++, m >>>= 1) if ((m & 1) === 1) perField[f] = (perField[f] as number) + 1;
    }
  }
  const cells = fields.flatMap((f, k) => ((perField[k] as number) > 0 ? [{ field: f.name, records: perField[k] as number }] : []));
  return { added, removed, modified, cells };
}

function* statSteps(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, family: FamilyFilter | null, opts: Omit<DiffEngineOptions, 'secret'>, signal: AbortSignal | undefined, defer: boolean): DiffSteps<DiffStatResult> {
  const adapters = opts.adapters ?? DIFF_ADAPTERS;
  checkCancelled(signal, 'start');
  const plans = new Map(planFamilies(from, to, scope === 'summary' ? 'all' : scope, adapters, family).map((p) => [`${p.adapter.capabilityId}/${p.recordFamilyId}`, p] as const));
  const families: DiffStatFamily[] = [];
  for (const row of summaryRows(from, to, scope, adapters, family)) {
    const plan = plans.get(`${row.capabilityId}/${row.recordFamilyId}`);
    const adapter = plan?.adapter;
    let counts = { added: 0, removed: 0, modified: 0, cells: [] as FieldCellCount[] };
    let kind = row.changeKind;
    if (plan !== undefined && kind !== 'unchanged') {
      if (kind === 'added' || kind === 'removed') {
        // A participant on one side only: every record is added (removed); nothing to read.
        counts = { ...counts, [kind]: (kind === 'added' ? row.toRowCount : row.fromRowCount) ?? 0 };
      } else {
        counts = countList(plan, yield* familyListSteps(plan, from, to, opts.cache, defer, opts.tuning));
        // Another physical layout of the same records is not a change (checkpoint_diff_ignores_physical_layout).
        if (counts.added + counts.removed + counts.modified === 0) kind = 'unchanged';
      }
    }
    families.push({
      scope: row.scope,
      capability_id: row.capabilityId,
      record_family_id: row.recordFamilyId,
      change_kind: kind,
      bookkeeping: isBookkeepingScope(row.scope),
      from_row_count: row.fromRowCount,
      to_row_count: row.toRowCount,
      added: counts.added,
      removed: counts.removed,
      modified: counts.modified,
      changed_cells: counts.cells,
      display_fields: adapter === undefined ? [] : displayFieldsOf(adapter.family).map((f) => f.name),
    });
    yield PARTICIPANT_PAUSE;
  }
  checkCancelled(signal, 'finish');
  return { from_checkpoint_uuid: from.checkpointUuid, to_checkpoint_uuid: to.checkpointUuid, families, headline: diffHeadline(families) };
}

/** Options of `diffStat`: the registry, the change-list store and a cancellation signal. */
export interface DiffStatOptions {
  readonly tuning?: DiffTuning;
  readonly adapters?: readonly DiffAdapter[];
  readonly cache?: ChangeCache;
  readonly signal?: AbortSignal;
}

/**
 * Exact statistics of the diff between two pinned endpoints (pure core,
 * synchronous): per participant of the scope, the added, removed and
 * modified record counts and the changed cells per field.
 *
 * Each changed family is merged once (or read from the change-list store),
 * and its whole list is stored, so later pages, totals and jumps of it are
 * cheap. A participant on one side only is counted from the manifest.
 */
export function diffStat(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, family: FamilyFilter | null, opts: DiffStatOptions = {}): DiffStatResult {
  return runSync(statSteps(from, to, scope, family, opts, opts.signal, false), opts.signal);
}

/** `diffStat` cooperatively (yields to the event loop at every cancellation point; `GF_CANCELLED` on abort). */
export function diffStatAsync(from: DiffEndpoint, to: DiffEndpoint, scope: DiffScope, family: FamilyFilter | null, opts: DiffStatOptions = {}): Promise<DiffStatResult> {
  return runAsync(statSteps(from, to, scope, family, opts, opts.signal, true), opts.signal);
}
