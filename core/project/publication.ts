// Publishing a generation as a numbered crash-safe state machine, with a named
// failpoint per step.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isCanonicalUuid, sha256Hex } from '../canonical/index';
import { GfError, isGfError } from '../errors';
import type { FamilyDescriptor, ParticipantCatalog, SnapshotTables } from './catalog';
import {
  checkDir,
  checkFile,
  corrupt,
  fsyncDir,
  ioError,
  makeDir,
  readFileNoFollow,
  removeTree,
  renameEntry,
  unlinkIfPresent,
} from './durable-fs';
import type { WriteMeter } from './durable-fs';
import { failpoint } from './failpoints';
import { MANIFEST_MAX_BYTES, capabilitiesOf, encodeCurrent, encodeManifest, familyKeyOf, manifestDigest } from './formats';
import type { JsonValue, LineageIntent, Manifest, ManifestParticipant } from './formats';
import { appendLineageSteps, encodeLineageLine, lineageTail, participantsChanged, recordFrom } from './lineage';
import { createWritten, flushDirs, runAsync, runSync, writeNewFileSteps } from './flush';
import type { Steps } from './flush';
import { readJournal, writeJournal, writeJournalSteps } from './journal';
import {
  CURRENT_TMP_PREFIX,
  LAYOUT,
  STAGING_PREFIX,
  deriveGenerationUuid,
  generationDir,
  leasePlace,
  manifestPlace,
  objectPlace,
  place,
  type Place,
} from './layout';
import { leaseCurrent, readCurrent, readObjectVerified } from './lease';
import type { Lease } from './lease';
import { lockFileImage, tryExclusive } from './sqlite-lock';
import { copyNewFileSteps, verifyObjectStreaming } from './put-file';
import { openObjectVerified } from './verified-objects';
import type { VerifiedObject, VerifiedObjectMemo } from './verified-objects';
import type { ProjectCaches } from './project-caches';
import { ArrowFileRows } from '../canonical/arrow-file-rows';
import { arrowFileMetadataBytes, verifyArrowFileStructureRanged } from '../canonical/arrow-ipc-verify';
import type { RangedBytes } from '../canonical/arrow-ipc-verify';
import { PARTICIPANT_LIMITS } from '../contract/operations';

/** Names one record family. */
export interface FamilyRef {
  readonly capabilityId: string;
  readonly recordFamilyId: string;
}

/**
 * One change to a generation's participant set.
 *
 * `put` adds or replaces a family with new bytes; `reuse` references an
 * object already in the store by its manifest entry (O(1): revert and
 * carry-forward never copy bytes); `remove` drops a family.
 */
export type ParticipantChange =
  | (FamilyRef & { readonly kind: 'put'; readonly bytes: Uint8Array })
  /** `put` of the bytes of a file the caller wrote (copied and hashed in chunks, never whole in memory); the caller keeps and removes its file. */
  | (FamilyRef & { readonly kind: 'put-file'; readonly path: string })
  | { readonly kind: 'reuse'; readonly participant: ManifestParticipant }
  | (FamilyRef & { readonly kind: 'remove' });

/** A publication request. */
export interface PublishRequest {
  /** The generation the caller read (CURRENT must still name it), or null for the first publication. */
  readonly parent: string | null;
  readonly changes: readonly ParticipantChange[];
  /** Defaults to a random UUID; pass a derived one for deterministic or replayable publications. */
  readonly transactionUuid?: string;
  /** Defaults to `deriveGenerationUuid(transactionUuid)`. */
  readonly generationUuid?: string;
  /** Caller metadata recorded durably in the journal before any participant byte is staged. */
  readonly journalExtension?: JsonValue;
  /**
   * Wraps the project's catalog for this one publication (e.g. a validation
   * memo keyed by content digests, as revert uses; `caches` are the project's,
   * where such a memo lives). The wrapper must delegate to the catalog it is
   * given; the protocol's steps are unchanged.
   */
  readonly wrapCatalog?: <T>(catalog: ParticipantCatalog<T>, caches: ProjectCaches) => ParticipantCatalog<T>;
  /** What the lineage log records besides the manifest (GENERATIONS.md "Lineage log"); defaults: no actor, sampled now. */
  readonly lineage?: PublishLineage;
}

/** A publication's lineage metadata as the caller gives it. */
export interface PublishLineage {
  /** The actor UUID, or null/absent when the caller gave none. */
  readonly actor?: string | null;
  /** For a revert: the checkpoint restored and the (trimmed) reason; the kind is then `revert`. */
  readonly revert?: { readonly checkpointUuid: string; readonly reason: string };
  /** UTC microseconds of the publication (a revert passes its `restored_at`); sampled once at PREPARING when absent. */
  readonly publishedAt?: number;
}

/** The engine's clock in UTC microseconds (integral: a `Date` has millisecond precision). */
function nowMicros(): number {
  return Math.trunc((performance.timeOrigin + performance.now()) * 1000);
}

function lineageIntent(req: PublishRequest): LineageIntent {
  const l = req.lineage ?? {};
  const actor = l.actor ?? null;
  if (actor !== null && !isCanonicalUuid(actor)) throw new GfError('GF_VALIDATION', 'actor UUID is not canonical', { field: 'actor_uuid' });
  const publishedAt = l.publishedAt ?? nowMicros();
  if (!Number.isSafeInteger(publishedAt)) throw new GfError('GF_VALIDATION', 'publication time is not integral microseconds', { field: 'published_at' });
  return {
    publishedAt,
    actor,
    kind: l.revert !== undefined ? 'revert' : req.parent === null ? 'first' : 'publication',
    restoredCheckpointUuid: l.revert?.checkpointUuid ?? null,
    reason: l.revert?.reason ?? null,
    participantsChanged: null,
  };
}

/** What a successful publication returns. */
export interface PublishResult {
  readonly generationUuid: string;
  readonly manifestSha256: string;
  readonly transactionUuid: string;
  readonly parentGenerationUuid: string | null;
}

/** Dependencies of one publication (the writer lock is held by the caller). */
export interface PublishContext<T> {
  readonly root: string;
  readonly catalog: ParticipantCatalog<T>;
  readonly meter?: WriteMeter;
  /** The project's caches: objects are verified and the new manifest remembered through them. */
  readonly caches: ProjectCaches;
}

function notCommitted(e: unknown): GfError {
  if (isGfError(e)) return e.committed === false ? e : e.withCommitted(false);
  return new GfError('GF_IO', 'publication failed', { phase: 'unknown' }, false);
}

function familyFor<T>(catalog: ParticipantCatalog<T>, ref: FamilyRef): FamilyDescriptor {
  const f = catalog.family(ref.capabilityId, ref.recordFamilyId);
  if (f === undefined) {
    throw new GfError('GF_VALIDATION', 'record family is not registered', {
      family: `${ref.capabilityId}/${ref.recordFamilyId}`.slice(0, 128),
    });
  }
  return f;
}

interface Staged<T> {
  readonly family: FamilyDescriptor;
  /** The caller's bytes; absent for a `put-file`, whose table is decoded from its object when read, never kept. */
  readonly bytes?: Uint8Array;
  readonly byteLength: number;
  readonly sha: string;
  table?: T;
  rowCount?: number;
}

/**
 * Writes one participant object, content-addressed, or verifies the existing one.
 *
 * The bytes are written into the private generation directory, fsynced,
 * renamed to `objects/sha256/<2>/<62>`, the fan-out directory fsynced, then
 * re-read and verified. An existing object with that name is verified, never
 * overwritten.
 */
function* stageObject(
  root: string,
  genRel: string,
  index: number,
  bytes: Uint8Array,
  sha: string,
  meter: WriteMeter | undefined,
  created: Place[],
  objects: VerifiedObjectMemo,
): Steps<void> {
  const obj = objectPlace(root, sha);
  if (checkFile(obj.abs, obj.rel) !== undefined) {
    readObjectVerified(root, { contentSha256: sha, byteLength: bytes.length }, objects);
    return;
  }
  const staging = place(root, `${genRel}/${STAGING_PREFIX}${index}`);
  yield* writeNewFileSteps(
    staging.abs,
    staging.rel,
    bytes,
    { afterWrite: () => failpoint('project.after_participant_write'), afterFsync: () => failpoint('project.after_participant_fsync') },
    meter === undefined ? undefined : { wrote: (_rel, n) => meter.wrote(obj.rel, n) },
  );
  const fanout = place(root, path.posix.dirname(obj.rel));
  const createdDir = makeDir(fanout.abs, fanout.rel);
  renameEntry(staging.abs, obj.abs, obj.rel);
  created.push(obj);
  // The new entry and, for a new fan-out directory, its own entry: no order between the two flushes.
  yield* flushDirs(createdDir ? [fanout, place(root, LAYOUT.objectsSha256)] : [fanout]);
  failpoint('project.after_participant_dir_fsync');
  readObjectVerified(root, { contentSha256: sha, byteLength: bytes.length }, objects);
}

/**
 * Writes one participant object from a caller's file: copied (hashed on the way) into the private
 * generation directory, fsynced, then renamed to its content address and verified in chunks, as
 * `stageObject` does for bytes. An existing object of that name is verified and kept.
 */
function* stageFileObject(root: string, genRel: string, index: number, source: string, meter: WriteMeter | undefined, createdObjects: Place[]): Steps<{ sha: string; byteLength: number }> {
  const staging = place(root, `${genRel}/${STAGING_PREFIX}${index}`);
  const copied = yield* copyNewFileSteps(source, staging.abs, staging.rel, {
    afterWrite: () => failpoint('project.after_participant_write'),
    afterFsync: () => failpoint('project.after_participant_fsync'),
  });
  const obj = objectPlace(root, copied.sha256);
  if (checkFile(obj.abs, obj.rel) !== undefined) {
    verifyObjectStreaming(obj.abs, obj.rel, copied.sha256, copied.byteLength);
    unlinkIfPresent(staging.abs, staging.rel);
    return { sha: copied.sha256, byteLength: copied.byteLength };
  }
  const fanout = place(root, path.posix.dirname(obj.rel));
  const created = makeDir(fanout.abs, fanout.rel);
  renameEntry(staging.abs, obj.abs, obj.rel);
  createdObjects.push(obj);
  meter?.wrote(obj.rel, copied.byteLength);
  yield* flushDirs(created ? [fanout, place(root, LAYOUT.objectsSha256)] : [fanout]);
  failpoint('project.after_participant_dir_fsync');
  verifyObjectStreaming(obj.abs, obj.rel, copied.sha256, copied.byteLength);
  return { sha: copied.sha256, byteLength: copied.byteLength };
}

/**
 * Publishes a new complete generation (GENERATIONS.md state machine).
 *
 * PREPARING → STAGED → VALIDATED → DURABLE → CURRENT rename → PUBLISHED.
 * Any failure before the rename leaves the parent authoritative and is
 * reported `committed: false`; a failure of or after the rename re-reads
 * CURRENT and reports what it says. The caller holds the writer lock.
 */
export function publishLocked<T>(ctx: PublishContext<T>, req: PublishRequest): PublishResult {
  return runSync(publishSteps(ctx, req));
}

/**
 * `publishLocked` with each step's independent flushes issued concurrently.
 *
 * The same steps, failpoints and outcomes; only flushes that the protocol
 * does not order among themselves (lease file and manifest, a directory and
 * its parent's entry, cleanup's directories) overlap.
 */
export function publishLockedAsync<T>(ctx: PublishContext<T>, req: PublishRequest): Promise<PublishResult> {
  return runAsync(publishSteps(ctx, req));
}

function* publishSteps<T>(ctx: PublishContext<T>, req: PublishRequest): Steps<PublishResult> {
  const { root, catalog, meter, caches } = ctx;
  const objects = caches.verifiedObjects;
  let parentLease: Lease<T> | undefined;
  let genUuid: string | undefined;
  let txnUuid: string | undefined;
  let genCreated = false;
  let journalParent: string | null = null;
  let extension: JsonValue = null;
  let lineage: LineageIntent | null = null;
  /** Objects this attempt added under `objects/sha256/` (not ones it found there): a refusal takes them back. */
  const createdObjects: Place[] = [];
  try {
    // 1. Resolve and pin the parent.
    const cur = readCurrent(root);
    const curUuid = cur?.generationUuid ?? null;
    if (curUuid !== req.parent) {
      throw new GfError('GF_TRANSACTION_FAILED', 'the parent is no longer CURRENT', { phase: 'resolve' });
    }
    parentLease = cur === null ? undefined : leaseCurrent(root, catalog, caches);
    if (parentLease !== undefined && parentLease.generationUuid !== req.parent) {
      throw new GfError('GF_TRANSACTION_FAILED', 'the parent is no longer CURRENT', { phase: 'resolve' });
    }
    journalParent = req.parent;
    extension = req.journalExtension ?? null;
    lineage = lineageIntent(req);
    // The log must end cleanly before anything is staged (recovery repairs a torn tail under this lock).
    const tail = lineageTail(root);

    // 2. PREPARING.
    txnUuid = req.transactionUuid ?? randomUUID();
    if (!isCanonicalUuid(txnUuid)) throw new GfError('GF_VALIDATION', 'transaction UUID is not canonical', { phase: 'prepare' });
    genUuid = req.generationUuid ?? deriveGenerationUuid(txnUuid);
    if (!isCanonicalUuid(genUuid)) throw new GfError('GF_VALIDATION', 'generation UUID is not canonical', { phase: 'prepare' });
    const prior = readJournal(root, txnUuid);
    if (prior !== undefined && prior.state === 'PUBLISHED') {
      throw new GfError('GF_IDEMPOTENCY_CONFLICT', 'transaction was already published', { transaction_uuid: txnUuid });
    }
    // Caller bytes in memory over a participant bound are refused before anything is written.
    for (const c of req.changes) {
      const family = c.kind === 'put' ? catalog.family(c.capabilityId, c.recordFamilyId) : undefined;
      if (c.kind === 'put' && family !== undefined) boundMetadata(root, { family, bytes: c.bytes, byteLength: c.bytes.length, sha: '' }, objects);
    }
    const gen = generationDir(root, genUuid);
    if (checkDir(gen.abs, gen.rel)) removeStaleGeneration(root, genUuid, parentLease);
    // The journal names the generation before its directory exists, so a
    // directory left by an interrupted first publication is always explained
    // by a journal (an absent CURRENT then still means uninitialized).
    yield* writeJournalSteps(root, { transactionUuid: txnUuid, state: 'PREPARING', parentGenerationUuid: journalParent, generationUuid: genUuid, extension, lineage }, meter);
    genCreated = true;
    makeDir(gen.abs, gen.rel);
    failpoint('project.after_journal_preparing');

    // 3. STAGED.
    const next = new Map<string, ManifestParticipant>();
    for (const p of parentLease?.manifest.participants ?? []) next.set(familyKeyOf(p), p);
    const staged = new Map<string, Staged<T>>();
    const changed = new Set<string>();
    let index = 0;
    for (const c of req.changes) {
      if (c.kind === 'remove') {
        const key = familyKeyOf(c);
        if (!next.has(key)) throw new GfError('GF_VALIDATION', 'removed family is not in the parent', { family: key.slice(0, 128) });
        next.delete(key);
        staged.delete(key);
        changed.add(key);
        continue;
      }
      if (c.kind === 'reuse') {
        const p = c.participant;
        const f = familyFor(catalog, p);
        if (f.schemaFingerprint !== p.schemaFingerprint || f.encoding !== p.encoding || f.relativePath !== p.relativePath) {
          throw new GfError('GF_SCHEMA_MISMATCH', 'reused participant does not match its registered family', {
            family: familyKeyOf(p).slice(0, 128),
          });
        }
        const obj = objectPlace(root, p.contentSha256);
        const st = checkFile(obj.abs, obj.rel);
        if (st === undefined || st.size !== p.byteLength) throw corrupt('reused participant object is missing', obj.rel);
        const key = familyKeyOf(p);
        next.set(key, p);
        staged.delete(key);
        changed.add(key);
        continue;
      }
      const family = familyFor(catalog, c);
      const key = familyKeyOf(family);
      if (c.kind === 'put-file') {
        const { sha, byteLength } = yield* stageFileObject(root, gen.rel, index++, c.path, meter, createdObjects);
        staged.set(key, { family, byteLength, sha });
        changed.add(key);
        continue;
      }
      const sha = sha256Hex(c.bytes);
      yield* stageObject(root, gen.rel, index++, c.bytes, sha, meter, createdObjects, objects);
      staged.set(key, { family, bytes: c.bytes, byteLength: c.bytes.length, sha });
      changed.add(key);
    }
    // A record that belongs only to the generation that wrote it (the restoration record) is not carried forward.
    for (const [key, p] of next) {
      if (changed.has(key) || catalog.family(p.capabilityId, p.recordFamilyId)?.carriedForward !== false) continue;
      next.delete(key);
      changed.add(key);
    }
    // Every generation holds the mandatory participants: the explicit defaults fill any that would be missing.
    for (const m of catalog.mandatory?.() ?? []) {
      const family = familyFor(catalog, m);
      const key = familyKeyOf(family);
      if (next.has(key) || staged.has(key)) continue;
      const sha = sha256Hex(m.bytes);
      yield* stageObject(root, gen.rel, index++, m.bytes, sha, meter, createdObjects, objects);
      staged.set(key, { family, bytes: m.bytes, byteLength: m.bytes.length, sha });
      changed.add(key);
    }
    yield* writeJournalSteps(root, { transactionUuid: txnUuid, state: 'STAGED', parentGenerationUuid: journalParent, generationUuid: genUuid, extension, lineage }, meter);
    failpoint('project.after_journal_staged');

    // 4. VALIDATED: bounds, domain rules per changed participant, then cross-domain rules on parent + staged.
    for (const s of staged.values()) if (s.bytes === undefined) boundMetadata(root, s, objects); // put-files: their copies, checked in place
    for (const s of staged.values()) {
      const fileRows = s.bytes === undefined ? validatedFileRows(root, catalog, s, objects) : undefined;
      if (fileRows !== undefined) {
        s.rowCount = fileRows;
        continue;
      }
      let decoded: { readonly rowCount: number; readonly table: T };
      try {
        decoded = catalog.decode(s.family, s.bytes ?? readObjectVerified(root, { contentSha256: s.sha, byteLength: s.byteLength }, objects));
      } catch (e) {
        // Caller bytes that do not decode are bad input, not a damaged project.
        if (isGfError(e) && e.code === 'GF_PROJECT_CORRUPT') {
          throw new GfError('GF_VALIDATION', 'participant bytes do not decode as their family', { ...e.details, phase: 'validate' });
        }
        throw e;
      }
      catalog.validateParticipant(s.family, decoded.table);
      if (s.bytes !== undefined) s.table = decoded.table;
      s.rowCount = decoded.rowCount;
    }
    failpoint('project.after_domain_validation');
    for (const [key, s] of staged) {
      next.set(key, {
        capabilityId: s.family.capabilityId,
        capabilityVersion: s.family.capabilityVersion,
        recordFamilyId: s.family.recordFamilyId,
        recordVersion: s.family.recordVersion,
        relativePath: s.family.relativePath,
        encoding: s.family.encoding,
        byteLength: s.byteLength,
        rowCount: s.rowCount ?? 0,
        schemaFingerprint: s.family.schemaFingerprint,
        contentSha256: s.sha,
      });
    }
    const opened: VerifiedObject[] = [];
    try {
      catalog.validateSnapshot(snapshotOf(root, catalog, next, staged, genUuid, opened, objects), changed);
    } finally {
      for (const o of opened) o.close();
    }
    failpoint('project.after_composite_validation');
    yield* writeJournalSteps(root, { transactionUuid: txnUuid, state: 'VALIDATED', parentGenerationUuid: journalParent, generationUuid: genUuid, extension, lineage }, meter);
    failpoint('project.after_journal_validated');

    // 5. DURABLE.
    const participants = [...next.values()];
    const manifest: Manifest = {
      generationUuid: genUuid,
      parentGenerationUuid: req.parent,
      transactionUuid: txnUuid,
      capabilities: capabilitiesOf(participants),
      participants,
    };
    const manifestBytes = encodeManifest(manifest);
    const mp = manifestPlace(root, genUuid);
    yield* writeLeaseAndManifest(leasePlace(root, genUuid), mp, manifestBytes, meter);
    const digest = manifestDigest(manifestBytes);
    lineage = { ...lineage, participantsChanged: participantsChanged(parentLease?.manifest, manifest) };
    const reread = readFileNoFollow(mp.abs, mp.rel, MANIFEST_MAX_BYTES);
    if (reread === undefined || manifestDigest(reread) !== digest) throw corrupt('manifest changed after write', mp.rel);
    caches.manifests.remember(digest, manifest);
    for (const p of participants) {
      const obj = objectPlace(root, p.contentSha256);
      const st = checkFile(obj.abs, obj.rel);
      if (st === undefined || st.size !== p.byteLength) throw corrupt('participant object is missing', obj.rel);
    }
    // Leaves-up in content; the two entries' flushes have no order between them before the CURRENT rename.
    yield* flushDirs([gen, place(root, LAYOUT.generations)]);
    failpoint('project.after_generation_dir_fsync');
    yield* writeJournalSteps(root, { transactionUuid: txnUuid, state: 'DURABLE', parentGenerationUuid: journalParent, generationUuid: genUuid, extension, lineage }, meter);
    failpoint('project.after_journal_durable');

    // 6. Publish: CURRENT temp, fsync, rename (the linearization point), root fsync.
    const tmp = place(root, `${CURRENT_TMP_PREFIX}${txnUuid}`);
    yield* writeNewFileSteps(
      tmp.abs,
      tmp.rel,
      encodeCurrent({ generationUuid: genUuid, manifestSha256: digest }),
      { afterWrite: () => failpoint('project.after_current_temp_write'), afterFsync: () => failpoint('project.after_current_temp_fsync') },
      meter === undefined ? undefined : { wrote: (_r, n) => meter.wrote(LAYOUT.current, n) },
    );
    failpoint('project.before_current_replace');
    const currentPlace = place(root, LAYOUT.current);
    checkFile(currentPlace.abs, currentPlace.rel);
    try {
      renameEntry(tmp.abs, currentPlace.abs, currentPlace.rel);
    } catch (e) {
      throw replacementOutcome(root, genUuid, e);
    }
    const result: PublishResult = { generationUuid: genUuid, manifestSha256: digest, transactionUuid: txnUuid, parentGenerationUuid: req.parent };
    const line = encodeLineageLine(recordFrom(tail.seq + 1, tail.sha256, { generationUuid: genUuid, parentGenerationUuid: req.parent }, digest, lineage));
    yield* finishCommitted(root, result, journalParent, extension, lineage, line, meter);
    return result;
  } catch (e) {
    if (isGfError(e) && e.committed === true) {
      parentLease?.release();
      throw e;
    }
    removeCreatedObjects(createdObjects);
    abortBestEffort(root, txnUuid, genUuid, genCreated, journalParent, extension, lineage);
    parentLease?.release();
    throw notCommitted(e);
  } finally {
    parentLease?.release();
  }
}

/**
 * DURABLE's files: the lease file (a fresh lock-file image) and the manifest, flushed together.
 *
 * Both live in the private generation directory that nothing names yet, so
 * their two fsyncs have no order between them; both finish before the
 * directory flushes and long before the CURRENT rename.
 */
function* writeLeaseAndManifest(
  lease: { readonly abs: string; readonly rel: string },
  mp: { readonly abs: string; readonly rel: string },
  manifestBytes: Uint8Array,
  meter: WriteMeter | undefined,
): Steps<void> {
  const image = lockFileImage();
  const open: { fd: number }[] = [];
  try {
    const leaseFile = createWritten(lease.abs, lease.rel, image);
    open.push(leaseFile);
    const manifestFile = createWritten(mp.abs, mp.rel, manifestBytes, meter);
    open.push(manifestFile);
    failpoint('project.after_manifest_write');
    yield [leaseFile, manifestFile];
    failpoint('project.after_manifest_fsync');
  } finally {
    for (const f of open) fs.closeSync(f.fd);
  }
}

function* finishCommitted(
  root: string,
  r: PublishResult,
  parent: string | null,
  extension: JsonValue,
  lineage: LineageIntent,
  line: Uint8Array,
  meter?: WriteMeter,
): Steps<void> {
  try {
    failpoint('project.after_current_replace');
    yield* flushDirs([place(root, '.')]);
    failpoint('project.after_root_fsync');
    // The lineage line: after the rename, before PUBLISHED (recovery rebuilds it from the journal if this never lands).
    yield* appendLineageSteps(root, line, meter);
    failpoint('project.after_lineage_append');
    yield* writeJournalSteps(root, { transactionUuid: r.transactionUuid, state: 'PUBLISHED', parentGenerationUuid: parent, generationUuid: r.generationUuid, extension, lineage }, meter);
    failpoint('project.after_journal_published');
  } catch (e) {
    throw isGfError(e) ? (e.committed === true ? e : e.withCommitted(true)) : new GfError('GF_IO', 'post-publication step failed', {}, true);
  }
}

/** After a failed CURRENT replacement: re-read CURRENT and say what it names. Never unknown. */
function replacementOutcome(root: string, genUuid: string, e: unknown): GfError {
  let committed = false;
  try {
    committed = readCurrent(root)?.generationUuid === genUuid;
  } catch {
    committed = false;
  }
  const base = isGfError(e) ? e : ioError(e, 'rename', LAYOUT.current);
  return base.withCommitted(committed);
}

/**
 * Takes back the objects a refused or failed publication added (best effort: cleanup's sweep removes what stays).
 *
 * Safe under the writer lock: an object this attempt created was not there
 * before it, and no generation that will ever be read names it (the attempt's
 * own manifest never became CURRENT's), so a refusal leaves the store as it was
 * and 17 refusals do not fill a disk.
 */
function removeCreatedObjects(objects: readonly Place[]): void {
  const dirs = new Map<string, Place>();
  for (const obj of objects) {
    try {
      unlinkIfPresent(obj.abs, obj.rel);
      const dirRel = path.posix.dirname(obj.rel);
      dirs.set(dirRel, { abs: path.dirname(obj.abs), rel: dirRel });
    } catch {
      // Left as an orphan: cleanup's full sweep removes it.
    }
  }
  for (const d of dirs.values()) {
    try {
      fsyncDir(d.abs, d.rel);
    } catch {
      // The unlink stands or not; either is a consistent store.
    }
  }
}

function abortBestEffort(
  root: string,
  txnUuid: string | undefined,
  genUuid: string | undefined,
  genCreated: boolean,
  parent: string | null,
  extension: JsonValue,
  lineage: LineageIntent | null,
): void {
  if (txnUuid === undefined || genUuid === undefined) return;
  // The private directory first: removing it frees space, which the journal write may need (ENOSPC).
  try {
    if (genCreated) {
      const gen = generationDir(root, genUuid);
      removeTree(gen.abs, gen.rel);
      const gens = place(root, LAYOUT.generations);
      fsyncDir(gens.abs, gens.rel);
    }
  } catch {
    // Cleanup removes the private directory later.
  }
  try {
    if (readJournal(root, txnUuid) !== undefined || genCreated) {
      writeJournal(root, { transactionUuid: txnUuid, state: 'ABORTED', parentGenerationUuid: parent, generationUuid: genUuid, extension, lineage });
    }
  } catch {
    // Recovery labels the journal later.
  }
}

/**
 * Removes a leftover directory of an unpublished attempt that reuses this generation UUID.
 *
 * Refused (`GF_IDEMPOTENCY_CONFLICT`) when the generation is CURRENT's, its
 * parent's, or leased by a reader.
 */
function removeStaleGeneration<T>(root: string, genUuid: string, parentLease: Lease<T> | undefined): void {
  const conflict = (): GfError => new GfError('GF_IDEMPOTENCY_CONFLICT', 'generation UUID is already in use', { generation_uuid: genUuid });
  if (readCurrent(root)?.generationUuid === genUuid || parentLease?.manifest.parentGenerationUuid === genUuid) throw conflict();
  const gen = generationDir(root, genUuid);
  const lp = leasePlace(root, genUuid);
  const attempt = tryExclusive(lp.abs, lp.rel);
  if (attempt.kind === 'busy') throw conflict();
  try {
    removeTree(gen.abs, gen.rel);
  } finally {
    if (attempt.kind === 'held') attempt.lock.release();
  }
  const gens = place(root, LAYOUT.generations);
  fsyncDir(gens.abs, gens.rel);
}

/**
 * How a publication opens a put-file object it staged itself: by ranges, even though its ctime is seconds old.
 *
 * Why: the racy-clean rule reads an object changed within the last second
 * whole into memory (its identity cannot be trusted later); for a put-file
 * of millions of records that is hundreds of MB at once. This publication
 * copied the object (hashing the bytes copied), fsynced, renamed and
 * verified it in chunks moments ago; it is hashed once more, in chunks,
 * as it opens, and every ranged read re-checks its file identity
 * (dev, inode, size, mtime, ctime), so no byte of a changed file is returned.
 */
const JUST_STAGED = { minAgeNs: 0n } as const;

/**
 * Runs a put-file's domain rules on its object read by row ranges; its row count, or undefined when it must be decoded whole.
 *
 * Only an object whose structure verifies (`verifyArrowFileStructureRanged`, as the decoder's) and that opens in the plain
 * layout is read this way; anything else, and any failure that is not a rule's `GF_VALIDATION`, goes through the whole
 * decode, which reports it exactly as before.
 */
function validatedFileRows<T>(root: string, catalog: ParticipantCatalog<T>, s: Staged<T>, objects: VerifiedObjectMemo): number | undefined {
  if (catalog.validateFile === undefined || s.family.encoding !== 'arrow') return undefined;
  const object = openObjectVerified(root, { contentSha256: s.sha, byteLength: s.byteLength }, objects, JUST_STAGED);
  try {
    if (verifyArrowFileStructureRanged(object) !== undefined) return undefined;
    const rows = ArrowFileRows.open(object, s.family.schemaFingerprint);
    if (rows === null) return undefined;
    try {
      catalog.validateFile(s.family, rows);
    } catch (e) {
      if (isGfError(e) && e.code === 'GF_VALIDATION') throw e;
      return undefined;
    }
    return rows.numRows;
  } finally {
    object.close();
  }
}

/**
 * Refuses an Arrow participant whose metadata (schema, fields, messages) exceeds
 * `PARTICIPANT_LIMITS.arrowMetadataBytes`: `GF_RESOURCE_LIMIT` naming the family and the limit.
 * A file whose structure does not verify is left to the decoder's refusal.
 */
function boundMetadata<T>(root: string, s: Staged<T>, objects: VerifiedObjectMemo): void {
  if (s.family.encoding !== 'arrow') return;
  const count = (r: RangedBytes): number | undefined => arrowFileMetadataBytes(r);
  let n: number | undefined;
  if (s.bytes !== undefined) {
    const b = s.bytes;
    n = count({ byteLength: b.length, read: (offset, length) => b.subarray(offset, offset + length) });
  } else {
    const object = openObjectVerified(root, { contentSha256: s.sha, byteLength: s.byteLength }, objects, JUST_STAGED);
    try {
      n = count(object);
    } finally {
      object.close();
    }
  }
  const limit = PARTICIPANT_LIMITS.arrowMetadataBytes;
  if (n === undefined || n <= limit) return;
  const family = `${s.family.capabilityId}/${s.family.recordFamilyId}`;
  throw new GfError(
    'GF_RESOURCE_LIMIT',
    `participant ${family} carries ${n.toLocaleString('en-US')} bytes of Arrow metadata (schema, field and message key/values); the limit is ${limit.toLocaleString('en-US')} bytes`,
    { rule: 'participant.arrow_metadata_bytes', family, limit, actual: n, phase: 'validate' },
    false,
  );
}

/** The candidate generation as tables: staged tables in memory, unchanged ones decoded lazily from verified objects. */
function snapshotOf<T>(
  root: string,
  catalog: ParticipantCatalog<T>,
  next: ReadonlyMap<string, ManifestParticipant>,
  staged: ReadonlyMap<string, Staged<T>>,
  generationUuid: string,
  opened: VerifiedObject[],
  objects: VerifiedObjectMemo,
): SnapshotTables<T> {
  const cache = new Map<string, T>();
  return {
    generationUuid,
    file: (key) => {
      // Arrow participants not held in memory (put-files, unchanged parents) are read by row ranges from their verified objects.
      if (staged.get(key)?.table !== undefined || cache.has(key)) return undefined;
      const entry = next.get(key);
      if (entry === undefined) return undefined;
      const family = familyFor(catalog, entry);
      if (family.encoding !== 'arrow' || family.schemaFingerprint !== entry.schemaFingerprint) return undefined;
      // A put-file this publication just copied (hashed on the way) and verified is read by ranges, never whole.
      const object = openObjectVerified(root, entry, objects, staged.has(key) ? JUST_STAGED : {});
      opened.push(object);
      return ArrowFileRows.open(object, family.schemaFingerprint) ?? undefined;
    },
    families: () => next.keys(),
    contentSha256: (key) => next.get(key)?.contentSha256,
    get: (key) => {
      const s = staged.get(key);
      if (s?.table !== undefined) return s.table;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const entry = next.get(key);
      if (entry === undefined) return undefined;
      const family = familyFor(catalog, entry);
      if (s !== undefined) return catalog.decode(family, readObjectVerified(root, entry, objects)).table; // a put-file: decoded per use, never kept
      if (family.schemaFingerprint !== entry.schemaFingerprint) {
        throw new GfError('GF_SCHEMA_MISMATCH', 'parent participant does not match its registered family', { family: key.slice(0, 128) });
      }
      const table = catalog.decode(family, readObjectVerified(root, entry, objects)).table;
      cache.set(key, table);
      return table;
    },
  };
}
