import { GfError } from '../errors';
import { parseUuid, sha256, toHex, uuidV8 } from '../canonical';

/** Domain strings of ADR-0014 (no terminator), frozen by `checkpoint-api-v1.json`. */
export const CREATE_REQUEST_DOMAIN = 'graphforge-checkpoint-create-request/1';
export const DELETE_REQUEST_DOMAIN = 'graphforge-checkpoint-delete-request/1';
export const CHECKPOINT_UUID_DOMAIN = 'graphforge-checkpoint-uuid/1';

const encoder = new TextEncoder();

class ByteWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;
  bytes(b: Uint8Array): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }
  ascii(s: string): this {
    return this.bytes(encoder.encode(s));
  }
  u8(v: number): this {
    return this.bytes(Uint8Array.of(v));
  }
  u32be(v: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, false);
    return this.bytes(b);
  }
  /** u32be(length) || utf8 */
  text(s: string): this {
    const b = encoder.encode(s);
    return this.u32be(b.length).bytes(b);
  }
  done(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

function uuidBytes(text: string, field: string): Uint8Array {
  try {
    return parseUuid(text);
  } catch {
    throw new GfError('GF_VALIDATION', `${field} is not a UUID`, { field });
  }
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
  const w = new ByteWriter().ascii(CREATE_REQUEST_DOMAIN).bytes(uuidBytes(r.operationUuid, 'idempotency_key')).text(r.name);
  if (r.description === null) w.u8(0);
  else w.u8(1).text(r.description);
  if (r.actorUuid === null) w.u8(0);
  else w.u8(1).bytes(uuidBytes(r.actorUuid, 'actor_uuid'));
  return w.done();
}

/** create_request_sha256 as 64 lowercase hex. */
export function createRequestSha256(r: CreateRequestIdentityInput): string {
  return toHex(sha256(createRequestPreimage(r)));
}

/**
 * The checkpoint UUID: uuid_v8(SHA-256(domain || create_operation_uuid || create_request_sha256)).
 *
 * Deterministic, so a replayed create names the same checkpoint everywhere.
 */
export function checkpointUuid(createOperationUuid: string, createRequestSha256Hex: string): string {
  const digest = new ByteWriter()
    .ascii(CHECKPOINT_UUID_DOMAIN)
    .bytes(uuidBytes(createOperationUuid, 'idempotency_key'))
    .bytes(Buffer.from(createRequestSha256Hex, 'hex'))
    .done();
  return uuidV8(sha256(digest));
}

/**
 * The exact preimage of the canonical delete-request fingerprint.
 *
 * `domain || operation_uuid || u32be(name_len) || name || presence(actor) [|| actor_uuid]`.
 */
export function deleteRequestPreimage(r: DeleteRequestIdentityInput): Uint8Array {
  const w = new ByteWriter().ascii(DELETE_REQUEST_DOMAIN).bytes(uuidBytes(r.operationUuid, 'idempotency_key')).text(r.name);
  if (r.actorUuid === null) w.u8(0);
  else w.u8(1).bytes(uuidBytes(r.actorUuid, 'actor_uuid'));
  return w.done();
}

/** delete_request_sha256 as 64 lowercase hex. */
export function deleteRequestSha256(r: DeleteRequestIdentityInput): string {
  return toHex(sha256(deleteRequestPreimage(r)));
}
