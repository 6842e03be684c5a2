import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { DIFF_ADAPTERS } from '../../../../core/diff/plan-adapters';
import { DiskChangeCache } from '../../../../core/diff/changes-cache';
import { runSync } from '../../../../core/diff/steps';
import type { DiffAdapter } from '../../../../core/diff/plan-adapters';
import { loadRecordSet, recordSetFingerprint, recordSetKey, recordSetSteps, storeRecordSet } from '../../../../core/diff/page-record-set';
import { sha256Hex } from '../../../../core/canonical';
import { verifiedBytes } from '../../../../core/project/index';
import { RECORD_FAMILIES, decodeParticipant, encodeRecords, tableFromRecords } from '../../../../core/participants';
import { sampleRecords } from '../participants/sample-workspace';
import { reencoded, uuidOf } from './diff-support';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function adapterOf(key: string): DiffAdapter {
  const a = DIFF_ADAPTERS.find((x) => x.family.key === key);
  if (a === undefined) throw new Error(key);
  return a;
}

describe('record-set fingerprints (the summary diff content identity)', () => {
  it('are the same for the same records in any layout or window size, and differ for another record, order aside', () => {
    for (const family of RECORD_FAMILIES) {
      const records = sampleRecords()[family.key] ?? [];
      const adapter = adapterOf(family.key);
      const canonical = recordSetFingerprint(adapter, decodeParticipant(family, encodeRecords(family, records)));
      expect(canonical, family.key).toMatch(/^[0-9a-f]{64}$/);
      // Windows of one record hash the same bytes as one window.
      expect(recordSetFingerprint(adapter, decodeParticipant(family, encodeRecords(family, records)), undefined, 1), family.key).toBe(canonical);
      if (family.encoding === 'arrow' && records.length > 1) {
        // Reversed rows, batches of one row, dictionary-encoded text: the same records.
        const other = tableFromIPC(reencoded(family, records, 1));
        expect(other.batches.length).toBe(records.length);
        expect(recordSetFingerprint(adapter, other), family.key).toBe(canonical);
        // One record fewer: another record set.
        expect(recordSetFingerprint(adapter, decodeParticipant(family, encodeRecords(family, records.slice(1)))), family.key).not.toBe(canonical);
      }
    }
    // Two families with the same (no) records have different fingerprints: domain and schema are bound.
    const arrow = RECORD_FAMILIES.filter((f) => f.encoding === 'arrow');
    const empty = arrow.map((f) => recordSetFingerprint(adapterOf(f.key), decodeParticipant(f, encodeRecords(f, []))));
    expect(new Set(empty).size).toBe(arrow.length);
  });

  it('read from a stored object by row windows, give what the whole decoded records give, also for an object out of identity order', () => {
    const family = RECORD_FAMILIES.find((f) => f.key === 'graph/node') as (typeof RECORD_FAMILIES)[number];
    const adapter = adapterOf(family.key);
    const records = Array.from({ length: 23 }, (_, i) => ({ node_uuid: uuidOf(`rs-${i}`), class_id: 'Paper', label: `Paper ${i}`, properties: i % 3 === 0 ? null : `{"i":${i}}`, created_at: 1_700_000_000_000_000n + BigInt(i), updated_at: null }));
    const stored = encodeRecords(family, records);
    const want = recordSetFingerprint(adapter, decodeParticipant(family, stored));
    for (const windowRows of [1, 2, 5, 23, 64]) {
      expect(runSync(recordSetSteps(adapter, verifiedBytes(stored), sha256Hex(stored), windowRows), undefined), `window ${windowRows}`).toBe(want);
    }
    // The plain one-batch layout, rows not in identity order (a foreign writer): found out, decoded whole, same fingerprint.
    const unsorted = tableToIPC(tableFromRecords(family, [...records].reverse()), 'file');
    expect(runSync(recordSetSteps(adapter, verifiedBytes(unsorted), sha256Hex(unsorted), 4), undefined)).toBe(want);
  });

  it('are kept on disk under cache/record-sets/ by object and adapter; a torn or foreign entry is never taken for a value', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-record-set-'));
    dirs.push(root);
    const cache = new DiskChangeCache(root);
    const adapter = adapterOf('graph/node');
    const key = recordSetKey(adapter, 'ab'.repeat(32));
    expect(key).not.toBe(recordSetKey(adapterOf('graph/edge'), 'ab'.repeat(32)));
    expect(loadRecordSet(cache, key)).toBeUndefined();
    const fp = 'cd'.repeat(32);
    storeRecordSet(cache, key, fp);
    expect(loadRecordSet(cache, key)).toBe(fp);
    const file = path.join(root, 'cache', 'record-sets', `${key}.fp`);
    expect(fs.readdirSync(path.dirname(file))).toEqual([`${key}.fp`]);
    // Another key's entry copied under this key: refused (the check binds the key).
    const otherKey = recordSetKey(adapter, 'ef'.repeat(32));
    storeRecordSet(cache, otherKey, fp);
    fs.copyFileSync(path.join(root, 'cache', 'record-sets', `${otherKey}.fp`), file);
    expect(loadRecordSet(cache, key)).toBeUndefined();
    // A flipped fingerprint byte, or a torn entry: refused.
    storeRecordSet(cache, key, fp);
    const bytes = fs.readFileSync(file);
    bytes[0] = (bytes[0] as number) ^ 1;
    fs.writeFileSync(file, bytes);
    expect(loadRecordSet(cache, key)).toBeUndefined();
    fs.writeFileSync(file, bytes.subarray(0, 40));
    expect(loadRecordSet(cache, key)).toBeUndefined();
  });
});
