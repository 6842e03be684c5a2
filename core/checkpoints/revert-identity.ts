// Deterministic identities of a revert request: request digest, transaction UUID
// and restoration UUID under the ADR-0014 revert domains.
import { hash } from 'node:crypto';
import { isCanonicalUuid, parseUuid, uuidV8 } from '../canonical/index';
import { normalizeName, isWellFormedText } from '../contract/names';
import { GfError } from '../errors';
import { REASON_MAX_UTF8_BYTES as REASON_MAX_BYTES, reasonRefusal, trimReason } from '../contract/reasons';

/** Domain strings of ADR-0014 "Revert" (no terminator), frozen by `checkpoint-api-v1.json` `revert_identity`. */
export const REVERT_REQUEST_DOMAIN = 'graphforge-checkpoint-revert-request/1';
export const REVERT_TRANSACTION_DOMAIN = 'graphforge-checkpoint-revert-transaction/1';
export const RESTORATION_UUID_DOMAIN = 'graphforge-restoration-transition-uuid/1';
export const RESTORED_GENERATION_DOMAIN = 'graphforge-checkpoint-restored-generation/1';

const encoder = new TextEncoder();

/** The request fields that identify one revert (after validation and name resolution). */
export interface RevertRequestIdentityInput {
  readonly operationUuid: string;
  /** NFC-normalized checkpoint name. */
  readonly name: string;
  readonly checkpointUuid: string;
  readonly sourceGenerationUuid: string;
  /** 64 lowercase hex. */
  readonly sourceManifestSha256: string;
  /** Trimmed reason. */
  readonly reason: string;
  readonly actorUuid: string | null;
}

/** Every value the ADR derives for one revert. */
export interface RevertIdentity {
  readonly revertRequestSha256: string;
  readonly transactionUuid: string;
  readonly restorationUuid: string;
  readonly restoredGenerationUuid: string;
}

function u32be(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, false);
  return b;
}

function i64be(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n, false);
  return b;
}

function hex32(text: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('invariant violated: a SHA-256 value is 64 lowercase hex');
  return Buffer.from(text, 'hex');
}

function sha(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(hash('sha256', Buffer.concat(parts), 'buffer'));
}

/**
 * The exact preimage of `revert_request_sha256`.
 *
 * `domain || operation_uuid || u32be(name_len) || name || checkpoint_uuid ||
 * source_generation_uuid || source_manifest_sha256 || u32be(reason_len) ||
 * reason || actor_presence [|| actor_uuid]`.
 */
export function revertRequestPreimage(r: RevertRequestIdentityInput): Uint8Array {
  const name = encoder.encode(r.name);
  const reason = encoder.encode(r.reason);
  const parts: Uint8Array[] = [
    encoder.encode(REVERT_REQUEST_DOMAIN),
    parseUuid(r.operationUuid),
    u32be(name.length),
    name,
    parseUuid(r.checkpointUuid),
    parseUuid(r.sourceGenerationUuid),
    hex32(r.sourceManifestSha256),
    u32be(reason.length),
    reason,
  ];
  if (r.actorUuid === null) parts.push(Uint8Array.of(0));
  else parts.push(Uint8Array.of(1), parseUuid(r.actorUuid));
  return new Uint8Array(Buffer.concat(parts));
}

/** `revert_request_sha256` as 64 lowercase hex. */
export function revertRequestSha256(r: RevertRequestIdentityInput): string {
  return Buffer.from(sha([revertRequestPreimage(r)])).toString('hex');
}

/** `transaction_uuid = uuid_v8(SHA-256(domain || operation_uuid))`: addressable from the key alone. */
export function revertTransactionUuid(operationUuid: string): string {
  return uuidV8(sha([encoder.encode(REVERT_TRANSACTION_DOMAIN), parseUuid(operationUuid)]));
}

/** `restoration_uuid = uuid_v8(SHA-256(domain || operation_uuid || revert_request_sha256))`. */
export function restorationUuid(operationUuid: string, requestSha256: string): string {
  return uuidV8(sha([encoder.encode(RESTORATION_UUID_DOMAIN), parseUuid(operationUuid), hex32(requestSha256)]));
}

/** Inputs of `restored_generation_uuid`. */
export interface RestoredGenerationInput {
  readonly transactionUuid: string;
  readonly checkpointUuid: string;
  readonly sourceGenerationUuid: string;
  readonly sourceManifestSha256: string;
  readonly priorCurrentGenerationUuid: string;
  readonly restoredAtMicros: bigint;
  readonly revertRequestSha256: string;
}

/**
 * `restored_generation_uuid = uuid_v8(SHA-256(domain || transaction_uuid ||
 * checkpoint_uuid || source_generation_uuid || source_manifest_sha256 ||
 * prior_current_generation_uuid || i64be(restored_at_micros) || revert_request_sha256))`.
 */
export function restoredGenerationUuid(r: RestoredGenerationInput): string {
  return uuidV8(
    sha([
      encoder.encode(RESTORED_GENERATION_DOMAIN),
      parseUuid(r.transactionUuid),
      parseUuid(r.checkpointUuid),
      parseUuid(r.sourceGenerationUuid),
      hex32(r.sourceManifestSha256),
      parseUuid(r.priorCurrentGenerationUuid),
      i64be(r.restoredAtMicros),
      hex32(r.revertRequestSha256),
    ]),
  );
}

/** All derived values of one revert, from its resolved request and the once-sampled `restored_at`. */
export function revertIdentity(r: RevertRequestIdentityInput, priorCurrentGenerationUuid: string, restoredAtMicros: bigint): RevertIdentity {
  const revertRequest = revertRequestSha256(r);
  const transactionUuid = revertTransactionUuid(r.operationUuid);
  return {
    revertRequestSha256: revertRequest,
    transactionUuid,
    restorationUuid: restorationUuid(r.operationUuid, revertRequest),
    restoredGenerationUuid: restoredGenerationUuid({
      transactionUuid,
      checkpointUuid: r.checkpointUuid,
      sourceGenerationUuid: r.sourceGenerationUuid,
      sourceManifestSha256: r.sourceManifestSha256,
      priorCurrentGenerationUuid,
      restoredAtMicros,
      revertRequestSha256: revertRequest,
    }),
  };
}

/** Raw revert input as it arrives from any surface. */
export interface RevertInput {
  readonly name: unknown;
  readonly reason: unknown;
  readonly idempotencyKey: unknown;
  readonly actorUuid?: unknown;
}

/** A validated revert request (before the name is resolved). */
export interface RevertRequest {
  readonly operationUuid: string;
  readonly name: string;
  readonly reason: string;
  readonly actorUuid: string | null;
}

// Control characters other than TAB and LF (NUL, ESC, DEL, C1).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_IN_REASON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// One character that is neither white space, a format or control character, a lone combining mark, nor a blank filler.
const VISIBLE_IN_REASON = /[^\p{White_Space}\p{Cf}\p{Cc}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]/u;

/**
 * The persisted reason: outer whitespace trimmed, 1–1,024 UTF-8 bytes, well-formed,
 * no control characters but TAB and LF, and at least one visible character
 * (U+200B alone, NUL, a lone combining mark are refused).
 *
 * Anything else is `GF_VALIDATION` (details name the field and the limit,
 * never the text).
 */
export function validateReason(reason: unknown): string {
  if (typeof reason !== 'string' || !isWellFormedText(reason)) {
    throw new GfError('GF_VALIDATION', 'reason must be text', { field: 'reason' }, false);
  }
  const trimmed = trimReason(reason);
  if (reasonRefusal(trimmed) !== null) {
    throw new GfError('GF_VALIDATION', 'reason must be 1 to 1,024 UTF-8 bytes after trimming', { field: 'reason', min: 1, max: REASON_MAX_BYTES }, false);
  }
  // A reason a person can read: no control characters (NUL, ESC, …) and at least one visible character
  // (not only format or invisible characters such as U+200B, U+2060, U+FEFF).
  if (CONTROL_IN_REASON.test(trimmed)) {
    throw new GfError('GF_VALIDATION', 'reason must not contain control characters', { field: 'reason' }, false);
  }
  if (!VISIBLE_IN_REASON.test(trimmed)) {
    throw new GfError('GF_VALIDATION', 'reason must contain a visible character', { field: 'reason' }, false);
  }
  return trimmed;
}

function canonicalUuid(value: unknown, field: string): string {
  if (!isCanonicalUuid(value)) throw new GfError('GF_VALIDATION', `${field} must be a canonical lowercase UUID`, { field }, false);
  return value as string;
}

/** Validates a revert request before any lock (pure): key, name, reason, actor. */
export function prepareRevert(input: RevertInput): RevertRequest {
  const operationUuid = canonicalUuid(input.idempotencyKey, 'idempotency_key');
  let name: string;
  try {
    name = normalizeName(input.name);
  } catch (e) {
    throw e instanceof GfError && e.committed === undefined ? e.withCommitted(false) : e;
  }
  const reason = validateReason(input.reason);
  const actorUuid = input.actorUuid === undefined || input.actorUuid === null ? null : canonicalUuid(input.actorUuid, 'actor_uuid');
  return { operationUuid, name, reason, actorUuid };
}
