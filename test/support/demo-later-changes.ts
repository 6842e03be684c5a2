import { Checkpoints, openCheckpointedProject } from '../../core/checkpoints/checkpoints';
import { createDemoWorkspace } from '../../core/demo/create';
import { observeProject } from './project-state';

/** The demo's first checkpoint: every generation after it changes something. */
export const DEMO_FIRST_CHECKPOINT = 'Graph imported';

/**
 * Creates the small deterministic demo (20 records, seed 7) at `dir`, a
 * workspace whose generations after its first checkpoint change graph,
 * ontology, configuration, knowledge, epistemic and provenance records, and
 * returns the families whose records CURRENT holds differently from that
 * checkpoint (so a crash matrix can check that its fixture does not quietly
 * narrow).
 */
export async function createDemoWithLaterChanges(dir: string): Promise<ReadonlySet<string>> {
  await createDemoWorkspace(dir, { records: 20, seed: 7 });
  const demo = await openCheckpointedProject(dir);
  const first = new Checkpoints(demo).openCheckpoint(DEMO_FIRST_CHECKPOINT);
  try {
    const was = new Map(first.participants.map((p) => [`${p.capabilityId}/${p.recordFamilyId}`, p.contentSha256]));
    const current = observeProject(demo);
    return new Set(current.participants.filter((p) => was.get(p.family) !== p.sha256).map((p) => p.family));
  } finally {
    first.release();
  }
}

/** Families (one per scope the ADR names) whose later changes a crash matrix on the demo must include. */
export const LATER_CHANGE_FAMILIES: readonly string[] = [
  'graph/node',
  'workspace/ontology',
  'workspace/configuration',
  'knowledge/assertion',
  'epistemic/hypothesis',
  'provenance/event',
];
