import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseUuid, sha256, toHex, uuidV8 } from '../../../../core/canonical';
import { checkpointUuid, createRequestPreimage, createRequestSha256, type CreateRequestIdentityInput } from '../../../../core/checkpoints/request-identity';

interface CreateVector {
  readonly create_operation_uuid: string;
  readonly actor_uuid: string;
  readonly name: string;
  readonly description: string;
  readonly create_request_sha256: string;
  readonly checkpoint_uuid: string;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/checkpoint-api-v1.json', import.meta.url), 'utf8'),
) as { identity_golden_vector: CreateVector; checkpoint_identity: { request_domain: string; uuid_domain: string } };

function concat(...parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
function u32be(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}
function lenText(s: string): Uint8Array {
  const b = new TextEncoder().encode(s);
  return concat(u32be(b.length), b);
}
const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

// The engine's request identity (core/checkpoints/request-identity.ts) against
// the frozen ADR-0014 vector, and against the formula written out here with the
// canonical primitives only, so a drift in either the layout or the primitives fails.
describe('checkpoint create vector (ADR-0014): core/checkpoints/request-identity', () => {
  const v = fixture.identity_golden_vector;
  const ids = fixture.checkpoint_identity;
  const input: CreateRequestIdentityInput = {
    operationUuid: v.create_operation_uuid,
    name: v.name.normalize('NFC'),
    description: v.description,
    actorUuid: v.actor_uuid,
  };

  /** The ADR-0014 preimage, independently of the engine. */
  function formula(r: CreateRequestIdentityInput): Uint8Array {
    return concat(
      ascii(ids.request_domain),
      parseUuid(r.operationUuid),
      lenText(r.name),
      ...(r.description === null ? [Uint8Array.of(0)] : [Uint8Array.of(1), lenText(r.description)]),
      ...(r.actorUuid === null ? [Uint8Array.of(0)] : [Uint8Array.of(1), parseUuid(r.actorUuid)]),
    );
  }

  it('createRequestSha256 and checkpointUuid reproduce the frozen create_request_sha256 and checkpoint_uuid', () => {
    const request = createRequestSha256(input);
    expect(request).toBe(v.create_request_sha256);
    expect(checkpointUuid(v.create_operation_uuid, request)).toBe(v.checkpoint_uuid);
  });

  it("the engine's preimage is the ADR-0014 layout byte for byte, and the canonical primitives agree on the vector", () => {
    expect(Buffer.from(createRequestPreimage(input)).toString('hex')).toBe(Buffer.from(formula(input)).toString('hex'));
    const request = sha256(formula(input));
    expect(toHex(request)).toBe(v.create_request_sha256);
    expect(uuidV8(sha256(concat(ascii(ids.uuid_domain), parseUuid(v.create_operation_uuid), request)))).toBe(v.checkpoint_uuid);
  });

  it('every field is in the fingerprint: changing one changes the engine value (and it still matches the layout)', () => {
    const variants: ReadonlyArray<[string, CreateRequestIdentityInput]> = [
      ['other name', { ...input, name: `${input.name}!` }],
      ['description absent', { ...input, description: null }],
      ['empty description', { ...input, description: '' }],
      ['actor absent', { ...input, actorUuid: null }],
      ['other operation', { ...input, operationUuid: '00000000-0000-4000-8000-000000000001' }],
    ];
    const seen = new Set([v.create_request_sha256]);
    for (const [label, r] of variants) {
      const got = createRequestSha256(r);
      expect(seen.has(got), label).toBe(false);
      seen.add(got);
      expect(got, label).toBe(toHex(sha256(formula(r))));
    }
    expect(checkpointUuid('00000000-0000-4000-8000-000000000001', v.create_request_sha256)).not.toBe(v.checkpoint_uuid);
  });
});
