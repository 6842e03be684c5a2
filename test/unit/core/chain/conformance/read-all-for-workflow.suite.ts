import fc from 'fast-check';
import { expect } from 'vitest';
import { sanitizeEvent } from '../../../../../core/chain/sanitize';
import { collect, eventSpecArb, materialize } from './support';
import type { ConformanceCase } from './types';

/** `readAllForWorkflow` cases. */
export const READ_ALL_CASES: readonly ConformanceCase[] = [
  {
    id: 'append-order-reads',
    operation: 'readAllForWorkflow',
    invariant: 'AC-8 append-order reads: readAllForWorkflow yields exactly the appended (sanitized) events in append order',
    async run(ctx) {
      await fc.assert(
        fc.asyncProperty(fc.array(eventSpecArb, { minLength: 0, maxLength: 8 }), async (specs) => {
          const wf = ctx.freshWorkflowId();
          // Reverse-sorted ids: an adapter that orders by transition id (or head) instead of append order fails.
          const events = specs.map((s) => materialize(s, wf)).reverse();
          for (const e of events) await ctx.store.append(e);
          const read = await collect(ctx.store.readAllForWorkflow(wf));
          expect(read).toEqual(events.map(sanitizeEvent));
          for (const e of read) expect(Object.isFrozen(e) && Object.isFrozen(e.triggering_outcome)).toBe(true);
        }),
        { numRuns: ctx.numRuns },
      );
    },
  },
  {
    id: 'cross-workflow-filtering',
    operation: 'readAllForWorkflow',
    invariant: 'AC-8 cross-workflow filtering: interleaved appends to A and B read back as only A events (A order) and only B events (B order)',
    async run(ctx) {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), eventSpecArb), { minLength: 1, maxLength: 10 }), async (draws) => {
          const a = ctx.freshWorkflowId('a');
          const b = ctx.freshWorkflowId('b');
          const events = draws.map(([toA, s]) => materialize(s, toA ? a : b));
          for (const e of events) await ctx.store.append(e);
          expect(await collect(ctx.store.readAllForWorkflow(a))).toEqual(events.filter((e) => e.workflow_id === a).map(sanitizeEvent));
          expect(await collect(ctx.store.readAllForWorkflow(b))).toEqual(events.filter((e) => e.workflow_id === b).map(sanitizeEvent));
          expect(await collect(ctx.store.readAllForWorkflow(ctx.freshWorkflowId('none')))).toEqual([]);
        }),
        { numRuns: ctx.numRuns },
      );
    },
  },
];
