import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGfError } from '../../../../core/errors';
import { createProject } from '../../../../core/project/index';
import { GRAPH_NODE, encodeRecords, registryCatalog } from '../../../../core/participants/index';
import { nodeRecords, putNodes } from '../../../support/project-fixtures';

// A refused publication takes back the objects it added: before, 17 refusals
// left 17 objects behind (and filled a small disk). Objects that were already
// there (named by earlier generations) stay.

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-refused-publish-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function objects(root: string): string[] {
  const dir = path.join(root, 'objects', 'sha256');
  return fs.readdirSync(dir).flatMap((fan) => fs.readdirSync(path.join(dir, fan)).map((o) => `${fan}/${o}`)).sort();
}

describe('a refused publication', () => {
  it('17 publications refused by a domain rule leave exactly the objects that were there before', async () => {
    const root = path.join(tmp, 'p');
    const p = await createProject<Table>(root, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(3, 'base')] });
    const before = objects(root);
    for (let i = 0; i < 17; i++) {
      // Distinct bytes each time (a new object per attempt), a blank label: refused at validation, after staging.
      const records = nodeRecords(2 + i, `bad${i}`).map((r, j) => (j === 0 ? { ...r, label: ' ' } : r));
      const bad = { kind: 'put' as const, capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, records) };
      let code: string | null = null;
      try {
        await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [bad] });
      } catch (e) {
        code = isGfError(e) ? `${e.code}:${String(e.committed)}` : 'other';
      }
      expect(code).toBe('GF_VALIDATION:false');
      expect(objects(root)).toEqual(before);
    }
    // A later good publication still works and adds its object.
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putNodes(4, 'good')] });
    expect(objects(root).length).toBe(before.length + 1);
  });
});
