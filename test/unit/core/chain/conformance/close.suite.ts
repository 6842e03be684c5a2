import { expect } from 'vitest';
import { errorIdOf } from './append.suite';
import { collect, simpleEvent } from './support';
import type { ConformanceCase } from './types';

/** `close` cases. */
export const CLOSE_CASES: readonly ConformanceCase[] = [
  {
    id: 'close-releases',
    operation: 'close',
    invariant: 'close: resolves once, and later calls reject with workflows.checkpoint_store_closed',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      await ctx.store.append(simpleEvent(wf));
      await ctx.store.close();
      expect(await errorIdOf(ctx.store.append(simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' })))).toBe('workflows.checkpoint_store_closed');
      expect(await errorIdOf(ctx.store.tailChainHead(wf))).toBe('workflows.checkpoint_store_closed');
      expect(await errorIdOf(collect(ctx.store.readAllForWorkflow(wf)))).toBe('workflows.checkpoint_store_closed');
      expect(await errorIdOf(ctx.store.lock(wf, async () => 1))).toBe('workflows.checkpoint_store_closed');
    },
  },
  {
    id: 'instance-frozen',
    operation: 'close',
    invariant: 'AC-14 frozen instances: an adapter instance is frozen, so a typo cannot create a stray attribute',
    async run(ctx) {
      const store = ctx.store as unknown as Record<string, unknown>;
      expect(Object.isFrozen(store)).toBe(true);
      expect(() => {
        store['_connetcion'] = 1;
      }).toThrow(TypeError);
      expect('_connetcion' in store).toBe(false);
    },
  },
];
