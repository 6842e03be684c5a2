import { z } from 'zod';
import type { JsonValue } from '../project/index';

import { REVERT_EXTENSION_KIND } from '../checkpoints/revert-receipts';

/** The `kind` of a revert journal extension (declared with the receipt record, which must recognize it). */
export { REVERT_EXTENSION_KIND };

const UUID = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const SHA = z.string().regex(/^[0-9a-f]{64}$/);

const ExtensionSchema = z.strictObject({
  kind: z.literal(REVERT_EXTENSION_KIND),
  operation_uuid: UUID,
  revert_request_sha256: SHA,
  name: z.string().min(1).max(1024),
  checkpoint_uuid: UUID,
  source_generation_uuid: UUID,
  source_manifest_sha256: SHA,
  prior_current_generation_uuid: UUID,
  prior_current_manifest_sha256: SHA,
  registry_revision: z.number().int().min(0),
  restored_at_micros: z.string().regex(/^-?\d{1,19}$/),
  reason: z.string().min(1).max(4096),
  actor_uuid: UUID.nullable(),
  transaction_uuid: UUID,
  restoration_uuid: UUID,
  restored_generation_uuid: UUID,
});

/**
 * The revert extension of the ADR 0013 journal (durable before any participant byte is staged).
 *
 * Canonical request metadata only: the operation, its request digest, the
 * resolved checkpoint / source / prior-current identities, the once-sampled
 * `restored_at`, the trimmed reason, the actor and every derived UUID.
 * Recovery and replay rebuild the restoration row from it and never sample
 * the clock again.
 */
export type RevertExtension = z.infer<typeof ExtensionSchema>;

/** The extension as the journal's JSON value. */
export function extensionJson(e: RevertExtension): JsonValue {
  return { ...e };
}

/** Parses a journal extension; undefined when it is not a well-formed revert extension. */
export function parseExtension(value: JsonValue): RevertExtension | undefined {
  const r = ExtensionSchema.safeParse(value);
  if (!r.success) return undefined;
  const at = BigInt(r.data.restored_at_micros);
  if (at < -(1n << 63n) || at >= 1n << 63n) return undefined;
  return r.data;
}
