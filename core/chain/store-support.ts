import { canonicalEventBytes } from './canonical-event';
import { CheckpointPayloadTooLargeError, CheckpointStoreCorruptError, InvalidTransitionEventError } from './errors';
import { assertSemanticBoundary, assertWorkflowId, ensureParsedEvent, isEvidenceDigest, parseTransitionEvent, type TransitionEvent } from './event';
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
 * rejects non-boundary targets, sanitizes, rejects an `evidence_digest` that is
 * neither a `sha256:`/`blake3:` digest nor the redaction sentinel, encodes canonically and enforces
 * the 64 KiB cap on the persisted bytes. Pure.
 */
export function prepareAppend(event: TransitionEvent): PreparedEvent {
  const valid = ensureParsedEvent(event);
  assertWorkflowId(valid.workflow_id);
  assertSemanticBoundary(valid);
  const sanitized = sanitizeEvent(valid);
  // S2-01: the outcome carries a digest of its evidence, never the evidence itself (nor inline text).
  // Checked after sanitizing: a secret where a digest belongs is stored as the sentinel (AC-12), not refused.
  const digest = sanitized.triggering_outcome.evidence_digest;
  if (digest !== null && digest !== REDACTED && !isEvidenceDigest(digest)) throw new InvalidTransitionEventError('triggering_outcome.evidence_digest');
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

/**
 * A driver error code safe to report (`SQLITE_NOTADB`, `SQLITE_CORRUPT`…), or undefined.
 *
 * Codes are upper-case identifiers of at most 40 characters; anything else
 * might carry caller text, so it is never echoed. Kept here so adapters hold no
 * patterns of their own (AC-12's fence).
 */
export function safeDriverCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Z_0-9]{1,40}$/.test(code) ? code : undefined;
}
