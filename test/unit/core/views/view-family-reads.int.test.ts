// ADR-0014 "view reads load only the requested family": reading one family's
// records from a checkpoint view touches that family's object and no other
// participant's (shown by moving every other object away on the real disk).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { objectPlace } from '../../../../core/project/index';
import type { Project } from '../../../../core/project/index';
import type { Table } from 'apache-arrow';
import { codeOf, demoProject, tempDir } from '../revert/revert-support';

let tmp: string;
let project: Project<Table>;

beforeAll(async () => {
  tmp = tempDir('gf-view-reads-');
  project = await demoProject(path.join(tmp, 'demo'), 40);
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('view_reads_load_only_the_requested_family', () => {
  it('with every other participant object moved away, graph/node records still read; a moved family does not', async () => {
    const cps = new Checkpoints(project);
    const name = cps.listCheckpoints({ limit: 1 }).rows[0]?.name ?? '';
    const view = cps.openCheckpoint(name);
    const node = view.participants.find((p) => p.capabilityId === 'graph' && p.recordFamilyId === 'node');
    const others = view.participants.filter((p) => p.contentSha256 !== node?.contentSha256);
    expect(others.length).toBeGreaterThan(3);
    const root = path.join(tmp, 'demo');
    const moved = others.map((p) => objectPlace(root, p.contentSha256).abs);
    for (const f of moved) fs.renameSync(f, `${f}.away`);
    try {
      const page = view.readRecords('graph/node', { limit: 5 });
      expect(page.bytes.length).toBeGreaterThan(0);
      // The hiding is effective: a family whose object is away cannot be read.
      const other = others[0];
      expect(await codeOf(() => view.readRecords(`${other?.capabilityId}/${other?.recordFamilyId}`, { limit: 5 }))).not.toBe('accepted');
    } finally {
      for (const f of moved) fs.renameSync(`${f}.away`, f);
      view.release();
    }
  });
});
