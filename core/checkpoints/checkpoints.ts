// The checkpoint engine of one project: create, delete, list, show and open named
// checkpoints (lease-pinned read-only views), all through the registry.
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { GfError, hasCode, isGfError } from '../errors';
import { openProject, objectPlace } from '../project/index';
import { registryCatalog } from '../participants/index';
import { archiveRevertReceipts } from './revert-receipts';
import type { Lease, Project, ProjectOptions, RetentionPins, VerifiedObject, Writer } from '../project/index';
import { ValidationMemo, leaseSnapshotByRows, projectValidationMemo, validateCompleteSnapshot } from './snapshot-validation';
import { revertTransactionUuid } from './revert-identity';
import { adoptValidationRecord, verifyGenerationObjects, writeValidationRecord } from './validation-record';
import { CheckpointView } from '../views/checkpoint-view';
import { listPage } from './listing';
import type { CursorKey } from '../paging/cursor';
import { userCursorKey } from '../paging/cursor-key';
import type { CheckpointPage, CheckpointRow } from './listing';
import { checkpointRow } from './listing';
import { normalizeName } from '../contract/names';
import { decideCreate, findActive, isPlan, pinnedGenerations, planCreate, planDelete, prepareCreate, prepareDelete } from './registry-core';
import type { CheckpointReceipt, CreateInput, DeleteInput } from './registry-core';
import { CheckpointRegistryStore } from './registry-store';
import type { RegistryState } from './registry-store';
import { leaseRecordedGeneration } from '../project/named-lease';

/** Engine clock: UTC microseconds since the epoch. */
export type MicrosClock = () => number;

/** The default clock (wall time in microseconds; sub-millisecond digits from the monotonic clock are not claimed). */
export const systemMicros: MicrosClock = () => Date.now() * 1000;

/** Options of the checkpoint facade. */
export interface CheckpointsOptions {
  /** Injected engine clock for created_at / deleted_at. */
  readonly clock?: MicrosClock;
  /** Writer-lock wait (default: fail at once with `GF_WRITER_BUSY`). */
  readonly writerTimeoutMs?: number;
  /** Validation memo of `checkpoint`'s complete validation (default: the process-wide one revert shares). */
  readonly memo?: ValidationMemo;
  /** The project's registry store (default: a store of its own); the API's project session passes the one it keeps. */
  readonly registry?: CheckpointRegistryStore;
  /** The page-token key of the listing and of the views it opens, read when a token is (default: the user's, `userCursorKey`). */
  readonly cursorKey?: () => CursorKey;
}

/** Listing request (`list_checkpoints`): limit 1–10,000 (default 100) and a keyset `after` token. */
export interface ListRequest {
  readonly limit?: unknown;
  readonly after?: unknown;
}

/**
 * The checkpoint registry as a retention plug-in: active rows pin their generations.
 *
 * Called by cleanup under the writer lock (lock order writer → checkpoints).
 * A corrupt registry throws `GF_CHECKPOINT_REGISTRY_CORRUPT`, which makes
 * cleanup delete nothing. Readers see the recovery table's logical state.
 */
export function checkpointPins(projectRoot: string, store: CheckpointRegistryStore = new CheckpointRegistryStore(projectRoot)): RetentionPins {
  return {
    pinnedGenerations: () => {
      // Before cleanup may delete any journal: every published revert's receipt becomes durable (ADR-0014 replay).
      archiveRevertReceipts(projectRoot);
      return pinnedGenerations(store.read().doc);
    },
  };
}

/**
 * Opens a project with the participant catalog and the checkpoint retention pins.
 *
 * Every surface that may publish or clean up must open projects this way (or
 * pass `checkpointPins` itself): otherwise cleanup would not see checkpoints.
 */
export async function openCheckpointedProject(
  dir: string,
  opts: Omit<ProjectOptions<Table>, 'catalog' | 'pins'> = {},
  registry: CheckpointRegistryStore = new CheckpointRegistryStore(path.resolve(dir)),
): Promise<Project<Table>> {
  // `openProject` resolves the directory the same way; the pins read the registry of exactly that root.
  if (registry.root !== path.resolve(dir)) throw new Error('invariant violated: the retention pins read another project\'s registry');
  return openProject<Table>(dir, { ...opts, catalog: registryCatalog, pins: checkpointPins(registry.root, registry) });
}

/**
 * Idempotency keys are unique across kinds: a key a revert used (its journal
 * exists) is refused for a create or a delete (`GF_IDEMPOTENCY_CONFLICT`).
 */
function refuseRevertKey(w: Writer<Table>, operationUuid: string, operation: string): void {
  if (w.readJournal(revertTransactionUuid(operationUuid)) !== undefined) {
    throw new GfError('GF_IDEMPOTENCY_CONFLICT', 'idempotency key was used for a different request', { operation, operation_uuid: operationUuid }, false);
  }
}

const RESOLVE_ATTEMPTS = 16;

/**
 * Named checkpoints of one project: create, delete, list, show and open (ADR-0014).
 *
 * Mutations hold the project's writer.lock, then `locks/checkpoints.lock`,
 * then resolve (and, for create, lease) the generation, in that order only.
 * Reads take only the shared checkpoints lock. Results are plain rows; the
 * Arrow forms are in `arrow-results.ts`.
 */
export class Checkpoints {
  readonly project: Project<Table>;
  readonly store: CheckpointRegistryStore;
  readonly #clock: MicrosClock;
  readonly #writerTimeoutMs: number;
  readonly #memo: ValidationMemo;
  readonly #cursorKey: () => CursorKey;

  constructor(project: Project<Table>, options: CheckpointsOptions = {}) {
    this.project = project;
    this.store = options.registry ?? new CheckpointRegistryStore(project.root);
    if (this.store.root !== project.root) throw new Error('invariant violated: a checkpoint facade over another project\'s registry');
    this.#clock = options.clock ?? systemMicros;
    this.#writerTimeoutMs = options.writerTimeoutMs ?? 0;
    this.#memo = options.memo ?? projectValidationMemo(project.caches);
    this.#cursorKey = options.cursorKey ?? (() => userCursorKey());
  }

  #now(): number {
    const t = this.#clock();
    if (!Number.isSafeInteger(t) || t < 0) throw new Error('invariant violated: the engine clock returns non-negative integer microseconds');
    return t;
  }

  /**
   * Names the current generation (`checkpoint`): one new active row, no publication.
   *
   * Request validation happens before any lock. Under writer → checkpoints
   * locks: replay / conflict / exists / limit checks, then CURRENT is leased
   * and the complete selected generation validated (manifest digest by the
   * lease; every participant registered with its schema fingerprint and its
   * object present with the exact length; then every domain and cross-domain
   * rule, as revert runs them, through the content-keyed validation memo:
   * a check whose exact input bytes already passed in this open project is not
   * re-run, anything else is read verified and run). A generation validated
   * once has a durable validation record (`cache/validation/`, keyed by the
   * manifest digest and the validator version): with a sound one no rule
   * is re-run, and only the objects are verified (by file identity where
   * the racy-clean rule allows it, else hashed). A failure is
   * `GF_VALIDATION` / `GF_SCHEMA_MISMATCH` / `GF_PROJECT_CORRUPT` with
   * `committed: false` and no row. The lease is held through the registry
   * replacement.
   */
  async checkpoint(input: CreateInput): Promise<CheckpointReceipt> {
    const req = prepareCreate(input);
    return this.project.withWriter((w) => {
      refuseRevertKey(w, req.operationUuid, 'checkpoint');
      let lease: Lease<Table> | undefined;
      try {
        return this.store.mutate(w.lockProof, (doc) => {
          const decision = decideCreate(doc, req);
          if (decision.kind === 'replay') return decision.receipt;
          lease = w.leaseCurrent();
          this.#validateGeneration(lease);
          return planCreate(doc, req, { generationUuid: lease.generationUuid, manifestSha256: lease.manifestSha256 }, this.#now());
        });
      } finally {
        lease?.release();
      }
    }, { timeoutMs: this.#writerTimeoutMs });
  }

  #validateGeneration(lease: Lease<Table>): void {
    for (const p of lease.manifest.participants) {
      const family = this.project.catalog?.family(p.capabilityId, p.recordFamilyId);
      if (family === undefined || family.schemaFingerprint !== p.schemaFingerprint || family.encoding !== p.encoding) {
        throw new GfError('GF_SCHEMA_MISMATCH', 'the current generation has an unregistered participant', {
          generation_uuid: lease.generationUuid,
          schema_fingerprint: p.schemaFingerprint,
        }, false);
      }
      const place = objectPlace(this.project.root, p.contentSha256);
      let size: number;
      try {
        const st = fs.lstatSync(place.abs);
        size = st.isFile() && st.nlink >= 1 ? st.size : -1;
      } catch {
        size = -1;
      }
      if (size !== p.byteLength) {
        throw new GfError('GF_PROJECT_CORRUPT', 'a participant object of the current generation is missing or altered', {
          generation_uuid: lease.generationUuid,
          name: place.rel,
        }, false);
      }
    }
    const generation = { generationUuid: lease.generationUuid, manifestSha256: lease.manifestSha256, participants: lease.manifest.participants };
    try {
      // A sound validation record of this exact manifest and validator: every check is known to pass; the objects are still verified.
      const record = adoptValidationRecord(this.project.root, generation, this.#memo, this.project.caches.verifiedObjects);
      if (typeof record !== 'string') {
        verifyGenerationObjects(this.project.root, generation.participants, this.project.caches.verifiedObjects);
        return;
      }
      // Arrow participants are read by row ranges (a 10M-record graph is never decoded whole for a checkpoint).
      const opened: VerifiedObject[] = [];
      try {
        validateCompleteSnapshot(leaseSnapshotByRows(this.project.root, lease, opened), this.#memo);
      } finally {
        for (const o of opened) o.close();
      }
      // Checks the in-process memo answered read no bytes: every object is verified all the same.
      verifyGenerationObjects(this.project.root, generation.participants, this.project.caches.verifiedObjects);
      writeValidationRecord(this.project.root, generation, this.project.caches.verifiedObjects);
    } catch (e) {
      if (isGfError(e)) throw e.committed === undefined ? e.withCommitted(false) : e;
      throw e;
    }
  }

  /**
   * Deletes an active name (`delete_checkpoint`): one tombstone, same replacement.
   *
   * Releases only the retention root; never removes a generation and never
   * invalidates an open view. Takes no generation lease.
   */
  async deleteCheckpoint(input: DeleteInput): Promise<CheckpointReceipt> {
    const req = prepareDelete(input);
    return this.project.withWriter((w) => {
      refuseRevertKey(w, req.operationUuid, 'delete_checkpoint');
      return this.store.mutate(w.lockProof, (doc) => planDelete(doc, req, this.#now()));
    }, { timeoutMs: this.#writerTimeoutMs });
  }

  /** Active checkpoints (`checkpoint@1`), sorted by (name, checkpoint_uuid), one keyset page. */
  listCheckpoints(request: ListRequest = {}): CheckpointPage {
    return listPage(this.store.read().doc, request.limit, request.after, this.#cursorKey);
  }

  /** One active checkpoint by name (`show_checkpoint`), or `GF_CHECKPOINT_NOT_FOUND`. */
  showCheckpoint(name: unknown): CheckpointRow {
    const normalized = normalizeName(name);
    const row = findActive(this.store.read().doc, normalized);
    if (row === undefined) throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no active checkpoint has this name', { name: normalized });
    return checkpointRow(row);
  }

  /** The logical registry state (revision and digest included), read-only. */
  registryState(): RegistryState {
    return this.store.read();
  }

  /** Settles an interrupted registry transaction under writer → checkpoints locks. */
  async recoverRegistry(): Promise<RegistryState> {
    return this.project.withWriter((w) => this.store.recover(w.lockProof), { timeoutMs: this.#writerTimeoutMs });
  }

  /**
   * Opens a read-only view of an active checkpoint (`open_checkpoint`).
   *
   * Resolve the active row → lease its exact generation (no link following)
   * → re-read the registry: the same row must still be active, else restart
   * → the manifest digest is verified by the lease against the row. A deleted
   * or unknown name is `GF_CHECKPOINT_NOT_FOUND`. There is deliberately no
   * way to open a generation UUID, manifest digest or path.
   */
  openCheckpoint(name: unknown): CheckpointView {
    const normalized = normalizeName(name);
    for (let attempt = 0; attempt < RESOLVE_ATTEMPTS; attempt++) {
      const first = this.store.read();
      const row = findActive(first.doc, normalized);
      if (row === undefined) throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no active checkpoint has this name', { name: normalized });
      let lease: Lease<Table> | undefined;
      try {
        lease = leaseRecordedGeneration(this.project, row.generation_uuid, row.generation_manifest_sha256);
      } catch (e) {
        if (!hasCode(e, 'GF_PAGE_SNAPSHOT_GONE')) throw e;
      }
      const again = this.store.read();
      const still = findActive(again.doc, normalized);
      if (still !== undefined && still.checkpoint_uuid === row.checkpoint_uuid && still.generation_uuid === row.generation_uuid && still.generation_manifest_sha256 === row.generation_manifest_sha256) {
        if (lease === undefined) {
          // An active row pins its generation: a missing one is corruption, never a fallback.
          throw new GfError('GF_PROJECT_CORRUPT', 'the generation of an active checkpoint is missing', { checkpoint_uuid: row.checkpoint_uuid, generation_uuid: row.generation_uuid });
        }
        return new CheckpointView(lease, { checkpointUuid: row.checkpoint_uuid, name: row.name, registryRevision: again.revision, cursorKey: this.#cursorKey });
      }
      lease?.release();
    }
    throw new GfError('GF_IO', 'the checkpoint kept changing while it was being opened', { attempts: RESOLVE_ATTEMPTS });
  }
}

/** Re-exported so callers have one import for receipts. */
export type { CheckpointReceipt, CheckpointPage, CheckpointRow };
export { isPlan };
