import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../../../core/chain/verify';
import { collect, simpleEvent } from '../conformance/support';

// The store caches each workflow's head between appends (issue 22); these pin the
// checks that keep the cache honest: another connection's commit, and a rollback.
let root: string;
let stores: SqliteChainStore[];

const open = (): SqliteChainStore => {
  const s = new SqliteChainStore(root);
  stores.push(s);
  return s;
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gf-chain-head-cache-'));
  stores = [];
});

afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(root, { recursive: true, force: true });
});

describe('SqliteChainStore head cache', () => {
  it('an append after another connection appended links to that connection\'s row (one linear chain)', async () => {
    const a = open();
    const b = open();
    const wf = 'wf-two-connections';
    const heads: string[] = [];
    for (let i = 0; i < 6; i++) heads.push(await (i % 3 === 0 ? b : a).append(simpleEvent(wf)));
    const rows = await collect(a.readPersistedRows(wf));
    expect(rows.map((r) => r.prior_head).slice(1)).toEqual(heads.slice(0, -1));
    expect((await verify(a, wf)).status).toBe('ok');
    expect(await b.tailChainHead(wf)).toBe(heads[5]);
  });

  it('a lock whose callback appends and then fails keeps the acknowledged row: the next append links to it', async () => {
    const s = open();
    const wf = 'wf-rolled-back';
    await s.append(simpleEvent(wf));
    let kept = '';
    await expect(
      s.lock(wf, async () => {
        kept = await s.append(simpleEvent(wf));
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    await s.append(simpleEvent(wf));
    const rows = await collect(s.readPersistedRows(wf));
    expect(rows).toHaveLength(3);
    expect(rows[2]?.prior_head).toBe(kept);
    expect((await verify(s, wf)).status).toBe('ok');
  });
});
