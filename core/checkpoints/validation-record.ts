// Validation records: the stored evidence that a generation's objects were verified
// by this validator version.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalJson, sha256Hex } from '../canonical/index';
import { RECORD_FAMILIES, SNAPSHOT_RULES } from '../participants/index';
import { LAYOUT, openObjectVerified } from '../project/index';
import type { VerifiedObjectMemo } from '../project/index';
import type { ManifestParticipant } from '../project/index';
import { completeValidationKeys } from './snapshot-validation';
import type { ValidationMemo } from './snapshot-validation';

/** Format of a validation record (the first line's `format`). */
export const VALIDATION_RECORD_FORMAT = 'graphforge-validation-record';

/**
 * Revision of what the complete validation checks. Raise it whenever a
 * domain or cross-domain rule changes what it accepts: every record written
 * under another revision is then ignored and rebuilt. (Adding, removing or
 * re-declaring a rule or a family changes `VALIDATOR_VERSION` by itself.)
 */
export const VALIDATOR_LOGIC_REVISION = 1;

/** Largest validation record read (a generation has tens of participants; a record is a few KiB). */
const RECORD_MAX_BYTES = 1 << 20;

/**
 * The validator's own version: SHA-256 over the logic revision, every
 * registered family (key, versions, encoding, schema fingerprint) and every
 * cross-domain rule (id, subject, families read). Part of a record's source
 * fingerprint beside the manifest digest.
 */
export const VALIDATOR_VERSION: string = sha256Hex(
  new TextEncoder().encode(
    canonicalJson({
      domain: 'graphforge-complete-validation',
      revision: VALIDATOR_LOGIC_REVISION,
      families: RECORD_FAMILIES.map((f) => [f.key, f.capabilityVersion, f.recordVersion, f.encoding, f.schemaFingerprint]),
      rules: SNAPSHOT_RULES.map((r) => [r.id, r.subject, [...r.reads]]),
    }),
  ),
);

/** What one record says: this manifest passed the complete validation of this validator, and the identities its objects were verified under. */
export interface ValidationRecord {
  readonly manifestSha256: string;
  readonly generationUuid: string;
  /** Object digest → file identity (`dev:ino:size:mtimeNs:ctimeNs`) it was hashed under, racy-clean. */
  readonly objects: ReadonlyMap<string, string>;
}

/** Why a record was not used (tests and diagnostics). */
export type RecordMiss = 'missing' | 'corrupt' | 'other-validator' | 'other-generation';

/** The generation a record is about. */
export interface ValidatedGeneration {
  readonly generationUuid: string;
  readonly manifestSha256: string;
  readonly participants: readonly ManifestParticipant[];
}

const HEX64 = /^[0-9a-f]{64}$/;
const IDENTITY = /^\d+:\d+:\d+:\d+:\d+$/;

/** `cache/validation/<manifest-sha256>.json` (the digest is 64 hex, never caller text). */
export function validationRecordPath(root: string, manifestSha256: string): string {
  if (!HEX64.test(manifestSha256)) throw new Error('invariant violated: a manifest digest is 64 hex');
  return path.join(root, ...LAYOUT.validationCache.split('/'), `${manifestSha256}.json`);
}

/**
 * A record's exact bytes: one line of canonical JSON (fields `format`,
 * `format_version`, `validator_version`, `manifest_sha256`,
 * `generation_uuid`, `objects` sorted by digest) + LF, then the SHA-256 of
 * that line (LF included) in lowercase hex + LF.
 */
export function encodeValidationRecord(r: ValidationRecord): Uint8Array {
  const objects = [...r.objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([sha, identity]) => ({ content_sha256: sha, identity }));
  const body = `${canonicalJson({
    format: VALIDATION_RECORD_FORMAT,
    format_version: 1,
    validator_version: VALIDATOR_VERSION,
    manifest_sha256: r.manifestSha256,
    generation_uuid: r.generationUuid,
    objects,
  })}\n`;
  const bodyBytes = new TextEncoder().encode(body);
  return new TextEncoder().encode(`${body}${sha256Hex(bodyBytes)}\n`);
}

function readBounded(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > RECORD_MAX_BYTES) return Buffer.alloc(0);
    const buf = Buffer.alloc(st.size);
    return fs.readSync(fd, buf, 0, st.size, 0) === st.size ? buf : Buffer.alloc(0);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The record of one generation, or why there is none usable: absent,
 * corrupt (torn, edited, linked, oversized, not canonical: checksum and a
 * byte-exact re-encoding are both required), written by another validator
 * version, or naming another generation.
 */
export function readValidationRecord(root: string, g: Pick<ValidatedGeneration, 'generationUuid' | 'manifestSha256'>): ValidationRecord | RecordMiss {
  const bytes = readBounded(validationRecordPath(root, g.manifestSha256));
  if (bytes === undefined) return 'missing';
  return parseRecord(bytes, g.manifestSha256, g.generationUuid);
}

/**
 * What the file `cache/validation/<manifestSha256>.json` holds, whatever generation it names:
 * `sound` (a record this engine wrote for that manifest), `other-validator` (another engine
 * version's: ignored, harmless), `corrupt` (torn, edited, foreign, not a regular file, or naming
 * another manifest than its file name: a leftover), `missing`. For `gf doctor`.
 */
export function inspectValidationRecordFile(root: string, manifestSha256: string): 'sound' | 'other-validator' | 'corrupt' | 'missing' {
  const bytes = readBounded(validationRecordPath(root, manifestSha256));
  if (bytes === undefined) return 'missing';
  const r = parseRecord(bytes, manifestSha256, undefined);
  return typeof r === 'string' ? (r === 'other-validator' ? r : 'corrupt') : 'sound';
}

/** A record's bytes checked against the manifest digest and (when given) the generation it must name. */
function parseRecord(bytes: Buffer, manifestSha256: string, generationUuid: string | undefined): ValidationRecord | RecordMiss {
  const text = bytes.toString('utf8');
  const cut = text.indexOf('\n');
  if (cut < 0) return 'corrupt';
  const body = text.slice(0, cut + 1);
  if (text.slice(cut + 1) !== `${sha256Hex(new TextEncoder().encode(body))}\n`) return 'corrupt';
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return 'corrupt';
  }
  if (typeof doc !== 'object' || doc === null) return 'corrupt';
  const d = doc as Record<string, unknown>;
  if (d['format'] !== VALIDATION_RECORD_FORMAT || d['format_version'] !== 1) return 'corrupt';
  if (d['validator_version'] !== VALIDATOR_VERSION) return 'other-validator';
  const named = d['generation_uuid'];
  if (d['manifest_sha256'] !== manifestSha256 || typeof named !== 'string' || (generationUuid !== undefined && named !== generationUuid)) return 'other-generation';
  const objects = new Map<string, string>();
  if (!Array.isArray(d['objects'])) return 'corrupt';
  for (const o of d['objects'] as unknown[]) {
    const e = o as { content_sha256?: unknown; identity?: unknown } | null;
    if (e === null || typeof e !== 'object' || typeof e.content_sha256 !== 'string' || typeof e.identity !== 'string') return 'corrupt';
    if (!HEX64.test(e.content_sha256) || !IDENTITY.test(e.identity)) return 'corrupt';
    objects.set(e.content_sha256, e.identity);
  }
  const record: ValidationRecord = { manifestSha256, generationUuid: named, objects };
  // Canonical bytes only: anything else is not a record this engine wrote.
  return Buffer.from(encodeValidationRecord(record)).equals(bytes) ? record : 'corrupt';
}

function isDir(p: string): boolean {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory();
}

/**
 * Records that `g` passed the complete validation (call only right after it
 * did), with the identities the project verified its objects under (`verified`).
 *
 * A private sibling written and renamed into place: a reader sees the old
 * record, the new one, or (a crash mid-write leaves a stray temp) nothing
 * new; a torn or foreign file fails the checksum and is rebuilt. A failure
 * is ignored: the record is a cache, never required.
 */
export function writeValidationRecord(root: string, g: ValidatedGeneration, verified: VerifiedObjectMemo): void {
  const objects = new Map<string, string>();
  for (const p of g.participants) {
    const identity = verified.identityOf(p.contentSha256);
    if (identity !== undefined) objects.set(p.contentSha256, identity);
  }
  const file = validationRecordPath(root, g.manifestSha256);
  try {
    const parts = LAYOUT.validationCache.split('/');
    for (let k = 1; k <= parts.length; k++) {
      const d = path.join(root, ...parts.slice(0, k));
      if (!isDir(d)) fs.mkdirSync(d, { mode: 0o700 });
      if (!isDir(d)) return;
    }
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, encodeValidationRecord({ manifestSha256: g.manifestSha256, generationUuid: g.generationUuid, objects }), { flag: 'wx', mode: 0o600 });
      fs.renameSync(tmp, file);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  } catch {
    // A cache write failure never fails the operation.
  }
}

/**
 * Verifies every object `participants` name against its digest: a file whose
 * identity the project's `verified` memo holds (verified here, or adopted from a record) is
 * only fstat-ed; any other is hashed whole. `GF_PROJECT_CORRUPT` on a
 * missing, altered or replaced object.
 */
export function verifyGenerationObjects(root: string, participants: readonly ManifestParticipant[], verified: VerifiedObjectMemo): void {
  for (const p of participants) openObjectVerified(root, p, verified).close();
}

/**
 * Uses `g`'s validation record when it is sound: its object identities are
 * adopted into the project's `verified` memo (so `verifyGenerationObjects` hashes only what changed since) and
 * every check of `g`'s complete validation is entered in `memo` as passed.
 * Returns the record, or why none was used (the caller then validates in
 * full and writes a new one).
 */
export function adoptValidationRecord(root: string, g: ValidatedGeneration, memo: ValidationMemo, verified: VerifiedObjectMemo): ValidationRecord | RecordMiss {
  const record = readValidationRecord(root, g);
  if (typeof record === 'string') return record;
  for (const p of g.participants) {
    const identity = record.objects.get(p.contentSha256);
    if (identity !== undefined) verified.adopt(p.contentSha256, identity);
  }
  const digests = new Map<string, string>();
  for (const p of g.participants) digests.set(`${p.capabilityId}/${p.recordFamilyId}`, p.contentSha256);
  for (const key of completeValidationKeys(digests)) memo.add(key);
  return record;
}
