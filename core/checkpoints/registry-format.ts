// The registry file format: identity, limits, parsing and canonical serialization.
import { GfError } from '../errors';
import { compareCodePoints, isCanonicalUuid, orderedJson, sha256Hex } from '../canonical';
import { DESCRIPTION_MAX_UTF8_BYTES, isNormalizedName, isWellFormedText, utf8Length } from '../contract/names';
import { checkpointUuid, createRequestSha256, deleteRequestSha256 } from './request-identity';

/** Registry file format identity (ADR-0014 "Registry and paths"). */
export const REGISTRY_FORMAT = 'graphforge-checkpoints';
export const REGISTRY_FORMAT_VERSION = 1;

/** Limits of ADR-0014: checked on every read and on the canonical next bytes before mutation. */
export const REGISTRY_LIMITS = {
  activeCheckpoints: 1024,
  tombstones: 4096,
  registryBytes: 8 * 1024 * 1024,
  checksumBytes: 65,
  intentBytes: 16 * 1024,
} as const;

/** Top-level field order of registry.json. */
export const REGISTRY_FIELDS = ['format', 'format_version', 'revision', 'active', 'tombstones'] as const;

/** Field order of an active row. */
export const ACTIVE_ROW_FIELDS = [
  'checkpoint_uuid',
  'name',
  'generation_uuid',
  'generation_manifest_sha256',
  'description',
  'created_at',
  'created_by',
  'create_operation_uuid',
  'create_request_sha256',
  'created_revision',
] as const;

/** Field order of a tombstone: the active row's fields, then the deletion fields. */
export const TOMBSTONE_FIELDS = [
  ...ACTIVE_ROW_FIELDS,
  'deleted_at',
  'deleted_by',
  'delete_operation_uuid',
  'delete_request_sha256',
  'deleted_revision',
] as const;

/** Field order of registry.txn.json. */
export const INTENT_FIELDS = [
  'transaction_uuid',
  'previous_revision',
  'previous_sha256',
  'next_revision',
  'next_sha256',
  'registry_temp',
  'checksum_temp',
] as const;

/**
 * One active checkpoint: a durable name for one exact generation.
 *
 * Timestamps are UTC microseconds since the epoch supplied by the engine
 * clock; UUIDs are lowercase canonical text; digests are 64 lowercase hex.
 */
export interface ActiveRow {
  readonly checkpoint_uuid: string;
  readonly name: string;
  readonly generation_uuid: string;
  readonly generation_manifest_sha256: string;
  readonly description: string | null;
  readonly created_at: number;
  readonly created_by: string | null;
  readonly create_operation_uuid: string;
  readonly create_request_sha256: string;
  readonly created_revision: number;
}

/** A deleted checkpoint: its immutable identity plus the delete idempotency record. */
export interface TombstoneRow extends ActiveRow {
  readonly deleted_at: number;
  readonly deleted_by: string | null;
  readonly delete_operation_uuid: string;
  readonly delete_request_sha256: string;
  readonly deleted_revision: number;
}

/** The whole registry document (registry.json). */
export interface RegistryDoc {
  readonly format: typeof REGISTRY_FORMAT;
  readonly format_version: typeof REGISTRY_FORMAT_VERSION;
  readonly revision: number;
  readonly active: readonly ActiveRow[];
  readonly tombstones: readonly TombstoneRow[];
}

/** The recovery intent (registry.txn.json). */
export interface RegistryIntent {
  readonly transaction_uuid: string;
  readonly previous_revision: number | null;
  readonly previous_sha256: string | null;
  readonly next_revision: number;
  readonly next_sha256: string;
  readonly registry_temp: string;
  readonly checksum_temp: string;
}

/** The files a registry corruption can be about; safe for error details. */
export type RegistryFile = 'registry.json' | 'registry.json.sha256' | 'registry.txn.json' | 'registry_temp' | 'checksum_temp' | 'checkpoints';

/** `GF_CHECKPOINT_REGISTRY_CORRUPT` with value-free details. */
export function registryCorrupt(file: RegistryFile, reason: string, extra: Record<string, string | number> = {}): GfError {
  return new GfError('GF_CHECKPOINT_REGISTRY_CORRUPT', `checkpoint registry is unsafe (${file}: ${reason})`, {
    file,
    reason,
    ...extra,
  });
}

/** Orders active rows by (name, checkpoint_uuid), comparing names by UTF-8 bytes. */
export function compareActive(a: Pick<ActiveRow, 'name' | 'checkpoint_uuid'>, b: Pick<ActiveRow, 'name' | 'checkpoint_uuid'>): number {
  const n = compareCodePoints(a.name, b.name);
  if (n !== 0) return n;
  return a.checkpoint_uuid < b.checkpoint_uuid ? -1 : a.checkpoint_uuid > b.checkpoint_uuid ? 1 : 0;
}

/** Orders tombstones by (deleted_revision, checkpoint_uuid). */
export function compareTombstones(a: TombstoneRow, b: TombstoneRow): number {
  if (a.deleted_revision !== b.deleted_revision) return a.deleted_revision - b.deleted_revision;
  return a.checkpoint_uuid < b.checkpoint_uuid ? -1 : a.checkpoint_uuid > b.checkpoint_uuid ? 1 : 0;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function pick<const K extends readonly string[]>(obj: object, keys: K): Record<K[number], unknown> {
  const src = obj as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = src[k];
  return out as Record<K[number], unknown>;
}

/**
 * Canonical registry bytes: ordered canonical JSON plus one LF.
 *
 * Objects are rebuilt in the documented field order, so the bytes are a pure
 * function of the logical document, independent of how it was constructed.
 */
export function encodeRegistry(doc: RegistryDoc): Uint8Array {
  const ordered = {
    format: doc.format,
    format_version: doc.format_version,
    revision: doc.revision,
    active: doc.active.map((r) => pick(r, ACTIVE_ROW_FIELDS)),
    tombstones: doc.tombstones.map((r) => pick(r, TOMBSTONE_FIELDS)),
  };
  return encoder.encode(`${fastOrderedJson(ordered)}\n`);
}

/**
 * Ordered canonical JSON for the registry's closed value domain, at native speed.
 *
 * Registry values are only null, safe integers, well-formed strings, arrays
 * and plain objects built in field order; for exactly that domain
 * `JSON.stringify` produces the same bytes as `orderedJson` (strings use the
 * same escaping, keys keep insertion order, no whitespace). The registry
 * can hold ~5,000 rows, and `orderedJson` is general-purpose and slower;
 * a test pins the equality.
 */
export function fastOrderedJson(value: unknown): string {
  return JSON.stringify(value);
}

/** The checksum file bytes for `registryBytes`: lowercase SHA-256 hex plus LF (65 bytes). */
export function encodeChecksum(registryBytes: Uint8Array): Uint8Array {
  return encoder.encode(`${sha256Hex(registryBytes)}\n`);
}

/** Canonical intent bytes: ordered canonical JSON plus one LF. */
export function encodeIntent(intent: RegistryIntent): Uint8Array {
  return encoder.encode(`${orderedJson(pick(intent, INTENT_FIELDS))}\n`);
}

/** The exact private temporary names of a transaction (root-local siblings in checkpoints/). */
export function tempNames(transactionUuid: string): { readonly registryTemp: string; readonly checksumTemp: string } {
  return {
    registryTemp: `.registry.${transactionUuid}.json.next`,
    checksumTemp: `.registry.${transactionUuid}.sha256.next`,
  };
}

const HEX64 = /^[0-9a-f]{64}$/;

function isRevision(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
function isMicros(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
function isNullableUuid(v: unknown): v is string | null {
  return v === null || isCanonicalUuid(v);
}

function keysExactly(obj: unknown, keys: readonly string[]): obj is Record<string, unknown> {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return false;
  const actual = Object.keys(obj);
  return actual.length === keys.length && actual.every((k, i) => k === keys[i]);
}

function parseCanonical(bytes: Uint8Array, file: RegistryFile): unknown {
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    throw registryCorrupt(file, 'not_utf8');
  }
  if (!text.endsWith('\n') || text.indexOf('\n') !== text.length - 1) throw registryCorrupt(file, 'not_single_lf');
  try {
    return JSON.parse(text.slice(0, -1)) as unknown;
  } catch {
    throw registryCorrupt(file, 'not_json');
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function checkActiveFields(r: Record<string, unknown>, revision: number): boolean {
  return (
    isCanonicalUuid(r.checkpoint_uuid) &&
    isNormalizedName(r.name) &&
    isCanonicalUuid(r.generation_uuid) &&
    typeof r.generation_manifest_sha256 === 'string' &&
    HEX64.test(r.generation_manifest_sha256) &&
    (r.description === null ||
      (typeof r.description === 'string' && isWellFormedText(r.description) && utf8Length(r.description) <= DESCRIPTION_MAX_UTF8_BYTES)) &&
    isMicros(r.created_at) &&
    isNullableUuid(r.created_by) &&
    isCanonicalUuid(r.create_operation_uuid) &&
    typeof r.create_request_sha256 === 'string' &&
    HEX64.test(r.create_request_sha256) &&
    isRevision(r.created_revision) &&
    r.created_revision >= 1 &&
    r.created_revision <= revision
  );
}

/** Re-derives the create identity of a row: a stored row whose fingerprints do not follow the ADR is unsafe. */
function createIdentityHolds(r: ActiveRow): boolean {
  const sha = createRequestSha256({
    operationUuid: r.create_operation_uuid,
    name: r.name,
    description: r.description,
    actorUuid: r.created_by,
  });
  return sha === r.create_request_sha256 && checkpointUuid(r.create_operation_uuid, sha) === r.checkpoint_uuid;
}

/**
 * Decodes and fully validates registry bytes; any deviation is `GF_CHECKPOINT_REGISTRY_CORRUPT`.
 *
 * Checks, in order: byte bound, strict UTF-8, single trailing LF, JSON,
 * exact field sets and orders, value domains, limits, sort orders, unique
 * names / checkpoint UUIDs / operation UUIDs, revision bounds, re-derived
 * request fingerprints and checkpoint UUIDs, and finally that re-encoding
 * reproduces the input byte for byte (canonical form). Never defaults.
 */
export function decodeRegistry(bytes: Uint8Array): RegistryDoc {
  if (bytes.length > REGISTRY_LIMITS.registryBytes) throw registryCorrupt('registry.json', 'oversized', { limit: REGISTRY_LIMITS.registryBytes });
  return decodeUncached(bytes);
}

function freezeDoc(doc: RegistryDoc): RegistryDoc {
  for (const r of doc.active) Object.freeze(r);
  for (const r of doc.tombstones) Object.freeze(r);
  Object.freeze(doc.active);
  Object.freeze(doc.tombstones);
  return Object.freeze(doc);
}

function decodeUncached(bytes: Uint8Array): RegistryDoc {
  const raw = parseCanonical(bytes, 'registry.json');
  if (!keysExactly(raw, REGISTRY_FIELDS)) throw registryCorrupt('registry.json', 'fields');
  if (raw.format !== REGISTRY_FORMAT || raw.format_version !== REGISTRY_FORMAT_VERSION) throw registryCorrupt('registry.json', 'format');
  const revision = raw.revision;
  if (!isRevision(revision) || revision < 1) throw registryCorrupt('registry.json', 'revision');
  if (!Array.isArray(raw.active) || !Array.isArray(raw.tombstones)) throw registryCorrupt('registry.json', 'fields');
  if (raw.active.length > REGISTRY_LIMITS.activeCheckpoints) throw registryCorrupt('registry.json', 'active_limit');
  if (raw.tombstones.length > REGISTRY_LIMITS.tombstones) throw registryCorrupt('registry.json', 'tombstone_limit');

  const checkpointUuids = new Set<string>();
  const operationUuids = new Set<string>();
  const claim = (set: Set<string>, v: string, what: string): void => {
    if (set.has(v)) throw registryCorrupt('registry.json', `duplicate_${what}`);
    set.add(v);
  };

  const active: ActiveRow[] = [];
  for (const r of raw.active as unknown[]) {
    if (!keysExactly(r, ACTIVE_ROW_FIELDS) || !checkActiveFields(r, revision)) throw registryCorrupt('registry.json', 'active_row');
    const row = r as unknown as ActiveRow;
    const prev = active[active.length - 1];
    if (prev !== undefined && compareActive(prev, row) >= 0) throw registryCorrupt('registry.json', 'active_order');
    if (prev !== undefined && prev.name === row.name) throw registryCorrupt('registry.json', 'duplicate_name');
    active.push(row);
  }
  const tombstones: TombstoneRow[] = [];
  for (const r of raw.tombstones as unknown[]) {
    if (!keysExactly(r, TOMBSTONE_FIELDS) || !checkActiveFields(r, revision)) throw registryCorrupt('registry.json', 'tombstone_row');
    if (
      !isMicros(r.deleted_at) ||
      !isNullableUuid(r.deleted_by) ||
      !isCanonicalUuid(r.delete_operation_uuid) ||
      typeof r.delete_request_sha256 !== 'string' ||
      !HEX64.test(r.delete_request_sha256) ||
      !isRevision(r.deleted_revision) ||
      r.deleted_revision > revision ||
      r.deleted_revision <= (r.created_revision as number)
    ) {
      throw registryCorrupt('registry.json', 'tombstone_row');
    }
    const row = r as unknown as TombstoneRow;
    const prev = tombstones[tombstones.length - 1];
    if (prev !== undefined && compareTombstones(prev, row) >= 0) throw registryCorrupt('registry.json', 'tombstone_order');
    tombstones.push(row);
  }
  for (const row of active) {
    claim(checkpointUuids, row.checkpoint_uuid, 'checkpoint_uuid');
    claim(operationUuids, row.create_operation_uuid, 'operation_uuid');
    if (!createIdentityHolds(row)) throw registryCorrupt('registry.json', 'identity');
  }
  for (const row of tombstones) {
    claim(checkpointUuids, row.checkpoint_uuid, 'checkpoint_uuid');
    claim(operationUuids, row.create_operation_uuid, 'operation_uuid');
    claim(operationUuids, row.delete_operation_uuid, 'operation_uuid');
    if (!createIdentityHolds(row)) throw registryCorrupt('registry.json', 'identity');
    const del = deleteRequestSha256({ operationUuid: row.delete_operation_uuid, name: row.name, actorUuid: row.deleted_by });
    if (del !== row.delete_request_sha256) throw registryCorrupt('registry.json', 'identity');
  }
  const doc: RegistryDoc = { format: REGISTRY_FORMAT, format_version: REGISTRY_FORMAT_VERSION, revision, active, tombstones };
  if (!sameBytes(encodeRegistry(doc), bytes)) throw registryCorrupt('registry.json', 'noncanonical');
  return freezeDoc(doc);
}

/**
 * Validates checksum bytes against registry bytes: exactly 65 bytes, lowercase hex of the digest, LF.
 */
export function checksumMatches(checksumBytes: Uint8Array, registryBytes: Uint8Array): boolean {
  return checksumBytes.length === REGISTRY_LIMITS.checksumBytes && sameBytes(checksumBytes, encodeChecksum(registryBytes));
}

/** The digest a well-formed checksum file declares, or null when the file is malformed. */
export function parseChecksum(checksumBytes: Uint8Array): string | null {
  if (checksumBytes.length !== REGISTRY_LIMITS.checksumBytes || checksumBytes[64] !== 0x0a) return null;
  const hex = Buffer.from(checksumBytes.subarray(0, 64)).toString('latin1');
  return HEX64.test(hex) ? hex : null;
}

/**
 * Decodes and validates an intent; any deviation is `GF_CHECKPOINT_REGISTRY_CORRUPT`.
 *
 * Beyond shape and canonical bytes: the next revision is exactly previous + 1
 * (1 for a first create), previous revision and digest are both null or both
 * present, and the temporary names are exactly those derived from the
 * transaction UUID, so an intent can never point recovery at another file.
 */
export function decodeIntent(bytes: Uint8Array): RegistryIntent {
  if (bytes.length > REGISTRY_LIMITS.intentBytes) throw registryCorrupt('registry.txn.json', 'oversized', { limit: REGISTRY_LIMITS.intentBytes });
  const raw = parseCanonical(bytes, 'registry.txn.json');
  if (!keysExactly(raw, INTENT_FIELDS)) throw registryCorrupt('registry.txn.json', 'fields');
  const ok =
    isCanonicalUuid(raw.transaction_uuid) &&
    ((raw.previous_revision === null && raw.previous_sha256 === null) ||
      (isRevision(raw.previous_revision) &&
        raw.previous_revision >= 1 &&
        typeof raw.previous_sha256 === 'string' &&
        HEX64.test(raw.previous_sha256))) &&
    isRevision(raw.next_revision) &&
    raw.next_revision === (raw.previous_revision === null ? 1 : (raw.previous_revision as number) + 1) &&
    typeof raw.next_sha256 === 'string' &&
    HEX64.test(raw.next_sha256);
  if (!ok) throw registryCorrupt('registry.txn.json', 'values');
  const names = tempNames(raw.transaction_uuid as string);
  if (raw.registry_temp !== names.registryTemp || raw.checksum_temp !== names.checksumTemp) throw registryCorrupt('registry.txn.json', 'temp_names');
  const intent = raw as unknown as RegistryIntent;
  if (!sameBytes(encodeIntent(intent), bytes)) throw registryCorrupt('registry.txn.json', 'noncanonical');
  return intent;
}
