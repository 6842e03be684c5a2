// Pins one generation named by a trusted engine record (a checkpoint's generation);
// internal to the engines.
import { isCanonicalUuid } from '../canonical/index';
import { GfError } from '../errors';
import { tryLeaseGeneration } from './lease';
import type { Lease } from './lease';
import type { Project } from './project';

/**
 * Pins one generation named by a trusted engine record (internal; not part of the library's exports).
 *
 * ADR-0014: "There is no public operation that opens an arbitrary generation
 * UUID". Only the engine's own records reach this: an active checkpoint row
 * (open_checkpoint), a revert's durable journal extension (resume) and a
 * manifest's restoration record (project summary). It is deliberately not a
 * `Project` method and not re-exported from `core/project/index.ts`.
 * A generation that no longer exists is `GF_PAGE_SNAPSHOT_GONE`; a digest
 * mismatch is `GF_PROJECT_CORRUPT`; a non-canonical identity `GF_VALIDATION`.
 */
export function leaseRecordedGeneration<T>(project: Project<T>, generationUuid: string, manifestSha256: string): Lease<T> {
  if (!isCanonicalUuid(generationUuid) || !/^[0-9a-f]{64}$/.test(manifestSha256)) {
    throw new GfError('GF_VALIDATION', 'generation identity is not canonical', {});
  }
  const got = tryLeaseGeneration(project.root, project.catalog, generationUuid, manifestSha256, project.caches);
  if (got === 'gone') throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'the generation is no longer available', { generation_uuid: generationUuid });
  return got;
}
