// Deleted checkpoints as a listing (checkpoint_tombstone@1) with their own page tokens.
import { GfError } from '../errors';
import { isCanonicalUuid } from '../canonical';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import { LIST_LIMIT, validateLimit } from './listing';
import type { RegistryDoc, TombstoneRow } from './registry-format';

/**
 * One deleted checkpoint as the listing shows it (`checkpoint_tombstone@1`).
 *
 * Only the public history of the name: who created and deleted it and the
 * idempotency records stay in the registry.
 */
export interface DeletedCheckpointRow {
  readonly name: string;
  readonly checkpoint_uuid: string;
  readonly generation_uuid: string;
  /** UTC microseconds since the epoch. */
  readonly deleted_at: number;
  /** The registry revision that deleted the name (orders the tombstones). */
  readonly deleted_revision: number;
}

/** A page of tombstones plus the keyset token of the next page (null on the last). */
export interface DeletedCheckpointPage {
  readonly rows: readonly DeletedCheckpointRow[];
  readonly next: string | null;
}

const METHOD = 'list_deleted_checkpoints';

const SCOPE: CursorScope = { operation: METHOD, binding: null, limit: null, bounds: LIST_LIMIT };

const refuse = (): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not valid for list_deleted_checkpoints', { method: METHOD });

type Cursor = Pick<TombstoneRow, 'deleted_revision' | 'checkpoint_uuid'>;

/** Keyset token after `(deleted_revision, checkpoint_uuid)`, signed (core/paging/cursor.ts). */
export function encodeTombstoneToken(key: CursorKey, last: Cursor): string {
  return encodeCursor(key, SCOPE, [last.deleted_revision, last.checkpoint_uuid]);
}

/** Decodes a tombstone token or fails with `GF_PAGE_INVALID` (a checkpoint-list token is foreign here). */
export function decodeTombstoneToken(key: CursorKey, token: unknown): Cursor {
  const at = decodeCursor(key, SCOPE, token, refuse);
  if (!Array.isArray(at) || at.length !== 2 || !Number.isSafeInteger(at[0]) || !isCanonicalUuid(at[1])) throw refuse();
  return { deleted_revision: at[0] as number, checkpoint_uuid: at[1] as string };
}

function after(row: Cursor, cursor: Cursor): boolean {
  if (row.deleted_revision !== cursor.deleted_revision) return row.deleted_revision > cursor.deleted_revision;
  return row.checkpoint_uuid > cursor.checkpoint_uuid;
}

/**
 * One page of deleted checkpoints in deletion order (registry order); `key` is read only when a token is.
 *
 * Same limits as the active listing (1–10,000, default 100); the registry
 * keeps at most 4,096 tombstones.
 */
export function deletedCheckpointPage(doc: RegistryDoc | null, limit: unknown, afterToken: unknown, key: () => CursorKey): DeletedCheckpointPage {
  const n = validateLimit(limit);
  const cursor = afterToken === undefined || afterToken === null ? null : decodeTombstoneToken(key(), afterToken);
  const all = doc?.tombstones ?? [];
  const rest = cursor === null ? all : all.filter((r) => after(r, cursor));
  const slice = rest.slice(0, n);
  const last = slice[slice.length - 1];
  return {
    rows: slice.map((r) => ({ name: r.name, checkpoint_uuid: r.checkpoint_uuid, generation_uuid: r.generation_uuid, deleted_at: r.deleted_at, deleted_revision: r.deleted_revision })),
    next: rest.length > n && last !== undefined ? encodeTombstoneToken(key(), last) : null,
  };
}
