import fc from 'fast-check';
import { expect } from 'vitest';
import { GENESIS } from '../../../../../core/chain/head';
import { verify } from '../../../../../core/chain/verify';
import { sanitizeEvent } from '../../../../../core/chain/sanitize';
import { alteredHead, collect, eventSpecArb, expectedHeads, materialize, simpleEvent } from './support';
import type { ConformanceCase } from './types';

/** `tailChainHead` cases. */
export const TAIL_CASES: readonly ConformanceCase[] = [
  {
    id: 'stability',
    operation: 'tailChainHead',
    invariant: 'AC-7 stability: tailChainHead is GENESIS for an empty workflow and byte-equal across calls, equal to the last append result',
    async run(ctx) {
      expect(await ctx.store.tailChainHead(ctx.freshWorkflowId())).toBe(GENESIS);
      await fc.assert(
        fc.asyncProperty(fc.array(eventSpecArb, { minLength: 1, maxLength: 6 }), async (specs) => {
          const wf = ctx.freshWorkflowId();
          let last = '';
          for (const s of specs) last = await ctx.store.append(materialize(s, wf));
          const t1 = await ctx.store.tailChainHead(wf);
          const t2 = await ctx.store.tailChainHead(wf);
          expect(t1).toBe(last);
          expect(t2).toBe(t1);
        }),
        { numRuns: ctx.numRuns },
      );
    },
  },
  {
    id: 'cross-workflow-isolation',
    operation: 'tailChainHead',
    invariant: 'AC-7 cross-workflow isolation: appends to workflow A never change tailChainHead of workflow B',
    async run(ctx) {
      await fc.assert(
        fc.asyncProperty(fc.array(eventSpecArb, { minLength: 0, maxLength: 4 }), fc.array(eventSpecArb, { minLength: 1, maxLength: 6 }), async (bSpecs, aSpecs) => {
          const a = ctx.freshWorkflowId('a');
          const b = ctx.freshWorkflowId('b');
          const bEvents = bSpecs.map((s) => materialize(s, b));
          for (const e of bEvents) await ctx.store.append(e);
          const before = await ctx.store.tailChainHead(b);
          expect(before).toBe(expectedHeads(bEvents).at(-1) ?? GENESIS);
          const aEvents = aSpecs.map((s) => materialize(s, a));
          for (const e of aEvents) await ctx.store.append(e);
          expect(await ctx.store.tailChainHead(b)).toBe(before);
          expect(await ctx.store.tailChainHead(a)).toBe(expectedHeads(aEvents).at(-1));
        }),
        { numRuns: ctx.numRuns },
      );
    },
  },
  {
    id: 'detection-substrate',
    operation: 'tailChainHead',
    invariant: 'AC-11 detection substrate: a tampered persisted head is returned as persisted (never recomputed); only the verifier flags it',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const events = [
        simpleEvent(wf),
        simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' }),
        simpleEvent(wf, { prior: 'patch_applied', next: 'gate_failed_retryable' }),
        simpleEvent(wf, { prior: 'needs_plan', next: 'plan_ready', detail: 'retry' }),
      ];
      for (const e of events) await ctx.store.append(e);
      expect(await verify(ctx.store, wf)).toEqual({ status: 'ok', rows: 4, tail_head: expectedHeads(events)[3] });
      const forged = alteredHead(expectedHeads(events)[3] ?? '');
      await ctx.init.tamper(ctx.store, wf, 4, { next_head: forged });
      expect(await ctx.store.tailChainHead(wf)).toBe(forged);
      expect(await collect(ctx.store.readAllForWorkflow(wf))).toEqual(events.map(sanitizeEvent));
      expect(await verify(ctx.store, wf)).toEqual({
        status: 'chain_mismatch',
        rows: 4,
        first_bad_sequence: 4,
        tail_head: forged,
        break_head: { column: 'next_head', expected_head: expectedHeads(events)[3], stored_head: forged },
      });
      // A head altered mid-chain: the tail is still the persisted last head; the verifier names row 2.
      const wf2 = ctx.freshWorkflowId();
      const events2 = events.map((e) => ({ ...simpleEvent(wf2, { prior: e.prior_state_id, next: e.next_state_id }) }));
      for (const e of events2) await ctx.store.append(e);
      await ctx.init.tamper(ctx.store, wf2, 2, { next_head: alteredHead(expectedHeads(events2)[1] ?? '') });
      expect(await ctx.store.tailChainHead(wf2)).toBe(expectedHeads(events2)[3]);
      const v = await verify(ctx.store, wf2);
      expect([v.status, v.first_bad_sequence]).toEqual(['chain_mismatch', 2]);
    },
  },
];
