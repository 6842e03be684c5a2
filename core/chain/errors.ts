/**
 * Errors of the semantic-checkpoint chain store.
 *
 * The chain store keeps the seed's dotted error ids (`workflows.…`) instead of
 * a `GF_*` code, because the ids are part of the ledger contract shared with
 * other implementations. Every error carries a stable `errorId` string, which
 * `toWireError` (core/errors.ts) turns into the wire `code` (details kept); callers branch on
 * `errorId`, never on `instanceof` or message text. Messages and details never
 * contain event values (they may hold secrets) or absolute paths.
 */

/** The closed set of chain-store error ids: declared once, in the operation contract's error model. */
export { CHAIN_ERROR_IDS } from '../contract/errors';
export type { ChainErrorId } from '../contract/errors';
import type { ChainErrorId } from '../contract/errors';

/** Safe details only: counts, sizes, state kinds, sequence numbers. */
export type ChainErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

/**
 * The base of every chain-store error.
 *
 * Checked by `errorId` (works across bundles, IPC and processes).
 */
export class ChainError extends Error {
  readonly errorId: ChainErrorId;
  readonly details: ChainErrorDetails;

  constructor(errorId: ChainErrorId, message: string, details: ChainErrorDetails = {}) {
    super(`${errorId}: ${message}`);
    this.name = 'ChainError';
    this.errorId = errorId;
    this.details = details;
  }
}

/** True when `e` carries exactly this chain error id. */
export function hasErrorId(e: unknown, errorId: ChainErrorId): boolean {
  return typeof e === 'object' && e !== null && (e as { errorId?: unknown }).errorId === errorId;
}

/**
 * The persisted (sanitized, canonical) event bytes exceed the 64 KiB cap.
 *
 * Raised by the store, never by the event type: large evidence belongs in a
 * blob store and is referenced by digest.
 */
export class CheckpointPayloadTooLargeError extends ChainError {
  constructor(size: number, limit: number) {
    super(
      'workflows.checkpoint_payload_too_large',
      'checkpoint payload exceeds the 64 KiB per-event cap; write large evidence elsewhere and reference it by digest',
      { size, limit },
    );
    this.name = 'CheckpointPayloadTooLargeError';
  }
}

/** The store was asked to checkpoint a transition whose target is not a semantic boundary. */
export class CheckpointBoundaryViolationError extends ChainError {
  constructor(nextState: string) {
    super(
      'workflows.checkpoint_boundary_violation',
      `checkpoint policy violation: ${nextState} is not a semantic boundary (boundaries: plan_ready, patch_applied, gate_failed_retryable, awaiting_human_review, completed, failed_unrecoverable)`,
      { next_state_id: nextState },
    );
    this.name = 'CheckpointBoundaryViolationError';
  }
}

/** The transition `prior → next` is not an edge of the closed ledger table. */
export class IllegalTransitionError extends ChainError {
  constructor(prior: string, next: string) {
    super('workflows.illegal_transition', `illegal ledger transition ${prior} -> ${next}`, {
      prior_state_id: prior,
      next_state_id: next,
    });
    this.name = 'IllegalTransitionError';
  }
}

/** An event field is malformed (the field name is reported, never its value). */
export class InvalidTransitionEventError extends ChainError {
  constructor(field: string) {
    super('workflows.invalid_transition_event', `invalid transition event field: ${field}`, { field });
    this.name = 'InvalidTransitionEventError';
  }
}

/** A workflow id is not 1–128 chars of `[A-Za-z0-9._:-]` (or is `.`/`..`). */
export class InvalidWorkflowIdError extends ChainError {
  constructor() {
    super('workflows.invalid_workflow_id', 'workflow id must be 1-128 chars of [A-Za-z0-9._:-] and not . or ..');
    this.name = 'InvalidWorkflowIdError';
  }
}

/** The substrate holds something the store cannot have written (e.g. a foreign workflow id). */
export class CheckpointStoreCorruptError extends ChainError {
  /** `sentence` names the file and what is wrong with it (no values, no absolute path); `details` add safe fields such as the ledger's name. */
  constructor(reason: string, sentence?: string, details: ChainErrorDetails = {}) {
    super('workflows.checkpoint_store_corrupt', sentence ?? `checkpoint store is corrupt: ${reason}`, { ...details, reason });
    this.name = 'CheckpointStoreCorruptError';
  }
}

/** The store was used after `close()`. */
export class CheckpointStoreClosedError extends ChainError {
  constructor() {
    super('workflows.checkpoint_store_closed', 'checkpoint store is closed');
    this.name = 'CheckpointStoreClosedError';
  }
}

/** A transition id that is already persisted in this workflow's chain. */
export class DuplicateTransitionIdError extends ChainError {
  constructor() {
    super('workflows.duplicate_transition_id', 'transition id already persisted in this workflow');
    this.name = 'DuplicateTransitionIdError';
  }
}
