import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PATCH_STEPS, DEMO_TAMPERED_WORKFLOW_ID, DEMO_WORKFLOWS, tamperDemoLedger, writeDemoLedgers } from '../../../../core/demo/demo-ledgers';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { tamperSqliteRow } from '../../../../core/chain/sqlite/sqlite-tamper';
import { main } from '../../../../core/cli/main';

let project: string;
let heads: Map<string, string>;
/** The tampered workflow's second head as written (before the demo's tamper), and as stored after it. */
let writtenHead: string;
let storedHead: string;

async function secondHead(): Promise<string> {
  const store = new SqliteChainStore(join(project, 'chain'));
  try {
    let seq = 0;
    for await (const row of store.readPersistedRows(DEMO_TAMPERED_WORKFLOW_ID)) if ((seq += 1) === 2) return row.next_head;
    throw new Error('the tampered demo workflow has no second row');
  } finally {
    await store.close();
  }
}

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'gf-chain-cli-'));
  const store = new SqliteChainStore(join(project, 'chain'));
  await writeDemoLedgers(store, { manifestSha256: Array.from({ length: DEMO_PATCH_STEPS }, () => 'c'.repeat(64)) });
  heads = new Map();
  for (const w of DEMO_WORKFLOWS) heads.set(w.workflow_id, await store.tailChainHead(w.workflow_id));
  await store.close();
  writtenHead = await secondHead();
  await tamperDemoLedger(join(project, 'chain'));
  storedHead = await secondHead();
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('gf chain', () => {
  it('list --json shows every workflow with rows and tail head', async () => {
    const r = await gf('chain', 'list', '--project', project, '--json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { workflow_id: string; rows: number; tail_head: string }[];
    expect(rows.map((x) => x.workflow_id)).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    for (const x of rows) expect(x.tail_head).toBe(heads.get(x.workflow_id));
    expect(rows.find((x) => x.workflow_id === 'demo-retry-recovery')?.rows).toBe(5);
  });

  it('show prints the persisted rows with their events', async () => {
    const r = await gf('chain', 'show', 'demo-clean-completion', '--project', project, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { rows: { sequence: number; event: { next_state_id: string } }[] };
    expect(doc.rows.map((x) => [x.sequence, x.event.next_state_id])).toEqual([[1, 'plan_ready'], [2, 'patch_applied'], [3, 'completed']]);
    const text = await gf('chain', 'show', 'demo-clean-completion', '--project', project);
    expect(text.out).toContain('#2  plan_ready -> patch_applied');
  });

  it('verify --all --json reports every chain and fails on the tampered one', async () => {
    const r = await gf('chain', 'verify', '--all', '--json', '--project', project);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe('workflows.checkpoint_chain_mismatch: a chain head does not match its recomputation');
    const reports = JSON.parse(r.out) as { workflow_id: string; status: string; first_bad_sequence: number | null; rows: number; tail_head: string }[];
    expect(Object.keys(reports[0] ?? {}).sort()).toEqual(['first_bad_sequence', 'rows', 'status', 'tail_head', 'workflow_id']);
    for (const x of reports) {
      if (x.workflow_id === DEMO_TAMPERED_WORKFLOW_ID) expect([x.status, x.first_bad_sequence]).toEqual(['chain_mismatch', 2]);
      else expect([x.status, x.first_bad_sequence]).toEqual(['ok', null]);
    }
  });

  it('verify at a break prints the expected head (the recomputation: the head as written) and the stored (tampered) head', async () => {
    expect(storedHead).not.toBe(writtenHead);
    const text = await gf('chain', 'verify', DEMO_TAMPERED_WORKFLOW_ID, '--project', project);
    expect([text.code, text.err.trim()]).toEqual([1, 'workflows.checkpoint_chain_mismatch: a chain head does not match its recomputation']);
    expect(text.out).toContain(`  expected next_head at sequence 2: ${writtenHead}\n  stored   next_head at sequence 2: ${storedHead}\n`);
    const json = JSON.parse((await gf('chain', 'verify', DEMO_TAMPERED_WORKFLOW_ID, '--project', project, '--json')).out) as { break_head?: unknown };
    expect(json.break_head).toEqual({ column: 'next_head', expected_head: writtenHead, stored_head: storedHead });
  });

  it('verify WORKFLOW succeeds on an intact chain and honours --expect-head', async () => {
    const ok = await gf('chain', 'verify', 'demo-failed', '--project', project);
    expect([ok.code, ok.err]).toEqual([0, '']);
    expect(ok.out).toContain('demo-failed: ok (3 rows');
    const same = await gf('chain', 'verify', 'demo-failed', '--project', project, '--expect-head', heads.get('demo-failed') ?? '');
    expect(same.code).toBe(0);
    const other = await gf('chain', 'verify', 'demo-failed', '--project', project, '--expect-head', heads.get('demo-clean-completion') ?? '');
    expect([other.code, other.err.trim()]).toEqual([1, 'workflows.checkpoint_head_unexpected: a tail head differs from the expected head']);
  });

  it('a truncated tail verifies ok on its own but fails against the recorded head', async () => {
    const p2 = mkdtempSync(join(tmpdir(), 'gf-chain-cli-trunc-'));
    try {
      const store = new SqliteChainStore(join(p2, 'chain'));
      await writeDemoLedgers(store, { manifestSha256: ['d'.repeat(64)] });
      const recorded = await store.tailChainHead('demo-clean-completion');
      const db = (await import('better-sqlite3')).default(store.databasePath('demo-clean-completion'));
      db.prepare('DELETE FROM checkpoint_chain WHERE sequence = 3').run();
      db.close();
      await store.close();
      expect((await gf('chain', 'verify', 'demo-clean-completion', '--project', p2)).code).toBe(0);
      const r = await gf('chain', 'verify', 'demo-clean-completion', '--project', p2, '--expect-head', recorded);
      expect([r.code, r.err.trim()]).toEqual([1, 'workflows.checkpoint_head_unexpected: a tail head differs from the expected head']);
    } finally {
      rmSync(p2, { recursive: true, force: true });
    }
  });

  it('a torn row fails with workflows.checkpoint_torn_write', async () => {
    const p3 = mkdtempSync(join(tmpdir(), 'gf-chain-cli-torn-'));
    try {
      const store = new SqliteChainStore(join(p3, 'chain'));
      await writeDemoLedgers(store, { manifestSha256: ['e'.repeat(64)] });
      await store.close();
      tamperSqliteRow(join(p3, 'chain'), 'demo-failed', 2, { event_bytes: new TextEncoder().encode('{"trunc') });
      const r = await gf('chain', 'verify', 'demo-failed', '--project', p3, '--json');
      expect([r.code, r.err.trim()]).toEqual([1, 'workflows.checkpoint_torn_write: a chain has a torn row']);
      expect(JSON.parse(r.out)).toMatchObject({ status: 'torn_write', first_bad_sequence: 2, rows: 3 });
    } finally {
      rmSync(p3, { recursive: true, force: true });
    }
  });

  it('bad input: invalid or unknown workflow ids, bad options, missing project — stable ids, no caller text echoed', async () => {
    const bad = await gf('chain', 'show', '../../etc/passwd', '--project', project);
    expect([bad.code, bad.err.trim()]).toEqual([1, 'workflows.invalid_workflow_id: not a valid workflow id']);
    expect(bad.err).not.toContain('passwd');
    const unknown = await gf('chain', 'verify', 'no-such-workflow', '--project', project);
    expect([unknown.code, unknown.err.trim()]).toEqual([1, 'workflows.workflow_not_found: no chain for this workflow in the project']);
    expect((await gf('chain', 'verify', '--project', project)).err).toContain('GF_VALIDATION');
    expect((await gf('chain', 'verify', 'demo-failed', '--all', '--project', project)).err).toContain('GF_VALIDATION');
    expect((await gf('chain', 'verify', 'demo-failed', '--expect-head', 'nope', '--project', project)).err).toContain('GF_VALIDATION');
    const missing = await gf('chain', 'list', '--project', join(project, 'does-not-exist'));
    expect([missing.code, missing.err]).toEqual([1, 'GF_IO: project directory not found (committed: false)\n']);
    const empty = mkdtempSync(join(tmpdir(), 'gf-chain-cli-empty-'));
    mkdirSync(join(empty, 'x'));
    expect(await gf('chain', 'list', '--project', empty, '--json')).toEqual({ code: 0, out: '[]\n', err: '' });
    rmSync(empty, { recursive: true, force: true });
    expect((await gf('chain', 'list', '--no-such-option')).code).toBe(2);
  });
});
