// A small real workspace for the surface tests: two generations, two named
// checkpoints, and the demo ledgers (one tampered) in the project's chain store.
import { join } from 'node:path';
import { tamperDemoLedger, writeDemoLedgers } from '../../core/demo/demo-ledgers';
import { SqliteChainStore } from '../../core/chain/sqlite/sqlite-store';
import { Checkpoints, openCheckpointedProject } from '../../core/checkpoints/checkpoints';
import { createProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import { putConfig, putEdges, putNodes, testUuid } from './project-fixtures';

/** What the workspace holds. */
export interface ApiWorkspace {
  readonly dir: string;
  readonly generations: readonly string[];
  readonly checkpoints: readonly string[];
}

/** Fixed clock for checkpoint records (microseconds). */
export const API_CLOCK_US = 1_767_225_600_000_000;

/** Builds the workspace in `dir` (which must not exist or be empty). */
export async function buildApiWorkspace(dir: string): Promise<ApiWorkspace> {
  await createProject(dir, { catalog: registryCatalog });
  const p = await openCheckpointedProject(dir);
  const cps = new Checkpoints(p, { clock: () => API_CLOCK_US });
  const g1 = await p.publish({ parent: null, changes: [putNodes(6, 'w'), putEdges(4, 'w'), putConfig('one')] });
  await cps.checkpoint({ name: 'baseline', idempotencyKey: testUuid('op-baseline'), description: 'first import' });
  const g2 = await p.publish({ parent: g1.generationUuid, changes: [putNodes(9, 'w'), putConfig('two')] });
  await cps.checkpoint({ name: 'more nodes', idempotencyKey: testUuid('op-more') });
  const chainRoot = join(dir, 'chain');
  const store = new SqliteChainStore(chainRoot, { clock: () => new Date(Date.UTC(2026, 0, 5)) });
  try {
    await writeDemoLedgers(store, { manifestSha256: [g1.manifestSha256, g2.manifestSha256] });
  } finally {
    await store.close();
  }
  await tamperDemoLedger(chainRoot);
  return { dir, generations: [g2.generationUuid, g1.generationUuid], checkpoints: ['baseline', 'more nodes'] };
}
