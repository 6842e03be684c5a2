// The shape of a ledger transition event (CHAIN.md): types only, so the sanitizer and the event rules share them without a circle.
import type { LedgerStateKind } from '../contract/chain';

/** A workflow id: 1–128 chars of `[A-Za-z0-9._:-]`, never `.` or `..`, never credential-shaped. */
export type WorkflowId = string;

/** A transition id: a ULID (26 chars, Crockford base32, uppercase). */
export type TransitionId = string;

/** What caused a transition; evidence is linked by digest, never inlined. */
export interface TriggeringOutcome {
  /** A short outcome name (1–64 chars). */
  readonly kind: string;
  /** `sha256:<64 hex>` or `blake3:<64 hex>`, or null. */
  readonly evidence_digest: string | null;
  /** Free text (sanitized before it is stored), or null. */
  readonly detail: string | null;
}

/**
 * One durable state transition of a workflow: exactly seven fields.
 *
 * Instances built by `buildTransitionEvent` / `parseTransitionEvent` are
 * deeply frozen.
 */
export interface TransitionEvent {
  readonly transition_id: TransitionId;
  readonly workflow_id: WorkflowId;
  readonly prior_state_id: LedgerStateKind;
  readonly next_state_id: LedgerStateKind;
  readonly triggering_outcome: TriggeringOutcome;
  /** ISO-8601 UTC with microseconds, e.g. `2026-01-01T00:00:00.000000Z`. */
  readonly occurred_at: string;
  /** Integer ≥ 0. */
  readonly attempt: number;
}
