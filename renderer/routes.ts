// Deep links: every screen and its state as a hash route
// (`#/diff?from=A&to=CURRENT&family=cap/fam`, `#/ledgers?workflow=W`), so a
// reload, a bookmark or a second tab lands on the same place. Browser-safe,
// no React: the store owns the current route, the app shell syncs it with
// `location.hash`.

/** The main screens. */
export const SCREENS = ['open', 'history', 'checkpoint', 'diff', 'revert', 'ledgers', 'threads'] as const;
/** One main screen. */
export type Screen = (typeof SCREENS)[number];

/** A screen and its state (string parameters, in a stable order). */
export interface Route {
  readonly screen: Screen;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The parameters each screen keeps in its link.
 *
 * history: `q` (checkpoint name search), `kind` (publication kind);
 * checkpoint: `name`, `family` (`capability/record_family`);
 * diff: `from`, `to` (checkpoint names or CURRENT), `scope`, `family`, and the
 * family's record filter and position: `kinds` (comma-separated change kinds),
 * `field` (changed field), `q` (search), `row` (first row shown, from 1);
 * revert: `name`; ledgers: `workflow`;
 * threads (Agent threads, needs no workspace): `source` (a SQLite path, or
 * `postgres` for the database given at launch), `q` (thread id prefix),
 * `thread`, `checkpoint` (the one inspected and restore target), `from`, `to` (a diff).
 */
export const ROUTE_PARAMS: Readonly<Record<Screen, readonly string[]>> = {
  open: [],
  history: ['q', 'kind'],
  checkpoint: ['name', 'family'],
  diff: ['from', 'to', 'scope', 'family', 'kinds', 'field', 'q', 'row'],
  revert: ['name'],
  ledgers: ['workflow'],
  threads: ['source', 'q', 'thread', 'checkpoint', 'from', 'to'],
};

const SCREEN_SET: ReadonlySet<string> = new Set(SCREENS);

/** True for a screen name. */
export function isScreen(s: string): s is Screen {
  return SCREEN_SET.has(s);
}

/** The route of a hash (`#/screen?k=v`); null when it names no screen (an empty or foreign hash). */
export function parseRoute(hash: string): Route | null {
  const m = /^#\/([a-z]+)(?:\?(.*))?$/.exec(hash);
  if (m === null) return null;
  const screen = m[1] ?? '';
  if (!isScreen(screen)) return null;
  const query = new URLSearchParams(m[2] ?? '');
  const params: Record<string, string> = {};
  for (const k of ROUTE_PARAMS[screen]) {
    const v = query.get(k);
    if (v !== null && v !== '') params[k] = v;
  }
  return { screen, params };
}

/** The hash of a route (parameters in declared order; unknown and empty ones dropped). */
export function formatRoute(route: Route): string {
  const query = new URLSearchParams();
  for (const k of ROUTE_PARAMS[route.screen]) {
    const v = route.params[k];
    if (v !== undefined && v !== '') query.set(k, v);
  }
  const q = query.toString();
  return `#/${route.screen}${q === '' ? '' : `?${q}`}`;
}

/** A route with some parameters changed (undefined or '' removes one). */
export function withParams(route: Route, changes: Readonly<Record<string, string | null | undefined>>): Route {
  const params: Record<string, string> = { ...route.params };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined || v === '') delete params[k];
    else params[k] = v;
  }
  return { screen: route.screen, params };
}
