// The history and retention operations: history read from the lineage log
// (GENERATIONS.md "Lineage log"), and the ancestor window retention keeps.
// Each declared once with its request schema and result type. Browser-safe.
import { z } from 'zod';
import { HISTORY_NAME_FILTER_MAX, LINEAGE_KINDS, RETAIN_ANCESTORS_MAX, type HistoryPage, type RetentionPolicy } from '../history';
import { CONTROL, afterSchema, handleSchema, limitSchema, timeoutSchema, uuidSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';

/** The history and retention operations. */
export const HISTORY_OPERATIONS = {
  /**
   * History from the lineage log, newest first by publication order, keyset-paged.
   *
   * Generations whose content retention removed are `pruned` rows with their
   * metadata. Filters: `kind`, `name` (a substring of an active checkpoint's
   * name, case-insensitive), `generation_uuid` (that one record, e.g. for a
   * revert receipt's reason). A token is bound to its filters.
   */
  'history.list': jsonOp(
    z.object({
      project: handleSchema,
      limit: limitSchema,
      after: afterSchema,
      kind: z.enum(LINEAGE_KINDS).optional(),
      /** Checkpoint names hold no control character and no path separator; neither does a filter on them. */
      name: z.string().min(1).max(HISTORY_NAME_FILTER_MAX).refine((s) => !CONTROL.test(s) && !/[/\\]/.test(s), 'not a checkpoint name filter').optional(),
      generation_uuid: uuidSchema.optional(),
    }).strict(),
    returns<HistoryPage>(), false, 'History from the lineage log (pruned generations included), newest first, paged.'),
  /** The retention policy in force and what it keeps now. */
  'retention.show': jsonOp(z.object({ project: handleSchema }).strict(), returns<RetentionPolicy>(), false, 'The retention policy in force (ancestors kept, plus checkpoints and leases).'),
  /**
   * Sets the workspace's ancestor window (stored crash-safely in the workspace).
   *
   * Takes effect at the next cleanup (after the next publication); nothing is removed by the call itself.
   */
  'retention.set': jsonOp(
    z.object({ project: handleSchema, retain_ancestors: z.number().int().min(0).max(RETAIN_ANCESTORS_MAX), timeout_ms: timeoutSchema }).strict(),
    returns<{ readonly retain_ancestors: number; readonly previous: number; readonly source: 'workspace' }>(), true, 'Set how many ancestors of CURRENT retention keeps in this workspace.'),
} as const satisfies DomainOperations;
