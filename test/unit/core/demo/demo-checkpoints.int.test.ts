import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { DEMO_CHECKPOINTS, DEMO_DELETED_CHECKPOINT } from '../../../../core/demo/demo-checkpoints';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-demo-cp-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('demo workspace checkpoints', () => {
  it('names several generations through the public API and leaves one tombstone, deterministically', async () => {
    const dirs = [path.join(base, 'a'), path.join(base, 'b')];
    const results = [];
    for (const d of dirs) results.push(await createDemoWorkspace(d, { records: 40, seed: 7 }));
    const demo = results[0]!;
    const cps = new Checkpoints(await openCheckpointedProject(dirs[0]!));
    const active = cps.listCheckpoints({ limit: 100 }).rows;
    const expected = DEMO_CHECKPOINTS.filter((c) => c.name !== DEMO_DELETED_CHECKPOINT);
    expect(active.map((r) => r.name)).toEqual(expected.map((c) => c.name).sort());
    // Each name points at the generation its step published, all distinct.
    for (const c of expected) {
      const gen = [...demo.generations].reverse().find((g) => g.step === c.after)!;
      const row = active.find((r) => r.name === c.name)!;
      expect([row.generation_uuid, row.generation_manifest_sha256], c.name).toEqual([gen.generationUuid, gen.manifestSha256]);
      const view = cps.openCheckpoint(c.name);
      expect(view.generationUuid).toBe(gen.generationUuid);
      view.release();
    }
    expect(new Set(active.map((r) => r.generation_uuid)).size).toBe(expected.length);
    const doc = cps.registryState().doc!;
    expect(doc.tombstones.map((t) => t.name)).toEqual([DEMO_DELETED_CHECKPOINT]);
    expect(doc.revision).toBe(DEMO_CHECKPOINTS.length + 1);
    // Same (records, seed) → byte-identical registry.
    const bytes = dirs.map((d) => fs.readFileSync(path.join(d, 'checkpoints', 'registry.json')));
    expect(bytes[0]!.equals(bytes[1]!)).toBe(true);
  });
});
