import fc from 'fast-check';
import { monotonicFactory } from 'ulid';
import { canonicalEventBytes } from '../../../../../core/chain/canonical-event';
import {
  buildTransitionEvent,
  LEGAL_TRANSITIONS,
  LEDGER_STATE_KINDS,
  SEMANTIC_BOUNDARY_KINDS,
  type LedgerStateKind,
  type TransitionEvent,
  type WorkflowId,
} from '../../../../../core/chain/event';
import { GENESIS, nextHead, type ChainHead } from '../../../../../core/chain/head';
import type { ChainStoreWithReaders, Clock } from '../../../../../core/chain/port';
import { sanitizeEvent } from '../../../../../core/chain/sanitize';
import { ConformanceFailure, type CaseContext, type ChainConformanceInitializer, type ConformanceCase } from './types';

/** Every legal edge whose target is a semantic boundary (what a store accepts). */
export const BOUNDARY_EDGES: readonly (readonly [LedgerStateKind, LedgerStateKind])[] = LEDGER_STATE_KINDS.flatMap((from) =>
  LEGAL_TRANSITIONS[from].filter((to) => SEMANTIC_BOUNDARY_KINDS.has(to)).map((to) => [from, to] as const),
);

/** The parts of an event a property draws; ids and workflow are filled in by `materialize`. */
export interface EventSpec {
  readonly edge: readonly [LedgerStateKind, LedgerStateKind];
  readonly kind: string;
  readonly digest: string | null;
  readonly detail: string | null;
  readonly attempt: number;
  readonly occurredMs: number;
}

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

/** Arbitrary event specs: any boundary edge, full-Unicode text, digests or null. */
export const eventSpecArb: fc.Arbitrary<EventSpec> = fc.record({
  edge: fc.constantFrom(...BOUNDARY_EDGES),
  kind: fc.string({ unit: 'binary', minLength: 1, maxLength: 32 }),
  digest: fc.option(fc.tuple(fc.constantFrom('sha256', 'blake3'), hex32).map(([alg, h]) => `${alg}:${h}`), { nil: null }),
  detail: fc.option(fc.string({ unit: 'binary', maxLength: 120 }), { nil: null }),
  attempt: fc.nat({ max: 1_000_000 }),
  occurredMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
});

const nextUlid = monotonicFactory();

/** Builds a real event from a spec (fresh ULID, the given workflow). */
export function materialize(spec: EventSpec, workflowId: WorkflowId): TransitionEvent {
  return buildTransitionEvent({
    workflow_id: workflowId,
    prior_state_id: spec.edge[0],
    next_state_id: spec.edge[1],
    triggering_outcome: { kind: spec.kind.length > 64 ? spec.kind.slice(0, 64) : spec.kind, evidence_digest: spec.digest, detail: spec.detail },
    attempt: spec.attempt,
    occurred_at: new Date(spec.occurredMs),
  }, { newId: (t) => nextUlid(t) });
}

/** A simple boundary event (needs_plan → plan_ready unless told otherwise). */
export function simpleEvent(
  workflowId: WorkflowId,
  overrides: { readonly prior?: LedgerStateKind; readonly next?: LedgerStateKind; readonly kind?: string; readonly detail?: string | null; readonly digest?: string | null } = {},
): TransitionEvent {
  return buildTransitionEvent({
    workflow_id: workflowId,
    prior_state_id: overrides.prior ?? 'needs_plan',
    next_state_id: overrides.next ?? 'plan_ready',
    triggering_outcome: { kind: overrides.kind ?? 'planner', evidence_digest: overrides.digest ?? null, detail: overrides.detail ?? null },
    occurred_at: new Date(Date.UTC(2026, 0, 1)),
  }, { newId: (t) => nextUlid(t) });
}

/** The bytes a store must persist for `event`. */
export function persistedBytes(event: TransitionEvent): Uint8Array {
  return canonicalEventBytes(sanitizeEvent(event));
}

/** The head chain a correct store produces for `events` from GENESIS. */
export function expectedHeads(events: readonly TransitionEvent[]): readonly ChainHead[] {
  const heads: ChainHead[] = [];
  let h = GENESIS;
  for (const e of events) {
    h = nextHead(h, persistedBytes(e));
    heads.push(h);
  }
  return heads;
}

/** Collects an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Fails (instead of hanging) when `p` does not settle within `ms`: deadlock detection, not synchronisation. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: did not settle within ${ms} ms (deadlock?)`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets queued work run: `n` turns of the event loop. */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A head with one hex digit changed (still well-formed). */
export function alteredHead(head: string): string {
  const last = head.at(-1) === '0' ? '1' : '0';
  return `${head.slice(0, -1)}${last}`;
}

/** A clock that starts at 2026-01-01 and advances one second per reading. */
export function steppingClock(): Clock {
  let t = Date.UTC(2026, 0, 1);
  return () => new Date((t += 1000));
}

let runCounter = 0;

/**
 * Runs one case against a fresh store and disposes everything it created.
 *
 * Throws a `ConformanceFailure` naming the invariant when the case fails.
 * Used by the vitest runner and, programmatically, by the meta-test.
 */
export async function runConformanceCase<S extends ChainStoreWithReaders>(init: ChainConformanceInitializer<S>, c: ConformanceCase): Promise<void> {
  const created: S[] = [];
  const token = `${Date.now().toString(36)}-${process.pid}-${(runCounter += 1)}`;
  let n = 0;
  try {
    const store = await init.create({ clock: steppingClock() });
    created.push(store);
    const ctx: CaseContext<S> = {
      init,
      store,
      numRuns: init.numRuns ?? 12,
      freshWorkflowId: (prefix = 'wf') => `${prefix}-${token}-${(n += 1)}`,
      extraStore: async (clock) => {
        const s = await init.create({ clock });
        created.push(s);
        return s;
      },
    };
    await c.run(ctx as unknown as CaseContext);
  } catch (e) {
    throw new ConformanceFailure(c, init.name, e);
  } finally {
    for (const s of created) await init.destroy?.(s);
  }
}
