import { canonicalEventBytes } from './canonical-event';
import { CheckpointPayloadTooLargeError, CheckpointStoreCorruptError, InvalidTransitionEventError } from './errors';
import { assertSemanticBoundary, assertWorkflowId, isEvidenceDigest, parseTransitionEvent, type TransitionEvent } from './event';
import { MAX_EVENT_BYTES } from './port';
import { REDACTED, sanitizeEvent } from './sanitize';

/** An event ready to be persisted: its sanitized form and the bytes the chain covers. */
export interface PreparedEvent {
  readonly event: TransitionEvent;
  readonly bytes: Uint8Array;
}

/**
 * The store-side checks every adapter runs before it touches its substrate.
 *
 * A free function (composition, not a base class): re-validates the shape,
 * rejects non-boundary targets and an `evidence_digest` that is neither a
 * `sha256:`/`blake3:` digest nor the redaction sentinel, sanitizes, encodes canonically and enforces
 * the 64 KiB cap on the persisted bytes. Pure.
 */
export function prepareAppend(event: TransitionEvent): PreparedEvent {
  const valid = parseTransitionEvent(event);
  assertWorkflowId(valid.workflow_id);
  assertSemanticBoundary(valid);
  // S2-01: the outcome carries a digest of its evidence, never the evidence itself (nor inline text).
  const digest = valid.triggering_outcome.evidence_digest;
  if (digest !== null && digest !== REDACTED && !isEvidenceDigest(digest)) throw new InvalidTransitionEventError('triggering_outcome.evidence_digest');
  const sanitized = sanitizeEvent(valid);
  const bytes = canonicalEventBytes(sanitized);
  if (bytes.byteLength > MAX_EVENT_BYTES) throw new CheckpointPayloadTooLargeError(bytes.byteLength, MAX_EVENT_BYTES);
  return { event: sanitized, bytes };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes persisted event bytes back into a frozen event (shape-checked only).
 *
 * Undecodable bytes raise `workflows.checkpoint_store_corrupt`; the parser's
 * own message (which quotes the input) never escapes.
 */
export function decodeEventBytes(bytes: Uint8Array): TransitionEvent {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes)) as unknown;
  } catch (_e) {
    throw new CheckpointStoreCorruptError('event_bytes_unparsable');
  }
  return parseTransitionEvent(value);
}
