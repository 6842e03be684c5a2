import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Table } from 'apache-arrow';
import { recordFingerprints, toHex } from '../../../../core/canonical';
import { CHANGE_CACHE_DIR, DiskChangeCache } from '../../../../core/diff/changes-cache';
import { DIFF_ADAPTERS } from '../../../../core/diff/plan-adapters';
import { diffAllRecords, diffEndpoints } from '../../../../core/diff/page-diff';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import { FamilyDiff } from '../../../../core/diff/merge-family-diff';
import { bindAlignedRanges, bindIdentity, prepareSide } from '../../../../core/diff/merge-raw-rows';
import { familyByKey, tableFromRecords } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { model, pairArb, participant, rowsOf } from './block-model';
import type { Row } from './block-model';
import { SECRET, endpoint, storedRecords, uuidOf } from './diff-support';

// The block merge (aligned runs compared column by column on raw buffers,
// only differing rows hashed) against a simple model — set difference on
// identities plus canonical record fingerprints — on tables large enough
// for long aligned runs, galloping, halving and native range comparisons,
// with edits that change bytes but not canonical values (-0/+0), nulls,
// non-ASCII text, and other physical layouts on one side.

const FAMILIES = ['graph/node', 'graph/edge', 'capabilities/declaration', 'knowledge/evidence_link'].map((k) => familyByKey(k) as RecordFamily);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('block merge on raw column buffers', () => {
  for (const family of FAMILIES) {
    it(`agrees with the set-difference + fingerprint model on large sparse edits: ${family.key}`, () => {
      fc.assert(
        fc.property(pairArb(family), ({ from, to, layout }) => {
          const a = endpoint(uuidOf('A'), [participant(family, from, 0)]);
          const b = endpoint(uuidOf('B'), [participant(family, to, layout)]);
          expect(rowsOf(diffAllRecords(a, b, 'all'))).toEqual(model(family, from, to));
        }),
        { numRuns: 6 },
      );
    });
  }

  it('marks every row whose bytes differ and never a pair it proves equal (aligned ranges vs row-by-row fingerprints)', () => {
    const family = familyByKey('graph/edge') as RecordFamily;
    const adapter = DIFF_ADAPTERS.find((x) => x.family === family)!;
    fc.assert(
      fc.property(pairArb(family), fc.integer({ min: 1, max: 300 }), ({ from, to }, maxRun) => {
        const sa = prepareSide(adapter, tableFromRecords(family, from));
        const sb = prepareSide(adapter, tableFromRecords(family, to));
        const ranges = bindAlignedRanges(sa, sb);
        const cmp = bindIdentity(sa, sb);
        const hexes = (t: Table): string[] => {
          const all = t.numRows === 0 ? new Uint8Array(0) : recordFingerprints(t, family.fingerprintDomain);
          return Array.from({ length: t.numRows }, (_, k) => toHex(all.subarray(k * 32, k * 32 + 32)));
        };
        const fa = { rec: hexes(sa.table) };
        const fb = { rec: hexes(sb.table) };
        let a = 0;
        let b = 0;
        const marks = new Uint32Array(maxRun);
        while (a < sa.rows && b < sb.rows) {
          const max = Math.min(maxRun, sa.rows - a, sb.rows - b);
          const run = ranges.alignedRun(a, b, max);
          // The run is exactly the longest prefix of equal identities.
          for (let k = 0; k < run; k++) expect(cmp(a + k, b + k)).toBe(0);
          if (run < max) expect(cmp(a + run, b + run)).not.toBe(0);
          if (run === 0) {
            if (cmp(a, b) < 0) a++;
            else b++;
            continue;
          }
          ranges.markDiffering(a, b, run, marks);
          for (let k = 0; k < run; k++) {
            // Sound: an unmarked pair is canonically equal. (A marked pair may still be equal, e.g. -0 and +0.)
            if (marks[k] === 0) expect(fa.rec[a + k]).toBe(fb.rec[b + k]);
            else if (fa.rec[a + k] !== fb.rec[b + k]) expect(marks[k]).toBeGreaterThan(0);
          }
          marks.fill(0);
          a += run;
          b += run;
        }
      }),
      { numRuns: 8 },
    );
  });

  it('a first page streamed to limit + 1 equals the start of the whole family diff', () => {
    const family = familyByKey('graph/node') as RecordFamily;
    const adapter = DIFF_ADAPTERS.find((x) => x.family === family)!;
    fc.assert(
      fc.property(pairArb(family), fc.integer({ min: 1, max: 40 }), ({ from, to }, limit) => {
        const pair = { adapter, from: prepareSide(adapter, tableFromRecords(family, from)), to: prepareSide(adapter, tableFromRecords(family, to)) };
        const whole = new FamilyDiff(pair);
        const all = whole.newList();
        expect([...whole.collect(all)].every((e) => e.effect === 'pause')).toBe(true);
        const part = new FamilyDiff(pair);
        const some = part.newList();
        const steps = part.collect(some, 0, 0, limit + 1);
        let r = steps.next();
        while (r.done !== true) r = steps.next();
        // Complete exactly when the stream reached the end of both sides (not known when it stopped right at limit + 1).
        if (all.length < limit + 1) expect(r.value).toBe(true);
        if (all.length > limit + 1) expect(r.value).toBe(false);
        expect(some.length).toBe(Math.min(all.length, limit + 1));
        for (let i = 0; i < some.length; i++) expect(some.at(i)).toEqual(all.at(i));
      }),
      { numRuns: 10 },
    );
  });
});

describe('page seeking', () => {
  it('walking every page (seeking from each token, with a cold, warm or dropped change cache) gives exactly the unpaged rows', () => {
    const node = familyByKey('graph/node') as RecordFamily;
    const edge = familyByKey('graph/edge') as RecordFamily;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-seek-'));
    dirs.push(root);
    fc.assert(
      fc.property(pairArb(node, 200), pairArb(edge, 120), fc.integer({ min: 4, max: 60 }), fc.constantFrom('none', 'cache', 'drop'), (n, e, limit, mode) => {
        const a = endpoint(uuidOf('A'), [storedRecords(node, n.from), storedRecords(edge, e.from)]);
        const b = endpoint(uuidOf('B'), [participant(node, n.to, n.layout), storedRecords(edge, e.to)]);
        const binding = { selectorsSha256: selectorsDigest('a', 'b') };
        const all = rowsOf(diffAllRecords(a, b, 'all'));
        const cacheDir = fs.mkdtempSync(path.join(root, 'c-'));
        const cache = mode === 'none' ? undefined : new DiskChangeCache(cacheDir);
        const walked: Row[] = [];
        let after: string | null = null;
        let pages = 0;
        do {
          if (mode === 'drop') fs.rmSync(path.join(cacheDir, ...CHANGE_CACHE_DIR), { recursive: true, force: true });
          const p = diffEndpoints(a, b, resolveDiffParams({ scope: 'all', detail: 'records', limit, after }), binding, { secret: SECRET, cache });
          expect(p.table.numRows).toBeLessThanOrEqual(limit);
          walked.push(...rowsOf(p.table));
          after = p.nextPageToken;
          if (after !== null) expect(p.table.numRows).toBe(limit);
          pages++;
        } while (after !== null);
        expect(walked).toEqual(all);
        expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
      }),
      { numRuns: 5 },
    );
  });
});
