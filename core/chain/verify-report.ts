// Verdicts of the chain verifier as the contract reports them: one workflow,
// every workflow of a store (unreadable ledger files included), and the
// list of workflows with their latest state.
import { verifyFailure } from '../contract/chain';
import type { UnreadableLedger, VerifyEntry, WorkflowEntry } from '../contract/operations';
import { GfError } from '../errors';
import { ChainError, hasErrorId } from './errors';
import type { ChainStoreWithReaders, PersistedRow, PersistedRowReader } from './port';
import { SqliteChainStore } from './sqlite/sqlite-store';
import { decodeEventBytes } from './store-support';
import { verify, type VerifyResult } from './verify';

/** Refuses a workflow with no persisted row (as `gf chain show|verify` do). */
export async function requireRows(store: ChainStoreWithReaders, workflowId: string): Promise<void> {
  for await (const _row of store.readPersistedRows(workflowId)) return;
  throw new ChainError('workflows.workflow_not_found', 'no chain for this workflow in the project');
}

/** A verifier result as the contract reports it (the break's heads only at a break). */
function verifyEntry(workflowId: string, r: VerifyResult): VerifyEntry {
  return {
    workflow_id: workflowId,
    status: r.status,
    first_bad_sequence: r.first_bad_sequence ?? null,
    rows: r.rows,
    tail_head: r.tail_head,
    ...(r.break_head === undefined ? {} : { break_head: r.break_head }),
  };
}

async function verifyOne(store: ChainStoreWithReaders, workflowId: string): Promise<VerifyEntry> {
  const r = await verify(store, workflowId);
  return verifyEntry(workflowId, r);
}

/**
 * One workflow of `chain.list`: verified, with its latest state, in one read.
 *
 * The verifier reads every persisted row once; the last row it saw gives the
 * latest state (decoded from its bytes), so a screen needs no second read.
 */
export async function listEntry(store: ChainStoreWithReaders, workflowId: string): Promise<WorkflowEntry> {
  let last: PersistedRow | undefined;
  const tap: PersistedRowReader = {
    async *readPersistedRows(id) {
      for await (const row of store.readPersistedRows(id)) {
        last = row;
        yield row;
      }
    },
  };
  const r = await verify(tap, workflowId);
  let latest: string | null = null;
  try {
    latest = last === undefined ? null : decodeEventBytes(last.event_bytes).next_state_id;
  } catch (_e) {
    latest = null; // a torn last row has no readable state; the verdict says why
  }
  const verdict = verifyEntry(workflowId, r);
  return { workflow_id: workflowId, rows: r.rows, tail_head: r.tail_head, latest_state_id: latest, verify: verdict };
}

/** Ledger files of a SQLite store that cannot be read (none for other backends). */
export async function unreadableLedgers(store: ChainStoreWithReaders): Promise<UnreadableLedger[]> {
  if (!(store instanceof SqliteChainStore)) return [];
  const out: UnreadableLedger[] = [];
  for (const l of await store.scanLedgers()) if (l.kind === 'unreadable') out.push({ ledger: l.ledger, cause: l.cause });
  return out;
}

/** The unreadable ledger a store's read failure names, or null for any other failure. */
function unreadableOf(e: unknown): UnreadableLedger | null {
  if (!hasErrorId(e, 'workflows.checkpoint_store_corrupt')) return null;
  const d = (e as ChainError).details;
  return typeof d['ledger'] === 'string' && typeof d['reason'] === 'string' ? { ledger: d['ledger'], cause: d['reason'] } : null;
}

function unreadableEntry(u: UnreadableLedger): VerifyEntry {
  return { workflow_id: u.ledger.split('/')[1] ?? u.ledger, status: 'unreadable', first_bad_sequence: null, rows: 0, tail_head: '', ledger: u.ledger, cause: u.cause };
}

/** The workflows of a store, each verified with its latest state; unreadable ledger files beside them. */
export async function listWorkflowEntries(store: ChainStoreWithReaders): Promise<{ workflows: WorkflowEntry[]; unreadable?: UnreadableLedger[] }> {
  const workflows: WorkflowEntry[] = [];
  for (const id of await store.listWorkflows()) workflows.push(await listEntry(store, id));
  const unreadable = await unreadableLedgers(store);
  return unreadable.length === 0 ? { workflows } : { workflows, unreadable };
}

/**
 * `chain.verify`: every workflow of the store (unreadable ledgers included),
 * or one, whose tail must be `expectHead` when given (a truncated chain is
 * refused with the verifier's failure).
 */
export async function verifyWorkflows(store: ChainStoreWithReaders, workflowId: string | undefined, expectHead: string | undefined): Promise<{ results: VerifyEntry[] }> {
  if (workflowId === undefined) {
    if (expectHead !== undefined) throw new GfError('GF_VALIDATION', 'expect_head needs one workflow_id', { field: 'expect_head' });
    const results: VerifyEntry[] = [];
    for (const id of await store.listWorkflows()) results.push(await verifyOne(store, id));
    for (const u of await unreadableLedgers(store)) results.push(unreadableEntry(u));
    return { results };
  }
  let one: VerifyEntry;
  try {
    await requireRows(store, workflowId);
    one = await verifyOne(store, workflowId);
  } catch (e) {
    // The same verdict as `--all` gives the same file: unreadable, with its cause.
    const u = unreadableOf(e);
    if (u === null) throw e;
    return { results: [{ ...unreadableEntry(u), workflow_id: workflowId }] };
  }
  // A tail other than the head recorded elsewhere exposes a truncated chain (the CLI's --expect-head).
  if (one.status === 'ok' && expectHead !== undefined) {
    const failure = verifyFailure([one], new Map([[workflowId, expectHead]]));
    if (failure !== null) throw failure;
  }
  return { results: [one] };
}
