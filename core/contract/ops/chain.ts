// The chain ledger operations: open a directory's ledgers, list workflows,
// read events and rows, verify heads and report the store's health. Each
// declared once with its request schema and result type. Browser-safe (zod
// and core/contract); the result shapes live with the ledger rules in
// core/contract/chain.ts.
import { z } from 'zod';
import type { ChainEvent, EvidenceGeneration, UnreadableLedger, VerifyEntry, WorkflowEntry } from '../chain';
import type { ChainRowEntry } from '../maintenance';
import { afterSchema, digestSchema, directorySchema, handleSchema, limitSchema, workflowIdSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';

/** A page of a workflow's transition events (`chain.read`). */
export interface ChainEventPage {
  readonly events: readonly ChainEvent[];
  readonly next_page_token: string | null;
  /**
   * Each evidence digest of the page that names a manifest, with the workspace
   * generation it links to (null for the ledgers of a directory that is no workspace).
   */
  readonly evidence_generations: readonly EvidenceGeneration[] | null;
}

/** A page of a workflow's persisted rows (`chain.rows`), with the same evidence links as `chain.read`. */
export interface ChainRowPage {
  readonly rows: readonly ChainRowEntry[];
  readonly next_page_token: string | null;
  readonly evidence_generations: readonly EvidenceGeneration[] | null;
}

/** The chain store's health (`chain.health`). */
export interface ChainHealth {
  readonly backend: 'sqlite' | 'memory' | 'postgres';
  readonly workflows: number;
  readonly details: Readonly<Record<string, number | string | null>>;
}

/** The chain ledger operations. */
export const CHAIN_OPERATIONS = {
  'chain.list': jsonOp(z.object({ project: handleSchema }).strict(), returns<{ readonly workflows: readonly WorkflowEntry[]; readonly unreadable?: readonly UnreadableLedger[] }>(), false, 'Workflows with a ledger in the project\'s chain store.'),
  'chain.read': jsonOp(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema, limit: limitSchema, after: afterSchema }).strict(),
    returns<ChainEventPage>(), false, 'A workflow\'s transition events in append order, paged.'),
  'chain.verify': jsonOp(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema.optional(), expect_head: digestSchema.optional() }).strict(),
    returns<{ readonly results: readonly VerifyEntry[] }>(), false, 'Recompute and check every chain head (one workflow, or all when omitted).'),
  'chain.health': jsonOp(z.object({ project: handleSchema }).strict(), returns<ChainHealth>(), false, 'Chain store health (backend, counters).'),
  /**
   * Opens a directory's chain ledgers for the `chain.*` operations: a project,
   * or any directory with ledgers under `chain/` (`GF_IO` when it does not exist).
   * The handle is used as `project` by `chain.list|read|rows|verify|health`.
   */
  'chain.open': jsonOp(z.object({ path: directorySchema }).strict(), returns<{ readonly project: string }>(), false, 'Open a directory\'s chain ledgers (a project or any directory with chain/); returns a handle for chain.*.'),
  'chain.rows': jsonOp(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema, limit: limitSchema, after: afterSchema }).strict(),
    returns<ChainRowPage>(), false, 'A workflow\'s persisted rows with their heads (events decoded when readable; not verified), paged.'),
} as const satisfies DomainOperations;
