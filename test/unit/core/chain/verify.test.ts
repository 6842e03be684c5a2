import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../core/chain/canonical-event';
import { GENESIS, nextHead, type ChainHead } from '../../../../core/chain/head';
import { InMemoryChainStore } from '../../../../core/chain/memory/memory-store';
import { verify } from '../../../../core/chain/verify';
import { alteredHead, collect, simpleEvent } from './conformance/support';

async function threeRows(): Promise<{ store: InMemoryChainStore; heads: string[] }> {
  const store = new InMemoryChainStore();
  const heads = [
    await store.append(simpleEvent('wf')),
    await store.append(simpleEvent('wf', { prior: 'plan_ready', next: 'patch_applied' })),
    await store.append(simpleEvent('wf', { prior: 'patch_applied', next: 'completed' })),
  ];
  return { store, heads };
}

describe('verify', () => {
  it('ok for an intact chain and for an empty one', async () => {
    const { store, heads } = await threeRows();
    expect(await verify(store, 'wf')).toEqual({ status: 'ok', rows: 3, tail_head: heads[2] });
    expect(await verify(store, 'wf-empty')).toEqual({ status: 'ok', rows: 0, tail_head: GENESIS });
  });

  it('chain_mismatch: altered next head, re-linked prior head, or edited (still canonical) event bytes', async () => {
    const a = await threeRows();
    a.store.tamperPersistedRow('wf', 2, { next_head: alteredHead(a.heads[1] ?? '') });
    expect(await verify(a.store, 'wf')).toMatchObject({ status: 'chain_mismatch', first_bad_sequence: 2, rows: 3, tail_head: a.heads[2] });
    const b = await threeRows();
    b.store.tamperPersistedRow('wf', 3, { prior_head: GENESIS });
    expect(await verify(b.store, 'wf')).toMatchObject({ status: 'chain_mismatch', first_bad_sequence: 3 });
    const c = await threeRows();
    const [row] = (await collect(c.store.readPersistedRows('wf'))).slice(0, 1);
    const edited = JSON.parse(Buffer.from(row?.event_bytes ?? []).toString('utf8')) as Record<string, unknown>;
    edited.attempt = 7;
    c.store.tamperPersistedRow('wf', 1, { event_bytes: new TextEncoder().encode(canonicalJson(edited as never)) });
    expect(await verify(c.store, 'wf')).toMatchObject({ status: 'chain_mismatch', first_bad_sequence: 1 });
  });

  it('at a break, the expected and the stored head: the recomputed head against the tampered one (next_head), or the head before the row against the row\'s broken link (prior_head)', async () => {
    const a = await threeRows();
    const forged = alteredHead(a.heads[1] ?? '');
    a.store.tamperPersistedRow('wf', 2, { next_head: forged });
    const rows = await collect(a.store.readPersistedRows('wf'));
    // Expected: the verified head after row 1, advanced over row 2's persisted bytes (the untampered head, computed here independently).
    const recomputed = nextHead(a.heads[0] as ChainHead, rows[1]!.event_bytes);
    expect(recomputed).toBe(a.heads[1]);
    expect((await verify(a.store, 'wf')).break_head).toEqual({ column: 'next_head', expected_head: a.heads[1], stored_head: forged });
    const b = await threeRows();
    b.store.tamperPersistedRow('wf', 3, { prior_head: GENESIS });
    expect((await verify(b.store, 'wf')).break_head).toEqual({ column: 'prior_head', expected_head: b.heads[1], stored_head: GENESIS });
    // Intact and torn chains carry no break heads.
    expect((await verify((await threeRows()).store, 'wf')).break_head).toBeUndefined();
    const t = await threeRows();
    t.store.tamperPersistedRow('wf', 2, { event_bytes: new Uint8Array([0xff]) });
    expect((await verify(t.store, 'wf')).break_head).toBeUndefined();
  });

  it('torn_write: truncated or unparsable bytes, non-canonical bytes, identity mismatch, sequence gap', async () => {
    const cases: [string, (s: InMemoryChainStore, bytes: Uint8Array) => void, number][] = [
      ['truncated', (s, b) => s.tamperPersistedRow('wf', 2, { event_bytes: b.slice(0, 20) }), 2],
      ['not utf-8', (s) => s.tamperPersistedRow('wf', 2, { event_bytes: new Uint8Array([0xff, 0xfe, 0x7b]) }), 2],
      ['whitespace (not canonical)', (s, b) => s.tamperPersistedRow('wf', 2, { event_bytes: new TextEncoder().encode(` ${Buffer.from(b).toString('utf8')}`) }), 2],
      ['transition id column disagrees', (s) => s.tamperPersistedRow('wf', 2, { transition_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 2],
      ['sequence gap', (s) => s.tamperPersistedRow('wf', 3, { sequence: 4 } as never), 4],
    ];
    for (const [what, damage, seq] of cases) {
      const { store } = await threeRows();
      const rows = await collect(store.readPersistedRows('wf'));
      damage(store, rows[1]?.event_bytes ?? new Uint8Array());
      expect(await verify(store, 'wf'), what).toMatchObject({ status: 'torn_write', first_bad_sequence: seq, rows: 3 });
    }
  });

  it('defect 7 (issue 23): a forged completed → plan_ready event with a recomputed head is torn (the legal-transition table)', async () => {
    const { store, heads } = await threeRows();
    const rows = await collect(store.readPersistedRows('wf'));
    const last = JSON.parse(Buffer.from(rows[2]?.event_bytes ?? []).toString('utf8')) as Record<string, unknown>;
    const forged = new TextEncoder().encode(canonicalJson({ ...last, prior_state_id: 'completed', next_state_id: 'plan_ready' } as never));
    store.tamperPersistedRow('wf', 3, { event_bytes: forged, next_head: nextHead(heads[1] as ChainHead, forged) });
    expect(await verify(store, 'wf')).toMatchObject({ status: 'torn_write', first_bad_sequence: 3, rows: 3 });
  });

  it('a row of another workflow is torn, not silently accepted', async () => {
    const { store } = await threeRows();
    const other = new InMemoryChainStore();
    await other.append(simpleEvent('wf-other'));
    const [foreign] = await collect(other.readPersistedRows('wf-other'));
    store.tamperPersistedRow('wf', 1, { event_bytes: foreign?.event_bytes ?? new Uint8Array() });
    expect(await verify(store, 'wf')).toMatchObject({ status: 'torn_write', first_bad_sequence: 1 });
  });

  it('verify is the only code that recomputes heads (nextHead callers: verify, adapters at append time, tests)', () => {
    const root = join(import.meta.dirname, '../../../../core');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts') && /nextHead\(/.test(readFileSync(p, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))) offenders.push(p.slice(root.length + 1));
      }
    };
    walk(root);
    // Adapters compute the head of the row they are writing (extension, not recomputation).
    const allowed = new Set(['chain/head.ts', 'chain/verify.ts', 'chain/memory/memory-store.ts', 'chain/sqlite/sqlite-store.ts']);
    expect(offenders.filter((f) => !allowed.has(f) && !f.startsWith('chain/postgres/'))).toEqual([]);
  });
});
