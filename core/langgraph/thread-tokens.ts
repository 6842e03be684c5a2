// Page tokens of the thread operations (threads.list, threads.history,
// threads.diff): their positions and bindings, sealed by the engine's one
// cursor codec (core/paging/cursor.ts).
import { THREAD_PAGE_LIMITS } from '../contract/threads';
import { GfError } from '../errors';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';

const BOUNDS = { max: THREAD_PAGE_LIMITS.max };

function invalidToken(operation: string): (problem: string) => GfError {
  return (problem) => new GfError('GF_PAGE_INVALID', 'the page token is not valid for this request', { operation, problem });
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

const diffScope = (b: DiffTokenBinding): CursorScope => ({ operation: 'threads.diff', binding: [b.source, b.threadId, b.from, b.to], limit: b.limit, bounds: BOUNDS });

/** A thread diff's next-page token: bound to the source, thread, both checkpoints and the page size, carrying the offset of the next value change. */
export function encodeDiffToken(key: CursorKey, b: DiffTokenBinding, offset: number): string {
  return encodeCursor(key, diffScope(b), offset);
}

/** The offset a diff token carries; `GF_PAGE_INVALID` when forged, edited or issued for another request. */
export function decodeDiffToken(key: CursorKey, token: string, b: DiffTokenBinding): number {
  const refuse = invalidToken('threads.diff');
  const offset = decodeCursor(key, diffScope(b), token, refuse);
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw refuse('position');
  return offset;
}

/**
 * What a keyset token of `threads.list` / `threads.history` is bound to: the
 * operation, the source, the thread or prefix (and namespace), the page size.
 */
export interface KeysetBinding {
  readonly operation: 'threads.list' | 'threads.history';
  readonly request: readonly string[];
  readonly limit: number;
}

const keysetScope = (b: KeysetBinding): CursorScope => ({ operation: b.operation, binding: b.request, limit: b.limit, bounds: BOUNDS });

/** A keyset token carrying the last row's key. */
export function encodeKeysetToken(key: CursorKey, b: KeysetBinding, last: string): string {
  return encodeCursor(key, keysetScope(b), last);
}

/** The key a keyset token carries; `GF_PAGE_INVALID` when forged, edited or issued for another request. */
export function decodeKeysetToken(key: CursorKey, b: KeysetBinding, token: string): string {
  const refuse = invalidToken(b.operation);
  const last = decodeCursor(key, keysetScope(b), token, refuse);
  if (typeof last !== 'string') throw refuse('position');
  return last;
}
