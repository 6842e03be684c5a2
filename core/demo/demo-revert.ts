import type { DemoStep } from './steps';
import { demoUuid } from './rng';
import { RevertEngine } from '../revert/revert';

/** The demo's one revert: after which step, to which checkpoint, and why. */
export const DEMO_REVERT = {
  after: 'checkpoint/curate-graph',
  checkpoint: 'Before curation',
  reason: 'The curation pass relinked the graph wrongly; restore the complete import and redo curation',
} as const;

/**
 * The demo history with one earlier revert, made through the public revert API.
 *
 * Right after the curation checkpoint, the workspace is reverted to
 * "Before curation" (a new generation; the curated one stays in history);
 * the script's later steps then build on the restored workspace. The clock
 * and idempotency key come from the script, so the demo stays a pure
 * function of (records, seed). A missing anchor step is a script bug.
 */
export function withDemoRevert(steps: readonly DemoStep[]): DemoStep[] {
  const at = steps.findIndex((s) => s.id === DEMO_REVERT.after);
  if (at < 0) throw new Error(`invariant violated: demo step ${DEMO_REVERT.after} is missing`);
  const step: DemoStep = {
    id: 'revert/before-curation',
    description: `Revert to "${DEMO_REVERT.checkpoint}" with a reason (generation-preserving)`,
    async run(ctx) {
      const engine = new RevertEngine(ctx.project, { clock: () => Number(ctx.clock.now()) });
      const receipt = await engine.revertToCheckpoint({
        name: DEMO_REVERT.checkpoint,
        reason: DEMO_REVERT.reason,
        idempotencyKey: ctx.uuid('revert'),
        actorUuid: demoUuid(ctx.seed, 'actor/curator'),
      });
      const current = ctx.project.current();
      if (current === null || receipt.result_generation_uuid !== current.generationUuid) throw new Error('invariant violated: demo revert result');
      ctx.recordGeneration({ generationUuid: current.generationUuid, manifestSha256: current.manifestSha256 });
    },
  };
  return [...steps.slice(0, at + 1), step, ...steps.slice(at + 1)];
}
