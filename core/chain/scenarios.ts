import { ulid } from 'ulid';
import { buildTransitionEvent, isSemanticBoundary, type LedgerStateKind, type TransitionEvent, type WorkflowId } from './event';
import type { ChainHead } from './head';
import type { ChainStore } from './port';

/** One scripted transition; `patch` marks a step that published a workspace generation. */
export interface ScriptedTransition {
  readonly from: LedgerStateKind;
  readonly to: LedgerStateKind;
  readonly kind: string;
  readonly detail: string | null;
  readonly attempt: number;
}

const t = (from: LedgerStateKind, to: LedgerStateKind, kind: string, detail: string | null, attempt = 0): ScriptedTransition =>
  Object.freeze({ from, to, kind, detail, attempt });

/**
 * The scripted workflows (seed S2-01 scenarios plus the demo's extra outcomes).
 *
 * `retry_then_recovery` is the seed's six-transition path
 * (plan_ready → patch_applied → gate_failed_retryable → needs_plan →
 * plan_ready → patch_applied → completed): the orchestrator persists only the
 * five boundary transitions; the move back to `needs_plan` is not a checkpoint.
 */
export const SCRIPTS = Object.freeze({
  clean_completion: Object.freeze([
    t('needs_plan', 'plan_ready', 'plan_accepted', 'plan: bump lodash to 4.17.21'),
    t('plan_ready', 'patch_applied', 'patch_applied', 'patch applied to 3 files'),
    t('patch_applied', 'completed', 'gates_passed', 'lint, unit and integration gates passed'),
  ]),
  retry_then_recovery: Object.freeze([
    t('plan_ready', 'patch_applied', 'patch_applied', 'patch applied to 2 files'),
    t('patch_applied', 'gate_failed_retryable', 'gate_failed', 'unit gate failed: 2 tests', 0),
    t('gate_failed_retryable', 'needs_plan', 'replan_requested', null, 1),
    t('needs_plan', 'plan_ready', 'plan_accepted', 'revised plan keeps the old API', 1),
    t('plan_ready', 'patch_applied', 'patch_applied', 'patch applied to 2 files', 1),
    t('patch_applied', 'completed', 'gates_passed', 'all gates passed on retry', 1),
  ]),
  awaiting_human_review: Object.freeze([
    t('needs_plan', 'plan_ready', 'plan_accepted', 'plan: migrate config schema'),
    t('plan_ready', 'patch_applied', 'patch_applied', 'patch applied to 5 files'),
    t('patch_applied', 'awaiting_human_review', 'escalated', 'schema change needs a reviewer'),
  ]),
  failed: Object.freeze([
    t('needs_plan', 'plan_ready', 'plan_accepted', 'plan: replace date library'),
    t('plan_ready', 'patch_applied', 'patch_applied', 'patch applied to 9 files'),
    t('patch_applied', 'failed_unrecoverable', 'gate_failed_permanently', 'type check failed; no safe retry'),
  ]),
} satisfies Record<string, readonly ScriptedTransition[]>);

/** A script name. */
export type ScriptName = keyof typeof SCRIPTS;

/** A small deterministic PRNG (mulberry32) so scripted ids are reproducible. */
export function seededPrng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Options of `scriptEvents`. */
export interface ScriptOptions {
  /** Time of the first transition; each next one is a minute later. */
  readonly start: Date;
  /** Seed of the transition ids (same seed → same ids → same heads). */
  readonly seed: number;
  /** Evidence digest per transition index (e.g. `sha256:<manifest>` for patch steps). */
  readonly evidence?: (index: number, step: ScriptedTransition) => string | null;
}

/** Every transition of a script as a built (legal-edge-checked) event, persisted or not. */
export function scriptEvents(workflowId: WorkflowId, script: readonly ScriptedTransition[], options: ScriptOptions): readonly TransitionEvent[] {
  const prng = seededPrng(options.seed);
  return script.map((step, i) => {
    const at = new Date(options.start.getTime() + i * 60_000);
    return buildTransitionEvent({
      workflow_id: workflowId,
      prior_state_id: step.from,
      next_state_id: step.to,
      triggering_outcome: { kind: step.kind, evidence_digest: options.evidence?.(i, step) ?? null, detail: step.detail },
      attempt: step.attempt,
      occurred_at: at,
      transition_id: ulid(at.getTime(), prng),
    });
  });
}

/** What running a script did. */
export interface ScriptRun {
  readonly transitions: number;
  readonly persisted: readonly { readonly event: TransitionEvent; readonly head: ChainHead; readonly index: number }[];
}

/**
 * Plays a script the way an orchestrator does: checkpoint at semantic boundaries only.
 *
 * Non-boundary transitions (into `needs_plan`) are not appended; the store
 * would reject them anyway.
 */
export async function runScript(store: ChainStore, workflowId: WorkflowId, script: readonly ScriptedTransition[], options: ScriptOptions): Promise<ScriptRun> {
  const events = scriptEvents(workflowId, script, options);
  const persisted: { event: TransitionEvent; head: ChainHead; index: number }[] = [];
  for (const [index, event] of events.entries()) {
    if (!isSemanticBoundary(event.next_state_id)) continue;
    persisted.push({ event, head: await store.append(event), index });
  }
  return { transitions: events.length, persisted };
}
