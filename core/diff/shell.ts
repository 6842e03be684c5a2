import { GfError, hasCode } from '../errors';
import type { DiffAdapter } from './plan/adapters';
import type { ChangeCache } from './changes/change-cache';
import { checkCancelled } from './steps';
import { CURRENT_SELECTOR } from './arrow-schemas';
import type { DiffEndpoint, LeasedEndpoint } from './plan/endpoint';
import { diffEndpointsAsync, pageState } from './page/diff-page';
import { validateDiffParams } from './plan/request';
import type { DiffPage } from './page/diff-page';
import type { DiffRequestFields } from './plan/request';
import { selectorsDigest, snapshotGone } from './page/page-token';
import { diffStatAsync } from './page/display-page';
import { displayPageAsync } from './page/display-page';
import type { DiffStatResult } from '../contract/diff';

/**
 * A diff endpoint selector: the reserved `CURRENT`, or a checkpoint name.
 *
 * On the wire a bare string is accepted too: `"CURRENT"` is the reserved
 * selector, any other string a name.
 */
export type DiffSelector = typeof CURRENT_SELECTOR | { readonly name: string };

/**
 * Pins diff endpoints (the port the shell needs from checkpoint views).
 *
 * `open` resolves a selector and holds its generation lease until
 * `release`: a named checkpoint through the registry (an unknown or deleted
 * name is `GF_CHECKPOINT_NOT_FOUND`), CURRENT through the project's
 * CURRENT pointer with the synthetic endpoint UUID.
 */
export interface EndpointResolver {
  open(selector: DiffSelector): LeasedEndpoint;
}

/** Request of `diffCheckpoints` (the contract's `diff_checkpoints` fields): the endpoints and the diff's own fields. */
export interface DiffCheckpointsRequest extends DiffRequestFields {
  readonly from: unknown;
  readonly to: unknown;
  readonly scope: unknown;
  readonly detail: unknown;
  readonly signal?: AbortSignal;
}

/** What the shell is configured with. */
export interface DiffShellOptions {
  readonly resolver: EndpointResolver;
  /** The per-project page-token key (see `loadTokenSecret`). */
  readonly secret: Uint8Array;
  /** Adapter registry override (tests only). */
  readonly adapters?: readonly DiffAdapter[];
  /** Derived change-list cache (the project's `cache/diff/changes/`), optional. */
  readonly cache?: ChangeCache;
}

/** Parses a selector (`GF_VALIDATION` when it is neither `CURRENT` nor a non-empty name). */
export function parseSelector(v: unknown, field: 'from' | 'to'): DiffSelector {
  if (v === CURRENT_SELECTOR) return CURRENT_SELECTOR;
  const name = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? (v as { name?: unknown }).name : undefined;
  if (typeof name !== 'string' || name.length === 0 || name.length > 1024) {
    throw new GfError('GF_VALIDATION', 'a diff endpoint is CURRENT or a checkpoint name', { operation: 'diff_checkpoints', field });
  }
  return { name };
}

function selectorKey(s: DiffSelector): unknown {
  return s === CURRENT_SELECTOR ? { current: true } : { name: s.name };
}

/** Pins one endpoint; with a page token, a vanished checkpoint is `GF_PAGE_SNAPSHOT_GONE`. */
function pin(resolver: EndpointResolver, selector: DiffSelector, paging: boolean): LeasedEndpoint {
  try {
    return resolver.open(selector);
  } catch (e) {
    if (paging && hasCode(e, 'GF_CHECKPOINT_NOT_FOUND')) snapshotGone();
    throw e;
  }
}

/**
 * `diff_checkpoints`: one page of the summary or record diff between two
 * checkpoints (or a checkpoint and CURRENT).
 *
 * Order of judgement: request fields (`GF_VALIDATION`), then the page
 * token against this request (`GF_PAGE_INVALID`), then both endpoints are
 * lease-pinned for the call and compared with the token's
 * (`GF_PAGE_SNAPSHOT_GONE` when deleted or re-targeted, never a silent
 * advance). Both leases are released before returning, whatever happens.
 * The diff runs cooperatively (`diffEndpointsAsync`): it yields to the
 * event loop at every cancellation point, so aborting `req.signal` from
 * another request stops it; a cancelled call is `GF_CANCELLED` with no
 * partial table.
 */
export async function diffCheckpoints(req: DiffCheckpointsRequest, opts: DiffShellOptions): Promise<DiffPage> {
  const from = parseSelector(req.from, 'from');
  const to = parseSelector(req.to, 'to');
  const params = validateDiffParams(req, opts.adapters);
  const binding = { selectorsSha256: selectorsDigest(selectorKey(from), selectorKey(to)), signal: req.signal };
  pageState(params, binding, opts.secret);
  checkCancelled(req.signal, 'start');
  const paging = params.after !== null;
  const a = pin(opts.resolver, from, paging);
  try {
    const b = pin(opts.resolver, to, paging);
    try {
      const engine = { secret: opts.secret, adapters: opts.adapters, cache: opts.cache };
      return await (params.view === null || params.view === undefined ? diffEndpointsAsync : displayPageAsync)(a as DiffEndpoint, b as DiffEndpoint, params, binding, engine);
    } finally {
      b.release();
    }
  } finally {
    a.release();
  }
}

/** Request of `diffStatCheckpoints` (the contract's `checkpoints.diff_stat` fields). */
export interface DiffStatRequest {
  readonly from: unknown;
  readonly to: unknown;
  readonly scope: unknown;
  readonly record_family_id?: unknown;
  readonly capability_id?: unknown;
  readonly signal?: AbortSignal;
}

/**
 * `checkpoints.diff_stat`: exact per-family statistics between two
 * selectors, both endpoints lease-pinned for the call (see `diffStat`).
 *
 * Request fields are judged first (`GF_VALIDATION`); cooperative and
 * cancellable like a page (`GF_CANCELLED`, no result).
 */
export async function diffStatCheckpoints(req: DiffStatRequest, opts: Omit<DiffShellOptions, 'secret'>): Promise<DiffStatResult> {
  const from = parseSelector(req.from, 'from');
  const to = parseSelector(req.to, 'to');
  const params = validateDiffParams({ scope: req.scope, detail: 'summary', record_family_id: req.record_family_id, capability_id: req.capability_id }, opts.adapters);
  checkCancelled(req.signal, 'start');
  const a = pin(opts.resolver, from, false);
  try {
    const b = pin(opts.resolver, to, false);
    try {
      return await diffStatAsync(a, b, params.scope, params.family ?? null, { adapters: opts.adapters, cache: opts.cache, signal: req.signal });
    } finally {
      b.release();
    }
  } finally {
    a.release();
  }
}
