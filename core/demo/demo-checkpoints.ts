import type { DemoContext, DemoStep } from './steps';
import { demoUuid } from './rng';
import { Checkpoints } from '../checkpoints/checkpoints';
import { validateCurrentByRows } from './demo-validation';

/**
 * The demo workspace's named checkpoints: which generation (the one published by
 * step `after`) gets which name. One of them is deleted at the end of the
 * script, so the demo registry has a tombstone too.
 */
export const DEMO_CHECKPOINTS = [
  { after: 'import-graph', name: 'Graph imported', description: 'The research graph alone, before provenance and knowledge' },
  { after: 'import-epistemic', name: 'Before curation', description: 'Complete import: graph, provenance, knowledge and hypotheses' },
  { after: 'curate-graph', name: 'Curation scratch', description: 'A temporary mark during curation' },
  { after: 'strict-ontology', name: 'Strict ontology', description: 'First generation under the strict ontology' },
  { after: 'revise-knowledge', name: 'Release 1.0', description: 'release candidate' },
] as const;

/** The demo checkpoint that is deleted (its tombstone stays in the registry). */
export const DEMO_DELETED_CHECKPOINT = 'Curation scratch';

function facade(ctx: DemoContext): Checkpoints {
  // The script's clock, so the registry bytes are a pure function of (records, seed).
  return new Checkpoints(ctx.project, { clock: () => Number(ctx.clock.now()) });
}

function actor(ctx: DemoContext): string {
  return demoUuid(ctx.seed, 'actor/curator');
}

/**
 * The demo history with checkpoint steps interleaved, through the public checkpoint API.
 *
 * Each checkpoint step names CURRENT right after its `after` step; a final
 * step deletes `DEMO_DELETED_CHECKPOINT`. Operation UUIDs derive from the
 * seed and step id, so rebuilding the demo replays nothing and conflicts with
 * nothing. A missing `after` step is a bug in the script (caught by tests).
 */
export function withDemoCheckpoints(steps: readonly DemoStep[]): DemoStep[] {
  const out: DemoStep[] = [];
  for (const step of steps) {
    out.push(step);
    for (const cp of DEMO_CHECKPOINTS.filter((c) => c.after === step.id)) {
      out.push({
        id: `checkpoint/${step.id}`,
        description: `Name the generation of "${step.id}" as a checkpoint`,
        async run(ctx) {
          validateCurrentByRows(ctx.project);
          await facade(ctx).checkpoint({ name: cp.name, description: cp.description, idempotencyKey: ctx.uuid('create'), actorUuid: actor(ctx) });
        },
      });
    }
  }
  for (const cp of DEMO_CHECKPOINTS) {
    if (!steps.some((s) => s.id === cp.after)) throw new Error(`invariant violated: demo step ${cp.after} is missing`);
  }
  out.push({
    id: 'checkpoint/delete-scratch',
    description: 'Delete the scratch checkpoint (a tombstone remains)',
    async run(ctx) {
      await facade(ctx).deleteCheckpoint({ name: DEMO_DELETED_CHECKPOINT, idempotencyKey: ctx.uuid('delete'), actorUuid: actor(ctx) });
    },
  });
  return out;
}
