import type { Table } from 'apache-arrow';
import { Checkpoints, systemMicros } from '../checkpoints/checkpoints';
import type { MicrosClock } from '../checkpoints/checkpoints';
import type { CheckpointReceipt } from '../checkpoints/registry-core';
import { CURRENT_SELECTOR } from '../contract/diff';
import type { DiffDetail, DiffScope } from '../contract/diff';
import { diffCheckpoints, heldResolver, projectShell } from '../diff/index';
import type { DiffPage } from '../diff/index';
import { lookupRevertReceipt, prunedReceiptError, recordRevertReceipt } from '../checkpoints/revert-receipts';
import { GfError, hasCode, isGfError } from '../errors';
import { WORKSPACE_RESTORATION_TRANSITION, encodeRecords } from '../participants/index';
import { familyKeyOf } from '../project/index';
import type { Lease, ManifestParticipant, ParticipantChange, Project, Writer } from '../project/index';
import { extensionJson, parseExtension, REVERT_EXTENSION_KIND } from './extension';
import type { RevertExtension } from './extension';
import { prepareRevert, revertIdentity, revertRequestSha256, revertTransactionUuid } from '../checkpoints/revert-identity';
import type { RevertInput, RevertRequest } from '../checkpoints/revert-identity';
import { completeValidationCatalog, projectValidationMemo } from '../checkpoints/snapshot-validation';
import type { ValidationMemo } from '../checkpoints/snapshot-validation';
import { adoptValidationRecord, verifyGenerationObjects, writeValidationRecord } from '../checkpoints/validation-record';
import type { ValidatedGeneration } from '../checkpoints/validation-record';
import { leaseRecordedGeneration } from '../project/named-lease';

/** The receipt operation of a revert (`checkpoint_receipt@1.operation`). */
export const REVERT_OPERATION = 'revert_to_checkpoint';

/** `contract_version` of the restoration row. */
export const RESTORATION_CONTRACT_VERSION = 1;

const RESTORATION_KEY = WORKSPACE_RESTORATION_TRANSITION.key;

/** Options of the revert engine. */
export interface RevertOptions {
  /** Engine clock (UTC microseconds), sampled once per revert on its first attempt. */
  readonly clock?: MicrosClock;
  /** Writer-lock wait (default: `GF_WRITER_BUSY` at once). */
  readonly writerTimeoutMs?: number;
  /** Validation memo (default: the process-wide one). */
  readonly memo?: ValidationMemo;
  /** The project's checkpoints (default: its own over the project); the API's project session passes the ones it keeps. */
  readonly checkpoints?: Checkpoints;
}

/** The one `restoration_transition@1` row of a restored generation, as plain values. */
export interface RestorationRow {
  readonly restoration_uuid: string;
  readonly checkpoint_uuid: string;
  readonly source_generation_uuid: string;
  readonly source_manifest_sha256: string;
  readonly prior_current_generation_uuid: string;
  readonly restored_generation_uuid: string;
  readonly operation_uuid: string;
  readonly actor_uuid: string | null;
  readonly reason: string;
  readonly restored_at: bigint;
  readonly contract_version: number;
}

/** What `previewRevert` returns: the identities the revert would use and the diff CURRENT → checkpoint. */
export interface RevertPreview {
  readonly checkpoint_uuid: string;
  readonly source_generation_uuid: string;
  readonly source_manifest_sha256: string;
  readonly current_generation_uuid: string;
  /** True when the checkpoint's content already equals CURRENT's (restoration records aside). */
  readonly same_content: boolean;
  /** `diff_checkpoints(CURRENT, name)`: what the revert will change (summary by default). */
  readonly diff: DiffPage;
}

/** Options of `previewRevert` (the diff request besides its endpoints). */
export interface PreviewOptions {
  readonly scope?: DiffScope;
  readonly detail?: DiffDetail;
  readonly limit?: number;
  readonly after?: string | null;
  readonly signal?: AbortSignal;
}

/** The restoration row a revert extension determines (pure). */
export function restorationRowOf(e: RevertExtension): RestorationRow {
  return {
    restoration_uuid: e.restoration_uuid,
    checkpoint_uuid: e.checkpoint_uuid,
    source_generation_uuid: e.source_generation_uuid,
    source_manifest_sha256: e.source_manifest_sha256,
    prior_current_generation_uuid: e.prior_current_generation_uuid,
    restored_generation_uuid: e.restored_generation_uuid,
    operation_uuid: e.operation_uuid,
    actor_uuid: e.actor_uuid,
    reason: e.reason,
    restored_at: BigInt(e.restored_at_micros),
    contract_version: RESTORATION_CONTRACT_VERSION,
  };
}

/** The receipt a revert extension determines (pure): identical on every replay. */
export function revertReceiptOf(e: RevertExtension): CheckpointReceipt {
  return {
    operation: REVERT_OPERATION,
    operation_uuid: e.operation_uuid,
    checkpoint_uuid: e.checkpoint_uuid,
    name: e.name,
    source_generation_uuid: e.source_generation_uuid,
    prior_current_generation_uuid: e.prior_current_generation_uuid,
    result_generation_uuid: e.restored_generation_uuid,
    registry_revision: e.registry_revision,
    committed_at: Number(BigInt(e.restored_at_micros)),
  };
}

/**
 * The participant changes that turn `current` into exactly `source` plus one new restoration row.
 *
 * Every source participant is referenced by content address (`reuse`, no
 * byte copied); families only `current` has are removed; a restoration row
 * the source carried is replaced by this revert's own.
 */
export function restorationChanges(current: readonly ManifestParticipant[], source: readonly ManifestParticipant[], restorationBytes: Uint8Array): ParticipantChange[] {
  const keep = new Set(source.map(familyKeyOf));
  const changes: ParticipantChange[] = [];
  for (const p of current) {
    const key = familyKeyOf(p);
    if (!keep.has(key) && key !== RESTORATION_KEY) changes.push({ kind: 'remove', capabilityId: p.capabilityId, recordFamilyId: p.recordFamilyId });
  }
  for (const p of source) if (familyKeyOf(p) !== RESTORATION_KEY) changes.push({ kind: 'reuse', participant: p });
  changes.push({
    kind: 'put',
    capabilityId: WORKSPACE_RESTORATION_TRANSITION.capabilityId,
    recordFamilyId: WORKSPACE_RESTORATION_TRANSITION.recordFamilyId,
    bytes: restorationBytes,
  });
  return changes;
}

/** What a revert request may require of the workspace (not part of its identity: a replay need not repeat it). */
export interface RevertPreconditions {
  /**
   * The CURRENT generation the caller's preview was computed against: checked
   * under the writer lock on a first attempt; another CURRENT is
   * `GF_STALE_PREVIEW` and nothing is written. A replay ignores it (it returns
   * the original receipt).
   */
  readonly expectedCurrentGenerationUuid?: string;
}

/**
 * True when two generations hold the same content, restoration records aside.
 *
 * Participants are content-addressed: equal family sets with equal digests
 * are equal content. A revert between such generations changes nothing but
 * its own restoration row.
 */
export function sameContent(a: readonly ManifestParticipant[], b: readonly ManifestParticipant[]): boolean {
  const digests = (ps: readonly ManifestParticipant[]): Map<string, string> =>
    new Map(ps.filter((p) => familyKeyOf(p) !== RESTORATION_KEY).map((p) => [familyKeyOf(p), p.contentSha256]));
  const x = digests(a);
  const y = digests(b);
  return x.size === y.size && [...x].every(([k, v]) => y.get(k) === v);
}

function requestMatches(req: RevertRequest, e: RevertExtension): boolean {
  const digest = revertRequestSha256({
    operationUuid: req.operationUuid,
    name: req.name,
    checkpointUuid: e.checkpoint_uuid,
    sourceGenerationUuid: e.source_generation_uuid,
    sourceManifestSha256: e.source_manifest_sha256,
    reason: req.reason,
    actorUuid: req.actorUuid,
  });
  return digest === e.revert_request_sha256 && e.operation_uuid === req.operationUuid;
}

function conflict(operationUuid: string): GfError {
  return new GfError('GF_IDEMPOTENCY_CONFLICT', 'idempotency key was used for a different request', { operation: REVERT_OPERATION, operation_uuid: operationUuid }, false);
}

/**
 * Generation-preserving revert (ADR-0014 "Revert") and its preview.
 *
 * A revert publishes a NEW complete generation whose participants are the
 * checkpoint's (by content address) plus one `restoration_transition@1` row;
 * its parent is the prior CURRENT, CURRENT only moves forward, and the
 * checkpoint registry is never touched. Lock order: writer.lock, then the
 * checkpoints lock (name resolution and pinning), then the generation leases.
 */
export class RevertEngine {
  readonly project: Project<Table>;
  readonly checkpoints: Checkpoints;
  readonly #clock: MicrosClock;
  readonly #writerTimeoutMs: number;
  readonly #memo: ValidationMemo;

  constructor(project: Project<Table>, options: RevertOptions = {}) {
    this.project = project;
    this.checkpoints = options.checkpoints ?? new Checkpoints(project);
    if (this.checkpoints.project !== project) throw new Error('invariant violated: a revert over another project\'s checkpoints');
    this.#clock = options.clock ?? systemMicros;
    this.#writerTimeoutMs = options.writerTimeoutMs ?? 0;
    this.#memo = options.memo ?? projectValidationMemo(project.caches);
  }

  /**
   * `revert_to_checkpoint`: restores the named checkpoint as a new generation.
   *
   * Validation of the request happens before any lock (`GF_VALIDATION`,
   * nothing touched). Under the writer lock the journal of
   * `transaction_uuid(idempotency_key)` decides: none → first attempt
   * (resolve, lease both generations, sample `restored_at` once, persist the
   * revert extension in the PREPARING journal before staging, stage, validate
   * every rule on the composite, publish); a published one → the original
   * receipt; an interrupted one → the same revert rebuilt from its durable
   * extension (the clock is not sampled again). Once cleanup deleted the
   * journal with its generation, the bounded receipt record
   * (`core/checkpoints/revert-receipts.ts`) returns the original receipt; a
   * key whose record was pruned is `GF_IDEMPOTENCY_CONFLICT` (phase
   * `receipt_pruned`), never a second publication. Different request bytes
   * under the same key are `GF_IDEMPOTENCY_CONFLICT`. On success the same project
   * instance already reads the restored generation.
   */
  async revertToCheckpoint(input: RevertInput, pre: RevertPreconditions = {}): Promise<CheckpointReceipt> {
    const req = prepareRevert(input);
    return this.project.withWriter((w) => this.#revertLocked(w, req, pre), { timeoutMs: this.#writerTimeoutMs });
  }

  #revertLocked(w: Writer<Table>, req: RevertRequest, pre: RevertPreconditions): CheckpointReceipt {
    const txn = revertTransactionUuid(req.operationUuid);
    const journal = w.readJournal(txn);
    if (journal !== undefined) {
      const ext = parseExtension(journal.extension);
      if (ext === undefined || !requestMatches(req, ext)) throw conflict(req.operationUuid);
      if (journal.state === 'PUBLISHED') {
        this.#record(ext);
        return revertReceiptOf(ext);
      }
      return this.#resume(w, ext);
    }
    // The journal is gone once cleanup removed its generation: the bounded receipt record answers.
    const recorded = lookupRevertReceipt(this.project.root, txn);
    if (recorded.kind === 'record') {
      const ext = parseExtension(recorded.extension);
      if (ext === undefined || !requestMatches(req, ext)) throw conflict(req.operationUuid);
      return revertReceiptOf(ext);
    }
    if (recorded.kind === 'pruned') throw prunedReceiptError(REVERT_OPERATION, req.operationUuid);
    // Keys are unique across kinds: one a checkpoint create or delete used is not a revert's.
    const doc = this.checkpoints.registryState().doc;
    const rows = [...(doc?.active ?? []), ...(doc?.tombstones ?? [])];
    if (rows.some((r) => r.create_operation_uuid === req.operationUuid || ('delete_operation_uuid' in r && r.delete_operation_uuid === req.operationUuid))) {
      throw conflict(req.operationUuid);
    }
    return this.#firstAttempt(w, req, txn, pre);
  }

  /**
   * Makes a published revert's receipt record durable (idempotent).
   *
   * Cleanup through the checkpoint pins records it too, before any journal is
   * deleted; this covers projects opened without those pins. The publication
   * is committed: a failure here says so.
   */
  #record(ext: RevertExtension): void {
    try {
      recordRevertReceipt(this.project.root, ext.transaction_uuid, ext.restored_generation_uuid, extensionJson(ext));
    } catch (e) {
      if (isGfError(e)) throw e.withCommitted(true);
      throw e;
    }
  }

  #firstAttempt(w: Writer<Table>, req: RevertRequest, txn: string, pre: RevertPreconditions): CheckpointReceipt {
    const view = this.checkpoints.openCheckpoint(req.name);
    let current: Lease<Table> | undefined;
    try {
      current = w.leaseCurrent();
      const expected = pre.expectedCurrentGenerationUuid;
      if (expected !== undefined && current.generationUuid !== expected) {
        throw new GfError('GF_STALE_PREVIEW', 'CURRENT changed since this revert was previewed; nothing was written', {
          operation: REVERT_OPERATION,
          phase: 'current_moved',
          expected_current_generation_uuid: expected,
          current_generation_uuid: current.generationUuid,
        }, false);
      }
      // A checkpoint whose content already equals CURRENT's is reverted like any other (ADR-0014): the new
      // generation differs from CURRENT by its restoration record only. Asking first is the screen's business.
      this.#checkGeneration(view.generationUuid, view.participants);
      this.#checkGeneration(current.generationUuid, current.manifest.participants);
      this.#verifySource({ generationUuid: view.generationUuid, manifestSha256: view.manifestSha256, participants: view.participants });
      const restoredAt = this.#now();
      const identityInput = {
        operationUuid: req.operationUuid,
        name: req.name,
        checkpointUuid: view.checkpointUuid,
        sourceGenerationUuid: view.generationUuid,
        sourceManifestSha256: view.manifestSha256,
        reason: req.reason,
        actorUuid: req.actorUuid,
      };
      const id = revertIdentity(identityInput, current.generationUuid, restoredAt);
      if (id.transactionUuid !== txn) throw new Error('invariant violated: revert transaction UUID');
      const ext: RevertExtension = {
        kind: REVERT_EXTENSION_KIND,
        operation_uuid: req.operationUuid,
        revert_request_sha256: id.revertRequestSha256,
        name: req.name,
        checkpoint_uuid: view.checkpointUuid,
        source_generation_uuid: view.generationUuid,
        source_manifest_sha256: view.manifestSha256,
        prior_current_generation_uuid: current.generationUuid,
        prior_current_manifest_sha256: current.manifestSha256,
        registry_revision: view.registryRevision,
        restored_at_micros: restoredAt.toString(),
        reason: req.reason,
        actor_uuid: req.actorUuid,
        transaction_uuid: id.transactionUuid,
        restoration_uuid: id.restorationUuid,
        restored_generation_uuid: id.restoredGenerationUuid,
      };
      return this.#publish(w, ext, current, view.participants);
    } finally {
      current?.release();
      view.release();
    }
  }

  /** Rebuilds an interrupted revert from its durable extension (never resampling the clock). */
  #resume(w: Writer<Table>, ext: RevertExtension): CheckpointReceipt {
    let source: Lease<Table>;
    try {
      source = leaseRecordedGeneration(this.project, ext.source_generation_uuid, ext.source_manifest_sha256);
    } catch (e) {
      if (hasCode(e, 'GF_PAGE_SNAPSHOT_GONE')) {
        throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'the checkpoint generation of this revert is no longer available', { checkpoint_uuid: ext.checkpoint_uuid }, false);
      }
      throw e;
    }
    let current: Lease<Table> | undefined;
    try {
      current = w.leaseCurrent();
      if (current.generationUuid !== ext.prior_current_generation_uuid || current.manifestSha256 !== ext.prior_current_manifest_sha256) {
        // The interrupted revert was never published and CURRENT moved on: its identity names a parent that is gone.
        throw new GfError('GF_TRANSACTION_FAILED', 'the workspace changed since this revert was interrupted; use a new idempotency key', {
          operation: REVERT_OPERATION,
          phase: 'resume',
          transaction_uuid: ext.transaction_uuid,
        }, false);
      }
      this.#checkGeneration(source.generationUuid, source.manifest.participants);
      this.#verifySource({ generationUuid: source.generationUuid, manifestSha256: source.manifestSha256, participants: source.manifest.participants });
      return this.#publish(w, ext, current, source.manifest.participants);
    } finally {
      current?.release();
      source.release();
    }
  }

  #publish(w: Writer<Table>, ext: RevertExtension, current: Lease<Table>, source: readonly ManifestParticipant[]): CheckpointReceipt {
    const restoration = encodeRecords(WORKSPACE_RESTORATION_TRANSITION, [restorationRowOf(ext)]);
    const changes = restorationChanges(current.manifest.participants, source, restoration);
    const memo = this.#memo;
    let published: { readonly generationUuid: string; readonly manifestSha256: string };
    try {
      published = w.publish({
        parent: ext.prior_current_generation_uuid,
        changes,
        transactionUuid: ext.transaction_uuid,
        generationUuid: ext.restored_generation_uuid,
        journalExtension: extensionJson(ext),
        wrapCatalog: (c) => completeValidationCatalog(c, memo),
        lineage: {
          actor: ext.actor_uuid,
          revert: { checkpointUuid: ext.checkpoint_uuid, reason: ext.reason },
          publishedAt: Number(BigInt(ext.restored_at_micros)),
        },
      });
    } catch (e) {
      if (isGfError(e)) {
        // Safe details only: the phase and UUIDs, never the reason text.
        throw e.committed === undefined ? e.withCommitted(false) : e;
      }
      throw e;
    }
    this.#recordValidation(w, published);
    this.#record(ext);
    return revertReceiptOf(ext);
  }

  /**
   * The checkpoint's generation before it is copied: its validation record
   * (when sound) enters every check of it in the memo, so the staged copy
   * re-runs only the checks that read the restoration record; and its
   * objects are verified (by file identity where the racy-clean rule
   * allows, else hashed), whatever the memo says.
   */
  #verifySource(g: ValidatedGeneration): void {
    adoptValidationRecord(this.project.root, g, this.#memo, this.project.caches.verifiedObjects);
    try {
      verifyGenerationObjects(this.project.root, g.participants, this.project.caches.verifiedObjects);
    } catch (e) {
      if (isGfError(e)) throw e.committed === undefined ? e.withCommitted(false) : e;
      throw e;
    }
  }

  /** The restored generation passed the complete validation at publication: its record, for the next checkpoint or revert (best effort). */
  #recordValidation(w: Writer<Table>, published: { readonly generationUuid: string; readonly manifestSha256: string }): void {
    let lease: Lease<Table> | undefined;
    try {
      lease = w.leaseCurrent();
      if (lease.generationUuid !== published.generationUuid || lease.manifestSha256 !== published.manifestSha256) return;
      writeValidationRecord(this.project.root, { generationUuid: lease.generationUuid, manifestSha256: lease.manifestSha256, participants: lease.manifest.participants }, this.project.caches.verifiedObjects);
    } catch {
      // Committed already: a record is a cache, never required.
    } finally {
      lease?.release();
    }
  }

  /** Every participant registered with its schema (O(participants); bytes are verified by publication). */
  #checkGeneration(generationUuid: string, participants: readonly ManifestParticipant[]): void {
    const catalog = this.project.catalog;
    for (const p of participants) {
      const f = catalog?.family(p.capabilityId, p.recordFamilyId);
      if (f === undefined || f.schemaFingerprint !== p.schemaFingerprint || f.encoding !== p.encoding) {
        throw new GfError('GF_SCHEMA_MISMATCH', 'a generation of this revert has an unregistered participant', {
          generation_uuid: generationUuid,
          schema_fingerprint: p.schemaFingerprint,
        }, false);
      }
    }
  }

  #now(): bigint {
    const t = this.#clock();
    if (!Number.isSafeInteger(t) || t < 0) throw new Error('invariant violated: the engine clock returns non-negative integer microseconds');
    return BigInt(t);
  }

  /**
   * What a revert to `name` would change: `diff_checkpoints(CURRENT, name)` plus the identities it would use.
   *
   * Read-only (no writer lock); the operator confirms with `revertToCheckpoint`.
   * Unknown or deleted names are `GF_CHECKPOINT_NOT_FOUND`. The diff reads
   * through the checkpoint view and CURRENT lease the preview holds (one
   * pin of each, released here), so both halves describe the same pair.
   */
  async previewRevert(name: string, options: PreviewOptions = {}): Promise<RevertPreview> {
    const view = this.checkpoints.openCheckpoint(name);
    try {
      const current = this.project.lease();
      try {
        const diff = await diffCheckpoints(
          {
            from: CURRENT_SELECTOR,
            to: view.name,
            scope: options.scope ?? 'all',
            detail: options.detail ?? 'summary',
            limit: options.limit,
            after: options.after,
            signal: options.signal,
          },
          { ...projectShell(this.checkpoints), resolver: heldResolver(this.project, current, view) },
        );
        return {
          checkpoint_uuid: view.checkpointUuid,
          source_generation_uuid: view.generationUuid,
          source_manifest_sha256: view.manifestSha256,
          current_generation_uuid: current.generationUuid,
          same_content: sameContent(view.participants, current.manifest.participants),
          diff,
        };
      } finally {
        current.release();
      }
    } finally {
      view.release();
    }
  }
}

/** `revertToCheckpoint` on a project in one call (see `RevertEngine.revertToCheckpoint`). */
export async function revertToCheckpoint(project: Project<Table>, input: RevertInput, options: RevertOptions = {}, pre: RevertPreconditions = {}): Promise<CheckpointReceipt> {
  return new RevertEngine(project, options).revertToCheckpoint(input, pre);
}

/** `previewRevert` on a project in one call. */
export function previewRevert(project: Project<Table>, name: string, options: PreviewOptions = {}): Promise<RevertPreview> {
  return new RevertEngine(project).previewRevert(name, options);
}
