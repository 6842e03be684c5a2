import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseUuid, sha256, toHex, uuidV8 } from '../../../../core/canonical';

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

// The ADR-0014 formula written out with the canonical primitives only: proves that
// sha256/parseUuid/uuidV8 reproduce the frozen checkpoint create vector byte for byte.
describe('checkpoint create vector (ADR-0014) through the canonical primitives', () => {
  const v = fixture.identity_golden_vector;
  const ids = fixture.checkpoint_identity;

  it('reproduces create_request_sha256 and checkpoint_uuid', () => {
    const op = parseUuid(v.create_operation_uuid);
    const request = sha256(
      concat(
        ascii(ids.request_domain),
        op,
        lenText(v.name.normalize('NFC')),
        Uint8Array.of(1),
        lenText(v.description),
        Uint8Array.of(1),
        parseUuid(v.actor_uuid),
      ),
    );
    expect(toHex(request)).toBe(v.create_request_sha256);
    expect(uuidV8(sha256(concat(ascii(ids.uuid_domain), op, request)))).toBe(v.checkpoint_uuid);
  });

  it('a changed byte changes both values (the check can fail)', () => {
    const op = parseUuid(v.create_operation_uuid);
    const request = sha256(concat(ascii(ids.request_domain), op, lenText(v.name), Uint8Array.of(0), Uint8Array.of(0)));
    expect(toHex(request)).not.toBe(v.create_request_sha256);
  });
});
