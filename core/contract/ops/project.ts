// The workspace session operations: open, create and close a workspace, its
// summary (generations, restorations, CURRENT) and the change token the app
// polls. Each declared once with its request schema and result type.
// Browser-safe (zod and core/contract).
import { z } from 'zod';
import { directorySchema, handleSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';

/** What `project.open` / `project.create` return. */
export interface ProjectOpened {
  readonly project: string;
  readonly label: string;
  /** The workspace folder as opened (absolute): the app lists it among recent workspaces. */
  readonly path: string;
}

/** A restoration record (restoration_transition@1) without its reason text. */
export interface RestorationSummary {
  readonly restoration_uuid: string;
  readonly checkpoint_uuid: string;
  readonly source_generation_uuid: string;
  readonly prior_current_generation_uuid: string;
  readonly restored_at: string;
}

/** A generation as the project summary shows it. */
export interface GenerationSummary {
  readonly generation_uuid: string;
  readonly parent_generation_uuid: string | null;
  readonly manifest_sha256: string;
  readonly participant_count: number;
  readonly is_current: boolean;
  /** Present when this generation was published by a revert. */
  readonly restoration: RestorationSummary | null;
}

/** The project summary. */
export interface ProjectSummary {
  readonly initialized: boolean;
  readonly current: { readonly generation_uuid: string; readonly manifest_sha256: string } | null;
  /**
   * Every complete generation still on disk, newest first.
   *
   * CURRENT's parent line first, then the other retained generations (older
   * ones kept by a checkpoint), each child before its parent.
   */
  readonly generations: readonly GenerationSummary[];
  /** True when some listed generation's parent is no longer on disk (retention cleaned older ones up). */
  readonly older_generations_cleaned_up: boolean;
}

/** What `project.changes` returns: an opaque token (equal tokens: nothing watched changed; a PostgreSQL ledger store is not watched). */
export interface ChangeToken {
  readonly token: string;
}

/** The workspace session operations. */
export const PROJECT_OPERATIONS = {
  'project.open': jsonOp(z.object({ path: directorySchema }).strict(), returns<ProjectOpened>(), false, 'Open an existing workspace directory; returns a session handle.'),
  'project.create': jsonOp(z.object({ path: directorySchema }).strict(), returns<ProjectOpened>(), true, 'Create an empty workspace container; returns a session handle.'),
  'project.close': jsonOp(z.object({ project: handleSchema }).strict(), returns<{ readonly closed: boolean }>(), false, 'Forget a session handle.'),
  'project.summary': jsonOp(z.object({ project: handleSchema }).strict(), returns<ProjectSummary>(), false, 'Generations with parents, restoration records and CURRENT.'),
  /**
   * A cheap token that changes whenever CURRENT, the checkpoint registry or a
   * ledger file changes, by this process or any other.
   *
   * A handful of `stat` calls, no file read: the app polls it (about once a
   * second) and refreshes only when it changed, so work done from the CLI
   * appears without a manual Refresh.
   */
  'project.changes': jsonOp(z.object({ project: handleSchema }).strict(), returns<ChangeToken>(), false, 'A token that changes when CURRENT, the checkpoint registry or a ledger changes.'),
} as const satisfies DomainOperations;
