import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { createDemoWorkspace } from '../core/demo/index';
import { CAPABILITY_DECLARATION, REGISTERED_CAPABILITIES, encodeRecords } from '../core/participants/index';
import { openProject } from '../core/project/index';
import { registryCatalog } from '../core/participants/index';
import type { ParticipantChange, Project } from '../core/project/index';
import { atomicReplace } from '../core/project/durable-fs';
import { defineBench } from './harness';
import type { BenchSize } from './harness';

// Publication cost is O(participants), not O(bytes): a one-participant change
// on a small and a large demo workspace, beside what a copying design would
// pay (every participant byte of the large workspace copied once, fsynced)
// and the unit every durable step costs (one atomic file replacement).

/** Graph records of the two demo workspaces compared in one run. */
const RECORDS: Readonly<Record<BenchSize, { readonly small: number; readonly large: number }>> = {
  tiny: { small: 50, large: 200 },
  small: { small: 1_000, large: 100_000 },
  large: { small: 1_000, large: 1_000_000 },
};

interface State {
  readonly small: Project<Table>;
  readonly large: Project<Table>;
  readonly largeDir: string;
  readonly scratch: string;
  counter: number;
}

/** A capability declaration participant that differs per run (a new object every publication). */
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

async function publishMs(p: Project<Table>, n: number): Promise<number> {
  const change = declarationChange(n);
  const t = performance.now();
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [change] });
  return performance.now() - t;
}

/** Copies every participant object of CURRENT once, fsyncing each file and the directory. */
function copyMs(p: Project<Table>, root: string, into: string): number {
  const lease = p.lease();
  const sources = lease.manifest.participants.map((e) => path.join(root, 'objects', 'sha256', e.contentSha256.slice(0, 2), e.contentSha256.slice(2)));
  lease.release();
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into);
  const t = performance.now();
  sources.forEach((src, i) => {
    const dst = path.join(into, `p${i}`);
    fs.copyFileSync(src, dst);
    const fd = fs.openSync(dst, 'r+');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  });
  const dfd = fs.openSync(into, 'r');
  fs.fsyncSync(dfd);
  fs.closeSync(dfd);
  return performance.now() - t;
}

function atomicReplaceMs(dir: string, n: number): number {
  const target = path.join(dir, 'replace-target.json');
  const bytes = new TextEncoder().encode(`{"format":"graphforge-project","format_version":1,"n":${n}}\n`);
  const reps = 20;
  const t = performance.now();
  for (let i = 0; i < reps; i++) atomicReplace(target, 'replace-target.json', `tmp-${n}-${i}`, bytes);
  return (performance.now() - t) / reps;
}

export const benchmarks = [
  defineBench<State>({
    id: 'project',
    results: {
      'project.publish_ms.small': 'ms',
      'project.publish_ms.large': 'ms',
      'project.copy_ms.large': 'ms',
      'fs.atomic_replace_ms': 'ms',
    },
    ratios: [
      { id: 'project.publish_large_over_small', numerator: 'project.publish_ms.large', denominator: 'project.publish_ms.small' },
      { id: 'project.publish_large_over_copy', numerator: 'project.publish_ms.large', denominator: 'project.copy_ms.large' },
    ],
    runs: 7,
    async setup({ size, tmpDir }) {
      const sizes = RECORDS[size];
      const smallDir = path.join(tmpDir, 'small');
      const largeDir = path.join(tmpDir, 'large');
      await createDemoWorkspace(smallDir, { records: sizes.small, seed: 1 });
      await createDemoWorkspace(largeDir, { records: sizes.large, seed: 1 });
      const scratch = path.join(tmpDir, 'scratch');
      fs.mkdirSync(scratch);
      return {
        small: await openProject<Table>(smallDir, { catalog: registryCatalog }),
        large: await openProject<Table>(largeDir, { catalog: registryCatalog }),
        largeDir,
        scratch,
        counter: 0,
      };
    },
    async run(s) {
      const n = s.counter++;
      const small = await publishMs(s.small, n);
      const large = await publishMs(s.large, n);
      const copy = copyMs(s.large, s.largeDir, path.join(s.scratch, 'copy'));
      return {
        'project.publish_ms.small': small,
        'project.publish_ms.large': large,
        'project.copy_ms.large': copy,
        'fs.atomic_replace_ms': atomicReplaceMs(s.scratch, n),
      };
    },
  }),
];
