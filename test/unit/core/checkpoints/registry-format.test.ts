import { describe, expect, it } from 'vitest';
import { orderedJson, sha256Hex } from '../../../../core/canonical';
import {
  ACTIVE_ROW_FIELDS,
  INTENT_FIELDS,
  TOMBSTONE_FIELDS,
  checksumMatches,
  decodeIntent,
  decodeRegistry,
  encodeChecksum,
  encodeIntent,
  encodeRegistry,
  fastOrderedJson,
  tempNames,
} from '../../../../core/checkpoints/registry-format';
import type { RegistryDoc } from '../../../../core/checkpoints/registry-format';
import { isPlan } from '../../../../core/checkpoints/registry-core';
import { GfError } from '../../../../core/errors';
import { deleting, docWith, uuidN } from './registry-support';

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

function corruptReason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect((e as GfError).code).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
    return String((e as GfError).details.reason);
  }
  throw new Error('accepted');
}

function withDeletes(doc: RegistryDoc, names: readonly string[]): RegistryDoc {
  let d = doc;
  names.forEach((n, i) => {
    const p = deleting(n, uuidN(9000 + i))(d);
    if (!isPlan(p)) throw new Error('replay');
    d = p.next;
  });
  return d;
}

describe('registry.json canonical bytes', () => {
  it('writes the ADR field orders, sort orders and one LF', () => {
    const doc = withDeletes(docWith(['beta', 'alpha', 'gamma']), ['gamma']);
    const bytes = encodeRegistry(doc);
    const s = text(bytes);
    expect(s.endsWith('}\n')).toBe(true);
    expect(s.indexOf('\n')).toBe(s.length - 1);
    expect(s.startsWith('{"format":"graphforge-checkpoints","format_version":1,"revision":4,"active":[')).toBe(true);
    const parsed = JSON.parse(s) as { active: Record<string, unknown>[]; tombstones: Record<string, unknown>[] };
    expect(Object.keys(parsed)).toEqual(['format', 'format_version', 'revision', 'active', 'tombstones']);
    expect(Object.keys(parsed.active[0] as object)).toEqual([...ACTIVE_ROW_FIELDS]);
    expect(Object.keys(parsed.tombstones[0] as object)).toEqual([...TOMBSTONE_FIELDS]);
    expect(parsed.active.map((r) => r.name)).toEqual(['alpha', 'beta']);
    expect(parsed.tombstones.map((r) => [r.name, r.created_revision, r.deleted_revision])).toEqual([['gamma', 3, 4]]);
    expect(decodeRegistry(bytes)).toEqual(doc);
  });

  it('native ordered JSON equals the canonical orderedJson for registry values', () => {
    const doc = withDeletes(docWith(['ünï cödé', 'plain', 'x_y-z.1']), ['ünï cödé']);
    const weird = { ...doc, active: doc.active.map((r) => ({ ...r, description: '\u0001\u2028\u2029"\\</script>é🙂\t' })) };
    expect(fastOrderedJson(weird)).toBe(orderedJson(weird));
  });

  it('sorts names by UTF-8 bytes, not UTF-16 units', () => {
    const doc = docWith(['\u{20000}', '\ufa0e', 'B', 'a']);
    expect(doc.active.map((r) => r.name)).toEqual(['B', 'a', '\ufa0e', '\u{20000}']);
  });

  it('the checksum is exactly 65 bytes: lowercase hex of the exact bytes plus LF', () => {
    const bytes = encodeRegistry(docWith(['x']));
    const sum = encodeChecksum(bytes);
    expect(sum.length).toBe(65);
    expect(text(sum)).toBe(`${sha256Hex(bytes)}\n`);
    expect(checksumMatches(sum, bytes)).toBe(true);
    expect(checksumMatches(new TextEncoder().encode(`${sha256Hex(bytes).toUpperCase()}\n`), bytes)).toBe(false);
  });

  it('refuses every non-canonical or inconsistent registry', () => {
    const doc = docWith(['a', 'b']);
    const good = text(encodeRegistry(doc));
    const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
    expect(corruptReason(() => decodeRegistry(enc(good.slice(0, -1))))).toBe('not_single_lf');
    expect(corruptReason(() => decodeRegistry(enc(`${good}\n`)))).toBe('not_single_lf');
    expect(corruptReason(() => decodeRegistry(enc(good.replace('{"format"', '{ "format"'))))).toBe('noncanonical');
    expect(corruptReason(() => decodeRegistry(enc(good.replace('"revision":2', '"revision":1'))))).toBe('active_row');
    expect(corruptReason(() => decodeRegistry(enc(good.replace('"revision":2', '"revision":0'))))).toBe('revision');
    const swapped = { ...doc, active: [...doc.active].reverse() };
    expect(corruptReason(() => decodeRegistry(encodeRegistry(swapped)))).toBe('active_order');
    const renamed = { ...doc, active: [{ ...doc.active[0]!, name: '0' }, doc.active[1]!] };
    expect(corruptReason(() => decodeRegistry(encodeRegistry(renamed)))).toBe('identity');
    const dup = { ...doc, active: [doc.active[0]!, { ...doc.active[0]!, checkpoint_uuid: 'ffffffff-ffff-8fff-bfff-ffffffffffff' }] };
    expect(corruptReason(() => decodeRegistry(encodeRegistry(dup)))).toBe('duplicate_name');
    expect(corruptReason(() => decodeRegistry(enc(good.replace('"format_version":1', '"format_version":2'))))).toBe('format');
    expect(corruptReason(() => decodeRegistry(new Uint8Array([0xff, 0x0a])))).toBe('not_utf8');
    expect(corruptReason(() => decodeRegistry(new Uint8Array(8 * 1024 * 1024 + 1)))).toBe('oversized');
  });
});

describe('registry.txn.json', () => {
  const txn = '11111111-2222-4333-8444-555555555555';
  const names = tempNames(txn);
  const intent = {
    transaction_uuid: txn,
    previous_revision: 3,
    previous_sha256: 'c'.repeat(64),
    next_revision: 4,
    next_sha256: 'd'.repeat(64),
    registry_temp: names.registryTemp,
    checksum_temp: names.checksumTemp,
  };

  it('has the exact field order and temp names', () => {
    const bytes = encodeIntent(intent);
    expect(Object.keys(JSON.parse(text(bytes)) as object)).toEqual([...INTENT_FIELDS]);
    expect(names).toEqual({ registryTemp: `.registry.${txn}.json.next`, checksumTemp: `.registry.${txn}.sha256.next` });
    expect(decodeIntent(bytes)).toEqual(intent);
    const first = { ...intent, previous_revision: null, previous_sha256: null, next_revision: 1 };
    expect(decodeIntent(encodeIntent(first))).toEqual(first);
  });

  it('refuses intents that could point recovery anywhere else', () => {
    expect(corruptReason(() => decodeIntent(encodeIntent({ ...intent, registry_temp: '../registry.json' })))).toBe('temp_names');
    expect(corruptReason(() => decodeIntent(encodeIntent({ ...intent, next_revision: 5 })))).toBe('values');
    expect(corruptReason(() => decodeIntent(encodeIntent({ ...intent, previous_sha256: null })))).toBe('values');
    expect(corruptReason(() => decodeIntent(new Uint8Array(16 * 1024 + 1)))).toBe('oversized');
  });
});
