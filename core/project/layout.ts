// Machine-owned names of the project layout (GENERATIONS.md "Layout").
import path from 'node:path';
import { isCanonicalUuid, sha256, uuidV8 } from '../canonical/index';
import { parseUuid } from '../canonical/index';

/**
 * Machine-owned names of the project layout (GENERATIONS.md "Layout").
 *
 * Every path the engine touches is built here from constants, canonical
 * UUIDs and hex digests; caller text never becomes a path component.
 */
export const LAYOUT = {
  format: 'FORMAT',
  current: 'CURRENT',
  locks: 'locks',
  writerLock: 'locks/writer.lock',
  checkpointsLock: 'locks/checkpoints.lock',
  /**
   * Written once, after the first registry pair is installed, and never removed: a missing pair beside it
   * means a deleted registry, never "no checkpoint was ever created" (ADR-0014).
   */
  checkpointsCreated: 'locks/checkpoints.created',
  transactions: 'transactions',
  generations: 'generations',
  objects: 'objects',
  objectsSha256: 'objects/sha256',
  trash: 'trash',
  /** Records that outlive generation retention (created on first use, not a container directory). */
  receipts: 'receipts',
  /** The bounded revert receipt record (`core/checkpoints/revert-receipts.ts`). */
  revertReceipts: 'receipts/revert',
  /** The workflow ledgers (one SQLite database per workflow, CHAIN.md; created on first use). */
  chain: 'chain',
  /** Derived diff data (change lists, the page-token key): rebuildable, created on first use. */
  diffCache: 'cache/diff',
  /** Cached change lists of the diff engine. */
  diffChanges: 'cache/diff/changes',
  /** The project's page-token HMAC key. */
  pageTokenKey: 'cache/diff/page-token.key',
  /** Validation records: one per completely validated generation, `<manifest-sha256>.json` (derived, rebuildable, created on first use). */
  validationCache: 'cache/validation',
  /** Record indexes of participant objects for the diff, `<key>.idx` (derived, rebuildable, created on first use). */
  indexCache: 'cache/index',
  /** Record-set fingerprints of participant objects for the summary diff, `<key>.fp` (derived, rebuildable, created on first use). */
  recordSetCache: 'cache/record-sets',
  /** Records and settings that outlive generation retention (created on first use, not a container directory). */
  history: 'history',
  /** The lineage log: one line per generation that became CURRENT (GENERATIONS.md "Lineage log"). */
  lineage: 'history/lineage.jsonl',
  /** The workspace's retention policy (`history/retention.json`; absent = the default window). */
  retentionPolicy: 'history/retention.json',
} as const;

/** Directories every project has from creation on, parents first. */
export const CONTAINER_DIRS = [
  LAYOUT.locks,
  LAYOUT.transactions,
  LAYOUT.generations,
  LAYOUT.objects,
  LAYOUT.objectsSha256,
  LAYOUT.trash,
] as const;

/** Prefix of CURRENT's private temp sibling (`current-tmp-<txn-uuid>`). */
export const CURRENT_TMP_PREFIX = 'current-tmp-';
/** Prefix of a journal's temp sibling. */
export const JOURNAL_TMP_PREFIX = 'tmp-';
/** Prefix of a staged object inside the private generation directory. */
export const STAGING_PREFIX = 'staging-';

/** Absolute and project-relative form of one machine-owned path. */
export interface Place {
  readonly abs: string;
  readonly rel: string;
}

/** Resolves a project-relative machine-owned name under `root`. */
export function place(root: string, rel: string): Place {
  return { abs: path.join(root, ...rel.split('/')), rel };
}

/** `generations/<uuid>` (the UUID must be canonical). */
export function generationDir(root: string, uuid: string): Place {
  assertUuidName(uuid);
  return place(root, `${LAYOUT.generations}/${uuid}`);
}

/** `generations/<uuid>/manifest.json`. */
export function manifestPlace(root: string, uuid: string): Place {
  return place(root, `${generationDir(root, uuid).rel}/manifest.json`);
}

/** `generations/<uuid>/lease.lock`. */
export function leasePlace(root: string, uuid: string): Place {
  return place(root, `${generationDir(root, uuid).rel}/lease.lock`);
}

/** `transactions/<uuid>.json`. */
export function journalPlace(root: string, uuid: string): Place {
  assertUuidName(uuid);
  return place(root, `${LAYOUT.transactions}/${uuid}.json`);
}

const HEX64 = /^[0-9a-f]{64}$/;

/** `objects/sha256/<2 hex>/<62 hex>` for a content digest. */
export function objectPlace(root: string, sha256Hex: string): Place {
  if (!HEX64.test(sha256Hex)) throw new Error('invariant violated: object digest is 64 lowercase hex');
  return place(root, `${LAYOUT.objectsSha256}/${sha256Hex.slice(0, 2)}/${sha256Hex.slice(2)}`);
}

/** True for a canonical object file name inside its fan-out directory. */
export function isObjectName(fanout: string, name: string): boolean {
  return /^[0-9a-f]{2}$/.test(fanout) && /^[0-9a-f]{62}$/.test(name);
}

function assertUuidName(uuid: string): void {
  if (!isCanonicalUuid(uuid)) throw new Error('invariant violated: machine-owned UUID names are canonical');
}

const GENERATION_DOMAIN = new TextEncoder().encode('graphforge-project-generation/1');

/**
 * The default generation UUID of a transaction: uuid_v8(SHA-256(domain || txn bytes)).
 *
 * Deterministic, so a replayed transaction names the same generation; callers
 * with their own derivation (revert) pass the UUID explicitly.
 */
export function deriveGenerationUuid(transactionUuid: string): string {
  const txn = parseUuid(transactionUuid);
  const pre = new Uint8Array(GENERATION_DOMAIN.length + txn.length);
  pre.set(GENERATION_DOMAIN, 0);
  pre.set(txn, GENERATION_DOMAIN.length);
  return uuidV8(sha256(pre));
}
