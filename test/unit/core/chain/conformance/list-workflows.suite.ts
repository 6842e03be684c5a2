import { expect } from 'vitest';
import { errorIdOf } from './append.suite';
import { simpleEvent } from './support';
import type { ConformanceCase } from './types';

/** `listWorkflows` cases. */
export const LIST_CASES: readonly ConformanceCase[] = [
  {
    id: 'list-workflows',
    operation: 'listWorkflows',
    invariant: 'listing: listWorkflows returns every workflow with a persisted row, sorted, and none whose appends were all rejected',
    async run(ctx) {
      const ids = [ctx.freshWorkflowId('zeta'), ctx.freshWorkflowId('alpha'), ctx.freshWorkflowId('Mid')];
      for (const id of ids) await ctx.store.append(simpleEvent(id));
      const rejected = ctx.freshWorkflowId('rejected');
      expect(await errorIdOf(ctx.store.append(simpleEvent(rejected, { prior: 'gate_failed_retryable', next: 'needs_plan' })))).toBe(
        'workflows.checkpoint_boundary_violation',
      );
      await ctx.store.tailChainHead(ctx.freshWorkflowId('only-read'));
      const listed = await ctx.store.listWorkflows();
      const mine = listed.filter((id) => ids.includes(id) || id === rejected || id.startsWith('only-read'));
      expect(mine).toEqual([...ids].sort());
      expect([...listed]).toEqual([...listed].sort());
    },
  },
];
