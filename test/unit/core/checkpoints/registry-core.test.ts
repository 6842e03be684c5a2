import { describe, expect, it } from 'vitest';
import { decodeRegistry, encodeRegistry } from '../../../../core/checkpoints/registry-format';
import type { RegistryDoc } from '../../../../core/checkpoints/registry-format';
import { isPlan, planCreate, planDelete, prepareCreate, prepareDelete } from '../../../../core/checkpoints/registry-core';
import { decodeListToken, encodeListToken, listPage } from '../../../../core/checkpoints/listing';
import { GfError } from '../../../../core/errors';
import { GEN_A, SHA_A, bigDoc, docWith, uuidN } from './registry-support';

/** A page-token key of this test (the codec takes its key from the caller). */
const TEST_KEY = (): Uint8Array => new Uint8Array(32).fill(7);

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as GfError).code;
  }
  return 'accepted';
}

const target = { generationUuid: GEN_A, manifestSha256: SHA_A };

describe('registry core (pure)', () => {
  it('prunes the oldest tombstones past 4,096, deterministically, and then forgets their replays', () => {
    const doc = bigDoc(1, 4096);
    expect(decodeRegistry(encodeRegistry(doc))).toEqual(doc);
    const oldest = doc.tombstones[0]!;
    const survivor = doc.tombstones[1]!;
    const del = prepareDelete({ name: doc.active[0]!.name, idempotencyKey: uuidN(77, '0190ffff-0000-7000-8000-') });
    const plan = planDelete(doc, del, 1_800_000_000_000_000);
    if (!isPlan(plan)) throw new Error('replay');
    expect(plan.next.tombstones).toHaveLength(4096);
    expect(plan.next.tombstones[0]).toEqual(survivor);
    expect(plan.next.tombstones.at(-1)!.delete_operation_uuid).toBe(del.operationUuid);
    expect(plan.next.tombstones.some((t) => t.checkpoint_uuid === oldest.checkpoint_uuid)).toBe(false);
    expect(decodeRegistry(plan.bytes)).toEqual(plan.next);
    // The retained tombstone still replays; the pruned one is now an unknown name.
    const retained = prepareDelete({ name: survivor.name, idempotencyKey: survivor.delete_operation_uuid });
    const replay = planDelete(plan.next, retained, 1);
    expect(isPlan(replay)).toBe(false);
    const pruned = prepareDelete({ name: oldest.name, idempotencyKey: oldest.delete_operation_uuid });
    expect(codeOf(() => planDelete(plan.next, pruned, 1))).toBe('GF_CHECKPOINT_NOT_FOUND');
  });

  it('refuses the 1,025th active checkpoint with GF_RESOURCE_LIMIT', () => {
    const doc = bigDoc(1024, 0);
    const req = prepareCreate({ name: 'one too many', idempotencyKey: uuidN(1, '0190ffff-0000-7000-8000-') });
    const e = (() => {
      try {
        planCreate(doc, req, target, 1);
      } catch (err) {
        return err as GfError;
      }
      throw new Error('accepted');
    })();
    expect(e.code).toBe('GF_RESOURCE_LIMIT');
    expect(e.committed).toBe(false);
    expect(e.details.limit).toBe(1024);
    // A replay of an existing create is still answered at the limit.
    const first = doc.active[0]!;
    const again = prepareCreate({ name: first.name, idempotencyKey: first.create_operation_uuid });
    expect(isPlan(planCreate(doc, again, target, 1))).toBe(false);
  });

  it('refuses a mutation whose canonical next bytes exceed 8 MiB', () => {
    // Control characters escape to six bytes each, so 1,024-byte descriptions make ~6 KiB rows.
    const heavy = '\u0001'.repeat(1024);
    let doc: RegistryDoc = bigDoc(0, 1000, heavy);
    const size = encodeRegistry(doc).length;
    expect(size).toBeLessThan(8 * 1024 * 1024);
    const rowBytes = Math.ceil(size / 1000);
    doc = bigDoc(0, Math.floor((8 * 1024 * 1024 - rowBytes / 2) / rowBytes), heavy);
    expect(encodeRegistry(doc).length).toBeLessThanOrEqual(8 * 1024 * 1024);
    const req = prepareCreate({ name: 'straw', description: heavy, idempotencyKey: uuidN(3, '0190ffff-0000-7000-8000-') });
    expect(codeOf(() => planCreate(doc, req, target, 1))).toBe('GF_RESOURCE_LIMIT');
  });

  it('lists by (name, checkpoint_uuid) with keyset tokens; a tampered token is GF_PAGE_INVALID', () => {
    const doc = docWith(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
    const p1 = listPage(doc, 2, undefined, TEST_KEY);
    expect(p1.rows.map((r) => r.name)).toEqual(['alpha', 'bravo']);
    expect(Object.keys(p1.rows[0]!)).toEqual([
      'checkpoint_uuid', 'name', 'description', 'generation_uuid', 'generation_manifest_sha256', 'created_at', 'created_by',
    ]);
    const p2 = listPage(doc, 2, p1.next, TEST_KEY);
    expect(p2.rows.map((r) => r.name)).toEqual(['charlie', 'delta']);
    const p3 = listPage(doc, 2, p2.next, TEST_KEY);
    expect(p3.rows.map((r) => r.name)).toEqual(['echo']);
    expect(p3.next).toBeNull();
    expect(listPage(doc, undefined, undefined, TEST_KEY).rows).toHaveLength(5);
    expect(decodeListToken(TEST_KEY(), encodeListToken(TEST_KEY(), doc.active[1]!))).toEqual({ name: 'bravo', checkpoint_uuid: doc.active[1]!.checkpoint_uuid });
    const tampered = Buffer.from(Buffer.from(p1.next!, 'base64url').toString('utf8').replace('bravo', 'bravp')).toString('base64url');
    expect(codeOf(() => listPage(doc, 2, tampered, TEST_KEY))).toBe('GF_PAGE_INVALID');
    expect(codeOf(() => listPage(doc, 2, 'not a token', TEST_KEY))).toBe('GF_PAGE_INVALID');
    for (const bad of [0, 10_001, 1.5, '5', -1]) expect(codeOf(() => listPage(doc, bad, undefined, TEST_KEY))).toBe('GF_VALIDATION');
    expect(listPage(doc, 10_000, undefined, TEST_KEY).rows).toHaveLength(5);
    expect(listPage(null, 1, undefined, TEST_KEY)).toEqual({ rows: [], next: null, registryRevision: 0 });
  });
});
