// The revert-reason rule, declared once for the engine, the contract's request
// schema, the CLI and the renderer's live feedback.
import { isWellFormedText } from './names';

/** Largest persisted revert reason in UTF-8 bytes, counted after trimming (ADR-0014). */
export const REASON_MAX_UTF8_BYTES = 1024;

/**
 * Bound on a reason's raw text before trimming (UTF-16 code units).
 *
 * A surface bound only: outer whitespace is trimmed away, so a reason may be
 * longer than 1,024 bytes as typed; this keeps a request's size bounded.
 */
export const REASON_MAX_RAW_CHARS = 64 * 1024;

/** Why a reason was refused; a closed, value-free vocabulary safe for error details. */
export type ReasonRefusal = 'not_text' | 'empty' | 'too_long';

const encoder = new TextEncoder();

/** The reason as stored: outer whitespace trimmed (`String.prototype.trim`). */
export function trimReason(reason: string): string {
  return reason.trim();
}

/** UTF-8 bytes of the reason as stored (after trimming). */
export function reasonBytes(reason: string): number {
  return encoder.encode(trimReason(reason)).length;
}

/**
 * The refusal for a reason, or null when acceptable. Pure.
 *
 * Bytes are counted after trimming, the way the engine stores the reason:
 * the API, the CLI and the engine accept exactly the same reasons.
 */
export function reasonRefusal(reason: unknown): ReasonRefusal | null {
  if (typeof reason !== 'string' || !isWellFormedText(reason)) return 'not_text';
  const bytes = reasonBytes(reason);
  if (bytes === 0) return 'empty';
  if (bytes > REASON_MAX_UTF8_BYTES) return 'too_long';
  return null;
}

/** Why a reason is refused, as a sentence for the user; null when acceptable. */
export function reasonProblem(reason: string): string | null {
  switch (reasonRefusal(reason)) {
    case null:
      return null;
    case 'not_text':
      return 'The reason contains malformed text.';
    case 'empty':
      return 'A reason is required (1–1,024 UTF-8 bytes).';
    case 'too_long':
      return `The reason is ${reasonBytes(reason)} bytes after trimming; at most 1,024 UTF-8 bytes are allowed.`;
  }
}
