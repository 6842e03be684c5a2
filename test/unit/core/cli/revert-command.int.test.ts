import fs from 'node:fs';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { putConfig, putNodes } from '../../../support/project-fixtures';
import { counterClock, tempDir } from '../revert/revert-support';

const tmp = tempDir('gf-revert-cli-');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string; bytes: Uint8Array }> {
  const chunks: Uint8Array[] = [];
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (c) => {
      if (typeof c === 'string') out += c;
      else chunks.push(c);
    },
    stderr: (c) => {
      err += c;
    },
  });
  return { code, out, err, bytes: Buffer.concat(chunks) };
}

describe('gf checkpoint revert', () => {
  it('reverts with a generated key (printed), replays with it, refuses a missing reason and unknown names', async () => {
    const dir = path.join(tmp, 'p');
    const p = await createProject(dir, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(3, 'a'), putConfig('a')] });
    const project = await openCheckpointedProject(dir);
    const cp = await new Checkpoints(project, { clock: counterClock() }).checkpoint({ name: 'Base', idempotencyKey: '018f0f4e-7b8c-7000-8000-000000000b01' });
    await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [putNodes(5, 'b')] });
    const prior = project.current()?.generationUuid;

    const r = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', ' bad import ', '--json');
    expect(r.code).toBe(0);
    const key = /idempotency key: ([0-9a-f-]{36})/.exec(r.err)?.[1];
    expect(key).toBeDefined();
    const receipt = JSON.parse(r.out) as Record<string, unknown>;
    expect(receipt).toMatchObject({ operation: 'revert_to_checkpoint', operation_uuid: key, name: 'Base', source_generation_uuid: cp.source_generation_uuid, prior_current_generation_uuid: prior });
    expect(project.current()?.generationUuid).toBe(receipt['result_generation_uuid']);

    const again = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', 'bad import', '--idempotency-key', key!, '--arrow');
    expect(again.code).toBe(0);
    const t = tableFromIPC(again.bytes);
    expect(t.schema.metadata.get('graphforge.contract.result_schema')).toBe('checkpoint_receipt@1');
    expect(t.numRows).toBe(1);
    expect(project.current()?.generationUuid).toBe(receipt['result_generation_uuid']);

    const conflict = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', 'other', '--idempotency-key', key!);
    expect(conflict.code).toBe(1);
    expect(conflict.err).toContain('GF_IDEMPOTENCY_CONFLICT');
    expect(conflict.err).not.toContain('other');
    const missing = await gf('checkpoint', 'revert', 'Base', '--project', dir);
    expect(missing.code).toBe(2);
    const blank = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', '   ');
    expect(blank.code).toBe(1);
    expect(blank.err).toContain('GF_VALIDATION');
    const unknown = await gf('checkpoint', 'revert', 'Nope', '--project', dir, '--reason', 'x');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('GF_CHECKPOINT_NOT_FOUND');
  });

  it('--preview shows what would change and writes nothing; --timeout-ms is the contract\'s timeout_ms', async () => {
    const dir = path.join(tmp, 'preview');
    await createProject(dir, { catalog: registryCatalog });
    const project = await openCheckpointedProject(dir);
    await project.publish({ parent: null, changes: [putNodes(3, 'a'), putConfig('a')] });
    await new Checkpoints(project, { clock: counterClock() }).checkpoint({ name: 'Base', idempotencyKey: '018f0f4e-7b8c-7000-8000-000000000b11' });
    await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [putNodes(5, 'b')] });
    const before = project.current()?.generationUuid;

    const text = await gf('checkpoint', 'revert', 'Base', '--preview', '--project', dir);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/modified\tgraph\/node\t5 → 3 rows/);
    const json = await gf('checkpoint', 'revert', 'Base', '--preview', '--project', dir, '--json');
    const preview = JSON.parse(json.out) as { current_generation_uuid: string; changes: { record_family_id: string; change_kind: string }[] };
    expect(preview.current_generation_uuid).toBe(before);
    expect(preview.changes.find((c) => c.record_family_id === 'node')?.change_kind).toBe('modified');
    expect(project.current()?.generationUuid).toBe(before);
    const mixed = await gf('checkpoint', 'revert', 'Base', '--preview', '--reason', 'x', '--project', dir);
    expect([mixed.code, /GF_VALIDATION/.test(mixed.err)]).toEqual([1, true]);

    const badTimeout = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', 'x', '--timeout-ms', 'soon');
    expect([badTimeout.code, /GF_VALIDATION/.test(badTimeout.err)]).toEqual([1, true]);
    const waited = await gf('checkpoint', 'revert', 'Base', '--project', dir, '--reason', 'roll back', '--timeout-ms', '2000', '--json');
    expect(waited.code).toBe(0);
    expect(project.current()?.generationUuid).toBe((JSON.parse(waited.out) as { result_generation_uuid: string }).result_generation_uuid);
  });
});
