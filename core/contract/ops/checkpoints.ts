// The checkpoint operations: list, show, create and delete checkpoint names,
// preview a revert and revert to a checkpoint. Each declared once: request
// schema, result (the Arrow result schemas it returns, or its JSON result
// type), whether it writes, summary. Browser-safe (zod and core/contract).
import { z } from 'zod';
import type { SummaryChangeKind } from '../diff';
import type { PrunableGeneration } from '../history';
import { LIMITS, actorSchema, afterSchema, boundedText, checkpointNameSchema, handleSchema, limitSchema, newCheckpointNameSchema, reasonSchema, timeoutSchema, uuidSchema } from './atoms';
import { arrowOp, jsonOp, returns, type DomainOperations } from './declare';

/** One participant of a revert preview (a `checkpoint_summary_diff@1` row without the endpoint UUIDs and digests). */
export interface PreviewChange {
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  readonly change_kind: SummaryChangeKind;
  readonly from_row_count: number | null;
  readonly to_row_count: number | null;
}

/** What `revert.preview` returns. */
export interface RevertPreview {
  readonly checkpoint_uuid: string;
  readonly source_generation_uuid: string;
  readonly source_manifest_sha256: string;
  readonly current_generation_uuid: string;
  /** Participants the revert would add, remove, modify or keep (summary diff CURRENT → checkpoint). */
  readonly participant_changes: { readonly added: number; readonly removed: number; readonly modified: number; readonly unchanged: number };
  /**
   * The preview's summary rows (CURRENT → checkpoint), in the diff's order.
   *
   * The preview computes this diff anyway; returning it spares a screen a second request.
   */
  readonly changes: readonly PreviewChange[];
  /**
   * True when the checkpoint's records already equal CURRENT's: the revert still publishes (ADR-0014), a
   * generation that differs from CURRENT by its restoration record only (the one change `changes` lists).
   */
  readonly same_content: boolean;
  /** The ancestor window in force. */
  readonly retain_ancestors: number;
  /** Unnamed generations this revert would make prunable (they leave the ancestor window), nearest first. */
  readonly prunable: readonly PrunableGeneration[];
}

/** The checkpoint operations. */
export const CHECKPOINT_OPERATIONS = {
  /**
   * Active checkpoints (`checkpoint@1`), or with `deleted: true` the deleted ones.
   *
   * Deleted checkpoints come back as a separate Arrow table,
   * `checkpoint_tombstone@1` (name, checkpoint_uuid, generation_uuid,
   * deleted_at, deleted_revision; deletion order), paged the same way with its
   * own tokens (a token of one listing is `GF_PAGE_INVALID` in the other).
   */
  'checkpoints.list': arrowOp(
    z.object({ project: handleSchema, limit: limitSchema, after: afterSchema, deleted: z.boolean().optional() }).strict(),
    ['checkpoint@1', 'checkpoint_tombstone@1'], false, 'Active checkpoints (checkpoint@1), or deleted ones (checkpoint_tombstone@1) with deleted: true; paged.'),
  'checkpoints.create': arrowOp(
    z.object({ project: handleSchema, name: newCheckpointNameSchema, description: boundedText(LIMITS.descriptionUtf8Bytes).nullable().optional(), idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    ['checkpoint_receipt@1'], true, 'Name the current generation (checkpoint_receipt@1).'),
  'checkpoints.delete': arrowOp(
    z.object({ project: handleSchema, name: checkpointNameSchema, idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    ['checkpoint_receipt@1'], true, 'Delete a checkpoint name (checkpoint_receipt@1).'),
  'revert.preview': jsonOp(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), returns<RevertPreview>(), false, 'What a revert to this checkpoint would restore.'),
  'checkpoints.revert': arrowOp(
    z.object({
      project: handleSchema,
      name: checkpointNameSchema,
      reason: reasonSchema,
      idempotency_key: uuidSchema,
      actor_uuid: actorSchema,
      timeout_ms: timeoutSchema,
      /**
       * The CURRENT generation the caller's preview was computed against
       * (`revert.preview`'s `current_generation_uuid`). When CURRENT has moved
       * since, the revert is refused with `GF_STALE_PREVIEW` and nothing is
       * written; without it a revert publishes on whatever CURRENT is (ADR-0014).
       * A replay of a published revert returns its receipt whatever it says.
       */
      expected_current_generation_uuid: uuidSchema.optional(),
    }).strict(),
    ['checkpoint_receipt@1'], true, 'Publish a new generation equal to a checkpoint (checkpoint_receipt@1).'),
  /** One active checkpoint by name (`show_checkpoint`, ADR-0014): a one-row `checkpoint@1` table, or `GF_CHECKPOINT_NOT_FOUND`. */
  'checkpoints.show': arrowOp(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), ['checkpoint@1'], false, 'One active checkpoint by name (checkpoint@1, one row).'),
} as const satisfies DomainOperations;
