import { compareCodePoints } from '../canonical/json';
import type { TransitionEvent } from './event';

/**
 * A JSON value as the canonical encoder accepts it.
 *
 * Integers only: a non-integer or unsafe number is a bug in the caller.
 */
export type CanonicalJson = string | number | boolean | null | readonly CanonicalJson[] | { readonly [k: string]: CanonicalJson };

function encode(value: CanonicalJson, out: string[]): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error('invariant violated: canonical JSON holds integers only');
    out.push(String(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    (value as readonly CanonicalJson[]).forEach((v, i) => {
      if (i > 0) out.push(',');
      encode(v, out);
    });
    out.push(']');
    return;
  }
  const obj = value as { readonly [k: string]: CanonicalJson };
  const keys = Object.keys(obj).sort(compareCodePoints);
  out.push('{');
  keys.forEach((k, i) => {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(k), ':');
    encode(obj[k] as CanonicalJson, out);
  });
  out.push('}');
}

/**
 * Canonical JSON text: keys sorted by code point at every level, no
 * insignificant whitespace, integers only.
 *
 * Deterministic for equal values, so the bytes (and the chain head over them)
 * are identical on every adapter and every machine.
 */
export function canonicalJson(value: CanonicalJson): string {
  const out: string[] = [];
  encode(value, out);
  return out.join('');
}

const encoder = new TextEncoder();

/**
 * The canonical bytes of an event: UTF-8 of its canonical JSON.
 *
 * Callers that persist must sanitize first (`sanitizeEvent`); these bytes are
 * what the chain head covers and what a row's `event_bytes` holds.
 */
export function canonicalEventBytes(event: TransitionEvent): Uint8Array {
  return encoder.encode(canonicalEventJson(event));
}

const str = JSON.stringify;

/**
 * The canonical JSON of an event, keys written in their code-point order.
 *
 * A fixed-shape fast path of `canonicalJson` (the store encodes on every
 * append and the verifier on every row); a property test pins it equal to the
 * generic encoder.
 */
export function canonicalEventJson(e: TransitionEvent): string {
  if (!Number.isSafeInteger(e.attempt)) throw new Error('invariant violated: canonical JSON holds integers only');
  const o = e.triggering_outcome;
  return (
    `{"attempt":${String(e.attempt)},"next_state_id":${str(e.next_state_id)},"occurred_at":${str(e.occurred_at)}` +
    `,"prior_state_id":${str(e.prior_state_id)},"transition_id":${str(e.transition_id)}` +
    `,"triggering_outcome":{"detail":${str(o.detail)},"evidence_digest":${str(o.evidence_digest)},"kind":${str(o.kind)}}` +
    `,"workflow_id":${str(e.workflow_id)}}`
  );
}
