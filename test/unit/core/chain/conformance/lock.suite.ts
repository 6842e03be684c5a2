import { expect } from 'vitest';
import { verify } from '../../../../../core/chain/verify';
import { errorIdOf } from './append.suite';
import { collect, expectedHeads, simpleEvent, turns, within } from './support';
import type { ConformanceCase } from './types';

/** `lock` cases. */
export const LOCK_CASES: readonly ConformanceCase[] = [
  {
    id: 'lock-exclusion',
    operation: 'lock',
    invariant: 'lock exclusion: while lock(A, fn) runs, another caller\'s append to A waits; fn\'s own appends proceed (re-entrant)',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const log: string[] = [];
      let release: () => void = () => undefined;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let entered: () => void = () => undefined;
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      const e1 = simpleEvent(wf);
      const e2 = simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' });
      const e3 = simpleEvent(wf, { prior: 'patch_applied', next: 'completed' });
      const held = ctx.store.lock(wf, async () => {
        await ctx.store.append(e1);
        await ctx.store.append(e2);
        entered();
        await gate;
        log.push('fn-end');
        return 'fn-result';
      });
      await within(inside, 10_000, 'appends inside lock(fn)');
      const outside = ctx.store.append(e3).then((h) => {
        log.push('outside-append');
        return h;
      });
      await turns(50);
      release();
      expect(await within(held, 10_000, 'lock')).toBe('fn-result');
      const h3 = await within(outside, 10_000, 'append after lock');
      expect(log).toEqual(['fn-end', 'outside-append']);
      expect(h3).toBe(expectedHeads([e1, e2, e3])[2]);
      expect((await collect(ctx.store.readAllForWorkflow(wf))).map((e) => e.transition_id)).toEqual([e1, e2, e3].map((e) => e.transition_id));
    },
  },
  {
    id: 'lock-result-and-release',
    operation: 'lock',
    invariant: 'lock result: lock returns fn\'s value, propagates fn\'s rejection unchanged, and releases the lock either way',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      expect(await ctx.store.lock(wf, async () => 42)).toBe(42);
      const boom = new Error('fn failed');
      await expect(ctx.store.lock(wf, async () => Promise.reject(boom))).rejects.toBe(boom);
      const h = await within(ctx.store.append(simpleEvent(wf)), 10_000, 'append after a rejected lock');
      expect(await ctx.store.tailChainHead(wf)).toBe(h);
      expect(await errorIdOf(ctx.store.lock('..', async () => 1))).toBe('workflows.invalid_workflow_id');
    },
  },
  {
    id: 'lock-keeps-acknowledged-appends',
    operation: 'lock',
    invariant: 'lock durability: an append made inside fn and acknowledged stays, whatever fn does afterwards (fn rejects; a rejection between two appends)',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const e1 = simpleEvent(wf);
      const e2 = simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' });
      const e3 = simpleEvent(wf, { prior: 'patch_applied', next: 'completed' });
      const e4 = simpleEvent(wf, { detail: 'after' });
      const boom = new Error('fn failed after its append');
      // One append, then fn rejects.
      await expect(ctx.store.lock(wf, async () => {
        await ctx.store.append(e1);
        throw boom;
      })).rejects.toBe(boom);
      // Two appends with a rejection between them (fn catches one failure, appends again, then rejects).
      await expect(ctx.store.lock(wf, async () => {
        await ctx.store.append(e2);
        await Promise.reject(new Error('an inner step failed')).catch(() => undefined);
        await ctx.store.append(e3);
        throw boom;
      })).rejects.toBe(boom);
      const h4 = await within(ctx.store.append(e4), 10_000, 'append after the rejected locks');
      const all = [e1, e2, e3, e4];
      expect((await collect(ctx.store.readAllForWorkflow(wf))).map((e) => e.transition_id)).toEqual(all.map((e) => e.transition_id));
      expect(h4).toBe(expectedHeads(all)[3]);
      expect(await ctx.store.tailChainHead(wf)).toBe(h4);
      const v = await verify(ctx.store, wf);
      expect(v.status).toBe('ok');
      expect(v.rows).toBe(4);
    },
  },
  {
    id: 'lock-append-survives-crash',
    operation: 'lock',
    invariant: 'lock durability: an append made inside fn is durable when it resolves, even if the process dies before fn settles',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const e1 = simpleEvent(wf);
      const e2 = simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' });
      if (ctx.init.crashInsideLock !== undefined) {
        // A real child process: lock, append (resolved), then SIGKILL before fn settles.
        await within(ctx.init.crashInsideLock(ctx.store, wf, e1), 60_000, 'the crashing child');
      } else {
        // Process-local adapter: the same promise in process (fn never settles; the row is there meanwhile).
        let acked: () => void = () => undefined;
        const ack = new Promise<void>((r) => {
          acked = r;
        });
        void ctx.store.lock(wf, async () => {
          await ctx.store.append(e1);
          acked();
          await new Promise<never>(() => undefined);
        });
        await within(ack, 10_000, 'the append inside lock');
      }
      expect((await collect(ctx.store.readAllForWorkflow(wf))).map((e) => e.transition_id)).toEqual([e1.transition_id]);
      expect(await ctx.store.tailChainHead(wf)).toBe(expectedHeads([e1])[0]);
      if (ctx.init.crashInsideLock !== undefined) {
        // The dead holder's lock is gone: the next writer appends after the kept row.
        const h2 = await within(ctx.store.append(e2), 30_000, 'append after the crash');
        expect(h2).toBe(expectedHeads([e1, e2])[1]);
        expect((await verify(ctx.store, wf)).status).toBe('ok');
      }
    },
  },
  {
    id: 'lock-per-workflow',
    operation: 'lock',
    invariant: 'lock scope: holding the lock of A never blocks appends to B',
    async run(ctx) {
      const a = ctx.freshWorkflowId('a');
      const b = ctx.freshWorkflowId('b');
      const eb = simpleEvent(b);
      const got = await within(ctx.store.lock(a, async () => ctx.store.append(eb)), 4_000, 'append to B while holding A');
      expect(got).toBe(expectedHeads([eb])[0]);
    },
  },
  {
    id: 'concurrent-appends-linear',
    operation: 'lock',
    invariant: 'append atomicity: concurrent appends to one workflow leave one linear chain that verifies, none lost',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const events = Array.from({ length: 24 }, (_, i) => simpleEvent(wf, { detail: `n${i}` }));
      const heads = await within(Promise.all(events.map((e) => ctx.store.append(e))), 30_000, 'concurrent appends');
      const v = await verify(ctx.store, wf);
      expect(v.status).toBe('ok');
      expect(v.rows).toBe(events.length);
      expect(new Set(heads).size).toBe(events.length);
      const rows = await collect(ctx.store.readPersistedRows(wf));
      expect(new Set(rows.map((r) => r.next_head))).toEqual(new Set(heads));
      expect(new Set(rows.map((r) => r.transition_id))).toEqual(new Set(events.map((e) => e.transition_id)));
    },
  },
];
