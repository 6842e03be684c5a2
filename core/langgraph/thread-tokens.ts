import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GfError } from '../errors';
import { decodePageToken, encodePageToken, PAGE_TOKEN_MAX_CHARS, selectorsDigest, type TokenState } from '../diff/page-token';
import { loadTokenSecret } from '../diff/token-secret';

let secret: Uint8Array | undefined;

/**
 * The page-token key of thread operations: the workspace diff's key mechanism
 * (core/diff/token-secret.ts), kept under the user's cache directory, never
 * beside a LangGraph database (browsing writes nothing there). Tokens stay
 * valid across `gf` invocations; an unwritable cache gives an in-memory key.
 */
export function threadTokenSecret(): Uint8Array {
  if (secret !== undefined) return secret;
  const root = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'checkpoint-studio', 'threads');
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  } catch (_e) {
    // loadTokenSecret falls back to an in-memory key when it cannot write.
  }
  secret = loadTokenSecret(root);
  return secret;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A UUID-shaped digest of any checkpoint id (the diff token's endpoint slot). */
function uuidOf(id: string): string {
  const h = sha256(`langgraph-checkpoint:${id}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** What a thread diff token is bound to. */
export interface DiffTokenBinding {
  /** The source's identity (its kind and path; never a URL). */
  readonly source: string;
  readonly threadId: string;
  readonly from: string;
  readonly to: string;
  readonly limit: number;
}

function diffState(b: DiffTokenBinding, offset: number): TokenState {
  const endpoint = (id: string) => ({ checkpointUuid: uuidOf(id), manifestSha256: sha256(`${b.source}\u0000${b.threadId}\u0000${id}`) });
  return {
    selectorsSha256: selectorsDigest(b.from, b.to),
    from: endpoint(b.from),
    to: endpoint(b.to),
    scope: 'all',
    detail: 'records',
    limit: b.limit,
    family: { capabilityId: 'langgraph', recordFamilyId: 'threads.diff' },
    last: { detail: 'records', scope: 'all', recordFamilyId: 'threads.diff', recordUuid: null, identityFingerprint: offset.toString(16).padStart(64, '0'), changeKind: 'added' },
  };
}

/**
 * A thread diff's next-page token: the workspace diff's signed token
 * (core/diff/page-token.ts), bound to the source, thread, both checkpoints
 * and the page size, carrying the offset of the next value change.
 */
export function encodeDiffToken(b: DiffTokenBinding, offset: number): string {
  return encodePageToken(diffState(b, offset), threadTokenSecret());
}

/** The offset a diff token carries; `GF_PAGE_INVALID` when forged, edited or issued for another request. */
export function decodeDiffToken(token: string, b: DiffTokenBinding): number {
  const state = decodePageToken(token, threadTokenSecret());
  const want = diffState(b, 0);
  const same =
    state.selectorsSha256 === want.selectorsSha256 &&
    state.from.manifestSha256 === want.from.manifestSha256 &&
    state.to.manifestSha256 === want.to.manifestSha256 &&
    state.limit === want.limit &&
    state.family?.recordFamilyId === 'threads.diff' &&
    state.last.detail === 'records';
  if (!same || state.last.detail !== 'records') throw invalidToken('threads.diff', 'binding');
  const offset = Number.parseInt(state.last.identityFingerprint, 16);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidToken('threads.diff', 'position');
  return offset;
}

function invalidToken(operation: string, problem: string): GfError {
  return new GfError('GF_PAGE_INVALID', 'the page token is not valid for this request', { operation, problem });
}

function mac(body: string): Buffer {
  return createHmac('sha256', threadTokenSecret()).update(body, 'utf8').digest();
}

/**
 * A keyset token of `threads.list` / `threads.history`: the last row's key,
 * signed with the same key as the diff tokens and bound to the request
 * (`binding`: operation, source, thread or prefix, page size).
 */
export function encodeKeysetToken(binding: string, last: string): string {
  const body = JSON.stringify({ b: sha256(binding), k: last });
  return `${Buffer.from(body, 'utf8').toString('base64url')}.${mac(body).toString('base64url')}`;
}

/** The key a keyset token carries; `GF_PAGE_INVALID` when forged, edited or issued for another request. */
export function decodeKeysetToken(operation: string, binding: string, token: string): string {
  const parts = token.split('.');
  if (token.length > PAGE_TOKEN_MAX_CHARS || parts.length !== 2) throw invalidToken(operation, 'shape');
  const body = Buffer.from(parts[0] as string, 'base64url').toString('utf8');
  const given = Buffer.from(parts[1] as string, 'base64url');
  const want = mac(body);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw invalidToken(operation, 'integrity');
  const parsed = JSON.parse(body) as { b?: unknown; k?: unknown };
  if (parsed.b !== sha256(binding) || typeof parsed.k !== 'string') throw invalidToken(operation, 'binding');
  return parsed.k;
}
