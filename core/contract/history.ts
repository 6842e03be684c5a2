// History read from the lineage log, and the retention policy in force:
// the shapes every surface shows, declared once. Browser-safe.

/**
 * Kinds of publication a lineage record names (GENERATIONS.md "Lineage log").
 *
 * `first` is the workspace's first generation, `revert` one published by a
 * revert to a checkpoint, `publication` every other one.
 */
export const LINEAGE_KINDS = ['publication', 'revert', 'first'] as const;
/** One lineage kind. */
export type LineageKind = (typeof LINEAGE_KINDS)[number];

/**
 * What retention has done to a generation listed in history.
 *
 * `current`: CURRENT names it; `retained`: its content is still on disk (an
 * ancestor in the window, a checkpoint, a reader lease, or not cleaned up
 * yet); `pruned`: retention removed its content, the lineage record remains
 * (no content actions: no diff, open or revert).
 */
export const HISTORY_STATUSES = ['current', 'retained', 'pruned'] as const;
/** One history status. */
export type HistoryStatus = (typeof HISTORY_STATUSES)[number];

/** An active checkpoint naming a generation (history rows show their names and descriptions). */
export interface HistoryCheckpoint {
  readonly checkpoint_uuid: string;
  readonly name: string;
  readonly description: string | null;
}

/**
 * One row of history: a lineage record plus what is known about it now.
 *
 * Everything up to `participants_changed` is the log's record, exactly; the
 * rest (status, checkpoint names) is derived at read time.
 */
export interface HistoryEntry {
  /** Publication order (1 for the first record); history is sorted by it, newest first. */
  readonly seq: number;
  readonly generation_uuid: string;
  readonly parent_generation_uuid: string | null;
  readonly manifest_sha256: string;
  /** ISO-8601 UTC with microseconds (core/contract/time.ts). */
  readonly published_at: string;
  /** The actor UUID the caller gave, or null. */
  readonly actor: string | null;
  readonly kind: LineageKind;
  /** For a revert: the checkpoint it restored. */
  readonly restored_checkpoint_uuid: string | null;
  /** For a revert: that checkpoint's name when the registry still knows it (active or deleted), else null. */
  readonly restored_checkpoint_name: string | null;
  /** For a revert: the reason as stored (trimmed). */
  readonly reason: string | null;
  /** Participants added, removed or with different content than the parent. */
  readonly participants_changed: number;
  readonly status: HistoryStatus;
  /** Active checkpoints naming this generation, by name. */
  readonly checkpoints: readonly HistoryCheckpoint[];
}

/** A page of history (`history.list`), newest first. */
export interface HistoryPage {
  readonly entries: readonly HistoryEntry[];
  /** Opaque keyset token of the next (older) page; null at the end. */
  readonly next_page_token: string | null;
  /** Records in the log (before filters): the length of the whole history. */
  readonly total_records: number;
}

/** Bound of the `history.list` name filter (a substring of a checkpoint name, UTF-16 code units). */
export const HISTORY_NAME_FILTER_MAX = 128;

/** Ancestors of CURRENT retention keeps when the workspace sets nothing (GENERATIONS.md "Retention": default 2). */
export const DEFAULT_RETAIN_ANCESTORS = 2;
/** Largest ancestor window a workspace may configure (retention is finite by design). */
export const RETAIN_ANCESTORS_MAX = 1024;

/** Where the retention policy in force comes from. */
export const RETENTION_SOURCES = ['default', 'workspace'] as const;
/** One retention policy source. */
export type RetentionSource = (typeof RETENTION_SOURCES)[number];

/**
 * The retention policy in force and what it keeps now (`retention.show`).
 *
 * Reachable = CURRENT + `retain_ancestors` most recent ancestors + every
 * checkpointed generation + every generation a reader holds a lease on
 * (GENERATIONS.md "Retention"); everything else is pruned at the next cleanup.
 */
export interface RetentionPolicy {
  readonly retain_ancestors: number;
  readonly default_retain_ancestors: number;
  readonly max_retain_ancestors: number;
  readonly source: RetentionSource;
  readonly current_generation_uuid: string | null;
  /** CURRENT's ancestors the window keeps, nearest first. */
  readonly ancestors: readonly string[];
  /** Generations kept because an active checkpoint names them. */
  readonly checkpointed: readonly string[];
  /** Generations kept only because a reader holds their lease now. */
  readonly leased: readonly string[];
}

/** A generation a revert would make prunable (it leaves the ancestor window and no checkpoint names it). */
export interface PrunableGeneration {
  readonly generation_uuid: string;
  /** Its lineage record's fields when the log has it (null otherwise). */
  readonly seq: number | null;
  readonly published_at: string | null;
  readonly kind: LineageKind | null;
  readonly reason: string | null;
}
