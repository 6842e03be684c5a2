import type { Table } from 'apache-arrow';
import { completeValidationCatalog, leaseSnapshotByRows, projectValidationMemo, validateCompleteSnapshot } from '../checkpoints/snapshot-validation';
import type { ValidationMemo } from '../checkpoints/snapshot-validation';
import type { ParticipantCatalog, Project, ProjectCaches, VerifiedObject } from '../project/index';

/**
 * The demo's publication catalog: every rule over the complete candidate, once, remembered by content digest.
 *
 * Why: each demo publication is followed by a checkpoint of the same
 * generation, and a checkpoint validates the complete generation. Validating
 * the candidate completely at publication, through the project's memo
 * checkpoints and revert consult (`projectValidationMemo`), lets the
 * checkpoint find every check already passed on those exact bytes instead of
 * decoding the whole graph a second time (at 1M records that second pass
 * set the demo's peak memory). Nothing is skipped: the per-participant
 * domain rules run inside the complete validation (registry order, then
 * every cross-domain rule) in the same VALIDATED step, before the manifest is
 * written, so each staged participant is still validated exactly once.
 */
export function demoPublicationCatalog<T>(catalog: ParticipantCatalog<T>, caches: ProjectCaches): ParticipantCatalog<T> {
  const complete = completeValidationCatalog(catalog, projectValidationMemo(caches));
  return {
    ...complete,
    // Deferred to `validateSnapshot` below, which runs the same domain rules on every participant not already passed by digest.
    validateParticipant: () => undefined,
    // The same for a put-file read by row ranges (kept defined, so the file is still never decoded whole): its rules run once, there.
    ...(catalog.validateFile === undefined ? {} : { validateFile: () => undefined }),
  };
}

/**
 * Runs the complete validation of CURRENT with its Arrow participants read by row ranges, remembering each pass in `memo`.
 *
 * Why: a checkpoint validates the complete generation through the memo. After
 * a publication that ran only the rules reading what changed (an ontology
 * adoption), its misses are the whole graph. Run here first, through the same
 * row-range snapshot the checkpoint uses (`leaseSnapshotByRows`), every check
 * the checkpoint needs is already passed on those exact bytes (nothing
 * skipped: a failure throws here, with the same code and row).
 */
export function validateCurrentByRows(project: Project<Table>, memo: ValidationMemo = projectValidationMemo(project.caches)): void {
  const lease = project.lease();
  const opened: VerifiedObject[] = [];
  try {
    validateCompleteSnapshot(leaseSnapshotByRows(project.root, lease, opened), memo);
  } finally {
    for (const o of opened) o.close();
    lease.release();
  }
}
