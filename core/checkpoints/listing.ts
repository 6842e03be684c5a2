// Rows and pages of list_checkpoints: an active registry row as the listing shows it.
import { GfError } from '../errors';
import { isCanonicalUuid, orderedJson, sha256Hex } from '../canonical';
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

const TOKEN_DOMAIN = 'graphforge-checkpoint-list-token/1';

function tokenDigest(payload: string): string {
  return sha256Hex(new TextEncoder().encode(`${TOKEN_DOMAIN}\n${payload}`)).slice(0, 32);
}

/**
 * Keyset token after `(name, checkpoint_uuid)`.
 *
 * Binds the API version and method and carries an integrity digest, so an
 * edited or foreign token is `GF_PAGE_INVALID` rather than a silent restart.
 * Keyset positions survive concurrent creates and deletes: a later page
 * continues strictly after the last row returned.
 */
export function encodeListToken(last: Pick<ActiveRow, 'name' | 'checkpoint_uuid'>): string {
  const payload = orderedJson({ v: 1, method: 'list_checkpoints', name: last.name, checkpoint_uuid: last.checkpoint_uuid });
  return Buffer.from(`${payload}\n${tokenDigest(payload)}`, 'utf8').toString('base64url');
}

function invalidToken(): GfError {
  return new GfError('GF_PAGE_INVALID', 'the page token is not valid for list_checkpoints', { method: 'list_checkpoints' });
}

/** Decodes a list token or fails with `GF_PAGE_INVALID`. */
export function decodeListToken(token: unknown): Pick<ActiveRow, 'name' | 'checkpoint_uuid'> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken();
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const nl = text.lastIndexOf('\n');
  if (nl < 0) throw invalidToken();
  const payload = text.slice(0, nl);
  if (tokenDigest(payload) !== text.slice(nl + 1)) throw invalidToken();
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    throw invalidToken();
  }
  const r = raw as Record<string, unknown>;
  if (r.v !== 1 || r.method !== 'list_checkpoints' || !isNormalizedName(r.name) || !isCanonicalUuid(r.checkpoint_uuid)) throw invalidToken();
  return { name: r.name, checkpoint_uuid: r.checkpoint_uuid as string };
}

/** One page of active checkpoints sorted by (name, checkpoint_uuid). Pure. */
export function listPage(doc: RegistryDoc | null, limit: unknown, after: unknown): CheckpointPage {
  const n = validateLimit(limit);
  const cursor = after === undefined || after === null ? null : decodeListToken(after);
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
    next: more && last !== undefined ? encodeListToken(last) : null,
    registryRevision: doc?.revision ?? 0,
  };
}
