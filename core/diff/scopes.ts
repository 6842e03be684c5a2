// The request values of `diff_checkpoints`, without the Arrow schemas (re-exported by ./contract).

/** Request scopes: `summary` (every participant, summary only), one domain scope, or `all`. */
export const DIFF_SCOPES = [
  'summary',
  'graph',
  'ontology',
  'configuration',
  'capabilities',
  'provenance',
  'knowledge',
  'epistemic',
  'all',
] as const;

/** One request scope. */
export type DiffScope = (typeof DIFF_SCOPES)[number];

/** Result detail levels. */
export const DIFF_DETAILS = ['summary', 'records'] as const;

/** One detail level. */
export type DiffDetail = (typeof DIFF_DETAILS)[number];
