// A workflow's ledger as a path through the closed state set (CHAIN.md): the
// seven states as nodes in their flow, every legal edge faint, the edges the
// workflow took drawn with how often, and the break marked where verify
// found it (transitions at or after it dashed, in the danger colour). The
// chain table below stays the way to read every transition.
import { useMemo } from 'react';
import { LEDGER_STATE_KINDS, LEGAL_TRANSITIONS, TERMINAL_LEDGER_KINDS, type LedgerStateKind } from '../../core/contract/chain';
import type { ChainEvent } from '../../core/contract/operations';
import { countOf, formatCount } from '../format';

/** Where each state sits (a fixed arrangement of the closed set: the flow left to right, detours below, terminals right). */
const AT: Readonly<Record<LedgerStateKind, readonly [number, number]>> = {
  needs_plan: [70, 70],
  plan_ready: [230, 70],
  patch_applied: [390, 70],
  completed: [560, 40],
  gate_failed_retryable: [310, 180],
  awaiting_human_review: [150, 180],
  failed_unrecoverable: [560, 150],
};

const LABEL: Readonly<Record<LedgerStateKind, string>> = {
  needs_plan: 'needs plan',
  plan_ready: 'plan ready',
  patch_applied: 'patch applied',
  gate_failed_retryable: 'gate failed (retry)',
  awaiting_human_review: 'awaiting review',
  completed: 'completed',
  failed_unrecoverable: 'failed',
};

/** One edge the workflow took: how often before the break and at or after it. */
interface Taken {
  readonly from: LedgerStateKind;
  readonly to: LedgerStateKind;
  readonly ok: number;
  readonly broken: number;
}

/** The edges of `events`, split at the first bad sequence (null: the chain verified). */
export function takenEdges(events: readonly ChainEvent[], firstBad: number | null): Taken[] {
  const m = new Map<string, { from: LedgerStateKind; to: LedgerStateKind; ok: number; broken: number }>();
  for (const e of events) {
    const from = e.prior_state_id as LedgerStateKind;
    const to = e.next_state_id as LedgerStateKind;
    const k = `${from}>${to}`;
    const t = m.get(k) ?? { from, to, ok: 0, broken: 0 };
    if (firstBad !== null && e.sequence >= firstBad) t.broken++;
    else t.ok++;
    m.set(k, t);
  }
  return [...m.values()];
}

function curve(from: LedgerStateKind, to: LedgerStateKind, bend: number): string {
  const [x0, y0] = AT[from];
  const [x1, y1] = AT[to];
  const mx = (x0 + x1) / 2 - (y1 - y0) * bend;
  const my = (y0 + y1) / 2 + (x1 - x0) * bend;
  return `M ${x0} ${y0} Q ${mx} ${my} ${x1} ${y1}`;
}

/** The ledger path of one workflow's loaded transitions. */
export function LedgerPath({ events, rows, firstBad }: { readonly events: readonly ChainEvent[]; readonly rows: number; readonly firstBad: number | null }) {
  const taken = useMemo(() => takenEdges(events, firstBad), [events, firstBad]);
  const visited = useMemo(() => new Set(events.flatMap((e) => [e.prior_state_id, e.next_state_id])), [events]);
  const last = events[events.length - 1]?.next_state_id ?? null;
  const breakEvent = firstBad === null ? null : events.find((e) => e.sequence === firstBad) ?? null;
  const legal = LEDGER_STATE_KINDS.flatMap((from) => LEGAL_TRANSITIONS[from].map((to) => ({ from, to })));
  const summary = `${countOf(events.length, 'transition', 'transitions')}${events.length < rows ? ` of ${formatCount(rows)} loaded` : ''} through ${countOf(visited.size, 'state', 'states')}${last === null ? '' : `, now ${LABEL[last as LedgerStateKind] ?? last}`}${firstBad === null ? '' : `; the chain breaks at transition ${formatCount(firstBad)}${breakEvent === null ? '' : ` (${LABEL[breakEvent.prior_state_id as LedgerStateKind] ?? breakEvent.prior_state_id} → ${LABEL[breakEvent.next_state_id as LedgerStateKind] ?? breakEvent.next_state_id})`}`}`;
  return (
    <figure className="ledger-path" data-testid="ledger-path" data-first-bad={firstBad ?? undefined}>
      <svg viewBox="0 0 640 230" role="img" aria-label={`Ledger path: ${summary}`}>
        <defs>
          <marker id="lp-arrow" viewBox="0 0 10 10" refX="18" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" className="lp-arrow" /></marker>
        </defs>
        {legal.map((e) => <path key={`l-${e.from}-${e.to}`} d={curve(e.from, e.to, 0.12)} className="lp-legal" />)}
        {taken.map((t) => (
          <g key={`t-${t.from}-${t.to}`} data-edge={`${t.from}>${t.to}`} data-ok={t.ok} data-broken={t.broken}>
            {t.ok > 0 && <path d={curve(t.from, t.to, 0.12)} className="lp-taken" markerEnd="url(#lp-arrow)" style={{ strokeWidth: Math.min(8, 1.5 + Math.log2(1 + t.ok)) }} />}
            {t.broken > 0 && <path d={curve(t.from, t.to, 0.2)} className="lp-broken" markerEnd="url(#lp-arrow)" />}
            <text x={(AT[t.from][0] + AT[t.to][0]) / 2} y={(AT[t.from][1] + AT[t.to][1]) / 2 - 6} className="lp-count">{t.ok + t.broken}×</text>
          </g>
        ))}
        {LEDGER_STATE_KINDS.map((s) => (
          <g key={s} data-state={s} className={[visited.has(s) ? 'lp-visited' : 'lp-unvisited', s === last ? 'lp-current' : '', TERMINAL_LEDGER_KINDS.has(s) ? 'lp-terminal' : ''].join(' ')}>
            <circle cx={AT[s][0]} cy={AT[s][1]} r={s === last ? 12 : 9} />
            <text x={AT[s][0]} y={AT[s][1] + 26} textAnchor="middle">{LABEL[s]}</text>
          </g>
        ))}
        {breakEvent !== null && (
          <g className="lp-break" data-testid="ledger-path-break">
            <text x={(AT[breakEvent.prior_state_id as LedgerStateKind]?.[0] ?? 0) + 4} y={(AT[breakEvent.prior_state_id as LedgerStateKind]?.[1] ?? 0) - 14}>✕ break</text>
          </g>
        )}
      </svg>
      <figcaption className="small muted" data-testid="ledger-path-summary">{summary}</figcaption>
    </figure>
  );
}
