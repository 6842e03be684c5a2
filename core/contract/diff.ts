// The diff operation's browser-safe vocabulary: scopes, detail levels, change
// kinds, page bounds and the result column names (the tables themselves, with
// their kinds, are declared in core/contract/tables.ts; the engine builds its
// Arrow schemas from those, the renderer and the CLI read rows typed by them:
// a renamed column fails the build on every side).
import {
  RECORD_DIFF_DISPLAY_SCHEMA_NAME,
  RECORD_DIFF_DISPLAY_TABLE,
  RECORD_DIFF_SCHEMA_NAME,
  RECORD_DIFF_TABLE,
  RECORD_DIFF_VALUES_SCHEMA_NAME,
  RECORD_DIFF_VALUES_TABLE,
  SUMMARY_DIFF_SCHEMA_NAME,
  SUMMARY_DIFF_TABLE,
  columnNames,
} from './tables';

/** The user-facing domain scopes of `graphforge-checkpoint-api/1` (participants add `workspace`, which no diff scope names). */
export const DOMAIN_SCOPES = ['graph', 'ontology', 'configuration', 'capabilities', 'provenance', 'knowledge', 'epistemic'] as const;

/**
 * Every participant scope of the registry: the domain scopes, and `workspace`
 * (the restoration record: bookkeeping of reverts, not user content).
 */
export const PARTICIPANT_SCOPES = [...DOMAIN_SCOPES, 'workspace'] as const;

/** One participant scope. */
export type ParticipantScope = (typeof PARTICIPANT_SCOPES)[number];

/** Participant scopes whose records are the workspace's own bookkeeping (shown apart from content changes). */
export const BOOKKEEPING_SCOPES = ['workspace'] as const satisfies readonly ParticipantScope[];

/** Request scopes: `summary` (every participant, summary only), one domain scope, or `all`. */
export const DIFF_SCOPES = ['summary', ...DOMAIN_SCOPES, 'all'] as const;

/** One request scope. */
export type DiffScope = (typeof DIFF_SCOPES)[number];

/**
 * The request scope that opens a participant of scope `participantScope`
 * in the record diff: its own domain scope, or `all` for a scope no request
 * names (`workspace`), always with the family's `record_family_id`.
 *
 * Derived from the registry's scope, never guessed from a capability id.
 */
export function diffScopeOfParticipant(participantScope: string): DiffScope {
  return (DOMAIN_SCOPES as readonly string[]).includes(participantScope) ? (participantScope as DiffScope) : 'all';
}

/** True when a participant scope holds bookkeeping records (`workspace`), not user content. */
export function isBookkeepingScope(participantScope: string): boolean {
  return (BOOKKEEPING_SCOPES as readonly string[]).includes(participantScope);
}

/** Result detail levels. */
export const DIFF_DETAILS = ['summary', 'records'] as const;

/** One detail level. */
export type DiffDetail = (typeof DIFF_DETAILS)[number];

/** `change_kind` of summary rows. */
export const SUMMARY_CHANGE_KINDS = ['added', 'removed', 'modified', 'unchanged'] as const;

/** One summary change kind. */
export type SummaryChangeKind = (typeof SUMMARY_CHANGE_KINDS)[number];

/** `change_kind` of record rows (sort order of the contract is by these strings' bytes). */
export const RECORD_CHANGE_KINDS = ['added', 'modified', 'removed'] as const;

/** One record change kind. */
export type RecordChangeKind = (typeof RECORD_CHANGE_KINDS)[number];

/** Page size bounds (`limits.diff_page_*` of the contract). */
export const DIFF_PAGE_LIMITS = { min: 1, max: 10_000, default: 100 } as const;

/** The reserved selector naming the live generation. */
export const CURRENT_SELECTOR = 'CURRENT';

export { RECORD_DIFF_DISPLAY_SCHEMA_NAME, RECORD_DIFF_SCHEMA_NAME, RECORD_DIFF_VALUES_SCHEMA_NAME, SUMMARY_DIFF_SCHEMA_NAME };

/** `checkpoint_summary_diff@1` column names (declared with their kinds in core/contract/tables.ts). */
export const SUMMARY_DIFF_COLUMNS = columnNames(SUMMARY_DIFF_TABLE);
/** `checkpoint_record_diff@1` column names. */
export const RECORD_DIFF_COLUMNS = columnNames(RECORD_DIFF_TABLE);
/** `checkpoint_record_diff_display@1` column names: the record-diff columns, then `row_number`, `total_rows`, `display`, `changed_fields`. */
export const RECORD_DIFF_DISPLAY_COLUMNS = columnNames(RECORD_DIFF_DISPLAY_TABLE);
/** `checkpoint_record_diff_values@1` column names: the display columns, then `before` and `after`. */
export const RECORD_DIFF_VALUES_COLUMNS = columnNames(RECORD_DIFF_VALUES_TABLE);

/** Longest `search` text of a record diff request (characters). */
export const DIFF_SEARCH_MAX_CHARS = 256;

/** Display values of a record (`display` column), field → text. */
export type DisplayValues = Readonly<Record<string, string | null>>;

/** Parses a `display` cell (`{}` for null or malformed text). */
export function parseDisplay(text: string | null): DisplayValues {
  if (text === null) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as DisplayValues) : {};
  } catch {
    return {};
  }
}

/** The field names of a `changed_fields` cell (empty for null). */
export function changedFieldList(text: string | null): readonly string[] {
  return text === null || text.length === 0 ? [] : text.split(',');
}

/** Changed cells of one field across the modified records of a family (`checkpoints.diff_stat`). */
export interface FieldCellCount {
  readonly field: string;
  /** Modified records whose value of `field` differs. */
  readonly records: number;
}

/**
 * Exact statistics of one participant between two endpoints (`checkpoints.diff_stat`).
 *
 * Counts are exact over the whole family (never over loaded pages).
 */
export interface DiffStatFamily {
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  /** The summary's participant-level kind (`unchanged` when the records are equal). */
  readonly change_kind: SummaryChangeKind;
  /** True for bookkeeping participants (the restoration record), reported apart from content. */
  readonly bookkeeping: boolean;
  readonly from_row_count: number | null;
  readonly to_row_count: number | null;
  readonly added: number;
  readonly removed: number;
  readonly modified: number;
  /** Per field with at least one changed cell, in schema order. */
  readonly changed_cells: readonly FieldCellCount[];
  /** The family's display fields, in declaration order (the `display` object's keys). */
  readonly display_fields: readonly string[];
}

/** Result of `checkpoints.diff_stat`. */
export interface DiffStatResult {
  readonly from_checkpoint_uuid: string;
  readonly to_checkpoint_uuid: string;
  /** Every participant of the scope, in the summary's order. */
  readonly families: readonly DiffStatFamily[];
  /** One line for people: e.g. `content identical; 1 restoration record` (`diffHeadline`). */
  readonly headline: string;
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/**
 * One line summing up a diff's statistics, content first, bookkeeping apart.
 *
 * `content identical; 1 restoration record` for a checkpoint against the
 * CURRENT just reverted to it; otherwise the content record counts, e.g.
 * `3 families changed: 12 added, 4 removed, 80 modified`.
 */
export function diffHeadline(families: readonly DiffStatFamily[]): string {
  const content = families.filter((f) => !f.bookkeeping && f.change_kind !== 'unchanged');
  const books = families.filter((f) => f.bookkeeping && f.change_kind !== 'unchanged');
  const sum = (fs: readonly DiffStatFamily[], k: 'added' | 'removed' | 'modified'): number => fs.reduce((n, f) => n + f[k], 0);
  const head =
    content.length === 0
      ? 'content identical'
      : `${plural(content.length, 'family', 'families')} changed: ${sum(content, 'added').toLocaleString('en-US')} added, ${sum(content, 'removed').toLocaleString('en-US')} removed, ${sum(content, 'modified').toLocaleString('en-US')} modified`;
  // The restoration participant holds the latest restoration record: one replaced by another is one record.
  const bookRecords = books.reduce((n, f) => n + Math.max(f.added, f.removed) + f.modified, 0);
  return books.length === 0 ? head : `${head}; ${plural(bookRecords, 'restoration record', 'restoration records')}`;
}

/** One summary-diff column name. */
export type SummaryDiffColumn = (typeof SUMMARY_DIFF_COLUMNS)[number];
/** One record-diff column name. */
export type RecordDiffColumn = (typeof RECORD_DIFF_COLUMNS)[number];
/** One display record-diff column name. */
export type RecordDiffDisplayColumn = (typeof RECORD_DIFF_DISPLAY_COLUMNS)[number];

/**
 * Diagnostics channel on which an async diff publishes `{ phase }` at each
 * pause (the CLI's progress lines listen to it by this name).
 */
export const DIFF_PROGRESS_CHANNEL = 'graphforge:diff:pause';

/**
 * Diagnostics channel on which the diff engine publishes notices a person
 * should see beside the result, e.g. `{ kind: 'token_key_in_memory' }` when the
 * workspace cannot be written and page tokens are valid in this process only.
 */
export const DIFF_NOTICE_CHANNEL = 'graphforge:diff:notice';
