import { DOMAIN_SCOPES } from '../contract/diff';

/**
 * The closed set of participant scopes.
 *
 * The first seven are the diff scopes of `graphforge-checkpoint-api/1`
 * (besides its `summary` and `all` selectors); `workspace` holds the
 * restoration record, which belongs to no user-facing diff scope.
 */
export const SCOPES = [...DOMAIN_SCOPES, 'workspace'] as const;

/** One participant scope. */
export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

/** True when `value` is one of the closed scopes. */
export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && SCOPE_SET.has(value);
}
