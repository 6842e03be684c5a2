// Deterministic identities of checkpoint requests (create, delete, checkpoint UUID)
// under the ADR-0014 domains.
import { GfError } from '../errors';
import { hash } from 'node:crypto';
import { uuidV8 } from '../canonical';

/** Domain strings of ADR-0014 (no terminator), frozen by `checkpoint-api-v1.json`. */
export const CREATE_REQUEST_DOMAIN = 'graphforge-checkpoint-create-request/1';
export const DELETE_REQUEST_DOMAIN = 'graphforge-checkpoint-delete-request/1';
export const CHECKPOINT_UUID_DOMAIN = 'graphforge-checkpoint-uuid/1';

const encoder = new TextEncoder();

/**
 * Incremental SHA-256 over the exact preimage layout.
 *
 * Hashing happens once per row whenever the registry is validated (up to
 * ~5,000 rows): parts are concatenated once and hashed with the one-shot
 * `crypto.hash`; `preimage()` exposes the exact bytes for tests.
 */
class Preimage {
  readonly #parts: Uint8Array[] = [];
  constructor(_keep: boolean) {}
  bytes(b: Uint8Array): this {
    this.#parts.push(b);
    return this;
  }
  u8(v: number): this {
    return this.bytes(Uint8Array.of(v));
  }
  /** u32be(length) || utf8 */
  text(s: string): this {
    const b = encoder.encode(s);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, b.length, false);
    return this.bytes(len).bytes(b);
  }
  digestHex(): string {
    return hash('sha256', Buffer.concat(this.#parts), 'hex');
  }
  digest(): Uint8Array {
    return new Uint8Array(hash('sha256', Buffer.concat(this.#parts), 'buffer'));
  }
  preimage(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.#parts));
  }
}

const CREATE_DOMAIN_BYTES = encoder.encode(CREATE_REQUEST_DOMAIN);
const DELETE_DOMAIN_BYTES = encoder.encode(DELETE_REQUEST_DOMAIN);
const UUID_DOMAIN_BYTES = encoder.encode(CHECKPOINT_UUID_DOMAIN);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(text: string, field: string): Uint8Array {
  if (typeof text !== 'string' || !UUID_RE.test(text)) {
    throw new GfError('GF_VALIDATION', `${field} is not a UUID`, { field });
  }
  return Buffer.from(text.replace(/-/g, ''), 'hex');
}

/** Fields of a create request after validation (normalized name, nullable description/actor). */
export interface CreateRequestIdentityInput {
  readonly operationUuid: string;
  readonly name: string;
  readonly description: string | null;
  readonly actorUuid: string | null;
}

/** Fields of a delete request after validation. */
export interface DeleteRequestIdentityInput {
  readonly operationUuid: string;
  readonly name: string;
  readonly actorUuid: string | null;
}

/**
 * The exact preimage of the canonical create-request fingerprint.
 *
 * `domain || operation_uuid || u32be(name_len) || name || presence(description)
 * [|| u32be(len) || description] || presence(actor) [|| actor_uuid]`; presence
 * is 0x00 absent, 0x01 present, absent fields omit length and payload.
 */
export function createRequestPreimage(r: CreateRequestIdentityInput): Uint8Array {
  return createRequest(r, true).preimage();
}

function createRequest(r: CreateRequestIdentityInput, keep: boolean): Preimage {
  const w = new Preimage(keep).bytes(CREATE_DOMAIN_BYTES).bytes(uuidBytes(r.operationUuid, 'idempotency_key')).text(r.name);
  if (r.description === null) w.u8(0);
  else w.u8(1).text(r.description);
  if (r.actorUuid === null) w.u8(0);
  else w.u8(1).bytes(uuidBytes(r.actorUuid, 'actor_uuid'));
  return w;
}

/** create_request_sha256 as 64 lowercase hex. */
export function createRequestSha256(r: CreateRequestIdentityInput): string {
  return createRequest(r, false).digestHex();
}

/**
 * The checkpoint UUID: uuid_v8(SHA-256(domain || create_operation_uuid || create_request_sha256)).
 *
 * Deterministic, so a replayed create names the same checkpoint everywhere.
 */
export function checkpointUuid(createOperationUuid: string, createRequestSha256Hex: string): string {
  const digest = new Preimage(false)
    .bytes(UUID_DOMAIN_BYTES)
    .bytes(uuidBytes(createOperationUuid, 'idempotency_key'))
    .bytes(Buffer.from(createRequestSha256Hex, 'hex'))
    .digest();
  return uuidV8(digest);
}

/**
 * The exact preimage of the canonical delete-request fingerprint.
 *
 * `domain || operation_uuid || u32be(name_len) || name || presence(actor) [|| actor_uuid]`.
 */
export function deleteRequestPreimage(r: DeleteRequestIdentityInput): Uint8Array {
  return deleteRequest(r, true).preimage();
}

function deleteRequest(r: DeleteRequestIdentityInput, keep: boolean): Preimage {
  const w = new Preimage(keep).bytes(DELETE_DOMAIN_BYTES).bytes(uuidBytes(r.operationUuid, 'idempotency_key')).text(r.name);
  if (r.actorUuid === null) w.u8(0);
  else w.u8(1).bytes(uuidBytes(r.actorUuid, 'actor_uuid'));
  return w;
}

/** delete_request_sha256 as 64 lowercase hex. */
export function deleteRequestSha256(r: DeleteRequestIdentityInput): string {
  return deleteRequest(r, false).digestHex();
}
