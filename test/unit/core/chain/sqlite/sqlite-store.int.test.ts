import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTransitionEvent } from '../../../../../core/chain/event';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../../../core/chain/verify';

let dir: string;
let child: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gf-chain-xproc-'));
  child = join(dir, 'append-child.cjs');
  await build({
    entryPoints: [resolve(import.meta.dirname, 'append-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: child,
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  readonly proc: ChildProcess;
  readonly acks: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function start(root: string, workflowId: string, count: number, tag: string, onAck?: (n: number) => void): Running {
  const proc = spawn(process.execPath, [child, root, workflowId, String(count), tag], {
    env: { ...process.env, NODE_PATH: resolve('node_modules') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: string[] = [];
  let buf = '';
  let stderr = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.startsWith('ack ')) {
        acks.push(line.slice(4));
        onAck?.(acks.length);
      }
    }
  });
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((res) =>
    proc.on('exit', (code, signal) => res({ code, signal, stderr })),
  );
  return { proc, acks, exited };
}

async function persistedIds(root: string, wf: string): Promise<string[]> {
  const store = new SqliteChainStore(root);
  const ids: string[] = [];
  for await (const r of store.readPersistedRows(wf)) ids.push(r.transition_id);
  await store.close();
  return ids;
}

describe('SqliteChainStore across processes', () => {
  it('two processes appending to one workflow leave one linear chain that verifies, with every acknowledged append', async () => {
    const root = join(dir, 'concurrent');
    const wf = 'wf:cross-process';
    const per = 1000;
    const a = start(root, wf, per, 'a');
    const b = start(root, wf, per, 'b');
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect([ea.code, eb.code, ea.stderr + eb.stderr]).toEqual([0, 0, '']);
    const store = new SqliteChainStore(root);
    const v = await verify(store, wf);
    await store.close();
    expect(v).toMatchObject({ status: 'ok', rows: 2 * per });
    const ids = await persistedIds(root, wf);
    expect(new Set(ids)).toEqual(new Set([...a.acks, ...b.acks]));
    // Interleaving really happened (the lock serialised two live writers, not one after the other).
    const tags = ids.map((id) => (a.acks.includes(id) ? 'a' : 'b'));
    const switches = tags.filter((t, i) => i > 0 && t !== tags[i - 1]).length;
    expect(switches).toBeGreaterThan(0);
  }, 120_000);

  it('a writer killed with SIGKILL mid-append leaves a chain that verifies, with every acknowledged append and nothing torn', async () => {
    const root = join(dir, 'killed');
    const wf = 'wf-killed';
    for (const round of [1, 2, 3]) {
      let killAt = 0;
      const w = start(root, wf, 0, `k${round}`, (n) => {
        if (n === 40 + round * 13 && killAt === 0) {
          killAt = n;
          w.proc.kill('SIGKILL');
        }
      });
      const exit = await w.exited;
      expect(exit.signal).toBe('SIGKILL');
      const store = new SqliteChainStore(root);
      const v = await verify(store, wf);
      await store.close();
      expect(v.status).toBe('ok');
      const ids = await persistedIds(root, wf);
      for (const id of w.acks) expect(ids).toContain(id);
    }
    // The store keeps working after the crashes.
    const after = start(root, wf, 5, 'after');
    expect((await after.exited).code).toBe(0);
    const store = new SqliteChainStore(root);
    expect((await verify(store, wf)).status).toBe('ok');
    await store.close();
  }, 120_000);

  it('while lock(wf, fn) runs, a writer in another process cannot append between the appends fn commits: it is refused GF_WRITER_BUSY', async () => {
    const root = join(dir, 'gated');
    const wf = 'wf-gated';
    const store = new SqliteChainStore(root);
    const mine: string[] = [];
    const event = (detail: string) =>
      buildTransitionEvent({ workflow_id: wf, prior_state_id: 'plan_ready', next_state_id: 'patch_applied', triggering_outcome: { kind: 'parent', detail } });
    let exit: { code: number | null; stderr: string } | undefined;
    await store.lock(wf, async () => {
      const e1 = event('first');
      await store.append(e1);
      mine.push(e1.transition_id);
      // The first append is committed (its own transaction), yet the gate keeps the other process out until fn ends.
      exit = await start(root, wf, 1, 'intruder').exited;
      const e2 = event('second');
      await store.append(e2);
      mine.push(e2.transition_id);
    });
    await store.close();
    expect(exit?.code).toBe(1);
    expect(exit?.stderr.trim()).toBe('GF_WRITER_BUSY');
    expect(await persistedIds(root, wf)).toEqual(mine);
    // Released: the other process appends now.
    const after = start(root, wf, 1, 'after');
    expect((await after.exited).code).toBe(0);
    expect(await persistedIds(root, wf)).toEqual([...mine, ...after.acks]);
  }, 60_000);
});
