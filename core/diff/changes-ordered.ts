// Changed records of two endpoints in contract order: from the change cache, streamed
// from a cursor, or merged whole per family.
import { toHex } from '../canonical/index';
import { DIFF_ADAPTERS } from './plan-adapters';
import type { DiffAdapter } from './plan-adapters';
import { PARTICIPANT_PAUSE, isEffect } from './steps';
import type { DiffEffect, DiffSteps } from './steps';
import { changeCacheKey, changeListFromTable, changesTable, loadListWindow, loadWholeList, storeWholeList } from './changes-cache';
import type { ListWindow } from './changes-cache';
import type { ChangeCache } from './changes-cache';
import { ChangeList } from './changes-list';
import type { ChangeRange } from './changes-list';
import { RECORD_CHANGE_KINDS } from './arrow-schemas';
import type { DiffScope, RecordChangeKind } from './arrow-schemas';
import type { DiffEndpoint, ParticipantSource } from './plan-endpoint';
import type { FamilyFilter, RecordPosition } from './page-token';
import { lowerBound } from './merge-raw-rows';
import { compareFamilyKey } from './changes-key';
import type { RecordSortKey } from './changes-key';
import { DEFAULT_DIFF_TUNING } from './tuning';
import type { DiffTuning } from './tuning';
import { familyChanges, wholeFamily, newListOf, isSeekable } from './merge-family-changes';
import { sameContent, planFamilies } from './plan-families';
import type { FamilyPlan } from './plan-families';

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
