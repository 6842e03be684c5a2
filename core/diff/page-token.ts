// The diff's page tokens: signed cursors (core/paging/cursor.ts) bound to the request and both endpoints.
import { canonicalJson, sha256Hex } from '../canonical/index';
import { GfError } from '../errors';
import { DIFF_API_VERSION, DIFF_DETAILS, DIFF_METHOD, DIFF_SCOPES, RECORD_CHANGE_KINDS } from './arrow-schemas';
import type { DiffDetail, DiffScope, RecordChangeKind } from './arrow-schemas';
import { openCursor, sealCursor } from '../paging/cursor';

/** Largest token accepted (characters); anything longer is `GF_PAGE_INVALID` before parsing. */
export const PAGE_TOKEN_MAX_CHARS = 2048;

/** Bytes of the per-project token secret. */
export { TOKEN_SECRET_BYTES } from '../paging/key-file';

/** An endpoint identity a token is bound to. */
export interface TokenEndpoint {
  readonly checkpointUuid: string;
  readonly manifestSha256: string;
}

/** Last complete sort tuple of a summary page. */
export interface SummaryPosition {
  readonly detail: 'summary';
  readonly scope: string;
  readonly capabilityId: string;
  readonly recordFamilyId: string;
}

/** Last complete sort tuple of a record page (binary fields as lowercase hex). */
export interface RecordPosition {
  readonly detail: 'records';
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly recordUuid: string | null;
  readonly identityFingerprint: string;
  readonly changeKind: RecordChangeKind;
}

/** Where the previous page ended. */
export type PagePosition = SummaryPosition | RecordPosition;

/** The one record family a family-scoped diff covers (`capability_id`, `record_family_id`). */
export interface FamilyFilter {
  readonly capabilityId: string;
  readonly recordFamilyId: string;
}

/**
 * The reviewer view a display page is bound to (`display: true`): the
 * engine-side filters, with the search text as a digest (never echoed).
 */
export interface TokenView {
  /** Allowed change kinds in contract order, or null for every kind. */
  readonly kinds: readonly RecordChangeKind[] | null;
  /** Only modified records in which this field changed, or null. */
  readonly field: string | null;
  /** SHA-256 (hex) of the normalized search text, or null. */
  readonly searchSha256: string | null;
}

/**
 * Everything a token binds: API version, method, the request's selectors
 * (as a digest, so caller text is never echoed), both endpoint identities,
 * scope, detail, limit, the record family (or none) and the last sort tuple.
 */
export interface TokenState {
  readonly selectorsSha256: string;
  readonly from: TokenEndpoint;
  readonly to: TokenEndpoint;
  readonly scope: DiffScope;
  readonly detail: DiffDetail;
  readonly limit: number;
  /** The family of a family-scoped diff; null for a diff of the whole scope. */
  readonly family: FamilyFilter | null;
  /** The display view of a display page (`display: true`), or null for the plain record/summary pages. */
  readonly view?: TokenView | null;
  /** Rows of the (filtered) list before the next page (display pages: its first `row_number` is `rows + 1`). */
  readonly rows?: number;
  readonly last: PagePosition;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function refuse(problem: string): GfError {
  return new GfError('GF_PAGE_INVALID', 'the page token is not valid for this request', { operation: DIFF_METHOD, problem });
}

function invalid(problem: string): never {
  throw refuse(problem);
}

function wire(state: TokenState): unknown {
  const last =
    state.last.detail === 'summary'
      ? [state.last.scope, state.last.capabilityId, state.last.recordFamilyId]
      : [state.last.scope, state.last.recordFamilyId, state.last.recordUuid, state.last.identityFingerprint, state.last.changeKind];
  return {
    api: DIFF_API_VERSION,
    method: DIFF_METHOD,
    selectors: state.selectorsSha256,
    from: [state.from.checkpointUuid, state.from.manifestSha256],
    to: [state.to.checkpointUuid, state.to.manifestSha256],
    scope: state.scope,
    detail: state.detail,
    limit: state.limit,
    family: state.family === null ? null : [state.family.capabilityId, state.family.recordFamilyId],
    last,
    // Display pages only (plain tokens keep their wire form).
    ...(state.view === undefined || state.view === null ? {} : { view: [state.view.kinds, state.view.field, state.view.searchSha256], rows: state.rows ?? 0 }),
  };
}

/** Digest binding a token to the request's two selectors without carrying their text. */
export function selectorsDigest(from: unknown, to: unknown): string {
  return sha256Hex(new TextEncoder().encode(canonicalJson({ from, to })));
}

/**
 * An opaque page token: the state sealed by the engine's cursor codec
 * (base64url(canonical JSON state) "." base64url(HMAC-SHA-256), core/paging/cursor.ts).
 *
 * The HMAC key is the per-project secret, which never appears in a token,
 * so a token cannot be forged or edited without detection.
 */
export function encodePageToken(state: TokenState, secret: Uint8Array): string {
  return sealCursor(secret, wire(state));
}

function isText(v: unknown, max = 128): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

function endpointOf(v: unknown): TokenEndpoint {
  if (!Array.isArray(v) || v.length !== 2 || !UUID.test(String(v[0])) || !HEX64.test(String(v[1]))) invalid('endpoint');
  return { checkpointUuid: v[0] as string, manifestSha256: v[1] as string };
}

function familyOf(v: unknown): FamilyFilter | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.length !== 2 || !isText(v[0]) || !isText(v[1])) return invalid('family');
  return { capabilityId: v[0], recordFamilyId: v[1] };
}

function viewOf(v: unknown): TokenView | null {
  if (v === undefined) return null;
  if (!Array.isArray(v) || v.length !== 3) return invalid('view');
  const [kinds, field, search] = v as unknown[];
  if (kinds !== null && !(Array.isArray(kinds) && kinds.length > 0 && kinds.every((k) => (RECORD_CHANGE_KINDS as readonly unknown[]).includes(k)))) invalid('view');
  if (field !== null && !isText(field, 64)) invalid('view');
  if (search !== null && !(typeof search === 'string' && HEX64.test(search))) invalid('view');
  return { kinds: kinds as RecordChangeKind[] | null, field: field as string | null, searchSha256: search as string | null };
}

function positionOf(detail: DiffDetail, v: unknown): PagePosition {
  if (!Array.isArray(v)) return invalid('position');
  if (detail === 'summary') {
    if (v.length !== 3 || !v.every((x) => isText(x))) invalid('position');
    return { detail, scope: v[0] as string, capabilityId: v[1] as string, recordFamilyId: v[2] as string };
  }
  const [scope, family, uuid, idfp, kind] = v as unknown[];
  if (v.length !== 5 || !isText(scope) || !isText(family)) invalid('position');
  if (uuid !== null && !(typeof uuid === 'string' && HEX32.test(uuid))) invalid('position');
  if (typeof idfp !== 'string' || !HEX64.test(idfp)) invalid('position');
  if (!(RECORD_CHANGE_KINDS as readonly unknown[]).includes(kind)) invalid('position');
  return {
    detail,
    scope: scope as string,
    recordFamilyId: family as string,
    recordUuid: uuid as string | null,
    identityFingerprint: idfp,
    changeKind: kind as RecordChangeKind,
  };
}

/**
 * Verifies a token's integrity and returns the state it carries.
 *
 * Anything malformed, oversized, or whose HMAC does not verify under
 * `secret` is `GF_PAGE_INVALID`; comparing the state with the request is
 * the caller's job (see `checkTokenBinding`).
 */
export function decodePageToken(token: unknown, secret: Uint8Array): TokenState {
  const w = openCursor(secret, token, refuse, PAGE_TOKEN_MAX_CHARS);
  if (w.api !== DIFF_API_VERSION) invalid('api_version');
  if (w.method !== DIFF_METHOD) invalid('method');
  if (typeof w.selectors !== 'string' || !HEX64.test(w.selectors)) invalid('selectors');
  if (!(DIFF_SCOPES as readonly unknown[]).includes(w.scope)) invalid('scope');
  if (!(DIFF_DETAILS as readonly unknown[]).includes(w.detail)) invalid('detail');
  if (typeof w.limit !== 'number' || !Number.isSafeInteger(w.limit)) invalid('limit');
  const detail = w.detail as DiffDetail;
  const view = viewOf(w.view);
  if (view !== null && (typeof w.rows !== 'number' || !Number.isSafeInteger(w.rows) || w.rows < 0)) invalid('rows');
  return {
    view,
    rows: view === null ? 0 : (w.rows as number),
    selectorsSha256: w.selectors,
    from: endpointOf(w.from),
    to: endpointOf(w.to),
    scope: w.scope as DiffScope,
    detail,
    limit: w.limit,
    family: familyOf(w.family),
    last: positionOf(detail, w.last),
  };
}

/** The request inputs a token must match exactly. */
export interface TokenRequest {
  readonly selectorsSha256: string;
  readonly scope: DiffScope;
  readonly detail: DiffDetail;
  readonly limit: number;
  readonly family: FamilyFilter | null;
  /** The display view of the request (absent/null: not a display page). */
  readonly view?: TokenView | null;
}

function sameView(a: TokenView | null, b: TokenView | null): boolean {
  if (a === null || b === null) return a === b;
  return JSON.stringify([a.kinds, a.field, a.searchSha256]) === JSON.stringify([b.kinds, b.field, b.searchSha256]);
}

/** `GF_PAGE_INVALID` unless the token was issued for exactly this request (selectors, scope, detail, limit, family). */
export function checkTokenRequest(state: TokenState, req: TokenRequest): void {
  if (state.selectorsSha256 !== req.selectorsSha256) invalid('selectors');
  if (state.scope !== req.scope) invalid('scope');
  if (state.detail !== req.detail) invalid('detail');
  if (state.limit !== req.limit) invalid('limit');
  const a = state.family;
  const b = req.family;
  if (a === null ? b !== null : b === null || a.capabilityId !== b.capabilityId || a.recordFamilyId !== b.recordFamilyId) invalid('family');
  if (!sameView(state.view ?? null, req.view ?? null)) invalid('filter');
}

/**
 * `GF_PAGE_SNAPSHOT_GONE` when an endpoint of a valid token now resolves to
 * another checkpoint or generation (deleted, or the name re-created).
 *
 * Never a silent advance to the new snapshot.
 */
export function checkTokenEndpoints(state: TokenState, from: TokenEndpoint, to: TokenEndpoint): void {
  const same = (x: TokenEndpoint, y: TokenEndpoint): boolean => x.checkpointUuid === y.checkpointUuid && x.manifestSha256 === y.manifestSha256;
  if (!same(state.from, from) || !same(state.to, to)) snapshotGone();
}

/** The error of a page whose endpoint snapshot no longer exists under its selector. */
export function snapshotGone(): never {
  throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'an endpoint of this page token no longer resolves to the same snapshot', {
    operation: DIFF_METHOD,
  });
}
