// The demo's bounds and defaults, in a module with no engine import so `gf --help` can show them cheaply.

/** Bounds of `--records` (graph records: nodes + edges). */
export const DEMO_MIN_RECORDS = 10;
export const DEMO_MAX_RECORDS = 10_000_000;
/** Defaults of `gf demo create`. */
export const DEMO_DEFAULT_RECORDS = 1_000;
export const DEMO_DEFAULT_SEED = 1;
