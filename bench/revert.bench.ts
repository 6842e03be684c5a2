import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Table } from 'apache-arrow';
import { openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { createDemoWorkspace } from '../core/demo/index';
import { CAPABILITY_DECLARATION, REGISTERED_CAPABILITIES, encodeRecords } from '../core/participants/index';
import type { ParticipantChange, Project } from '../core/project/index';
import { RevertEngine } from '../core/revert/index';
import { defineBench } from './harness';
import type { BenchSize } from './harness';

// Revert cost is O(participants), not O(records): the checkpoint's
// participants are referenced by content address (no byte copied) and the
// complete-snapshot validation reuses results keyed by content digests. A
// revert on a 1,000-record and a 1,000,000-record demo, beside a
// one-participant publication on the small demo, in the same run. The
// unmeasured warm-up run pays the one cold validation of each participant set.

const RECORDS: Readonly<Record<BenchSize, { readonly small: number; readonly large: number }>> = {
  tiny: { small: 50, large: 200 },
  small: { small: 1_000, large: 100_000 },
  large: { small: 1_000, large: 1_000_000 },
};

const CHECKPOINT = 'Graph imported';

interface State {
  readonly small: Project<Table>;
  readonly large: Project<Table>;
  counter: number;
}

function declarationChange(n: number): ParticipantChange {
  return {
    kind: 'put',
    capabilityId: CAPABILITY_DECLARATION.capabilityId,
    recordFamilyId: CAPABILITY_DECLARATION.recordFamilyId,
    bytes: encodeRecords(
      CAPABILITY_DECLARATION,
      REGISTERED_CAPABILITIES.map((c) => ({ capability_id: c.capabilityId, capability_version: c.capabilityVersion, enabled: true, declared_at: 1_750_000_000_000_000n + BigInt(n) })),
    ),
  };
}

function key(n: number, which: number): string {
  return `018f0f4e-7b8c-7000-8000-${(n * 4 + which).toString(16).padStart(12, '0')}`;
}

async function revertMs(p: Project<Table>, n: number, which: number): Promise<number> {
  // Move CURRENT away from the checkpoint first (not measured), so every revert restores a real difference.
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [declarationChange(n * 4 + which)] });
  const engine = new RevertEngine(p, { clock: () => 1_760_000_000_000_000 + n });
  const t = performance.now();
  await engine.revertToCheckpoint({ name: CHECKPOINT, reason: `benchmark run ${n}`, idempotencyKey: key(n, which) });
  return performance.now() - t;
}

async function publishMs(p: Project<Table>, n: number): Promise<number> {
  const change = declarationChange(1_000_000 + n);
  const t = performance.now();
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [change] });
  return performance.now() - t;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One `gf` operation in a fresh process (bench/scale-child.ts): nothing memoized in memory, only what is on disk. */
function childMs(op: 'checkpoint' | 'revert', dir: string, arg?: string): number {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'scale-child.ts'), op, dir, ...(arg === undefined ? [] : [arg])], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`revert bench child ${op} exited ${String(r.status)}: ${r.stderr.trim()}`);
  return (JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { ms: number }).ms;
}

/**
 * Cold checkpoint create and revert (fresh processes) of one workspace: with
 * the validation records the demo's checkpoints and reverts left, and (the
 * same operations again) with `cache/validation/` removed first.
 */
async function coldMs(p: Project<Table>, n: number, which: number): Promise<{ create: number; revert: number; createNoRecord: number; revertNoRecord: number }> {
  const records = path.join(p.root, 'cache', 'validation');
  const run = async (k: number, drop: boolean): Promise<{ create: number; revert: number }> => {
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [declarationChange(n * 8 + which * 2 + k + 2_000_000)] });
    if (drop) fs.rmSync(records, { recursive: true, force: true });
    const revert = childMs('revert', p.root);
    // The revert wrote the restored generation's record: without records means without that one too.
    if (drop) fs.rmSync(records, { recursive: true, force: true });
    const create = childMs('checkpoint', p.root, `Cold ${n}-${which}-${k}`);
    return { create, revert };
  };
  const warm = await run(0, false);
  const saved = `${records}.bench-saved`;
  fs.cpSync(records, saved, { recursive: true });
  const cold = await run(1, true);
  // The next warm run starts from the records the demo and earlier runs left (the checkpoint's among them).
  fs.cpSync(saved, records, { recursive: true });
  fs.rmSync(saved, { recursive: true, force: true });
  return { create: warm.create, revert: warm.revert, createNoRecord: cold.create, revertNoRecord: cold.revert };
}

export const benchmarks = [
  defineBench<State>({
    id: 'revert',
    results: {
      'revert.ms.small': 'ms',
      'revert.ms.large': 'ms',
      'project.publish_ms.small': 'ms',
      'checkpoint.create_cold_ms.small': 'ms',
      'checkpoint.create_cold_ms.large': 'ms',
      'revert.cold_ms.small': 'ms',
      'revert.cold_ms.large': 'ms',
      'checkpoint.create_cold_no_record_ms.large': 'ms',
      'revert.cold_no_record_ms.large': 'ms',
    },
    ratios: [
      { id: 'revert.large_over_small', numerator: 'revert.ms.large', denominator: 'revert.ms.small' },
      { id: 'revert.large_over_publish', numerator: 'revert.ms.large', denominator: 'project.publish_ms.small' },
      { id: 'checkpoint.create_cold.large_over_small', numerator: 'checkpoint.create_cold_ms.large', denominator: 'checkpoint.create_cold_ms.small' },
      { id: 'revert.cold.large_over_small', numerator: 'revert.cold_ms.large', denominator: 'revert.cold_ms.small' },
      { id: 'checkpoint.create_cold.record_over_no_record', numerator: 'checkpoint.create_cold_ms.large', denominator: 'checkpoint.create_cold_no_record_ms.large' },
      { id: 'revert.cold.record_over_no_record', numerator: 'revert.cold_ms.large', denominator: 'revert.cold_no_record_ms.large' },
    ],
    runs: 3,
    async setup({ size, tmpDir }) {
      const sizes = RECORDS[size];
      const smallDir = path.join(tmpDir, 'small');
      const largeDir = path.join(tmpDir, 'large');
      await createDemoWorkspace(smallDir, { records: sizes.small, seed: 1 });
      await createDemoWorkspace(largeDir, { records: sizes.large, seed: 1 });
      return { small: await openCheckpointedProject(smallDir), large: await openCheckpointedProject(largeDir), counter: 0 };
    },
    async run(s) {
      const n = s.counter++;
      const small = await revertMs(s.small, n, 0);
      const large = await revertMs(s.large, n, 1);
      const publish = await publishMs(s.small, n);
      const coldSmall = await coldMs(s.small, n, 0);
      const coldLarge = await coldMs(s.large, n, 1);
      return {
        'revert.ms.small': small,
        'revert.ms.large': large,
        'project.publish_ms.small': publish,
        'checkpoint.create_cold_ms.small': coldSmall.create,
        'checkpoint.create_cold_ms.large': coldLarge.create,
        'revert.cold_ms.small': coldSmall.revert,
        'revert.cold_ms.large': coldLarge.revert,
        'checkpoint.create_cold_no_record_ms.large': coldLarge.createNoRecord,
        'revert.cold_no_record_ms.large': coldLarge.revertNoRecord,
      };
    },
  }),
];
