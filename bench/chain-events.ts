// The transition events both chain benchmarks append (SQLite and Postgres stores, and their bare baselines).
import { monotonicFactory } from 'ulid';
import { buildTransitionEvent, type TransitionEvent } from '../core/chain/event';

/** One process-wide monotonic ULID source: transition ids never repeat across workflows (the Postgres table holds them all). */
const nextUlid = monotonicFactory();

/** `n` legal `plan_ready → patch_applied` events of `workflowId`, one second apart, each with its own evidence digest. */
export function benchEvents(workflowId: string, n: number): TransitionEvent[] {
  return Array.from({ length: n }, (_, i) =>
    buildTransitionEvent(
      {
        workflow_id: workflowId,
        prior_state_id: 'plan_ready',
        next_state_id: 'patch_applied',
        triggering_outcome: { kind: 'patch_applied', evidence_digest: `sha256:${i.toString(16).padStart(64, '0')}`, detail: `bench step ${i}` },
        attempt: i % 3,
        occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
      },
      { newId: (t) => nextUlid(t) },
    ),
  );
}
