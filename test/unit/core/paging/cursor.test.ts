// The engine's one page-token codec (core/paging/cursor.ts): a token round-trips
// under its key and scope, and every kind of foreign or edited token is refused
// with the caller's stable code and the problem the codec found.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../core/canonical/index';
import { PAGE_LIMITS } from '../../../../core/contract/paging';
import { GfError } from '../../../../core/errors';
import { CURSOR_VERSION, decodeCursor, encodeCursor, openCursor, sealCursor, type CursorScope } from '../../../../core/paging/cursor';

const KEY = new Uint8Array(32).fill(3);
const OTHER_KEY = new Uint8Array(32).fill(4);
const SCOPE: CursorScope = { operation: 'test.list', binding: ['workspace-a', 'filter'], limit: 20, bounds: PAGE_LIMITS };

const refuse = (problem: string): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not valid for this request', { operation: 'test.list', problem });

function refusal(run: () => unknown): string {
  try {
    run();
    return 'no error';
  } catch (e) {
    return e instanceof GfError ? `${e.code}:${String(e.details['problem'])}` : `not a GfError: ${String(e)}`;
  }
}

/** A token signed with the right key whose body the test chose (what a holder of the key could write). */
function signed(body: unknown): string {
  const text = canonicalJson(body);
  return `${Buffer.from(text, 'utf8').toString('base64url')}.${createHmac('sha256', KEY).update(text, 'utf8').digest('base64url')}`;
}

describe('page cursor codec', () => {
  it('round-trips a position under its key and scope, and the token text is opaque base64url', () => {
    const token = encodeCursor(KEY, SCOPE, ['bravo', 7]);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(token).not.toContain('workspace-a');
    expect(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')).not.toContain('workspace-a');
    expect(decodeCursor(KEY, SCOPE, token, refuse)).toEqual(['bravo', 7]);
    expect(openCursor(KEY, sealCursor(KEY, { a: 1 }), refuse)).toEqual({ a: 1 });
  });

  it('refuses a tampered signature, a tampered body and another key as integrity', () => {
    const token = encodeCursor(KEY, SCOPE, 5);
    const [body, mac] = token.split('.') as [string, string];
    const flipped = `${body}.${mac.startsWith('A') ? `B${mac.slice(1)}` : `A${mac.slice(1)}`}`;
    expect(refusal(() => decodeCursor(KEY, SCOPE, flipped, refuse))).toBe('GF_PAGE_INVALID:integrity');
    const edited = Buffer.from(Buffer.from(body, 'base64url').toString('utf8').replace('"at":5', '"at":6')).toString('base64url');
    expect(refusal(() => decodeCursor(KEY, SCOPE, `${edited}.${mac}`, refuse))).toBe('GF_PAGE_INVALID:integrity');
    expect(refusal(() => decodeCursor(OTHER_KEY, SCOPE, token, refuse))).toBe('GF_PAGE_INVALID:integrity');
  });

  it('refuses a token of another scope: binding, operation, page size', () => {
    const token = encodeCursor(KEY, SCOPE, 5);
    expect(refusal(() => decodeCursor(KEY, { ...SCOPE, binding: ['workspace-b', 'filter'] }, token, refuse))).toBe('GF_PAGE_INVALID:binding');
    expect(refusal(() => decodeCursor(KEY, { ...SCOPE, operation: 'test.other' }, token, refuse))).toBe('GF_PAGE_INVALID:operation');
    expect(refusal(() => decodeCursor(KEY, { ...SCOPE, limit: 21 }, token, refuse))).toBe('GF_PAGE_INVALID:limit');
    // A scope of any page size accepts only tokens issued for any page size.
    const anySize: CursorScope = { ...SCOPE, limit: null };
    expect(decodeCursor(KEY, anySize, encodeCursor(KEY, anySize, 5), refuse)).toBe(5);
    expect(refusal(() => decodeCursor(KEY, anySize, token, refuse))).toBe('GF_PAGE_INVALID:limit');
  });

  it('refuses another version and a page size outside the contract bounds, even signed with the right key', () => {
    const good = encodeCursor(KEY, SCOPE, 5);
    const body = JSON.parse(Buffer.from(good.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(decodeCursor(KEY, SCOPE, signed(body), refuse)).toBe(5);
    expect(refusal(() => decodeCursor(KEY, SCOPE, signed({ ...body, v: CURSOR_VERSION + 1 }), refuse))).toBe('GF_PAGE_INVALID:version');
    const over = PAGE_LIMITS.max + 1;
    const overScope: CursorScope = { ...SCOPE, limit: over };
    expect(refusal(() => decodeCursor(KEY, overScope, signed({ ...body, limit: over }), refuse))).toBe('GF_PAGE_INVALID:limit');
    expect(refusal(() => decodeCursor(KEY, { ...SCOPE, limit: 0 }, signed({ ...body, limit: 0 }), refuse))).toBe('GF_PAGE_INVALID:limit');
    expect(() => encodeCursor(KEY, overScope, 5)).toThrow(/page size outside the contract's bounds/);
  });

  it('refuses malformed text as shape, never reading past the size bound', () => {
    for (const junk of ['', 'x', 'a.b.c', 'é.é', '.', `${'A'.repeat(9000)}.AA`, 42, null]) {
      expect(refusal(() => decodeCursor(KEY, SCOPE, junk, refuse)), String(junk).slice(0, 20)).toBe('GF_PAGE_INVALID:shape');
    }
    expect(refusal(() => openCursor(KEY, signed([1, 2]), refuse))).toBe('GF_PAGE_INVALID:shape');
    expect(refusal(() => openCursor(KEY, sealCursor(KEY, { a: 'x'.repeat(100) }), refuse, 64))).toBe('GF_PAGE_INVALID:shape');
  });
});
