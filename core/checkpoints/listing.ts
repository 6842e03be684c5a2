// Rows and pages of list_checkpoints: an active registry row as the listing shows it.
import { GfError } from '../errors';
import { isCanonicalUuid } from '../canonical';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import { isNormalizedName } from '../contract/names';
import { compareActive } from './registry-format';
import type { ActiveRow, RegistryDoc } from './registry-format';
import { PAGE_LIMITS as LIST_LIMIT, validateLimit } from '../contract/paging';

/** Page bounds of `list_checkpoints` (ADR-0014: 1–10,000, default 100). */
export { LIST_LIMIT, validateLimit };

/**
 * One `checkpoint@1` row, in the contract's field order.
 *
 * The listing never exposes operation UUIDs or request fingerprints: those
 * are idempotency records, not public history.
 */
export interface CheckpointRow {
  readonly checkpoint_uuid: string;
  readonly name: string;
  readonly description: string | null;
  readonly generation_uuid: string;
  readonly generation_manifest_sha256: string;
  readonly created_at: number;
  readonly created_by: string | null;
}

/** A page of the listing plus the keyset token of the next page (null on the last). */
export interface CheckpointPage {
  readonly rows: readonly CheckpointRow[];
  readonly next: string | null;
  readonly registryRevision: number;
}

/** The `checkpoint@1` projection of an active row. */
export function checkpointRow(r: ActiveRow): CheckpointRow {
  return {
    checkpoint_uuid: r.checkpoint_uuid,
    name: r.name,
    description: r.description,
    generation_uuid: r.generation_uuid,
    generation_manifest_sha256: r.generation_manifest_sha256,
    created_at: r.created_at,
    created_by: r.created_by,
  };
}

/** The operation list tokens are bound to (a token of another listing is refused). */
const LIST_SCOPE: CursorScope = { operation: 'list_checkpoints', binding: null, limit: null, bounds: LIST_LIMIT };

const refuse = (): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not valid for list_checkpoints', { method: 'list_checkpoints' });

/**
 * Keyset token after `(name, checkpoint_uuid)`, signed (core/paging/cursor.ts),
 * so an edited or foreign token is
 * `GF_PAGE_INVALID` rather than a silent restart. Keyset positions survive
 * concurrent creates and deletes: a later page continues strictly after the
 * last row returned.
 */
export function encodeListToken(key: CursorKey, last: Pick<ActiveRow, 'name' | 'checkpoint_uuid'>): string {
  return encodeCursor(key, LIST_SCOPE, [last.name, last.checkpoint_uuid]);
}

/** Decodes a list token or fails with `GF_PAGE_INVALID`. */
export function decodeListToken(key: CursorKey, token: unknown): Pick<ActiveRow, 'name' | 'checkpoint_uuid'> {
  const at = decodeCursor(key, LIST_SCOPE, token, refuse);
  if (!Array.isArray(at) || at.length !== 2 || !isNormalizedName(at[0]) || !isCanonicalUuid(at[1])) throw refuse();
  return { name: at[0], checkpoint_uuid: at[1] as string };
}

/** One page of active checkpoints sorted by (name, checkpoint_uuid); `key` is read only when a token is. */
export function listPage(doc: RegistryDoc | null, limit: unknown, after: unknown, key: () => CursorKey): CheckpointPage {
  const n = validateLimit(limit);
  const cursor = after === undefined || after === null ? null : decodeListToken(key(), after);
  const rows = doc?.active ?? [];
  let start = 0;
  if (cursor !== null) {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareActive(rows[mid] as ActiveRow, cursor) <= 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const slice = rows.slice(start, start + n);
  const last = slice[slice.length - 1];
  const more = start + n < rows.length;
  return {
    rows: slice.map(checkpointRow),
    next: more && last !== undefined ? encodeListToken(key(), last) : null,
    registryRevision: doc?.revision ?? 0,
  };
}
