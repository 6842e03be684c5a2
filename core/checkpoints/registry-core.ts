// The registry's pure core: create and delete requests, receipts and the next
// registry document (no I/O).
import { GfError } from '../errors';
import { isCanonicalUuid } from '../canonical';
import { normalizeName, validateDescription } from '../contract/names';
import {
  REGISTRY_FORMAT,
  REGISTRY_FORMAT_VERSION,
  REGISTRY_LIMITS,
  compareActive,
  compareTombstones,
  encodeRegistry,
} from './registry-format';
import type { ActiveRow, RegistryDoc, TombstoneRow } from './registry-format';
import { checkpointUuid, createRequestSha256, deleteRequestSha256 } from './request-identity';
import { CURRENT_SELECTOR } from '../contract/diff';

/** The receipt operations of `checkpoint_receipt@1` produced by this module. */
export const RECEIPT_OPERATIONS = ['checkpoint', 'delete_checkpoint'] as const;
export type ReceiptOperation = (typeof RECEIPT_OPERATIONS)[number];

/**
 * A `checkpoint_receipt@1` row.
 *
 * Derived entirely from the registry row (active or tombstone), so an exact
 * replay returns byte-identical receipts without a second idempotency index.
 * Create and delete never publish a generation: the prior-current and
 * result generation fields are null (revert fills them).
 */
export interface CheckpointReceipt {
  readonly operation: string;
  readonly operation_uuid: string;
  readonly checkpoint_uuid: string;
  readonly name: string;
  readonly source_generation_uuid: string;
  readonly prior_current_generation_uuid: string | null;
  readonly result_generation_uuid: string | null;
  readonly registry_revision: number;
  readonly committed_at: number;
}

/** A validated create request (normalized name, canonical UUID text). */
export interface CreateRequest {
  readonly operationUuid: string;
  readonly name: string;
  readonly description: string | null;
  readonly actorUuid: string | null;
  readonly requestSha256: string;
  readonly checkpointUuid: string;
}

/** A validated delete request. */
export interface DeleteRequest {
  readonly operationUuid: string;
  readonly name: string;
  readonly actorUuid: string | null;
  readonly requestSha256: string;
}

function canonicalKey(value: unknown, field: string): string {
  if (!isCanonicalUuid(value)) {
    throw new GfError('GF_VALIDATION', `${field} must be a canonical lowercase UUID`, { field });
  }
  return value as string;
}

function optionalActor(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return canonicalKey(value, 'actor_uuid');
}

/** Raw create input as it arrives from any surface. */
export interface CreateInput {
  readonly name: unknown;
  readonly description?: unknown;
  readonly idempotencyKey: unknown;
  readonly actorUuid?: unknown;
}

/** Raw delete input as it arrives from any surface. */
export interface DeleteInput {
  readonly name: unknown;
  readonly idempotencyKey: unknown;
  readonly actorUuid?: unknown;
}

/** A request refused before any lock: nothing was written (`committed: false`). */
function uncommitted<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof GfError && e.committed === undefined ? e.withCommitted(false) : e;
  }
}

/** Validates a create request and derives its canonical fingerprint and checkpoint UUID. Pure; refusals carry `committed: false`. */
export function prepareCreate(input: CreateInput): CreateRequest {
  return uncommitted(() => prepareCreateUnchecked(input));
}

function prepareCreateUnchecked(input: CreateInput): CreateRequest {
  const operationUuid = canonicalKey(input.idempotencyKey, 'idempotency_key');
  const name = normalizeName(input.name);
  if (name === CURRENT_SELECTOR) {
    // Reserved: `CURRENT` is the diff selector of the current generation, so no checkpoint may carry it as a name.
    throw new GfError('GF_VALIDATION', 'invalid checkpoint name (reserved_name): "CURRENT" names the current generation in a diff', {
      field: 'name',
      refusal: 'reserved_name',
    });
  }
  const description = validateDescription(input.description);
  const actorUuid = optionalActor(input.actorUuid);
  const requestSha256 = createRequestSha256({ operationUuid, name, description, actorUuid });
  return { operationUuid, name, description, actorUuid, requestSha256, checkpointUuid: checkpointUuid(operationUuid, requestSha256) };
}

/** Validates a delete request and derives its canonical fingerprint. Pure; refusals carry `committed: false`. */
export function prepareDelete(input: DeleteInput): DeleteRequest {
  return uncommitted(() => prepareDeleteUnchecked(input));
}

function prepareDeleteUnchecked(input: DeleteInput): DeleteRequest {
  const operationUuid = canonicalKey(input.idempotencyKey, 'idempotency_key');
  const name = normalizeName(input.name);
  const actorUuid = optionalActor(input.actorUuid);
  return { operationUuid, name, actorUuid, requestSha256: deleteRequestSha256({ operationUuid, name, actorUuid }) };
}

/** The original create receipt of a row. */
export function createReceipt(row: ActiveRow): CheckpointReceipt {
  return {
    operation: 'checkpoint',
    operation_uuid: row.create_operation_uuid,
    checkpoint_uuid: row.checkpoint_uuid,
    name: row.name,
    source_generation_uuid: row.generation_uuid,
    prior_current_generation_uuid: null,
    result_generation_uuid: null,
    registry_revision: row.created_revision,
    committed_at: row.created_at,
  };
}

/** The original delete receipt of a tombstone. */
export function deleteReceipt(row: TombstoneRow): CheckpointReceipt {
  return {
    operation: 'delete_checkpoint',
    operation_uuid: row.delete_operation_uuid,
    checkpoint_uuid: row.checkpoint_uuid,
    name: row.name,
    source_generation_uuid: row.generation_uuid,
    prior_current_generation_uuid: null,
    result_generation_uuid: null,
    registry_revision: row.deleted_revision,
    committed_at: row.deleted_at,
  };
}

function conflict(operation: ReceiptOperation, operationUuid: string): GfError {
  return new GfError('GF_IDEMPOTENCY_CONFLICT', 'idempotency key was used for a different request', {
    operation,
    operation_uuid: operationUuid,
  }, false);
}

/** What an operation UUID already means in the registry's bounded window. */
type OperationUse =
  | { readonly kind: 'create'; readonly row: ActiveRow }
  | { readonly kind: 'delete'; readonly row: TombstoneRow }
  | null;

function findOperation(doc: RegistryDoc | null, operationUuid: string): OperationUse {
  if (doc === null) return null;
  for (const row of doc.active) if (row.create_operation_uuid === operationUuid) return { kind: 'create', row };
  for (const row of doc.tombstones) {
    if (row.delete_operation_uuid === operationUuid) return { kind: 'delete', row };
    if (row.create_operation_uuid === operationUuid) return { kind: 'create', row };
  }
  return null;
}

/** The active row with exactly this normalized name, if any (binary search over the sorted rows). */
export function findActive(doc: RegistryDoc | null, name: string): ActiveRow | undefined {
  if (doc === null) return undefined;
  let lo = 0;
  let hi = doc.active.length;
  const probe = { name, checkpoint_uuid: '' };
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareActive(doc.active[mid] as ActiveRow, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  const row = doc.active[lo];
  return row !== undefined && row.name === name ? row : undefined;
}

/** Decision of the pre-resolution checks of a create. */
export type CreateDecision = { readonly kind: 'replay'; readonly receipt: CheckpointReceipt } | { readonly kind: 'proceed' };

/**
 * Checks a create against the registry before any generation is resolved.
 *
 * Exact replay → the original receipt (also after deletion while the
 * tombstone is retained); the operation UUID used for different bytes →
 * `GF_IDEMPOTENCY_CONFLICT`; the name active under another operation →
 * `GF_CHECKPOINT_EXISTS`; 1,024 active rows → `GF_RESOURCE_LIMIT`.
 */
export function decideCreate(doc: RegistryDoc | null, req: CreateRequest): CreateDecision {
  const use = findOperation(doc, req.operationUuid);
  if (use !== null) {
    if (use.kind === 'create' && use.row.create_request_sha256 === req.requestSha256) {
      return { kind: 'replay', receipt: createReceipt(use.row) };
    }
    throw conflict('checkpoint', req.operationUuid);
  }
  const existing = findActive(doc, req.name);
  if (existing !== undefined) {
    throw new GfError('GF_CHECKPOINT_EXISTS', 'an active checkpoint already has this name', {
      name: req.name,
      checkpoint_uuid: existing.checkpoint_uuid,
    }, false);
  }
  const active = doc?.active.length ?? 0;
  if (active >= REGISTRY_LIMITS.activeCheckpoints) {
    throw new GfError('GF_RESOURCE_LIMIT', 'too many active checkpoints', {
      limit: REGISTRY_LIMITS.activeCheckpoints,
      count: active,
    }, false);
  }
  return { kind: 'proceed' };
}

/** A planned registry replacement: the next document, its canonical bytes and the receipt. */
export interface RegistryPlan {
  readonly next: RegistryDoc;
  readonly bytes: Uint8Array;
  readonly receipt: CheckpointReceipt;
}

function boundedBytes(next: RegistryDoc): Uint8Array {
  const bytes = encodeRegistry(next);
  if (bytes.length > REGISTRY_LIMITS.registryBytes) {
    throw new GfError('GF_RESOURCE_LIMIT', 'the checkpoint registry would exceed its byte bound', {
      limit: REGISTRY_LIMITS.registryBytes,
      size: bytes.length,
    }, false);
  }
  return bytes;
}

/** The generation a create targets, resolved and leased by the caller. */
export interface CreateTarget {
  readonly generationUuid: string;
  readonly manifestSha256: string;
}

/**
 * Plans the registry replacement that adds one active row. Pure.
 *
 * Re-runs `decideCreate` so a plan is never built from a stale decision;
 * enforces the 8 MiB bound on the canonical next bytes.
 */
export function planCreate(doc: RegistryDoc | null, req: CreateRequest, target: CreateTarget, nowMicros: number): RegistryPlan | CheckpointReceipt {
  const decision = decideCreate(doc, req);
  if (decision.kind === 'replay') return decision.receipt;
  const revision = (doc?.revision ?? 0) + 1;
  const row: ActiveRow = {
    checkpoint_uuid: req.checkpointUuid,
    name: req.name,
    generation_uuid: target.generationUuid,
    generation_manifest_sha256: target.manifestSha256,
    description: req.description,
    created_at: nowMicros,
    created_by: req.actorUuid,
    create_operation_uuid: req.operationUuid,
    create_request_sha256: req.requestSha256,
    created_revision: revision,
  };
  const active = [...(doc?.active ?? []), row].sort(compareActive);
  const next: RegistryDoc = {
    format: REGISTRY_FORMAT,
    format_version: REGISTRY_FORMAT_VERSION,
    revision,
    active,
    tombstones: doc?.tombstones ?? [],
  };
  return { next, bytes: boundedBytes(next), receipt: createReceipt(row) };
}

/**
 * Plans the registry replacement of a delete, or returns the original receipt on replay. Pure.
 *
 * The tombstone and the removal of the active row are one replacement.
 * Past 4,096 tombstones the oldest, in (deleted_revision, checkpoint_uuid)
 * order, are pruned; their replays then find nothing and are
 * `GF_CHECKPOINT_NOT_FOUND`, as the ADR's bounded window says.
 */
export function planDelete(doc: RegistryDoc | null, req: DeleteRequest, nowMicros: number): RegistryPlan | CheckpointReceipt {
  const use = findOperation(doc, req.operationUuid);
  if (use !== null) {
    if (use.kind === 'delete' && use.row.delete_request_sha256 === req.requestSha256) return deleteReceipt(use.row);
    throw conflict('delete_checkpoint', req.operationUuid);
  }
  const row = findActive(doc, req.name);
  if (doc === null || row === undefined) {
    throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no active checkpoint has this name', { name: req.name }, false);
  }
  const revision = doc.revision + 1;
  const tombstone: TombstoneRow = {
    ...row,
    deleted_at: nowMicros,
    deleted_by: req.actorUuid,
    delete_operation_uuid: req.operationUuid,
    delete_request_sha256: req.requestSha256,
    deleted_revision: revision,
  };
  const tombstones = [...doc.tombstones, tombstone].sort(compareTombstones);
  const pruned = tombstones.length > REGISTRY_LIMITS.tombstones ? tombstones.slice(tombstones.length - REGISTRY_LIMITS.tombstones) : tombstones;
  const next: RegistryDoc = {
    format: REGISTRY_FORMAT,
    format_version: REGISTRY_FORMAT_VERSION,
    revision,
    active: doc.active.filter((r) => r !== row),
    tombstones: pruned,
  };
  return { next, bytes: boundedBytes(next), receipt: deleteReceipt(tombstone) };
}

/** True when a plan function returned a replay receipt rather than a plan. */
export function isPlan(p: RegistryPlan | CheckpointReceipt): p is RegistryPlan {
  return 'next' in p;
}

/** The generations pinned by active rows (retention roots). */
export function pinnedGenerations(doc: RegistryDoc | null): ReadonlySet<string> {
  return new Set((doc?.active ?? []).map((r) => r.generation_uuid));
}
