// What the history timeline draws, computed from the lineage entries alone:
// one mark per entry (in publication order), checkpoints as flags, reverts as
// arcs back to the generation of the checkpoint they restored, pruned
// entries hollow, the size of each change. Pure: no DOM, no chart.
import type { JsonResults } from '../../core/contract/operations';

/** One history entry (`history.list`). */
export type LineageEntry = JsonResults['history.list']['entries'][number];

/** One mark of the timeline. */
export interface TimelineMark {
  readonly generation_uuid: string;
  readonly seq: number;
  /** Publication time, seconds since the epoch (the chart's x). */
  readonly t: number;
  readonly changed: number;
  readonly kind: LineageEntry['kind'];
  readonly status: LineageEntry['status'];
  readonly hollow: boolean;
  /** Active checkpoint names of the generation (its flags). */
  readonly flags: readonly string[];
  readonly entry: LineageEntry;
}

/** One revert arc: from the revert's mark back to the mark of the generation it restored. */
export interface TimelineArc {
  readonly from: string;
  readonly to: string;
  readonly checkpoint: string | null;
}

/** The timeline of a history. */
export interface TimelineModel {
  /** Oldest first (the chart's x order). */
  readonly marks: readonly TimelineMark[];
  readonly arcs: readonly TimelineArc[];
  /** Reverts whose restored generation is not in the history shown (no arc drawn; said in words). */
  readonly unplacedReverts: number;
}

/** Seconds since the epoch of an ISO-8601 UTC time with microseconds. */
export function secondsOf(iso: string): number {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (m === null) return Date.parse(iso) / 1000;
  const whole = Date.parse(`${m[1]}Z`) / 1000;
  return whole + Number(`0.${(m[2] ?? '0').padEnd(6, '0')}`);
}

/**
 * The timeline of `entries` (any order). `restoredSources` maps a revert's
 * generation to the generation it restored, where the project summary knows
 * it (a deleted checkpoint's revert is still placed).
 */
export function timelineModel(entries: readonly LineageEntry[], restoredSources: ReadonlyMap<string, string> = new Map()): TimelineModel {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const marks: TimelineMark[] = sorted.map((e) => ({
    generation_uuid: e.generation_uuid,
    seq: e.seq,
    t: secondsOf(e.published_at),
    changed: e.participants_changed,
    kind: e.kind,
    status: e.status,
    hollow: e.status === 'pruned',
    flags: e.checkpoints.map((c) => c.name),
    entry: e,
  }));
  const byCheckpoint = new Map<string, string>();
  for (const e of sorted) for (const c of e.checkpoints) byCheckpoint.set(c.checkpoint_uuid, e.generation_uuid);
  const present = new Set(sorted.map((e) => e.generation_uuid));
  const arcs: TimelineArc[] = [];
  let unplaced = 0;
  for (const e of sorted) {
    if (e.kind !== 'revert') continue;
    const to = (e.restored_checkpoint_uuid === null ? undefined : byCheckpoint.get(e.restored_checkpoint_uuid)) ?? restoredSources.get(e.generation_uuid);
    if (to === undefined || !present.has(to)) unplaced++;
    else arcs.push({ from: e.generation_uuid, to, checkpoint: e.restored_checkpoint_name });
  }
  return { marks, arcs, unplacedReverts: unplaced };
}

/** The nearest marks with a checkpoint name before and after mark `i` (exclusive), for "diff with the nearest named neighbours". */
export function namedNeighbours(marks: readonly TimelineMark[], i: number): { readonly before: TimelineMark | null; readonly after: TimelineMark | null } {
  let before: TimelineMark | null = null;
  let after: TimelineMark | null = null;
  for (let k = i - 1; k >= 0 && before === null; k--) if ((marks[k] as TimelineMark).flags.length > 0 && !(marks[k] as TimelineMark).hollow) before = marks[k] as TimelineMark;
  for (let k = i + 1; k < marks.length && after === null; k++) if ((marks[k] as TimelineMark).flags.length > 0 && !(marks[k] as TimelineMark).hollow) after = marks[k] as TimelineMark;
  return { before, after };
}

/** Radius of a mark in CSS pixels: grows with the participants changed (square root, bounded). */
export function markRadius(changed: number): number {
  return Math.min(12, 3 + 2 * Math.sqrt(Math.max(0, changed)));
}
