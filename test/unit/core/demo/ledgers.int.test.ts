import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PATCH_STEPS, DEMO_TAMPERED_WORKFLOW_ID, DEMO_WORKFLOWS } from '../../../../core/demo/demo-ledgers';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { decodeEventBytes } from '../../../../core/chain/store-support';
import { main } from '../../../../core/cli/main';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';

let tmp: string;

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

/** Every persisted row of every demo workflow, all columns (Buffers as hex). */
async function chainRows(dir: string): Promise<Record<string, unknown>[]> {
  const store = new SqliteChainStore(join(dir, 'chain'));
  const out: Record<string, unknown>[] = [];
  try {
    for (const id of await store.listWorkflows()) {
      for await (const r of store.readPersistedRows(id)) out.push({ workflow_id: id, ...r, event_bytes: Buffer.from(r.event_bytes).toString('hex') });
    }
  } finally {
    await store.close();
  }
  return out;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'gf-demo-ledgers-'));
  for (const [name, seed] of [['a', '7'], ['b', '7'], ['c', '8']] as const) {
    const r = await gf('demo', 'create', join(tmp, name), '--records', '40', '--seed', seed);
    expect(r.code).toBe(0);
  }
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('gf demo create: workflow ledgers in <project>/chain', () => {
  it('verify --all: every scripted workflow ok, the tampered one chain_mismatch at sequence 2', async () => {
    const r = await gf('chain', 'verify', '--all', '--json', '--project', join(tmp, 'a'));
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe('workflows.checkpoint_chain_mismatch: a chain head does not match its recomputation');
    const reports = JSON.parse(r.out) as { workflow_id: string; status: string; first_bad_sequence: number | null }[];
    expect(reports.map((x) => x.workflow_id).sort()).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    for (const x of reports) {
      if (x.workflow_id === DEMO_TAMPERED_WORKFLOW_ID) expect([x.status, x.first_bad_sequence]).toEqual(['chain_mismatch', 2]);
      else expect([x.workflow_id, x.status, x.first_bad_sequence]).toEqual([x.workflow_id, 'ok', null]);
    }
    const list = JSON.parse((await gf('chain', 'list', '--json', '--project', join(tmp, 'a'))).out) as { workflow_id: string }[];
    const finals = new Map<string, string>();
    for (const { workflow_id } of list) {
      const shown = JSON.parse((await gf('chain', 'show', workflow_id, '--json', '--project', join(tmp, 'a'))).out) as { rows: { event: { next_state_id: string } }[] };
      finals.set(workflow_id, shown.rows.at(-1)?.event.next_state_id ?? '');
    }
    expect(Object.fromEntries(finals)).toEqual({
      'demo-clean-completion': 'completed',
      'demo-retry-recovery': 'completed',
      'demo-awaiting-review': 'awaiting_human_review',
      'demo-failed': 'failed_unrecoverable',
      'demo-tampered': 'completed',
    });
  });

  it('each patch_applied evidence digest is sha256:<manifest> of a distinct generation of the project', async () => {
    const dir = join(tmp, 'a');
    const p = await openProject<Table>(dir, { catalog: registryCatalog, retainAncestors: 64 });
    const manifests = new Set(p.history().map((g) => `sha256:${g.manifestSha256 ?? ''}`));
    const cited: string[] = [];
    for (const row of await chainRows(dir)) {
      const e = decodeEventBytes(Buffer.from(row.event_bytes as string, 'hex'));
      if (e.next_state_id === 'patch_applied') cited.push(e.triggering_outcome.evidence_digest ?? 'none');
      else expect(e.triggering_outcome.evidence_digest).toBeNull();
    }
    expect(cited.length).toBe(DEMO_PATCH_STEPS);
    expect(new Set(cited).size).toBe(DEMO_PATCH_STEPS);
    expect(cited.filter((d) => !manifests.has(d))).toEqual([]);
  });

  it('same seed → identical chain rows (written_at included); another seed → other digests', async () => {
    const a = await chainRows(join(tmp, 'a'));
    expect(a.length).toBe(17);
    expect(await chainRows(join(tmp, 'b'))).toEqual(a);
    const c = await chainRows(join(tmp, 'c'));
    expect(c.map((r) => r.transition_id)).toEqual(a.map((r) => r.transition_id));
    expect(c.map((r) => r.next_head)).not.toEqual(a.map((r) => r.next_head));
    for (const r of a) expect(Date.parse(String(r.written_at))).toBeGreaterThan(Date.parse('2024-01-01T00:00:00Z'));
  });
});
