import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { RECORD_FAMILIES, familyByKey, validateParticipant, validateSnapshot } from '../../../../core/participants/index';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { treeDigest } from '../../../support/project-state';
import { leaseRecordedGeneration } from '../../../../core/project/named-lease';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-demo-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** objects/, every manifest, CURRENT and the lineage log (lock files and journals are not workspace content). */
function content(dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(treeDigest(dir)).filter(([k]) => k.startsWith('objects/') || k.endsWith('/manifest.json') || k === 'CURRENT' || k === 'history/lineage.jsonl'),
  );
}

describe('gf demo create', () => {
  it('is byte-identical for the same seed and different for another', { timeout: 120_000 }, async () => {
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    const c = path.join(tmp, 'c');
    const ra = await createDemoWorkspace(a, { records: 400, seed: 42 });
    const rb = await createDemoWorkspace(b, { records: 400, seed: 42 });
    const rc = await createDemoWorkspace(c, { records: 400, seed: 43 });
    expect(rb).toEqual(ra);
    const ca = content(a);
    expect(Object.keys(ca).filter((k) => k.startsWith('objects/')).length).toBeGreaterThan(10);
    expect(Object.keys(ca)).toContain('history/lineage.jsonl');
    expect(content(b)).toEqual(ca);
    expect(content(c)).not.toEqual(ca);
    expect(rc.generations.map((g) => g.generationUuid)).not.toEqual(ra.generations.map((g) => g.generationUuid));
  });

  it('builds a real history of at least eight valid generations covering every scope', { timeout: 120_000 }, async () => {
    const dir = path.join(tmp, 'h');
    const r = await createDemoWorkspace(dir, { records: 600, seed: 5 });
    const p = await openProject<Table>(dir, { catalog: registryCatalog, retainAncestors: 64 });
    const history = p.history();
    expect(history.length).toBe(r.generations.length);
    expect(history.length).toBeGreaterThanOrEqual(8);
    expect(history.map((g) => g.generationUuid).reverse()).toEqual(r.generations.map((g) => g.generationUuid));
    const scopes = new Set<string>();
    const familiesSeen: string[][] = [];
    for (const g of history) {
      const lease = leaseRecordedGeneration(p, g.generationUuid, g.manifestSha256 ?? '');
      try {
        lease.verifyParticipants();
        const tables = new Map<string, Table>();
        for (const key of lease.families()) tables.set(key, lease.readTable(key) as Table);
        for (const [key, t] of tables) {
          const fam = familyByKey(key);
          if (fam === undefined) throw new Error('registered');
          validateParticipant(fam, t);
          if (t.numRows > 0) scopes.add(fam.scope);
        }
        // Every cross-domain rule, not only the changed ones.
        validateSnapshot({ families: () => tables.keys(), get: (k) => tables.get(k) });
        familiesSeen.push(lease.families());
      } finally {
        lease.release();
      }
    }
    const expected = new Set(RECORD_FAMILIES.map((f) => f.scope).filter((s) => s !== 'workspace'));
    expect([...expected].filter((s) => !scopes.has(s))).toEqual([]);
    // A removed family: present in an older generation, absent from CURRENT.
    expect(familiesSeen.some((f) => f.includes('knowledge/confidence_assessment'))).toBe(true);
    expect(familiesSeen[0]).not.toContain('knowledge/confidence_assessment');
    const lease = p.lease();
    const nodes = lease.readTable('graph/node')?.numRows ?? 0;
    const edges = lease.readTable('graph/edge')?.numRows ?? 0;
    lease.release();
    expect(nodes + edges).toBeGreaterThanOrEqual(600);
  });
});
