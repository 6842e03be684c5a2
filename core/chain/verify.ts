import type { ChainBreak } from '../contract/operations';
import { canonicalEventBytes } from './canonical-event';
import { isLegalTransition } from './event';
import type { LedgerStateKind, TransitionEvent, WorkflowId } from './event';
import { GENESIS, isChainHead, nextHead, type ChainHead } from './head';
import { MAX_EVENT_BYTES, type PersistedRow, type PersistedRowReader } from './port';
import { decodeEventBytes } from './store-support';

/** The verdicts, worst last. */
export const VERIFY_STATUSES = ['ok', 'chain_mismatch', 'torn_write'] as const;

/** One verdict. */
export type VerifyStatus = (typeof VERIFY_STATUSES)[number];

/** What `verify` found. */
export interface VerifyResult {
  /**
   * `ok`; `torn_write` when a row cannot be what a store wrote (bytes
   * unparsable, truncated or not canonical, identity columns disagreeing with
   * the bytes, a sequence gap, an edge outside the legal-transition table); `chain_mismatch` when a well-formed row's
   * heads do not link or do not match the recomputation.
   */
  readonly status: VerifyStatus;
  /** Number of persisted rows read. */
  readonly rows: number;
  /** The sequence of the first bad row, when status is not `ok`. */
  readonly first_bad_sequence?: number;
  /** The persisted tail head (the last row's `next_head`, or GENESIS), as persisted. */
  readonly tail_head: string;
  /**
   * At a `chain_mismatch`, the evidence of the break at `first_bad_sequence`:
   * which head column of that row is wrong, the head the verifier expected
   * there (recomputed from the verified prefix: for `prior_head`, the head
   * after the last intact row; for `next_head`, that head advanced over this
   * row's persisted bytes), and the head the row stores. Absent otherwise (a
   * torn row has no trustworthy bytes to recompute from).
   */
  readonly break_head?: ChainBreak;
}

/** The head a chain break was found in (see `VerifyResult.break_head`); the contract's shape. */
export type { ChainBreak };

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Why a row is torn, or null when its bytes are a well-formed event of this workflow.
 *
 * A store never writes an edge outside the legal-transition table (events
 * are refused when built): such a row, even with a recomputed head, cannot
 * be what a store wrote.
 */
function tornReason(row: PersistedRow, workflowId: WorkflowId, expectedSequence: number): { reason: string; next?: LedgerStateKind } {
  if (row.sequence !== expectedSequence) return { reason: 'sequence_gap' };
  // No store writes an event over the cap, so a row over it was rewritten (and maybe rehashed) by something else.
  if (row.event_bytes.byteLength > MAX_EVENT_BYTES) return { reason: 'over_event_cap' };
  let bytesOk: boolean;
  let event: TransitionEvent;
  try {
    event = decodeEventBytes(row.event_bytes);
    if (event.workflow_id !== workflowId) return { reason: 'foreign_workflow' };
    if (event.transition_id !== row.transition_id) return { reason: 'transition_id_mismatch' };
    bytesOk = bytesEqual(canonicalEventBytes(event), row.event_bytes);
  } catch (_e) {
    return { reason: 'unparsable' };
  }
  if (!bytesOk) return { reason: 'not_canonical' };
  if (!isLegalTransition(event.prior_state_id, event.next_state_id)) return { reason: 'illegal_transition' };
  return { reason: '', next: event.next_state_id };
}

/**
 * Replays a workflow's persisted rows and recomputes every head.
 *
 * The only code in the project that recomputes chain heads: stores persist
 * and return what they persisted, and this function decides whether it is
 * intact. Stops at the first bad row (everything after it is untrusted).
 */
export async function verify(reader: PersistedRowReader, workflowId: WorkflowId): Promise<VerifyResult> {
  let rows = 0;
  let running: ChainHead = GENESIS;
  let tail: string = GENESIS;
  let bad: { status: Exclude<VerifyStatus, 'ok'>; sequence: number; head?: ChainBreak } | null = null;
  for await (const row of reader.readPersistedRows(workflowId)) {
    rows += 1;
    tail = row.next_head;
    if (bad !== null) continue;
    const torn = tornReason(row, workflowId, rows);
    if (torn.next === undefined) {
      bad = { status: 'torn_write', sequence: row.sequence };
      continue;
    }
    if (row.prior_head !== running) {
      bad = { status: 'chain_mismatch', sequence: row.sequence, head: { column: 'prior_head', expected_head: running, stored_head: row.prior_head } };
      continue;
    }
    const recomputed = nextHead(running, row.event_bytes);
    if (!isChainHead(row.next_head) || recomputed !== row.next_head) {
      bad = { status: 'chain_mismatch', sequence: row.sequence, head: { column: 'next_head', expected_head: recomputed, stored_head: row.next_head } };
      continue;
    }
    running = row.next_head;
  }
  if (bad === null) return { status: 'ok', rows, tail_head: tail };
  return { status: bad.status, rows, first_bad_sequence: bad.sequence, tail_head: tail, ...(bad.head === undefined ? {} : { break_head: bad.head }) };
}
