// Deleted checkpoints as a listing (checkpoint_tombstone@1) with their own page tokens.
import { GfError } from '../errors';
import { isCanonicalUuid, orderedJson, sha256Hex } from '../canonical';
import { validateLimit } from './listing';
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

const TOKEN_DOMAIN = 'graphforge-checkpoint-tombstone-token/1';
const METHOD = 'list_deleted_checkpoints';

function digest(payload: string): string {
  return sha256Hex(new TextEncoder().encode(`${TOKEN_DOMAIN}\n${payload}`)).slice(0, 32);
}

function invalidToken(): GfError {
  return new GfError('GF_PAGE_INVALID', 'the page token is not valid for list_deleted_checkpoints', { method: METHOD });
}

type Cursor = Pick<TombstoneRow, 'deleted_revision' | 'checkpoint_uuid'>;

/** Keyset token after `(deleted_revision, checkpoint_uuid)`, with an integrity digest. */
export function encodeTombstoneToken(last: Cursor): string {
  const payload = orderedJson({ v: 1, method: METHOD, deleted_revision: last.deleted_revision, checkpoint_uuid: last.checkpoint_uuid });
  return Buffer.from(`${payload}\n${digest(payload)}`, 'utf8').toString('base64url');
}

/** Decodes a tombstone token or fails with `GF_PAGE_INVALID` (a checkpoint-list token is foreign here). */
export function decodeTombstoneToken(token: unknown): Cursor {
  if (typeof token !== 'string' || token.length === 0 || token.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken();
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const nl = text.lastIndexOf('\n');
  if (nl < 0 || digest(text.slice(0, nl)) !== text.slice(nl + 1)) throw invalidToken();
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(text.slice(0, nl)) as Record<string, unknown>;
  } catch {
    throw invalidToken();
  }
  if (r.v !== 1 || r.method !== METHOD || !Number.isSafeInteger(r.deleted_revision) || !isCanonicalUuid(r.checkpoint_uuid)) throw invalidToken();
  return { deleted_revision: r.deleted_revision as number, checkpoint_uuid: r.checkpoint_uuid as string };
}

function after(row: Cursor, cursor: Cursor): boolean {
  if (row.deleted_revision !== cursor.deleted_revision) return row.deleted_revision > cursor.deleted_revision;
  return row.checkpoint_uuid > cursor.checkpoint_uuid;
}

/**
 * One page of deleted checkpoints in deletion order (registry order). Pure.
 *
 * Same limits as the active listing (1–10,000, default 100); the registry
 * keeps at most 4,096 tombstones.
 */
export function deletedCheckpointPage(doc: RegistryDoc | null, limit: unknown, afterToken: unknown): DeletedCheckpointPage {
  const n = validateLimit(limit);
  const cursor = afterToken === undefined || afterToken === null ? null : decodeTombstoneToken(afterToken);
  const all = doc?.tombstones ?? [];
  const rest = cursor === null ? all : all.filter((r) => after(r, cursor));
  const slice = rest.slice(0, n);
  const last = slice[slice.length - 1];
  return {
    rows: slice.map((r) => ({ name: r.name, checkpoint_uuid: r.checkpoint_uuid, generation_uuid: r.generation_uuid, deleted_at: r.deleted_at, deleted_revision: r.deleted_revision })),
    next: rest.length > n && last !== undefined ? encodeTombstoneToken(last) : null,
  };
}
