import pg from 'pg';
import { monotonicFactory } from 'ulid';
import { buildTransitionEvent, type LedgerStateKind, type TransitionEvent, type WorkflowId } from '../../../../../core/chain/event';

const nextUlid = monotonicFactory();

/** The boundary edges cycled through by `chainEvents` (every target is a semantic boundary). */
const EDGES: readonly (readonly [LedgerStateKind, LedgerStateKind])[] = [
  ['needs_plan', 'plan_ready'],
  ['plan_ready', 'patch_applied'],
  ['patch_applied', 'gate_failed_retryable'],
  ['gate_failed_retryable', 'failed_unrecoverable'],
  ['patch_applied', 'awaiting_human_review'],
  ['awaiting_human_review', 'completed'],
];

/** A fresh boundary event for `workflowId` (distinct ULID each call). */
export function event(workflowId: WorkflowId, n = 0, detail: string | null = `step ${n}`): TransitionEvent {
  const [prior, next] = EDGES[n % EDGES.length] ?? ['needs_plan', 'plan_ready'];
  return buildTransitionEvent(
    {
      workflow_id: workflowId,
      prior_state_id: prior,
      next_state_id: next,
      triggering_outcome: { kind: 'gate', evidence_digest: `sha256:${(n % 256).toString(16).padStart(2, '0').repeat(32)}`, detail },
      attempt: n,
      occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n % 60)),
    },
    { newId: (t) => nextUlid(t) },
  );
}

/** A pool on `url` whose statements are counted (every `client.query`, whoever sends it). */
export function countingPool(config: pg.PoolConfig): { readonly pool: pg.Pool; sent(): number } {
  const pool = new pg.Pool(config);
  let sent = 0;
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent += 1;
      return original(...args);
    };
  });
  return { pool, sent: () => sent };
}

/** Collects an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

let schemaCounter = 0;

/** A schema name never used before in this process. */
export function freshSchema(prefix = 't'): string {
  return `${prefix}_${process.pid}_${(schemaCounter += 1)}`;
}
