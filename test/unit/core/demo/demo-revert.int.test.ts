import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { WORKSPACE_RESTORATION_TRANSITION, recordsFromTable } from '../../../../core/participants/index';
import { DEMO_REVERT } from '../../../../core/demo/demo-revert';
import { tempDir } from '../revert/revert-support';
import { leaseRecordedGeneration } from '../../../../core/project/named-lease';

const tmp = tempDir('gf-demo-revert-');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('demo revert', () => {
  it('the demo history holds one earlier revert, with its reason, made through the public API', { timeout: 120_000 }, async () => {
    const dir = path.join(tmp, 'demo');
    const r = await createDemoWorkspace(dir, { records: 120, seed: 3 });
    const p = await openCheckpointedProject(dir);
    const reverts = r.generations.filter((g) => g.step === 'revert/before-curation');
    expect(reverts).toHaveLength(1);
    const g = reverts[0]!;
    // Not the last generation: later steps build on the restored workspace.
    expect(r.generations.at(-1)?.generationUuid).not.toBe(g.generationUuid);
    const lease = leaseRecordedGeneration(p, g.generationUuid, g.manifestSha256);
    const rows = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, lease.readTable(WORKSPACE_RESTORATION_TRANSITION.key) as Table);
    const source = new Checkpoints(p).showCheckpoint(DEMO_REVERT.checkpoint);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: DEMO_REVERT.reason, source_generation_uuid: source.generation_uuid, restored_generation_uuid: g.generationUuid, prior_current_generation_uuid: lease.manifest.parentGenerationUuid });
    // The restored generation holds exactly the checkpoint's participants plus the restoration record.
    const src = leaseRecordedGeneration(p, source.generation_uuid, source.generation_manifest_sha256);
    expect(lease.manifest.participants.filter((x) => x.recordFamilyId !== 'restoration_transition').map((x) => x.contentSha256)).toEqual(src.manifest.participants.map((x) => x.contentSha256));
    src.release();
    lease.release();
  });
});
