// Result types of the operations the `gf` CLI needed beyond the screens'
// (ledger rows, publish, demo, golden vectors, doctor): declared once here so
// every surface (CLI, IPC, bridge) returns the same shapes. Browser-safe.
import type { ChainEvent } from './chain';

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

/**
 * What a leftover anomaly is: something a killed or refused write left that the next write (its
 * recovery, cleanup or a cache rebuild) removes, and `gf doctor --repair` removes now.
 *
 * `temp_file` a write's private temp (CURRENT, journal, retention policy); `interrupted_journal` a
 * transaction that never reached PUBLISHED or ABORTED (recovery labels it); `finished_journal` a
 * finished transaction whose generation is gone (cleanup prunes it); `incomplete_generation` a
 * generation directory without a valid manifest (a killed or refused publication's private
 * directory); `unpublished_generation` a complete generation that never became CURRENT;
 * `orphaned_object` an object no generation names; `trash` what an interrupted cleanup moved
 * aside; `lineage_tail` a torn final line or CURRENT's missing line in `history/lineage.jsonl`;
 * `cache_entry` a torn, foreign or temp file in a derived cache (`cache/`).
 */
export const LEFTOVER_KINDS = [
  'temp_file',
  'interrupted_journal',
  'finished_journal',
  'incomplete_generation',
  'unpublished_generation',
  'orphaned_object',
  'trash',
  'lineage_tail',
  'cache_entry',
  'registry_change',
] as const;
export type LeftoverKind = (typeof LEFTOVER_KINDS)[number];

/** One anomaly of a workspace (`project.doctor`): where, what, and the safe remedy. */
export interface DoctorAnomaly {
  /** The machine-owned path relative to the workspace. */
  readonly path: string;
  readonly problem: string;
  readonly remedy: string;
  /** True when `repair: true` applies the remedy (the recovery and cleanup remedies: every leftover, and a missing CURRENT). */
  readonly repairable: boolean;
  /** The leftover's kind when the anomaly is one (safe to remove); null for damage, permissions and unknown entries. */
  readonly leftover: LeftoverKind | null;
}

/** What `project.doctor` found (after repairing, when asked). */
export interface DoctorReport {
  readonly anomalies: readonly DoctorAnomaly[];
  /** The generation a repair made CURRENT again (null when none was rebuilt). */
  readonly rebuilt_current: string | null;
  /** With `repair: true`: the anomalies found before the repair that it resolved (empty otherwise). */
  readonly repaired: readonly DoctorAnomaly[];
}

/**
 * Bounds of one participant as `project.publish` (and every publication) accepts it, declared once.
 *
 * `bytes`: its whole size (256 MiB). `arrowMetadataBytes`: the UTF-8 bytes of
 * every key and value of the Arrow metadata the file reader decodes (the
 * schema's, each field's, each message's): a participant's meaning is its
 * rows, so free-form metadata is small; more is refused (`GF_RESOURCE_LIMIT`)
 * before anything is stored.
 */
export const PARTICIPANT_LIMITS = { bytes: 256 * 1024 * 1024, arrowMetadataBytes: 64 * 1024 } as const;

/** A golden-vector file's text (`canonical.vectors`): at most 16 Mi characters. */
export const MAX_VECTOR_FILE_CHARS = 16 * 1024 * 1024;
