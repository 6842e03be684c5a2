import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';

// Defect 7 of issue 23: idempotency keys are unique across kinds.

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-idem-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('defect 7: idempotency keys are not unique across kinds', () => {
  it('a revert key reused for a create or a delete, and a create key reused for a revert, are GF_IDEMPOTENCY_CONFLICT; nothing changes', async () => {
    const dir = path.join(base, 'ws');
    fs.cpSync(demo, dir, { recursive: true });
    const revertKey = '018f0f4e-7b8c-7000-8000-00000000f001';
    const createKey = '018f0f4e-7b8c-7000-8000-00000000f002';
    const r = await gf('checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'x', '--idempotency-key', revertKey);
    expect(r.code).toBe(0);
    const registry = fs.readFileSync(path.join(dir, 'checkpoints', 'registry.json'));
    const asCreate = await gf('checkpoint', 'create', 'Reused', '--project', dir, '--idempotency-key', revertKey);
    expect(asCreate.code).toBe(1);
    expect(asCreate.err).toMatch(/^GF_IDEMPOTENCY_CONFLICT: .*\(committed: false\)/);
    const asDelete = await gf('checkpoint', 'delete', 'Graph imported', '--project', dir, '--idempotency-key', revertKey);
    expect(asDelete.err).toMatch(/^GF_IDEMPOTENCY_CONFLICT/);
    expect(fs.readFileSync(path.join(dir, 'checkpoints', 'registry.json'))).toEqual(registry);

    const c = await gf('checkpoint', 'create', 'Fresh', '--project', dir, '--idempotency-key', createKey);
    expect(c.code).toBe(0);
    const current = fs.readFileSync(path.join(dir, 'CURRENT'));
    const asRevert = await gf('checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'x', '--idempotency-key', createKey);
    expect(asRevert.code).toBe(1);
    expect(asRevert.err).toMatch(/^GF_IDEMPOTENCY_CONFLICT/);
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(current);
  });
});
