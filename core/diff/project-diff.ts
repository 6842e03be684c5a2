import type { Checkpoints } from '../checkpoints/checkpoints';
import { GfError } from '../errors';
import { DiskChangeCache } from './changes/change-cache';
import { CURRENT_SELECTOR } from './arrow-schemas';
import { diffCheckpoints, diffStatCheckpoints } from './shell';
import { parseSelector } from './shell';
import type { DiffCheckpointsRequest, DiffSelector, DiffStatRequest, EndpointResolver } from './shell';
import type { DiffStatResult } from '../contract/diff';
import type { EndpointParticipant, LeasedEndpoint } from './plan/endpoint';
import { openObjectVerified, openObjectVerifiedAsync, readObjectVerifiedAsync } from '../project/index';
import { currentEndpointUuid } from './plan/endpoint';
import { diffAllRecordsAsync } from './page/diff-page';
import { validateDiffParams } from './plan/request';
import type { DiffPage } from './page/diff-page';
import type { Table } from 'apache-arrow';
import { recordChangeOf } from './page/record-inspector';
import type { RecordChangeRequest, RecordChangeResult } from './page/record-inspector';
import { loadTokenSecret } from './page/token-secret';

/**
 * CURRENT pinned as a diff endpoint: the project's reader lease on the
 * generation CURRENT names now, identified by the synthetic endpoint UUID.
 */
function leaseCurrentEndpoint(checkpoints: Checkpoints): LeasedEndpoint {
  const lease = checkpoints.project.lease();
  return {
    checkpointUuid: currentEndpointUuid(lease.generationUuid, lease.manifestSha256),
    generationUuid: lease.generationUuid,
    manifestSha256: lease.manifestSha256,
    participants: lease.manifest.participants,
    readParticipantBytes: (entry) => {
      const own = lease.participant(`${entry.capabilityId}/${entry.recordFamilyId}`);
      if (own === undefined || own.contentSha256 !== entry.contentSha256) {
        throw new GfError('GF_VALIDATION', 'participant is not part of this endpoint', { generation_uuid: lease.generationUuid });
      }
      return lease.readParticipantBytes(own);
    },
    release: () => lease.release(),
  };
}

/**
 * Adds the cooperative and ranged reads to a pinned endpoint of `root`:
 * the entry must be one of the endpoint's own participants (same family
 * and content digest, `GF_VALIDATION` otherwise), and its object is
 * verified against its name in chunks with `pause` between them
 * (`readObjectVerifiedAsync` / `openObjectVerifiedAsync`, which honour the
 * per-process verified-object memo) before any byte of it is used. The
 * endpoint's lease is held by the caller for the whole call.
 */
function withCooperativeReads(root: string, e: LeasedEndpoint): LeasedEndpoint {
  const own = (entry: EndpointParticipant): EndpointParticipant => {
    const p = e.participants.find((x) => x.capabilityId === entry.capabilityId && x.recordFamilyId === entry.recordFamilyId);
    if (p === undefined || p.contentSha256 !== entry.contentSha256) {
      throw new GfError('GF_VALIDATION', 'participant is not part of this endpoint', { generation_uuid: e.generationUuid });
    }
    return p;
  };
  return {
    checkpointUuid: e.checkpointUuid,
    generationUuid: e.generationUuid,
    manifestSha256: e.manifestSha256,
    participants: e.participants,
    readParticipantBytes: (entry) => e.readParticipantBytes(entry),
    readParticipantBytesAsync: (entry, pause) => readObjectVerifiedAsync(root, own(entry), pause),
    openParticipant: (entry) => openObjectVerified(root, own(entry)),
    openParticipantAsync: (entry, pause) => openObjectVerifiedAsync(root, own(entry), pause),
    release: () => e.release(),
  };
}

/**
 * The endpoint resolver of a real project: names through `openCheckpoint`
 * (lease-pinned read-only views; a deleted or unknown name is
 * `GF_CHECKPOINT_NOT_FOUND`), `CURRENT` through a reader lease on CURRENT.
 *
 * The synthetic CURRENT UUID is never handed to `openCheckpoint`: a name
 * is always looked up as a name.
 */
export function checkpointsResolver(checkpoints: Checkpoints): EndpointResolver {
  return {
    open: (selector: DiffSelector): LeasedEndpoint =>
      withCooperativeReads(
        checkpoints.project.root,
        selector === CURRENT_SELECTOR ? leaseCurrentEndpoint(checkpoints) : checkpoints.openCheckpoint(selector.name),
      ),
  };
}

/**
 * `diff_checkpoints` on a project: one page of the summary or record diff.
 *
 * See `diffCheckpoints` for the order of judgement and errors. The page
 * token key is the project's own (`cache/diff/page-token.key`, created once).
 * Cooperative: aborting `req.signal` from another request (e.g. the
 * `operation.cancel` operation) stops a running diff with `GF_CANCELLED`.
 */
export async function diffProjectCheckpoints(checkpoints: Checkpoints, req: DiffCheckpointsRequest): Promise<DiffPage> {
  return diffCheckpoints(req, {
    resolver: checkpointsResolver(checkpoints),
    secret: loadTokenSecret(checkpoints.project.root),
    cache: new DiskChangeCache(checkpoints.project.root),
  });
}

/**
 * Both versions of one record between two endpoints, read through pinned
 * views, and the fields that differ (for the UI's record inspector).
 *
 * This is where values are shown, to the user who asked; the diff envelope
 * itself never carries them.
 */
export function recordChange(checkpoints: Checkpoints, req: RecordChangeRequest): RecordChangeResult {
  return recordChangeOf(req, checkpointsResolver(checkpoints));
}

/**
 * The whole record diff between two selectors in one Arrow table
 * (`checkpoint_record_diff@1`, contract order, batches of at most 10,000
 * rows), both endpoints lease-pinned for the call.
 *
 * For revert previews and exports; memory is O(changes), each changed
 * participant is read once. Cooperative like `diffProjectCheckpoints`;
 * cancellation: `GF_CANCELLED`, no table.
 */
export async function diffProjectAllRecords(
  checkpoints: Checkpoints,
  req: { readonly from: unknown; readonly to: unknown; readonly scope: unknown; readonly signal?: AbortSignal },
): Promise<Table> {
  const fromSel = parseSelector(req.from, 'from');
  const toSel = parseSelector(req.to, 'to');
  const { scope } = validateDiffParams({ scope: req.scope, detail: 'records' });
  const resolver = checkpointsResolver(checkpoints);
  const a = resolver.open(fromSel);
  try {
    const b = resolver.open(toSel);
    try {
      return await diffAllRecordsAsync(a, b, scope, { signal: req.signal, cache: new DiskChangeCache(checkpoints.project.root) });
    } finally {
      b.release();
    }
  } finally {
    a.release();
  }
}

/**
 * `checkpoints.diff_stat` on a project: exact per-family counts of added,
 * removed and modified records and changed cells per field.
 *
 * The whole change lists it computes are stored in the project's
 * `cache/diff/changes/`, so the display pages, totals and jumps that
 * follow read no participant again.
 */
export async function diffProjectStat(checkpoints: Checkpoints, req: DiffStatRequest): Promise<DiffStatResult> {
  return diffStatCheckpoints(req, { resolver: checkpointsResolver(checkpoints), cache: new DiskChangeCache(checkpoints.project.root) });
}
