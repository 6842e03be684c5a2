// The diff's one entry shell: takes a parsed request, resolves it, pins both
// endpoints for the call and runs the engine; `projectShell` binds it to a project.
import type { Table } from 'apache-arrow';
import type { Checkpoints } from '../checkpoints/checkpoints';
import type { OperationRequest } from '../contract/operations';
import type { DiffStatResult } from '../contract/diff';
import { GfError } from '../errors';
import { openObjectVerified, openObjectVerifiedAsync, readObjectVerifiedAsync } from '../project/index';
import type { Lease, Project } from '../project/index';
import { CURRENT_SELECTOR } from './arrow-schemas';
import type { DiffScope } from './arrow-schemas';
import { DiskChangeCache } from './changes-cache';
import type { ChangeCache } from './changes-cache';
import type { DiffAdapter } from './plan-adapters';
import { currentEndpointUuid } from './plan-endpoint';
import type { DiffEndpoint, EndpointParticipant, LeasedEndpoint } from './plan-endpoint';
import { selectorKey, selectorOf, withPinnedPair } from './plan-pinned-pair';
import type { DiffSelector, EndpointResolver } from './plan-pinned-pair';
import { resolveDiffParams } from './plan-request';
import { diffAllRecordsAsync, diffEndpointsAsync, pageState } from './page-diff';
import type { DiffPage } from './page-diff';
import { diffStatAsync, displayPageAsync } from './page-display';
import { selectorsDigest } from './page-token';
import { recordChangeOf } from './page-record-inspector';
import type { RecordChangeRequest, RecordChangeResult } from './page-record-inspector';
import { loadTokenSecret } from './token-secret';
import { checkCancelled } from './steps';

/** What the shell reads of the project an endpoint is pinned in: where its objects are, and its caches. */
type ProjectRef = Pick<Project, 'root' | 'caches'>;

/** A parsed `checkpoints.diff` request (the contract's schema has judged every field) and its cancellation. */
export type DiffCheckpointsRequest = Omit<OperationRequest<'checkpoints.diff'>, 'project' | 'operation_id'> & { readonly signal?: AbortSignal };

/** A parsed `checkpoints.diff_stat` request and its cancellation. */
export type DiffStatRequest = Omit<OperationRequest<'checkpoints.diff_stat'>, 'project' | 'operation_id'> & { readonly signal?: AbortSignal };

/** The whole record diff between two selectors (revert previews, exports, benchmarks). */
export interface DiffAllRecordsRequest {
  readonly from: string;
  readonly to: string;
  readonly scope: DiffScope;
  readonly signal?: AbortSignal;
}

/** What the shell is configured with. */
export interface DiffShellOptions {
  readonly resolver: EndpointResolver;
  /** The per-project page-token key (see `loadTokenSecret`); read only by calls that page. */
  readonly secret: Uint8Array;
  /** Adapter registry override (tests only). */
  readonly adapters?: readonly DiffAdapter[];
  /** Derived change-list cache (the project's `cache/diff/changes/`), optional. */
  readonly cache?: ChangeCache;
}

/**
 * `checkpoints.diff`: one page of the summary or record diff between two
 * checkpoints (or a checkpoint and CURRENT).
 *
 * Order of judgement: the request's cross-field and registry checks
 * (`GF_VALIDATION`), then the page token against this request
 * (`GF_PAGE_INVALID`), then both endpoints are lease-pinned for the call
 * and compared with the token's (`GF_PAGE_SNAPSHOT_GONE` when deleted or
 * re-targeted, never a silent advance). Both leases are released before
 * returning, whatever happens. The diff runs cooperatively: it yields to
 * the event loop at every cancellation point, so aborting `req.signal`
 * from another request stops it; a cancelled call is `GF_CANCELLED` with
 * no partial table.
 */
export async function diffCheckpoints(req: DiffCheckpointsRequest, opts: DiffShellOptions): Promise<DiffPage> {
  const from = selectorOf(req.from);
  const to = selectorOf(req.to);
  const params = resolveDiffParams(req, opts.adapters);
  const binding = { selectorsSha256: selectorsDigest(selectorKey(from), selectorKey(to)), signal: req.signal };
  pageState(params, binding, opts.secret);
  checkCancelled(req.signal, 'start');
  const engine = { secret: opts.secret, adapters: opts.adapters, cache: opts.cache };
  const run = params.view === null || params.view === undefined ? diffEndpointsAsync : displayPageAsync;
  return withPinnedPair(opts.resolver, from, to, (a, b) => run(a, b, params, binding, engine), params.after !== null);
}

/**
 * `checkpoints.diff_stat`: exact per-family statistics between two
 * selectors, both endpoints lease-pinned for the call (see `diffStat`).
 *
 * The request is judged first (`GF_VALIDATION`); cooperative and
 * cancellable like a page (`GF_CANCELLED`, no result).
 */
export async function diffStatCheckpoints(req: DiffStatRequest, opts: Omit<DiffShellOptions, 'secret'>): Promise<DiffStatResult> {
  const from = selectorOf(req.from);
  const to = selectorOf(req.to);
  const params = resolveDiffParams({ scope: req.scope, detail: 'summary', record_family_id: req.record_family_id, capability_id: req.capability_id }, opts.adapters);
  checkCancelled(req.signal, 'start');
  return withPinnedPair(opts.resolver, from, to, (a, b) =>
    diffStatAsync(a, b, params.scope, params.family ?? null, { adapters: opts.adapters, cache: opts.cache, signal: req.signal }),
  );
}

/**
 * The whole record diff between two selectors in one Arrow table
 * (`checkpoint_record_diff@1`, contract order, batches of at most 10,000
 * rows), both endpoints lease-pinned for the call.
 *
 * For revert previews and exports; memory is O(changes), each changed
 * participant is read once. Cooperative like a page; cancellation:
 * `GF_CANCELLED`, no table.
 */
export async function diffAllRecordsCheckpoints(req: DiffAllRecordsRequest, opts: Omit<DiffShellOptions, 'secret'>): Promise<Table> {
  return withPinnedPair(opts.resolver, selectorOf(req.from), selectorOf(req.to), (a, b) =>
    diffAllRecordsAsync(a, b, req.scope, { signal: req.signal, adapters: opts.adapters, cache: opts.cache }),
  );
}

/**
 * Both versions of one record between two endpoints, read through pinned
 * views, and the fields that differ (for the UI's record inspector).
 *
 * This is where values are shown, to the user who asked; the diff envelope
 * itself never carries them.
 */
export function recordChange(req: RecordChangeRequest, opts: Pick<DiffShellOptions, 'resolver'>): RecordChangeResult {
  return recordChangeOf(req, opts.resolver);
}

/**
 * CURRENT pinned as a diff endpoint: a reader lease on the generation
 * CURRENT names, identified by the synthetic endpoint UUID. Releasing the
 * endpoint releases the lease.
 */
function currentEndpointOf(lease: Lease): LeasedEndpoint {
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
 * Adds the project's caches and the cooperative and ranged reads to a
 * pinned endpoint of `project`: the entry must be one of the endpoint's own
 * participants (same family and content digest, `GF_VALIDATION`
 * otherwise), and its object is verified against its name in chunks with
 * `pause` between them (`readObjectVerifiedAsync` / `openObjectVerifiedAsync`,
 * which honour the project's verified-object memo) before any byte of it is
 * used. The endpoint's lease is held by the caller for the whole call.
 */
function withCooperativeReads(project: ProjectRef, e: LeasedEndpoint): LeasedEndpoint {
  const { root, caches } = project;
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
    caches,
    readParticipantBytes: (entry) => e.readParticipantBytes(entry),
    readParticipantBytesAsync: (entry, pause) => readObjectVerifiedAsync(root, own(entry), caches.verifiedObjects, pause),
    openParticipant: (entry) => openObjectVerified(root, own(entry), caches.verifiedObjects),
    openParticipantAsync: (entry, pause) => openObjectVerifiedAsync(root, own(entry), caches.verifiedObjects, pause),
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
        checkpoints.project,
        selector === CURRENT_SELECTOR ? currentEndpointOf(checkpoints.project.lease()) : checkpoints.openCheckpoint(selector.name),
      ),
  };
}

/**
 * A resolver over the two endpoints a caller already holds (a revert
 * preview's checkpoint view and its CURRENT lease): the diff reads through
 * them instead of opening the checkpoint again, and never releases them
 * (their holder does). Any other selector is a programming error.
 */
export function heldResolver(project: ProjectRef, current: Lease, named: DiffEndpoint & { readonly name: string }): EndpointResolver {
  const held = (e: DiffEndpoint): LeasedEndpoint =>
    withCooperativeReads(project, {
      checkpointUuid: e.checkpointUuid,
      generationUuid: e.generationUuid,
      manifestSha256: e.manifestSha256,
      participants: e.participants,
      readParticipantBytes: (entry) => e.readParticipantBytes(entry),
      release: () => undefined,
    });
  return {
    open: (selector: DiffSelector): LeasedEndpoint => {
      if (selector === CURRENT_SELECTOR) return held(currentEndpointOf(current));
      if (selector.name === named.name) return held(named);
      throw new Error('invariant violated: a held resolver opens only the endpoints it holds');
    },
  };
}

/**
 * The shell bound to a real project: its endpoint resolver, its page-token
 * key (`cache/diff/page-token.key`, created on the first paging call) and
 * its derived change-list cache (`cache/diff/changes/`).
 */
export function projectShell(checkpoints: Checkpoints): DiffShellOptions {
  const root = checkpoints.project.root;
  let secret: Uint8Array | undefined;
  return {
    resolver: checkpointsResolver(checkpoints),
    get secret(): Uint8Array {
      secret ??= loadTokenSecret(root);
      return secret;
    },
    cache: new DiskChangeCache(root),
  };
}
