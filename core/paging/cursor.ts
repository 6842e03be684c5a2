// The one page-token codec of the engine (Node side): every paged operation's
// next-page token is a payload sealed with an HMAC key the caller passes, and
// bound to the request it answers. The token text pattern surfaces check
// (`PAGE_TOKEN_PATTERN`) stays in the browser-safe contract.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../canonical/index';
import type { GfError } from '../errors';

/** Version of the scoped cursor body; a token of another version is refused. */
export const CURSOR_VERSION = 1;

/** Longest token `openCursor` reads (characters) unless the caller names a smaller bound. */
export const CURSOR_MAX_CHARS = 8192;

/**
 * The HMAC key of a family of tokens: 32 secret bytes that never appear in a
 * token, an error or a log. The caller owns where it comes from (a project's
 * key file, the user's cache); the codec keeps none.
 */
export type CursorKey = Uint8Array;

/**
 * Builds the refusal of one operation for a problem the codec found
 * (`shape`, `integrity`, `version`, `operation`, `limit`, `binding`, or the
 * caller's own `position`). Each operation keeps its own code, sentence and details.
 */
export type CursorRefusal = (problem: string) => GfError;

/** Inclusive page-size bounds, as the contract declares them. */
export interface PageBounds {
  readonly min?: number;
  readonly max: number;
}

/**
 * What a scoped token is bound to: the operation, the request inputs that
 * must be the same on the next page (digested, so caller text is never
 * echoed), and the page size within the contract's bounds, or null for a
 * listing whose tokens are valid with any page size.
 */
export interface CursorScope {
  readonly operation: string;
  readonly binding: unknown;
  readonly limit: number | null;
  readonly bounds: PageBounds;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

function mac(key: CursorKey, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest();
}

/** `base64url(canonical JSON of body) "." base64url(HMAC-SHA-256(key, that JSON))`. */
export function sealCursor(key: CursorKey, body: unknown): string {
  const text = canonicalJson(body);
  return `${Buffer.from(text, 'utf8').toString('base64url')}.${mac(key, text).toString('base64url')}`;
}

/**
 * The body a sealed token carries, after its signature verified under `key`.
 *
 * A non-string, empty or oversized token, or one not of two base64url parts,
 * is refused as `shape`; a signature that does not verify as `integrity`;
 * a body that is not a JSON object as `shape`. The body's meaning is the caller's.
 */
export function openCursor(key: CursorKey, token: unknown, refuse: CursorRefusal, maxChars: number = CURSOR_MAX_CHARS): Record<string, unknown> {
  if (typeof token !== 'string' || token.length === 0 || token.length > maxChars) throw refuse('shape');
  const parts = token.split('.');
  if (parts.length !== 2 || !B64URL.test(parts[0] as string) || !B64URL.test(parts[1] as string)) throw refuse('shape');
  const text = Buffer.from(parts[0] as string, 'base64url').toString('utf8');
  const given = Buffer.from(parts[1] as string, 'base64url');
  const want = mac(key, text);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw refuse('integrity');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (_e) {
    throw refuse('shape');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse('shape');
  return body as Record<string, unknown>;
}

function inBounds(limit: unknown, bounds: PageBounds): boolean {
  return limit === null || (typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= (bounds.min ?? 1) && limit <= bounds.max);
}

function scopeDigest(scope: CursorScope): string {
  return sha256Hex(new TextEncoder().encode(canonicalJson([scope.operation, scope.binding])));
}

/** A next-page token carrying `position` (any canonical-JSON value), bound to `scope`. */
export function encodeCursor(key: CursorKey, scope: CursorScope, position: unknown): string {
  if (!inBounds(scope.limit, scope.bounds)) throw new Error(`invariant violated: a ${scope.operation} page size outside the contract's bounds`);
  return sealCursor(key, { v: CURSOR_VERSION, op: scope.operation, scope: scopeDigest(scope), limit: scope.limit, at: position });
}

/**
 * The position a token of `scope` carries: signature, version, operation,
 * page size (within the contract's bounds and the request's) and binding
 * checked, in that order. Checking the position's shape is the caller's
 * (refuse it as `position`).
 */
export function decodeCursor(key: CursorKey, scope: CursorScope, token: unknown, refuse: CursorRefusal): unknown {
  const body = openCursor(key, token, refuse);
  if (body['v'] !== CURSOR_VERSION) throw refuse('version');
  if (body['op'] !== scope.operation) throw refuse('operation');
  if (!inBounds(body['limit'], scope.bounds) || body['limit'] !== scope.limit) throw refuse('limit');
  if (body['scope'] !== scopeDigest(scope)) throw refuse('binding');
  return body['at'];
}
