// The history timeline: publications over real time on a canvas (uPlot for
// the scales, axes, cursor and zoom; our marks drawn in its draw hook), one
// mark per lineage entry sized by the participants it changed, checkpoints as
// labelled flags, reverts as arcs back to the checkpoint they restored,
// pruned entries hollow. Hover shows an entry; click (or Enter on the focused
// mark) selects it in the list; drag or scroll to zoom, the buttons or the
// arrow keys to move. The table below stays the way to read it all.
import { useEffect, useMemo, useRef, useState } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { countOf } from '../format';
import { setPictureData, themeColour } from './picture-data';
import { markRadius, namedNeighbours, timelineModel, type LineageEntry, type TimelineMark, type TimelineModel } from './timeline-model';

/** Props of the timeline. */
export interface HistoryTimelineProps {
  readonly entries: readonly LineageEntry[];
  /** Revert generation → the generation it restored (from the project summary), for reverts of deleted checkpoints. */
  readonly restoredSources?: ReadonlyMap<string, string>;
  readonly selected: string | null;
  readonly onSelect: (generationUuid: string) => void;
  /** Diff between two checkpoint names (or CURRENT). */
  readonly onDiff: (from: string, to: string) => void;
}

const HEIGHT = 190;

/**
 * uPlot, loaded with this module (History's chunk) rather than with the app,
 * so it is ready when the lineage arrives; a browser that cannot run it
 * (its Intl refuses the page's language) still gets History and its list.
 */
const UPLOT = import('uplot');
UPLOT.catch(() => undefined);

/** One line describing an entry, for the hover card and screen readers. */
export function describeMark(m: TimelineMark): string {
  const e = m.entry;
  const what = e.kind === 'revert' ? `revert to ${e.restored_checkpoint_name ?? 'a checkpoint'}` : e.kind === 'first' ? 'first publication' : 'publication';
  const names = m.flags.length === 0 ? '' : `, checkpoint ${m.flags.join(', ')}`;
  return `${what} at ${e.published_at.slice(0, 19).replace('T', ' ')} UTC${names}; ${countOf(m.changed, 'participant', 'participants')} changed${m.hollow ? '; content pruned by retention' : e.status === 'current' ? '; CURRENT' : ''}`;
}

/** Index of the mark nearest to x (canvas pixels) among those drawn, or -1. */
function nearest(u: uPlot, marks: readonly TimelineMark[], left: number): number {
  let best = -1;
  let bestD = 12;
  const xs = u.data[0] as number[];
  const t = u.posToVal(left, 'x');
  // Binary search for the first mark at or after t, then look around it.
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  for (let k = Math.max(0, lo - 8); k < Math.min(marks.length, lo + 8); k++) {
    const d = Math.abs(u.valToPos(xs[k] as number, 'x') - left);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

function drawMarks(u: uPlot, dpr: number, model: TimelineModel, focus: number, selected: string | null): void {
  const ctx = u.ctx;
  const xs = u.data[0] as number[];
  const min = u.scales['x']?.min ?? -Infinity;
  const max = u.scales['x']?.max ?? Infinity;
  const index = new Map(model.marks.map((m, i) => [m.generation_uuid, i] as const));
  const fg = themeColour('--fg', '#1b1f24');
  const bg = themeColour('--bg', '#ffffff');
  const accent = themeColour('--accent', '#0a59c4');
  const revert = themeColour('--danger', '#b3261e');
  const muted = themeColour('--muted', '#57606a');
  const x = (i: number) => u.valToPos(xs[i] as number, 'x', true);
  const y = (i: number) => u.valToPos((model.marks[i] as TimelineMark).changed, 'y', true);
  ctx.save();
  ctx.beginPath();
  ctx.rect(u.bbox.left, 0, u.bbox.width, u.bbox.top + u.bbox.height);
  ctx.clip();
  // Revert arcs: from the revert back to the restored generation, above both marks.
  ctx.lineWidth = 1.5 * dpr;
  ctx.strokeStyle = revert;
  for (const a of model.arcs) {
    const i = index.get(a.from) as number;
    const j = index.get(a.to) as number;
    if (Math.max(xs[i] as number, xs[j] as number) < min || Math.min(xs[i] as number, xs[j] as number) > max) continue;
    const x0 = x(i);
    const x1 = x(j);
    const lift = Math.min(u.bbox.height * 0.9, Math.abs(x0 - x1) * 0.5 + 20 * dpr);
    ctx.beginPath();
    ctx.moveTo(x0, y(i));
    ctx.quadraticCurveTo((x0 + x1) / 2, Math.min(y(i), y(j)) - lift, x1, y(j));
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(x1, y(j), 2.5 * dpr, 0, 2 * Math.PI);
    ctx.fillStyle = revert;
    ctx.fill();
  }
  // Marks (only those in view), flags with the checkpoint names.
  ctx.font = `${11 * dpr}px system-ui, sans-serif`;
  ctx.textBaseline = 'bottom';
  for (let i = 0; i < model.marks.length; i++) {
    const m = model.marks[i] as TimelineMark;
    if (m.t < min || m.t > max) continue;
    const cx = x(i);
    const cy = y(i);
    const r = markRadius(m.changed) * dpr;
    if (m.flags.length > 0) {
      ctx.strokeStyle = muted;
      ctx.lineWidth = 1 * dpr;
      ctx.beginPath();
      ctx.moveTo(cx, cy - r);
      ctx.lineTo(cx, u.bbox.top + 14 * dpr);
      ctx.stroke();
      ctx.fillStyle = fg;
      ctx.fillText(m.flags.join(', '), cx + 3 * dpr, u.bbox.top + 14 * dpr);
    }
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.lineWidth = 2 * dpr;
    ctx.strokeStyle = m.kind === 'revert' ? revert : accent;
    ctx.fillStyle = m.hollow ? bg : m.kind === 'revert' ? revert : accent;
    ctx.fill();
    ctx.stroke();
    if (i === focus || m.generation_uuid === selected) {
      ctx.beginPath();
      ctx.arc(cx, cy, r + 4 * dpr, 0, 2 * Math.PI);
      ctx.strokeStyle = fg;
      ctx.lineWidth = (m.generation_uuid === selected ? 2.5 : 1.5) * dpr;
      ctx.stroke();
    }
  }
  ctx.restore();
}

/** The timeline above History's list. */
export function HistoryTimeline({ entries, restoredSources, selected, onSelect, onDiff }: HistoryTimelineProps) {
  const model = useMemo(() => timelineModel(entries, restoredSources), [entries, restoredSources]);
  const root = useRef<HTMLDivElement | null>(null);
  const box = useRef<HTMLDivElement | null>(null);
  const plot = useRef<uPlot | null>(null);
  const [hover, setHover] = useState(-1);
  const [focus, setFocus] = useState(-1);
  const [failure, setFailure] = useState<string | null>(null);
  const live = useRef({ focus, selected, onSelect, hover });
  live.current = { focus, selected, onSelect, hover };

  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    let stop: (() => void) | null = null;
    let gone = false;
    UPLOT.then(({ default: UPlot }) => {
        if (gone) return;
      const xs = model.marks.map((m) => m.t);
      const ys = model.marks.map((m) => m.changed);
      const maxY = Math.max(1, ...ys);
      const axis = { stroke: themeColour('--muted', '#57606a'), grid: { stroke: themeColour('--border', '#d0d7de'), width: 1 }, ticks: { stroke: themeColour('--border', '#d0d7de') } };
      let drawn = false;
      const opts: uPlot.Options = {
        width: Math.max(320, el.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        scales: {
          // Padded so the first and last marks (and their flags) are not cut at the edges.
          x: { time: true, range: (_u, lo, hi) => { const pad = Math.max(60, (hi - lo) * 0.03); return [lo - pad, hi + pad]; } },
          y: { range: [0, maxY * 1.35 + 1] },
        },
        axes: [axis, { ...axis, label: 'participants changed', size: 50 }],
        series: [{}, { label: 'participants changed', stroke: 'transparent', points: { show: false }, paths: () => null }],
        cursor: { y: false, points: { show: false }, drag: { x: true, y: false, setScale: true } },
        hooks: {
          draw: [
            (u) => {
              drawMarks(u, UPlot.pxRatio, model, live.current.focus, live.current.selected);
              if (!drawn) {
                drawn = true;
                if (root.current !== null) root.current.dataset['drawn'] = 'true';
                setPictureData(root.current, {
                  kind: 'timeline',
                  marks: model.marks.map((m) => ({ generation_uuid: m.generation_uuid, seq: m.seq, hollow: m.hollow, flags: m.flags, changed: m.changed })),
                  arcs: model.arcs,
                  drawn: true,
                });
              }
            },
          ],
          setCursor: [(u) => setHover(u.cursor.left === undefined || u.cursor.left < 0 ? -1 : nearest(u, model.marks, u.cursor.left))],
        },
      };
      const u = new UPlot(opts, [xs, ys], el);
      plot.current = u;
      let downX = 0;
      const onDown = (e: MouseEvent) => (downX = e.clientX);
      const onClick = (e: MouseEvent) => {
        if (Math.abs(e.clientX - downX) > 3) return;
        const i = u.cursor.left === undefined ? -1 : nearest(u, model.marks, u.cursor.left);
        if (i < 0) return;
        setFocus(i);
        live.current.onSelect((model.marks[i] as TimelineMark).generation_uuid);
      };
      const onWheel = (e: WheelEvent) => {
        e.preventDefault();
        zoom(e.deltaY < 0 ? 0.75 : 1 / 0.75, u.posToVal(e.offsetX, 'x'));
      };
      u.over.addEventListener('mousedown', onDown);
      u.over.addEventListener('click', onClick);
      u.over.addEventListener('wheel', onWheel, { passive: false });
      const resize = new ResizeObserver(() => u.setSize({ width: Math.max(320, el.clientWidth), height: HEIGHT }));
      resize.observe(el);
      stop = () => {
        resize.disconnect();
        u.destroy();
        plot.current = null;
      };
    }).catch((e: unknown) => setFailure(e instanceof Error ? e.message : String(e)));
    return () => {
      gone = true;
      stop?.();
      if (root.current !== null) delete root.current.dataset['drawn'];
    };
  }, [model]);

  // Focus and selection only redraw (the data did not change).
  useEffect(() => plot.current?.redraw(false, false), [focus, selected]);
  useEffect(() => {
    if (selected === null) return;
    const i = model.marks.findIndex((m) => m.generation_uuid === selected);
    if (i >= 0) setFocus(i);
  }, [selected, model]);

  function zoom(factor: number, around?: number) {
    const u = plot.current;
    if (u === null || model.marks.length === 0) return;
    const lo = u.scales['x']?.min ?? 0;
    const hi = u.scales['x']?.max ?? 0;
    const c = around ?? (lo + hi) / 2;
    const first = (model.marks[0] as TimelineMark).t;
    const last = (model.marks[model.marks.length - 1] as TimelineMark).t;
    const pad = Math.max(1, (last - first) * 0.02);
    u.setScale('x', { min: Math.max(first - pad, c - (c - lo) * factor), max: Math.min(last + pad, c + (hi - c) * factor) });
  }
  function pan(fraction: number) {
    const u = plot.current;
    if (u === null) return;
    const lo = u.scales['x']?.min ?? 0;
    const hi = u.scales['x']?.max ?? 0;
    const d = (hi - lo) * fraction;
    u.setScale('x', { min: lo + d, max: hi + d });
  }
  function reset() {
    const u = plot.current;
    if (u === null || model.marks.length === 0) return;
    const first = (model.marks[0] as TimelineMark).t;
    const last = (model.marks[model.marks.length - 1] as TimelineMark).t;
    const pad = Math.max(1, (last - first) * 0.02);
    u.setScale('x', { min: first - pad, max: last + pad });
  }
  /** Keeps the focused mark in view. */
  function show(i: number) {
    const u = plot.current;
    const m = model.marks[i];
    if (u === null || m === undefined) return;
    const lo = u.scales['x']?.min ?? 0;
    const hi = u.scales['x']?.max ?? 0;
    if (m.t < lo || m.t > hi) u.setScale('x', { min: m.t - (hi - lo) / 2, max: m.t + (hi - lo) / 2 });
  }
  const onKey = (e: React.KeyboardEvent) => {
    const n = model.marks.length;
    if (n === 0) return;
    const last = n - 1;
    const target: number | null =
      e.key === 'ArrowLeft' ? Math.max(0, (focus < 0 ? n : focus) - 1)
        : e.key === 'ArrowRight' ? Math.min(last, focus + 1)
          : e.key === 'Home' ? 0
            : e.key === 'End' ? last
              : null;
    if (target !== null) {
      e.preventDefault();
      setFocus(target);
      show(target);
      return;
    }
    const act: (() => void) | null =
      (e.key === 'Enter' || e.key === ' ') && focus >= 0 ? () => onSelect((model.marks[focus] as TimelineMark).generation_uuid)
        : e.key === '+' || e.key === '=' ? () => zoom(0.5)
          : e.key === '-' ? () => zoom(2)
            : e.key === '0' ? reset
              : null;
    if (act !== null) {
      e.preventDefault();
      act();
    }
  };

  const shown = hover >= 0 ? hover : focus;
  const mark = shown >= 0 ? model.marks[shown] ?? null : null;
  const neighbours = mark === null ? null : namedNeighbours(model.marks, shown);
  // The change this entry is part of, between the nearest named neighbours: the named entry before it → the entry itself when named, else the next named one (or CURRENT).
  const diff = (() => {
    if (mark === null || neighbours === null || neighbours.before === null) return null;
    const from = neighbours.before.flags[0] as string;
    const to = mark.status === 'current' ? 'CURRENT' : mark.flags.length > 0 && !mark.hollow ? (mark.flags[0] as string) : (neighbours.after?.flags[0] ?? 'CURRENT');
    return from === to ? null : { from, to };
  })();
  const focusMark = focus >= 0 ? model.marks[focus] ?? null : null;
  return (
    <figure className="history-timeline" ref={root} data-testid="history-timeline" aria-labelledby="timeline-caption">
      <figcaption id="timeline-caption" className="small muted">
        Timeline: {countOf(model.marks.length, 'publication', 'publications')}, {countOf(model.arcs.length, 'revert arc', 'revert arcs')}
        {model.unplacedReverts > 0 && ` (${countOf(model.unplacedReverts, 'revert', 'reverts')} restored a generation no longer listed)`}. Hollow marks: content pruned by retention; mark size: participants changed.
      </figcaption>
      <div className="actions" role="toolbar" aria-label="Timeline view">
        <button type="button" onClick={() => pan(-0.25)} aria-label="Earlier">◀</button>
        <button type="button" onClick={() => zoom(0.5)} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => zoom(2)} aria-label="Zoom out">−</button>
        <button type="button" onClick={reset}>Whole history</button>
        <button type="button" onClick={() => pan(0.25)} aria-label="Later">▶</button>
      </div>
      <div
        ref={box}
        className="timeline-canvas"
        tabIndex={0}
        role="group"
        aria-roledescription="timeline"
        aria-label="History timeline: arrow keys move between publications, Enter selects one in the list, plus and minus zoom"
        aria-describedby="timeline-focus"
        onKeyDown={onKey}
        onMouseLeave={() => setHover(-1)}
        data-testid="timeline-canvas"
      />
      {failure !== null && <p className="muted small" data-testid="timeline-failure">The timeline cannot be drawn in this browser ({failure}); the list below has every publication.</p>}
      <p id="timeline-focus" className="sr-only" aria-live="polite">{focusMark === null ? '' : describeMark(focusMark)}</p>
      <div className="timeline-card small" data-testid="timeline-card">
        {mark === null ? (
          <span className="muted">Point at a mark to see its publication; click it to select it in the list.</span>
        ) : (
          <>
            <span data-testid="timeline-card-text">{describeMark(mark)}</span>
            {diff !== null && (
              <span className="row-actions">
                {' '}
                <button type="button" className="link" onClick={() => onDiff(diff.from, diff.to)} data-testid="timeline-diff">Diff {diff.from} → {diff.to}</button>
              </span>
            )}
          </>
        )}
      </div>
    </figure>
  );
}
