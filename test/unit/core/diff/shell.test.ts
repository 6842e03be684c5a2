import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Table } from 'apache-arrow';
import { canonicalJson, toHex } from '../../../../core/canonical';
import { CANCEL_CHECK_INTERVAL } from '../../../../core/diff/steps';
import { currentEndpointUuid } from '../../../../core/diff/plan-endpoint';
import { decodePageToken, encodePageToken } from '../../../../core/diff/page-token';
import { diffCheckpoints } from '../../../../core/diff/index';
import type { DiffEndpoint, LeasedEndpoint } from '../../../../core/diff/plan-endpoint';
import type { DiffPage } from '../../../../core/diff/index';
import type { DiffSelector, EndpointResolver } from '../../../../core/diff/plan-pinned-pair';
import { GfError } from '../../../../core/errors';
import type { DiffDetail, DiffScope } from '../../../../core/contract/diff';
import { GRAPH_EDGE, GRAPH_NODE, WORKSPACE_CONFIGURATION } from '../../../../core/participants';
import { SECRET, configurationRows, endpoint, storedRecords, uuidOf } from './diff-support';

const T0 = 1_750_000_000_000_000n;

function nodes(n: number, tag: string, every = 0): object[] {
  return Array.from({ length: n }, (_, i) => ({
    node_uuid: uuidOf(`node-${i}`),
    class_id: 'Paper',
    label: every > 0 && i % every === 0 ? `changed ${tag} ${i}` : `node ${i}`,
    properties: null,
    created_at: T0 + BigInt(i),
    updated_at: null,
  }));
}

function edges(n: number, shift: number): object[] {
  return Array.from({ length: n }, (_, i) => ({
    source_node_uuid: uuidOf(`node-${i + shift}`),
    target_node_uuid: uuidOf(`node-${i + shift + 1}`),
    kind: 'cites',
    weight: null,
    created_at: T0,
  }));
}

/** Two snapshots with changes in three families (UUID, composite and text identity). */
function snapshots(): { a: ReturnType<typeof storedRecords>[]; b: ReturnType<typeof storedRecords>[] } {
  return {
    a: [
      storedRecords(GRAPH_NODE, nodes(60, 'a').slice(0, 55)),
      storedRecords(GRAPH_EDGE, edges(20, 0)),
      storedRecords(WORKSPACE_CONFIGURATION, configurationRows('model-a')),
    ],
    b: [
      storedRecords(GRAPH_NODE, nodes(60, 'b', 4).slice(3)),
      storedRecords(GRAPH_EDGE, edges(20, 5)),
      storedRecords(WORKSPACE_CONFIGURATION, configurationRows('model-b')),
    ],
  };
}

/** A registry of named endpoints plus CURRENT, with release accounting (the views port, in memory). */
class MemoryResolver {
  readonly named = new Map<string, DiffEndpoint>();
  current: DiffEndpoint;
  leased = 0;

  constructor(current: DiffEndpoint) {
    this.current = current;
  }

  openEndpoint(selector: DiffSelector): LeasedEndpoint {
    const e = selector === 'CURRENT' ? this.current : this.named.get(selector.name);
    if (e === undefined) throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no such checkpoint', {});
    this.leased++;
    let released = false;
    return {
      ...e,
      readParticipantBytes: (p) => e.readParticipantBytes(p),
      release: () => {
        if (!released) this.leased--;
        released = true;
      },
    };
  }
}

function resolverOf(m: MemoryResolver): EndpointResolver {
  return { open: (s) => m.openEndpoint(s) };
}

function setup(): { m: MemoryResolver; opts: { resolver: EndpointResolver; secret: Uint8Array } } {
  const { a, b } = snapshots();
  const cur = endpoint('', b);
  const current = { ...cur, checkpointUuid: currentEndpointUuid(cur.generationUuid, cur.manifestSha256) };
  const m = new MemoryResolver(current);
  m.named.set('one', endpoint(uuidOf('cp-one'), a));
  m.named.set('two', endpoint(uuidOf('cp-two'), b));
  return { m, opts: { resolver: resolverOf(m), secret: SECRET } };
}

function rowsOf(t: Table): string[] {
  return t.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    return JSON.stringify(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v instanceof Uint8Array ? toHex(v) : typeof v === 'bigint' ? Number(v) : v])));
  });
}

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof GfError) return e.code;
    throw e;
  }
  return 'no error';
}

async function walk(
  opts: { resolver: EndpointResolver; secret: Uint8Array },
  req: { from: string; to: string; scope: DiffScope; detail: DiffDetail; limit: number },
): Promise<{ rows: string[]; pages: DiffPage[] }> {
  const rows: string[] = [];
  const pages: DiffPage[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await diffCheckpoints({ ...req, after }, opts);
    pages.push(page);
    expect(page.table.numRows).toBeLessThanOrEqual(req.limit);
    rows.push(...rowsOf(page.table));
    if (page.nextPageToken === null) return { rows, pages };
    expect(page.table.numRows).toBe(req.limit);
    after = page.nextPageToken;
  }
  throw new Error('pagination did not end');
}

describe('diffCheckpoints', () => {
  it('checkpoint_diff_cursor_matrix', async () => {
    const { m, opts } = setup();
    const base = { from: 'one', to: 'two', scope: 'all', detail: 'records' } as const;
    const unpaged = await diffCheckpoints({ ...base, limit: 10_000 }, opts);
    expect(unpaged.nextPageToken).toBeNull();
    const all = rowsOf(unpaged.table);
    const families = new Set(unpaged.table.getChild('record_family_id')!.toArray() as string[]);
    expect([...families].sort()).toEqual(['configuration', 'edge', 'node']);
    expect(all.length).toBeGreaterThan(30);
    // Walking every page = exactly the unpaged rows, in order, no duplicates, no gaps.
    for (const limit of [1, 2, 7, 16, 100]) {
      const { rows } = await walk(opts, { ...base, limit });
      expect(rows).toEqual(all);
      expect(new Set(rows).size).toBe(rows.length);
    }
    const summary = await diffCheckpoints({ ...base, detail: 'summary', limit: 100 }, opts);
    expect((await walk(opts, { ...base, detail: 'summary', limit: 1 })).rows).toEqual(rowsOf(summary.table));
    expect((await walk(opts, { ...base, scope: 'graph', limit: 5 })).rows).toEqual(all.filter((r) => r.includes('"scope":"graph"')));

    // Every bound input of a token changed in turn -> GF_PAGE_INVALID.
    const first = await diffCheckpoints({ ...base, limit: 3 }, opts);
    const token = first.nextPageToken as string;
    expect(typeof token).toBe('string');
    const page2 = await diffCheckpoints({ ...base, limit: 3, after: token }, opts);
    expect(rowsOf(page2.table)).toEqual(all.slice(3, 6));
    for (const change of [
      { scope: 'graph' },
      { detail: 'summary' },
      { limit: 4 },
      { from: 'two' },
      { to: 'CURRENT' },
      { from: 'one ' },
      { record_family_id: 'node' },
      { record_family_id: 'node', capability_id: 'graph' },
    ] as const) {
      expect(await code(() => diffCheckpoints({ ...base, limit: 3, ...change, after: token }, opts))).toBe('GF_PAGE_INVALID');
    }
    // A family-scoped token is bound to its family: another family, or none, is GF_PAGE_INVALID.
    const edgeFirst = await diffCheckpoints({ ...base, limit: 3, record_family_id: 'edge' }, opts);
    const edgeToken = edgeFirst.nextPageToken as string;
    expect(rowsOf(edgeFirst.table)).toEqual(all.filter((r) => r.includes('"record_family_id":"edge"')).slice(0, 3));
    expect(rowsOf((await diffCheckpoints({ ...base, limit: 3, record_family_id: 'edge', capability_id: 'graph', after: edgeToken }, opts)).table)).toEqual(
      all.filter((r) => r.includes('"record_family_id":"edge"')).slice(3, 6),
    );
    for (const change of [{ record_family_id: 'node' }, { record_family_id: 'configuration', scope: 'all' }, { record_family_id: undefined }, { scope: 'graph' }] as const) {
      expect(await code(() => diffCheckpoints({ ...base, limit: 3, record_family_id: 'edge', ...change, after: edgeToken }, opts))).toBe('GF_PAGE_INVALID');
    }
    // Editing any field inside the token, or re-signing with another key, breaks its integrity.
    const [body, mac] = token.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const edits: [string, unknown][] = [
      ['api', 'graphforge-checkpoint-api/2'],
      ['method', 'list_checkpoints'],
      ['selectors', 'f'.repeat(64)],
      ['from', [uuidOf('x'), 'a'.repeat(64)]],
      ['from', [(state.from as string[])[0], 'a'.repeat(64)]],
      ['to', [uuidOf('x'), (state.to as string[])[1]]],
      ['to', [(state.to as string[])[0], 'b'.repeat(64)]],
      ['scope', 'graph'],
      ['detail', 'summary'],
      ['limit', 4],
      ['family', ['graph', 'node']],
      ['last', ['graph', 'node', null, 'c'.repeat(64), 'added']],
    ];
    for (const [k, v] of edits) {
      const forged = `${Buffer.from(canonicalJson({ ...state, [k]: v }), 'utf8').toString('base64url')}.${mac}`;
      expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: forged }, opts))).toBe('GF_PAGE_INVALID');
    }
    const other = encodePageToken(decodePageToken(token, SECRET), new Uint8Array(32).fill(9));
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: other }, opts))).toBe('GF_PAGE_INVALID');
    // Even with the right key, a token naming another API version or method is refused.
    const resigned = (over: Record<string, unknown>): string => {
      const b = canonicalJson({ ...state, ...over });
      const h = createHmac('sha256', SECRET).update(b).digest('base64url');
      return `${Buffer.from(b).toString('base64url')}.${h}`;
    };
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: resigned({}) }, opts))).toBe('no error');
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: resigned({ api: 'other/1' }) }, opts))).toBe('GF_PAGE_INVALID');
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: resigned({ method: 'other' }) }, opts))).toBe('GF_PAGE_INVALID');
    for (const junk of ['', 'x', 'a.b.c', `${body}.`, `${body}.${mac}x`, 'é.é', 'A'.repeat(5000)]) {
      expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: junk }, opts))).toBe('GF_PAGE_INVALID');
    }

    // Endpoint deleted, or its name re-created for another generation, between pages -> GF_PAGE_SNAPSHOT_GONE.
    const one = m.named.get('one') as DiffEndpoint;
    m.named.delete('one');
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: token }, opts))).toBe('GF_PAGE_SNAPSHOT_GONE');
    // (without a token, the same request is an ordinary unknown name)
    expect(await code(() => diffCheckpoints({ ...base, limit: 3 }, opts))).toBe('GF_CHECKPOINT_NOT_FOUND');
    m.named.set('one', { ...one, checkpointUuid: uuidOf('cp-one-again') });
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: token }, opts))).toBe('GF_PAGE_SNAPSHOT_GONE');
    m.named.set('one', { ...one, manifestSha256: 'd'.repeat(64) });
    expect(await code(() => diffCheckpoints({ ...base, limit: 3, after: token }, opts))).toBe('GF_PAGE_SNAPSHOT_GONE');
    m.named.set('one', one);
    expect(rowsOf((await diffCheckpoints({ ...base, limit: 3, after: token }, opts)).table)).toEqual(all.slice(3, 6));

    // CURRENT moving to another generation between pages -> GF_PAGE_SNAPSHOT_GONE.
    const cur = await diffCheckpoints({ from: 'one', to: 'CURRENT', scope: 'all', detail: 'records', limit: 3 }, opts);
    expect(rowsOf(cur.table).length).toBe(3);
    const moved = endpoint('', snapshots().a);
    m.current = { ...moved, checkpointUuid: currentEndpointUuid(moved.generationUuid, moved.manifestSha256) };
    expect(await code(() => diffCheckpoints({ from: 'one', to: 'CURRENT', scope: 'all', detail: 'records', limit: 3, after: cur.nextPageToken }, opts))).toBe(
      'GF_PAGE_SNAPSHOT_GONE',
    );
    expect(m.leased).toBe(0);
  });

  it('a family-scoped diff reads and pages that family alone; an unknown or out-of-scope family is GF_VALIDATION', async () => {
    const { a, b } = snapshots();
    const reads: string[] = [];
    const m = new MemoryResolver(endpoint('', b));
    m.named.set('one', endpoint(uuidOf('cp-one'), a, reads));
    m.named.set('two', endpoint(uuidOf('cp-two'), b, reads));
    const opts = { resolver: resolverOf(m), secret: SECRET };
    const base = { from: 'one', to: 'two', scope: 'all', detail: 'records' } as const;
    const whole = rowsOf((await diffCheckpoints({ ...base, limit: 10_000 }, opts)).table);
    for (const family of ['configuration', 'edge', 'node']) {
      reads.length = 0;
      const { rows } = await walk(opts, { ...base, limit: 4, record_family_id: family } as never);
      expect(rows).toEqual(whole.filter((r) => r.includes(`"record_family_id":"${family}"`)));
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(reads)).toEqual(new Set([family === 'configuration' ? 'workspace/configuration' : `graph/${family}`]));
    }
    // The summary narrows to the family's one row.
    const summary = await diffCheckpoints({ ...base, detail: 'summary', record_family_id: 'edge' }, opts);
    expect(summary.table.getChild('record_family_id')!.toArray()).toEqual(['edge']);
    for (const bad of [
      { record_family_id: 'no_such_family' },
      { record_family_id: 'node', capability_id: 'workspace' },
      { capability_id: 'graph' },
      { record_family_id: 'node', scope: 'configuration' },
      { record_family_id: 42 },
    ]) {
      expect(await code(() => diffCheckpoints({ ...base, ...bad } as never, opts))).toBe('GF_VALIDATION');
    }
    expect(m.leased).toBe(0);
  });

  it('gives CURRENT its synthetic endpoint UUID in result rows', async () => {
    const { m, opts } = setup();
    const page = await diffCheckpoints({ from: 'one', to: 'CURRENT', scope: 'all', detail: 'summary' }, opts);
    const to = page.table.getChild('to_checkpoint_uuid')!.get(0) as Uint8Array;
    const expected = currentEndpointUuid(m.current.generationUuid, m.current.manifestSha256);
    expect(toHex(to)).toBe(expected.replace(/-/g, ''));
    expect(expected[14]).toBe('8');
    expect(page.to.checkpointUuid).toBe(expected);
  });

  it('checkpoint_diff_cancellation_has_no_partial_output', async () => {
    const { m, opts } = setup();
    const big = 2 * CANCEL_CHECK_INTERVAL + 100;
    m.named.set('big-a', endpoint(uuidOf('big-a'), [storedRecords(GRAPH_NODE, nodes(big, 'a'))]));
    m.named.set('big-b', endpoint(uuidOf('big-b'), [storedRecords(GRAPH_NODE, nodes(big, 'b', 1000))]));
    const req = { from: 'big-a', to: 'big-b', scope: 'all', detail: 'records', limit: 10_000 } as const;
    // Already aborted: nothing is read, no table.
    const ac = new AbortController();
    ac.abort();
    let result: DiffPage | undefined;
    expect(
      await code(async () => {
        result = await diffCheckpoints({ ...req, signal: ac.signal }, opts);
      }),
    ).toBe('GF_CANCELLED');
    expect(result).toBeUndefined();
    // How often is the signal consulted during a full merge of `big` rows?
    let polls = 0;
    const counting = { get aborted() { polls++; return false; } } as unknown as AbortSignal;
    const full = await diffCheckpoints({ ...req, signal: counting }, opts);
    expect(full.table.numRows).toBe(Math.ceil(big / 1000));
    expect(polls).toBeGreaterThanOrEqual(Math.floor(big / CANCEL_CHECK_INTERVAL));
    // Aborted in the middle of the merge (after the per-participant checks): GF_CANCELLED, no partial table.
    for (const at of [1, 3, polls - 2]) {
      let seen = 0;
      const later = { get aborted() { return ++seen >= at; } } as unknown as AbortSignal;
      result = undefined;
      expect(await code(async () => {
        result = await diffCheckpoints({ ...req, signal: later }, opts);
      })).toBe('GF_CANCELLED');
      expect(result).toBeUndefined();
    }
    expect(m.leased).toBe(0);
  });
});
