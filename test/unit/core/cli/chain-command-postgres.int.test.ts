// `gf chain list|show|verify|health` against a Postgres ledger written by the chain store,
// selected by --chain-postgres-url or GF_CHAIN_POSTGRES_URL; the password is never printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PATCH_STEPS, DEMO_WORKFLOWS, writeDemoLedgers } from '../../../../core/demo/demo-ledgers';
import { CHAIN_POSTGRES_URL_ENV, openPostgresChainStore } from '../../../../core/chain/postgres/postgres-config';
import { main } from '../../../../core/cli/main';
import { usePostgres } from '../../../support/postgres';

const server = usePostgres({ beforeAll, afterAll });
const outputs: string[] = [];
let heads: Map<string, string>;
let emptyProject: string;

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  outputs.push(out, err);
  return { code, out, err };
}

beforeAll(async () => {
  const opened = await openPostgresChainStore(server().url);
  try {
    await writeDemoLedgers(opened.store, { manifestSha256: Array.from({ length: DEMO_PATCH_STEPS }, () => 'c'.repeat(64)) });
    heads = new Map();
    for (const w of DEMO_WORKFLOWS) heads.set(w.workflow_id, await opened.store.tailChainHead(w.workflow_id));
  } finally {
    await opened.close();
  }
  // A project directory with no SQLite ledger: anything listed below comes from Postgres.
  emptyProject = mkdtempSync(join(tmpdir(), 'gf-chain-pg-cli-'));
});
afterEach(() => {
  delete process.env[CHAIN_POSTGRES_URL_ENV];
});
afterAll(() => {
  rmSync(emptyProject, { recursive: true, force: true });
  // Every line any command printed, success or failure, is free of the password.
  const all = outputs.join('\n');
  expect(all.length).toBeGreaterThan(0);
  expect(all).not.toContain(server().password);
});

describe('gf chain on the shared Postgres ledger', () => {
  it('list --chain-postgres-url shows the workflows and tail heads the chain store wrote', async () => {
    const sqlite = await gf('chain', 'list', '--project', emptyProject, '--json');
    expect(JSON.parse(sqlite.out)).toEqual([]);
    const r = await gf('chain', 'list', '--project', emptyProject, '--chain-postgres-url', server().url, '--json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { workflow_id: string; rows: number; tail_head: string }[];
    expect(rows.map((x) => x.workflow_id)).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    for (const x of rows) expect(x.tail_head).toBe(heads.get(x.workflow_id));
  });

  it('show and verify read the same ledger through GF_CHAIN_POSTGRES_URL', async () => {
    process.env[CHAIN_POSTGRES_URL_ENV] = server().url;
    const show = await gf('chain', 'show', 'demo-clean-completion', '--project', emptyProject, '--json');
    expect(show.code).toBe(0);
    const doc = JSON.parse(show.out) as { rows: { sequence: number; event: { next_state_id: string } }[] };
    expect(doc.rows.map((x) => [x.sequence, x.event.next_state_id])).toEqual([[1, 'plan_ready'], [2, 'patch_applied'], [3, 'completed']]);
    const verify = await gf('chain', 'verify', '--all', '--project', emptyProject, '--json');
    expect(verify.code).toBe(0);
    const reports = JSON.parse(verify.out) as { workflow_id: string; status: string; tail_head: string }[];
    expect(reports.map((x) => [x.workflow_id, x.status, x.tail_head])).toEqual([...heads.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, head]) => [id, 'ok', head]));
    const expectHead = await gf('chain', 'verify', 'demo-clean-completion', '--expect-head', heads.get('demo-clean-completion') ?? '', '--project', emptyProject);
    expect(expectHead.code).toBe(0);
  });

  it('health prints the store record as a table and as JSON', async () => {
    const json = await gf('chain', 'health', '--chain-postgres-url', server().url, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ backend: 'postgres', workflows: DEMO_WORKFLOWS.length, pool_in_use: 0, pool_idle: 1, last_write_age_seconds: null });
    const table = await gf('chain', 'health', '--chain-postgres-url', server().url);
    expect(table.out.split('\n').filter(Boolean).map((l) => l.split(/\s+/))).toEqual([
      ['backend', 'postgres'],
      ['workflows', String(DEMO_WORKFLOWS.length)],
      ['pool_in_use', '0'],
      ['pool_idle', '1'],
      ['last_write_age_seconds', 'never'],
    ]);
    const sqlite = await gf('chain', 'health', '--project', emptyProject, '--json');
    expect(JSON.parse(sqlite.out)).toEqual({ backend: 'sqlite', workflows: 0 });
  });

  it('a wrong password or an unreachable server fails with an error that never shows the password', async () => {
    const wrong = server().url.replace(server().password, 'not-the-password-7f3a');
    const denied = await gf('chain', 'list', '--chain-postgres-url', wrong, '--json');
    expect(denied.code).toBe(1);
    expect(denied.out).toBe('');
    expect(`${denied.out}${denied.err}`).not.toContain('not-the-password-7f3a');
    const closed = await gf('chain', 'health', '--chain-postgres-url', `postgres://postgres:${server().password}@127.0.0.1:1/postgres`);
    expect(closed.code).toBe(1);
    const malformed = await gf('chain', 'verify', '--all', '--chain-postgres-url', `mysql://postgres:${server().password}@127.0.0.1/x`);
    expect(malformed.code).toBe(1);
    expect(malformed.err).toContain('GF_VALIDATION');
  });
});
