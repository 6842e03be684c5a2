// The demo workspace's bounds and defaults, declared once (the `demo.create`
// request schema, `gf demo create --help` and the generator all read them).
// No import at all, so `gf --help` can show them cheaply.

/** Bounds of `records` (graph records: nodes + edges). */
export const DEMO_MIN_RECORDS = 10;
export const DEMO_MAX_RECORDS = 10_000_000;
/** Defaults of `demo.create` (`gf demo create`). */
export const DEMO_DEFAULT_RECORDS = 1_000;
export const DEMO_DEFAULT_SEED = 1;
/** The largest seed (seeds are unsigned 32-bit integers). */
export const DEMO_MAX_SEED = 0xffff_ffff;
