// Diff endpoint selectors and the one way both endpoints of a call are
// pinned (leased) and released, whatever the call does.
import { hasCode } from '../errors';
import { CURRENT_SELECTOR } from './arrow-schemas';
import { snapshotGone } from './page-token';
import type { LeasedEndpoint } from './plan-endpoint';

/** A diff endpoint selector: the reserved `CURRENT`, or a checkpoint name. */
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

/** The selector a parsed request's endpoint names: the reserved `"CURRENT"`, any other string a name. */
export function selectorOf(wire: string): DiffSelector {
  return wire === CURRENT_SELECTOR ? CURRENT_SELECTOR : { name: wire };
}

/** What a page token binds of a selector. */
export function selectorKey(s: DiffSelector): unknown {
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
 * Runs `use` with both endpoints lease-pinned: `from` first, then `to`;
 * both leases are released when `use` returns, throws, or (when it returns
 * a promise) settles. `paging`: a request with a page token, whose
 * vanished checkpoint is `GF_PAGE_SNAPSHOT_GONE` instead of
 * `GF_CHECKPOINT_NOT_FOUND`.
 */
export function withPinnedPair<T>(
  resolver: EndpointResolver,
  from: DiffSelector,
  to: DiffSelector,
  use: (a: LeasedEndpoint, b: LeasedEndpoint) => T,
  paging = false,
): T {
  const a = pin(resolver, from, paging);
  let b: LeasedEndpoint | undefined;
  const release = (): void => {
    try {
      b?.release();
    } finally {
      a.release();
    }
  };
  let out: T;
  try {
    b = pin(resolver, to, paging);
    out = use(a, b);
  } catch (e) {
    release();
    throw e;
  }
  if (out instanceof Promise) return out.finally(release) as T;
  release();
  return out;
}
