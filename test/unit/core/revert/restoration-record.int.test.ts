import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { CAPABILITY_DECLARATION, REGISTERED_CAPABILITIES, WORKSPACE_RESTORATION_TRANSITION, encodeRecords, recordsFromTable } from '../../../../core/participants/index';
import type { Project } from '../../../../core/project/index';
import { RevertEngine, ValidationMemo } from '../../../../core/revert/index';
import { demoProject, tempDir } from './revert-support';

// The restoration record exactly as the checkpoint contract says (issue 21
// item 7; checkpoint-api-v1.json restoration_transition: cardinality
// "exactly-one-in-restored-generation"): the generation a revert publishes
// holds exactly one row whose restored_generation_uuid is that generation;
// a later publication does not carry the record forward (a later generation
// was not restored), and a publication whose restoration row names another
// generation is refused before anything changes.

let tmp: string;
let dir: string;
let project: Project<Table>;
const KEY = '018f0f4e-7b8c-7000-8000-00000000bb01';
const KEY2 = '018f0f4e-7b8c-7000-8000-00000000bb02';
const KEY3 = '018f0f4e-7b8c-7000-8000-00000000bb03';

function restorationRows(p: Project<Table>): { generation: string; rows: Record<string, unknown>[] | 'absent' } {
  const lease = p.lease();
  try {
    const t = lease.participant(WORKSPACE_RESTORATION_TRANSITION.key) === undefined ? undefined : lease.readTable(WORKSPACE_RESTORATION_TRANSITION.key);
    return { generation: lease.generationUuid, rows: t === undefined ? 'absent' : recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, t) };
  } finally {
    lease.release();
  }
}

/** A later change that exists in every generation the tests reach: the capability declarations. */
function laterChange(at: bigint) {
  const bytes = encodeRecords(
    CAPABILITY_DECLARATION,
    REGISTERED_CAPABILITIES.map((c) => ({ capability_id: c.capabilityId, capability_version: c.capabilityVersion, enabled: true, declared_at: at })),
  );
  return { kind: 'put' as const, capabilityId: 'capabilities', recordFamilyId: 'declaration', bytes };
}

beforeAll(async () => {
  tmp = tempDir('gf-restoration-');
  dir = path.join(tmp, 'demo');
  project = await demoProject(dir, 60);
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('restoration_transition_exactly_one_in_restored_generation', () => {
  it('the restored generation holds exactly one row naming itself', async () => {
    const receipt = await new RevertEngine(project, { clock: () => 1_765_000_000_000_000, memo: new ValidationMemo() }).revertToCheckpoint({ name: 'Graph imported', reason: 'item 7', idempotencyKey: KEY });
    const seen = restorationRows(project);
    expect(seen.generation).toBe(receipt.result_generation_uuid);
    expect(seen.rows).toHaveLength(1);
    const [row] = seen.rows as Record<string, unknown>[];
    expect(row?.['restored_generation_uuid']).toBe(seen.generation);
    expect(row?.['prior_current_generation_uuid']).toBe(receipt.prior_current_generation_uuid);
    await new Checkpoints(project).checkpoint({ name: 'Restored', idempotencyKey: KEY3 });
  });

  it('a later publication does not carry the restoration record forward', async () => {
    const restored = project.current()?.generationUuid;
    await project.publish({ parent: restored ?? null, changes: [laterChange(1_790_000_000_000_000n)] });
    const seen = restorationRows(project);
    expect(seen.generation).not.toBe(restored);
    expect(seen.rows).toBe('absent');
  });

  it('a revert of a restored generation writes its own one row (the source row is replaced, not kept)', async () => {
    const p = await openCheckpointedProject(dir);
    // "Restored" names the generation the first revert published (it holds that revert's row).
    const named = 'Restored';
    const receipt = await new RevertEngine(p, { clock: () => 1_766_000_000_000_000, memo: new ValidationMemo() }).revertToCheckpoint({ name: named, reason: 'again', idempotencyKey: KEY2 });
    const seen = restorationRows(p);
    expect(seen.rows).toHaveLength(1);
    expect((seen.rows as Record<string, unknown>[])[0]?.['restored_generation_uuid']).toBe(receipt.result_generation_uuid);
  });

  it('a restoration row naming another generation is refused (GF_VALIDATION, containing_generation) and CURRENT does not move', async () => {
    const lease = project.lease();
    const prior = lease.generationUuid;
    lease.release();
    const row = {
      restoration_uuid: '018f0f4e-7b8c-8000-8000-0000000000c1',
      checkpoint_uuid: '018f0f4e-7b8c-8000-8000-0000000000c2',
      source_generation_uuid: '018f0f4e-7b8c-8000-8000-0000000000c3',
      source_manifest_sha256: 'ab'.repeat(32),
      prior_current_generation_uuid: prior,
      restored_generation_uuid: '018f0f4e-7b8c-8000-8000-0000000000c4',
      operation_uuid: '018f0f4e-7b8c-8000-8000-0000000000c5',
      actor_uuid: null,
      reason: 'forged',
      restored_at: 1_767_000_000_000_000n,
      contract_version: 1,
    };
    const before = fs.readFileSync(path.join(dir, 'CURRENT'));
    const err = await project
      .publish({ parent: project.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'workspace', recordFamilyId: 'restoration_transition', bytes: encodeRecords(WORKSPACE_RESTORATION_TRANSITION, [row]) }] })
      .then(() => undefined, (e: { code: string; committed?: boolean; details: Record<string, unknown> }) => e);
    expect({ code: err?.code, rule: err?.details['rule'], committed: err?.committed }).toEqual({ code: 'GF_VALIDATION', rule: 'workspace.restoration_transition.containing_generation', committed: false });
    expect(project.current()?.generationUuid).toBe(prior);
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(before);
  });
});
