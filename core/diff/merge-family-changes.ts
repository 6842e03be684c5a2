// One family's changes: both participants opened for ranged reads and merged window
// by window (or decoded whole), with record indexes when both sides have one.
import type { ProjectCaches } from '../project/index';
import type { DiffAdapter } from './plan-adapters';
import { PARTICIPANT_PAUSE } from './steps';
import type { DiffSteps } from './steps';
import type { ChangeCache } from './changes-cache';
import { ChangeList } from './changes-list';
import type { DiffEndpoint, EndpointParticipant, ParticipantSource } from './plan-endpoint';
import { prepareSide } from './merge-raw-rows';
import type { RawSide } from './merge-raw-rows';
import { FamilyDiff } from './merge-family-diff';
import { WindowedParticipant, collectWindowed } from './merge-windowed';
import type { WindowedEnd } from './merge-windowed';
import { CorruptIndexError, buildRecordIndex, changedRuns, openRecordIndex, recordIndexKey } from './merge-record-index';
import type { ChangedRun, RecordIndex } from './merge-record-index';
import { DeferredDigests } from './merge-deferred-digests';
import { DigestPool } from './merge-digest-pool';
import { DEFAULT_DIFF_TUNING } from './tuning';
import type { DiffTuning } from './tuning';
import type { FamilyPlan } from './plan-families';

/** Opens one participant of one endpoint (a `read` effect), after a pause. */
export function* openSource(endpoint: DiffEndpoint, p: EndpointParticipant): DiffSteps<ParticipantSource> {
  yield PARTICIPANT_PAUSE;
  const source = yield { effect: 'read', endpoint, entry: p };
  if (source === undefined) throw new Error('invariant violated: a read step got no participant');
  return source;
}

/** Decodes a whole opened participant into merge form. */
function* decodeSide(adapter: DiffAdapter, source: ParticipantSource, p: EndpointParticipant, caches: ProjectCaches | undefined): DiffSteps<RawSide> {
  const table = adapter.decode(source.read(0, source.byteLength));
  yield PARTICIPANT_PAUSE;
  return prepareSide(adapter, table, p.contentSha256, caches);
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
export function* familyChanges(
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
  const wa = sa === null ? null : WindowedParticipant.open(adapter, sa, (plan.from as EndpointParticipant).contentSha256, from.caches);
  const wb = sb === null ? null : WindowedParticipant.open(adapter, sb, (plan.to as EndpointParticipant).contentSha256, to.caches);
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
    from: sa === null ? null : yield* decodeSide(adapter, sa, plan.from as EndpointParticipant, from.caches),
    to: sb === null ? null : yield* decodeSide(adapter, sb, plan.to as EndpointParticipant, to.caches),
  });
  const pos = cursor === null ? { a: 0, b: 0 } : fd.seekAfterUuid(cursor);
  return yield* fd.collect(out, pos.a, pos.b, stopAt);
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

export function newListOf(a: DiffAdapter): ChangeList {
  return new ChangeList(a.scope, a.recordFamilyId, a.recordUuidField !== null);
}

export function isSeekable(a: DiffAdapter): boolean {
  return a.recordUuidField !== null && a.identityFields.length === 1 && a.identityFields[0] === a.recordUuidField;
}
