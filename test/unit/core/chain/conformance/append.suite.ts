import fc from 'fast-check';
import { expect } from 'vitest';
import type { TransitionEvent } from '../../../../../core/chain/event';
import { GENESIS } from '../../../../../core/chain/head';
import { MAX_EVENT_BYTES } from '../../../../../core/chain/port';
import { REDACTED } from '../../../../../core/chain/sanitize';
import { SECRET_SAMPLES } from './secret-samples';
import { collect, eventSpecArb, expectedHeads, materialize, persistedBytes, simpleEvent } from './support';
import type { ConformanceCase } from './types';

/** The `errorId` a promise rejects with ('no error' when it resolves). */
export const errorIdOf = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p;
  } catch (e) {
    return (e as { errorId?: unknown }).errorId;
  }
  return 'no error';
};

/** `append` cases. */
export const APPEND_CASES: readonly ConformanceCase[] = [
  {
    id: 'chain-forward-extension',
    operation: 'append',
    invariant: 'AC-7 chain-forward extension: each append returns and persists nextHead(previous head, persisted bytes)',
    async run(ctx) {
      await fc.assert(
        fc.asyncProperty(fc.array(eventSpecArb, { minLength: 1, maxLength: 8 }), async (specs) => {
          const wf = ctx.freshWorkflowId();
          const events = specs.map((s) => materialize(s, wf));
          const want = expectedHeads(events);
          const got: string[] = [];
          for (const e of events) got.push(await ctx.store.append(e));
          expect(got).toEqual(want);
          expect(await ctx.store.tailChainHead(wf)).toBe(want[want.length - 1]);
        }),
        { numRuns: ctx.numRuns },
      );
    },
  },
  {
    id: 'boundary-only-writes',
    operation: 'append',
    invariant: 'AC-4/AC-13 boundary-only writes: a non-boundary next_state_id (needs_plan) is rejected and nothing is written',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const first = simpleEvent(wf);
      const head = await ctx.store.append(first);
      for (const prior of ['gate_failed_retryable', 'awaiting_human_review'] as const) {
        const bad = simpleEvent(wf, { prior, next: 'needs_plan' });
        expect(await errorIdOf(ctx.store.append(bad))).toBe('workflows.checkpoint_boundary_violation');
      }
      expect(await ctx.store.tailChainHead(wf)).toBe(head);
      expect((await collect(ctx.store.readAllForWorkflow(wf))).map((e) => e.transition_id)).toEqual([first.transition_id]);
      // AC-13 between-boundary no-write: needs_plan → plan_ready → patch_applied leaves exactly two rows.
      const wf2 = ctx.freshWorkflowId();
      await ctx.store.append(simpleEvent(wf2));
      await ctx.store.append(simpleEvent(wf2, { prior: 'plan_ready', next: 'patch_applied' }));
      const rows = await collect(ctx.store.readPersistedRows(wf2));
      expect(rows.map((r) => r.sequence)).toEqual([1, 2]);
    },
  },
  {
    id: 'payload-cap',
    operation: 'append',
    invariant: 'AC-10 payload cap: persisted bytes of exactly 65,536 are accepted, 65,537 rejected with workflows.checkpoint_payload_too_large and nothing written',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const base = persistedBytes(simpleEvent(wf, { detail: '' })).byteLength;
      const atCap = simpleEvent(wf, { detail: 'a'.repeat(MAX_EVENT_BYTES - base) });
      expect(persistedBytes(atCap).byteLength).toBe(MAX_EVENT_BYTES);
      const head = await ctx.store.append(atCap);
      const over = simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied', detail: 'a'.repeat(MAX_EVENT_BYTES - base + 1) });
      expect(await errorIdOf(ctx.store.append(over))).toBe('workflows.checkpoint_payload_too_large');
      // Multi-byte text: the cap counts UTF-8 bytes, not UTF-16 units.
      const wide = simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied', detail: '\u00e9'.repeat(MAX_EVENT_BYTES / 2) });
      expect(await errorIdOf(ctx.store.append(wide))).toBe('workflows.checkpoint_payload_too_large');
      expect(await ctx.store.tailChainHead(wf)).toBe(head);
      expect((await collect(ctx.store.readPersistedRows(wf))).length).toBe(1);
      // The cap applies to the persisted (sanitized) bytes: a huge secret becomes the sentinel and fits.
      const wf2 = ctx.freshWorkflowId();
      const hugeSecret = simpleEvent(wf2, { detail: `ghp_${'A'.repeat(MAX_EVENT_BYTES + 10)}` });
      await ctx.store.append(hugeSecret);
      const [stored] = await collect(ctx.store.readAllForWorkflow(wf2));
      expect(stored?.triggering_outcome.detail).toBe(REDACTED);
    },
  },
  {
    id: 'sanitizing',
    operation: 'append',
    invariant: 'AC-12 sanitizing: secret-shaped values are persisted as [REDACTED], never as the secret',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const texts = SECRET_SAMPLES.flatMap((s) => (s.standalone === true ? [s.secret] : [s.secret, `gate said: ${s.secret} (retrying)`]));
      for (const text of texts) await ctx.store.append(simpleEvent(wf, { detail: text, kind: text.length <= 64 ? text : 'probe' }));
      const rows = await collect(ctx.store.readPersistedRows(wf));
      expect(rows.length).toBe(texts.length);
      const all = rows.map((r) => Buffer.from(r.event_bytes).toString('utf8')).join('\n');
      for (const s of SECRET_SAMPLES) expect(all.includes(s.secret), `shape ${s.shape} leaked`).toBe(false);
      const events = await collect(ctx.store.readAllForWorkflow(wf));
      for (const e of events) expect(e.triggering_outcome.detail).toBe(REDACTED);
      // Harmless text is kept verbatim.
      const plain = simpleEvent(wf, { detail: 'lint passed; 3 files changed', digest: `sha256:${'ab'.repeat(32)}` });
      await ctx.store.append(plain);
      const last = (await collect(ctx.store.readAllForWorkflow(wf))).at(-1);
      expect(last?.triggering_outcome).toEqual(plain.triggering_outcome);
    },
  },
  {
    id: 'clock-injection',
    operation: 'append',
    invariant: 'AC-13 clock injection: written_at comes from the injected clock and never influences the chain',
    async run(ctx) {
      const fixed = await ctx.extraStore(() => new Date(Date.UTC(2026, 0, 1)));
      const other = await ctx.extraStore(() => new Date(Date.UTC(2031, 5, 7, 8, 9, 10, 11)));
      const wf = ctx.freshWorkflowId();
      const events: TransitionEvent[] = [simpleEvent(wf), simpleEvent(wf, { prior: 'plan_ready', next: 'patch_applied' })];
      const a: string[] = [];
      const b: string[] = [];
      for (const e of events) a.push(await fixed.append(e));
      for (const e of events) b.push(await other.append(e));
      expect(a).toEqual(b);
      const rowsA = await collect(fixed.readPersistedRows(wf));
      const rowsB = await collect(other.readPersistedRows(wf));
      expect(rowsA.map((r) => r.written_at)).toEqual(['2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z']);
      expect(rowsB.map((r) => r.written_at)).toEqual(['2031-06-07T08:09:10.011000Z', '2031-06-07T08:09:10.011000Z']);
    },
  },
  {
    id: 'rejects-invalid-events',
    operation: 'append',
    invariant: 'validation: malformed events and duplicate transition ids are rejected by id and nothing is written',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const good = simpleEvent(wf);
      const head = await ctx.store.append(good);
      const forged = { ...good, transition_id: 'not-a-ulid' } as TransitionEvent;
      expect(await errorIdOf(ctx.store.append(forged))).toBe('workflows.invalid_transition_event');
      const badWf = { ...simpleEvent(wf), workflow_id: '../escape' } as TransitionEvent;
      expect(await errorIdOf(ctx.store.append(badWf))).toBe('workflows.invalid_transition_event');
      expect(await errorIdOf(ctx.store.append(good))).toBe('workflows.duplicate_transition_id');
      expect(await ctx.store.tailChainHead(wf)).toBe(head);
      expect(await errorIdOf(ctx.store.tailChainHead('..'))).toBe('workflows.invalid_workflow_id');
      expect(await errorIdOf(collect(ctx.store.readAllForWorkflow('a/b')))).toBe('workflows.invalid_workflow_id');
    },
  },
  {
    id: 'evidence-digest-only',
    operation: 'append',
    invariant: 'S2-01 evidence by digest: an evidence_digest that is neither a sha256:/blake3: digest nor the redaction sentinel is rejected and nothing is written',
    async run(ctx) {
      const wf = ctx.freshWorkflowId();
      const base = simpleEvent(wf);
      const withDigest = (digest: string): TransitionEvent => ({ ...base, triggering_outcome: { ...base.triggering_outcome, evidence_digest: digest } });
      for (const inline of ['the whole test log, inline', 'sha256:short', 'md5:0123456789abcdef0123456789abcdef', `SHA256:${'a'.repeat(64)}`]) {
        expect(await errorIdOf(ctx.store.append(withDigest(inline)))).toBe('workflows.invalid_transition_event');
      }
      expect(await ctx.store.tailChainHead(wf)).toBe(GENESIS);
      expect(await collect(ctx.store.readAllForWorkflow(wf))).toEqual([]);
      // A real digest and the redaction sentinel are stored as given.
      await ctx.store.append(withDigest(`sha256:${'ab'.repeat(32)}`));
      const wf2 = ctx.freshWorkflowId();
      const other = simpleEvent(wf2);
      await ctx.store.append({ ...other, triggering_outcome: { ...other.triggering_outcome, evidence_digest: REDACTED } });
      expect((await collect(ctx.store.readAllForWorkflow(wf)))[0]?.triggering_outcome.evidence_digest).toBe(`sha256:${'ab'.repeat(32)}`);
      expect((await collect(ctx.store.readAllForWorkflow(wf2)))[0]?.triggering_outcome.evidence_digest).toBe(REDACTED);
    },
  },
];
