import fc from 'fast-check';
import { expect } from 'vitest';
import { GENESIS } from '../../../../../core/chain/head';
import { verify } from '../../../../../core/chain/verify';
import { collect, eventSpecArb, expectedHeads, materialize, persistedBytes, simpleEvent } from './support';
import type { ConformanceCase } from './types';

/** `readPersistedRows` cases (the verifier's read side). */
export const PERSISTED_ROWS_CASES: readonly ConformanceCase[] = [
  {
    id: 'persisted-rows',
    operation: 'readPersistedRows',
    invariant: 'AC-6 persisted rows (parity): sequence 1..n, linked prior/next heads, canonical sanitized bytes, and the verifier accepts them',
    async run(ctx) {
      await fc.assert(
        fc.asyncProperty(fc.array(eventSpecArb, { minLength: 1, maxLength: 6 }), async (specs) => {
          const wf = ctx.freshWorkflowId();
          const events = specs.map((s) => materialize(s, wf));
          for (const e of events) await ctx.store.append(e);
          const heads = expectedHeads(events);
          const rows = await collect(ctx.store.readPersistedRows(wf));
          expect(rows.map((r) => r.sequence)).toEqual(events.map((_, i) => i + 1));
          expect(rows.map((r) => r.transition_id)).toEqual(events.map((e) => e.transition_id));
          expect(rows.map((r) => r.prior_head)).toEqual([GENESIS, ...heads.slice(0, -1)]);
          expect(rows.map((r) => r.next_head)).toEqual(heads);
          rows.forEach((r, i) => expect(Buffer.from(r.event_bytes).equals(Buffer.from(persistedBytes(events[i] as never)))).toBe(true));
          expect(await verify(ctx.store, wf)).toEqual({ status: 'ok', rows: events.length, tail_head: heads.at(-1) });
        }),
        { numRuns: ctx.numRuns },
      );
      expect(await collect(ctx.store.readPersistedRows(ctx.freshWorkflowId()))).toEqual([]);
    },
  },
  {
    id: 'verifier-classifies-damage',
    operation: 'readPersistedRows',
    invariant: 'damage classification: truncated event bytes read back as torn_write, a relinked prior head as chain_mismatch',
    async run(ctx) {
      const mk = async (): Promise<string> => {
        const wf = ctx.freshWorkflowId();
        await ctx.store.append(simpleEvent(wf));
        await ctx.store.append(simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' }));
        await ctx.store.append(simpleEvent(wf, { prior: 'patch_applied', next: 'completed' }));
        return wf;
      };
      const torn = await mk();
      const rows = await collect(ctx.store.readPersistedRows(torn));
      const bytes = rows[1]?.event_bytes ?? new Uint8Array();
      await ctx.init.tamper(ctx.store, torn, 2, { event_bytes: bytes.slice(0, bytes.byteLength - 7) });
      const v1 = await verify(ctx.store, torn);
      expect([v1.status, v1.first_bad_sequence, v1.rows]).toEqual(['torn_write', 2, 3]);
      const relinked = await mk();
      await ctx.init.tamper(ctx.store, relinked, 3, { prior_head: GENESIS });
      const v2 = await verify(ctx.store, relinked);
      expect([v2.status, v2.first_bad_sequence]).toEqual(['chain_mismatch', 3]);
    },
  },
];
