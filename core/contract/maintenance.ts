// Result types of the operations the `gf` CLI needed beyond the screens'
// (ledger rows, publish, demo, golden vectors, doctor): declared once here so
// every surface (CLI, IPC, bridge) returns the same shapes. Browser-safe.
import type { ChainEvent } from './operations';

/** One persisted ledger row (`chain.rows`): its heads as stored, and its event when the bytes decode. */
export interface ChainRowEntry {
  readonly sequence: number;
  readonly transition_id: string;
  readonly prior_head: string;
  readonly next_head: string;
  readonly written_at: string;
  /** The decoded event; null for a torn row (its bytes do not decode: `chain.verify` classifies it). */
  readonly event: Omit<ChainEvent, 'sequence'> | null;
}

/** What `project.publish` published. */
export interface PublishReceipt {
  readonly generation_uuid: string;
  readonly manifest_sha256: string;
  readonly transaction_uuid: string;
  readonly parent_generation_uuid: string | null;
  /** Generations the publish's cleanup removed (retention). */
  readonly removed_generations: number;
}

/** What `demo.create` built: one entry per step that published, in order. */
export interface DemoCreated {
  readonly records: number;
  readonly seed: number;
  readonly generations: readonly { readonly step: string; readonly generation_uuid: string; readonly manifest_sha256: string }[];
  /** The LangGraph demo database written beside the workspace (path null: one already existed and was kept). */
  readonly langgraph: { readonly path: string | null; readonly threads: number };
}

/** What this implementation computes for one golden-vector source case. */
export interface VectorCaseResult {
  readonly canonical_payload_hex: string;
  readonly sha256: string;
  readonly uuid_v8: string;
}

/** One vector's computed values: cases for a positive vector, the error code for a negative one. */
export type VectorResultEntry =
  | { readonly id: string; readonly cases: readonly (VectorCaseResult | { readonly error: string })[] }
  | { readonly id: string; readonly error: string | null };

/** One anomaly of a workspace (`project.doctor`): where, what, and the safe remedy. */
export interface DoctorAnomaly {
  /** The machine-owned path relative to the workspace. */
  readonly path: string;
  readonly problem: string;
  readonly remedy: string;
  /** True when `repair: true` applies the remedy (only the recovery protocol's remedies). */
  readonly repairable: boolean;
}

/** What `project.doctor` found (after repairing, when asked). */
export interface DoctorReport {
  readonly anomalies: readonly DoctorAnomaly[];
  /** The generation a repair made CURRENT again (null when none was rebuilt). */
  readonly rebuilt_current: string | null;
}
