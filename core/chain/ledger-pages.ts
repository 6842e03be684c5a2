// Pages of one workflow's ledger in append order (`chain.rows`, `chain.read`):
// rows with their 1-based position, the workspace generations their evidence
// names, and a signed token (core/paging/cursor.ts) of the next page.
import type { EvidenceGeneration } from '../contract/chain';
import type { ChainRowEntry } from '../contract/maintenance';
import type { ChainEvent } from '../contract/operations';
import { PAGE_LIMITS } from '../contract/paging';
import { GfError } from '../errors';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import type { LineageRecord } from '../project/index';
import { evidenceGenerations } from './evidence';
import type { ChainStoreWithReaders, PersistedRow } from './port';
import { decodeEventBytes } from './store-support';
import { requireRows } from './verify-report';

type Method = 'chain.read' | 'chain.rows';

/** A page's token binds the method and the workflow (valid with any page size); it carries the rows already returned. */
const scopeOf = (method: Method, workflowId: string): CursorScope => ({ operation: method, binding: [workflowId], limit: null, bounds: PAGE_LIMITS });

function skipOf(key: () => CursorKey, method: Method, workflowId: string, after: string | null | undefined): number {
  if (after === undefined || after === null) return 0;
  const refuse = (): GfError => new GfError('GF_PAGE_INVALID', `the page token is not valid for ${method}`, { method });
  const skip = decodeCursor(key(), scopeOf(method, workflowId), after, refuse);
  if (typeof skip !== 'number' || !Number.isSafeInteger(skip) || skip < 1) throw refuse();
  return skip;
}

/**
 * One page of a workflow's rows in append order: skips what earlier pages
 * returned, maps at most `limit` (default 100) with their 1-based position,
 * and stops reading at the first row past the page.
 */
async function pageOf<R, T>(rows: AsyncIterable<R>, method: Method, workflowId: string, page: LedgerPageRequest, map: (row: R, position: number) => T): Promise<{ items: T[]; next_page_token: string | null }> {
  const skip = skipOf(page.key, method, workflowId, page.after);
  const max = page.limit ?? PAGE_LIMITS.default;
  const items: T[] = [];
  let position = 0;
  for await (const row of rows) {
    position++;
    if (position <= skip) continue;
    if (items.length === max) return { items, next_page_token: encodeCursor(page.key(), scopeOf(method, workflowId), skip + items.length) };
    items.push(map(row, position));
  }
  return { items, next_page_token: null };
}

/** The paging inputs of one ledger page: size, the previous page's token, the token key (read when a token is). */
export interface LedgerPageRequest {
  readonly limit: number | undefined;
  readonly after: string | null | undefined;
  readonly key: () => CursorKey;
}

/** One persisted row as `chain.rows` returns it (a torn row keeps its heads, without its event). */
function rowEntry(r: PersistedRow): ChainRowEntry {
  let event: ChainRowEntry['event'] = null;
  try {
    event = decodeEventBytes(r.event_bytes);
  } catch (_e) {
    event = null; // torn row: shown without its event; verify classifies it
  }
  return { sequence: r.sequence, transition_id: r.transition_id, prior_head: r.prior_head, next_head: r.next_head, written_at: r.written_at, event };
}

/** `chain.rows`: persisted rows of a workflow (torn rows included), one page. */
export async function ledgerRows(store: ChainStoreWithReaders, lineage: readonly LineageRecord[] | null, workflowId: string, page: LedgerPageRequest): Promise<{ rows: ChainRowEntry[]; next_page_token: string | null; evidence_generations: readonly EvidenceGeneration[] | null }> {
  await requireRows(store, workflowId);
  const p = await pageOf(store.readPersistedRows(workflowId), 'chain.rows', workflowId, page, (r) => rowEntry(r));
  const evidence_generations = evidenceGenerations(lineage, p.items.map((r) => r.event?.triggering_outcome.evidence_digest ?? null));
  return { rows: p.items, next_page_token: p.next_page_token, evidence_generations };
}

/** `chain.read`: decoded events of a workflow with their sequence, one page. */
export async function ledgerEvents(store: ChainStoreWithReaders, lineage: readonly LineageRecord[] | null, workflowId: string, page: LedgerPageRequest): Promise<{ events: ChainEvent[]; next_page_token: string | null; evidence_generations: readonly EvidenceGeneration[] | null }> {
  await requireRows(store, workflowId);
  const p = await pageOf(store.readAllForWorkflow(workflowId), 'chain.read', workflowId, page, (e, sequence): ChainEvent => ({ sequence, ...e }));
  const evidence_generations = evidenceGenerations(lineage, p.items.map((e) => e.triggering_outcome.evidence_digest));
  return { events: p.items, next_page_token: p.next_page_token, evidence_generations };
}
