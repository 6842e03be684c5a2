import path from 'node:path';
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

export const benchmarks = [
  defineBench<State>({
    id: 'revert',
    results: {
      'revert.ms.small': 'ms',
      'revert.ms.large': 'ms',
      'project.publish_ms.small': 'ms',
    },
    ratios: [
      { id: 'revert.large_over_small', numerator: 'revert.ms.large', denominator: 'revert.ms.small' },
      { id: 'revert.large_over_publish', numerator: 'revert.ms.large', denominator: 'project.publish_ms.small' },
    ],
    runs: 7,
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
      return { 'revert.ms.small': small, 'revert.ms.large': large, 'project.publish_ms.small': publish };
    },
  }),
];
