import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../../core/demo/index';
import { DEMO_TAMPERED_WORKFLOW_ID, DEMO_WORKFLOWS } from '../../../../../core/demo/demo-ledgers';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { CHAIN_DB_FILE, workflowDirName } from '../../../../../core/chain/sqlite/sqlite-schema';
import { gf, runGf } from '../../../../support/cli-run';
import { treeDigest } from '../../../../support/project-state';
import { ensureCliBundle } from '../../../../../scripts/build-cli.mjs';

// Reading a project's ledgers: a FIFO at a ledger's path is refused without
// blocking, a file that is not a ledger gets a typed verdict naming it (never
// GF_INTERNAL), and reads leave no file behind and change no byte.

let base: string;
let demo: string;
const workflow = DEMO_WORKFLOWS.find((w) => w.workflow_id !== DEMO_TAMPERED_WORKFLOW_ID)?.workflow_id as string;
const ledgerRel = (id: string): string => `chain/${workflowDirName(id)}/${CHAIN_DB_FILE}`;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-ledger-reads-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  await ensureCliBundle();
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function copyDemo(name: string): string {
  const dir = path.join(base, name);
  fs.cpSync(demo, dir, { recursive: true });
  return dir;
}

/** Every file beside the ledgers (names only: a FIFO is never read). */
function chainEntries(dir: string): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, 'chain')).sort()) for (const f of fs.readdirSync(path.join(dir, 'chain', d)).sort()) out.push(`${d}/${f}`);
  return out;
}

describe('a FIFO in place of a ledger', () => {
  // A process that blocks in open(2) is killed after this long; a refusal takes well under a second.
  const KILL_AFTER_MS = 60_000;

  it('gf chain list, gf chain verify --all and gf doctor refuse it at once, naming the ledger, and still report the others', async () => {
    const dir = copyDemo('fifo');
    const ledger = path.join(dir, ledgerRel(workflow));
    fs.rmSync(ledger);
    execFileSync('mkfifo', [ledger]);
    const list = await runGf(['chain', 'list', '--project', dir, '--json'], KILL_AFTER_MS);
    expect(list.timedOut).toBe(false);
    const verify = await runGf(['chain', 'verify', '--all', '--project', dir, '--json'], KILL_AFTER_MS);
    expect(verify.timedOut).toBe(false);
    expect(verify.code).toBe(1); // the demo's tampered workflow outranks the unreadable ledger in the exit verdict
    expect(verify.err).not.toContain('GF_INTERNAL');
    const one = await runGf(['chain', 'verify', workflow, '--project', dir, '--json'], KILL_AFTER_MS);
    expect(one.timedOut).toBe(false);
    expect(one.code).toBe(1);
    expect(one.err).toContain('GF_PROJECT_CORRUPT');
    expect(one.err).toContain(ledgerRel(workflow));
    const doctor = await runGf(['doctor', '--project', dir, '--json'], KILL_AFTER_MS);
    expect(doctor.timedOut).toBe(false);
    expect(doctor.err).not.toContain('GF_INTERNAL');

    const r = await gf('chain', 'verify', '--all', '--project', dir, '--json');
    const results = JSON.parse(r.out) as { workflow_id: string; status: string; cause?: string; ledger?: string }[];
    expect(results.find((x) => x.ledger === ledgerRel(workflow))).toMatchObject({ status: 'unreadable', cause: 'not_regular_fifo' });
    expect(results.filter((x) => x.status !== 'unreadable').length).toBe(DEMO_WORKFLOWS.length - 1);
    const listed = JSON.parse((await gf('chain', 'list', '--project', dir, '--json')).out) as { ledger?: string; status?: string; cause?: string }[];
    expect(listed.find((x) => x.ledger === ledgerRel(workflow))).toMatchObject({ status: 'unreadable', cause: 'not_regular_fifo' });
    expect(fs.lstatSync(ledger).isFIFO()).toBe(true);
  }, 300_000);
});

describe('gf chain verify WORKFLOW on a file that is not a ledger', () => {
  const cases: readonly [string, (file: string) => void, string][] = [
    ['truncated', (f) => fs.truncateSync(f, 1000), 'SQLITE_'],
    ['zeroed', (f) => fs.writeFileSync(f, Buffer.alloc(fs.statSync(f).size)), 'SQLITE_NOTADB'],
    ['text', (f) => fs.writeFileSync(f, 'these are not the rows you are looking for\n'), 'SQLITE_NOTADB'],
  ];
  for (const [name, damage, cause] of cases) {
    it(`a ${name} ledger: unreadable with its cause and the ledger's name, the same verdict as --all, never GF_INTERNAL`, async () => {
      const dir = copyDemo(`bad-${name}`);
      damage(path.join(dir, ledgerRel(workflow)));
      const r = await gf('chain', 'verify', workflow, '--project', dir, '--json');
      expect(r.code).toBe(1);
      expect(r.err).not.toContain('GF_INTERNAL');
      expect(r.err).toContain('GF_PROJECT_CORRUPT');
      expect(r.err).toContain(ledgerRel(workflow));
      const entry = JSON.parse(r.out) as { workflow_id: string; status: string; cause: string; ledger: string };
      expect(entry.workflow_id).toBe(workflow);
      expect(entry?.status).toBe('unreadable');
      expect(entry?.ledger).toBe(ledgerRel(workflow));
      expect(entry?.cause.startsWith(cause)).toBe(true);
      const all = JSON.parse((await gf('chain', 'verify', '--all', '--project', dir, '--json')).out) as { ledger?: string; cause?: string }[];
      expect(all.find((x) => x.ledger === ledgerRel(workflow))?.cause).toBe(entry?.cause);
      // chain show names the file and what is wrong with it.
      const show = await gf('chain', 'show', workflow, '--project', dir);
      expect(show.code).toBe(1);
      expect(show.err).toMatch(/^workflows\.checkpoint_store_corrupt: the ledger chain\/[0-9a-f]{32}\/checkpoints\.sqlite /);
    });
  }

  it('a row whose event_bytes is NULL (a ledger rewritten without the NOT NULL): a torn row at its sequence', async () => {
    const dir = copyDemo('null-bytes');
    const file = path.join(dir, ledgerRel(workflow));
    const db = new Database(file);
    db.exec(`ALTER TABLE checkpoint_chain RENAME TO old_chain;
      CREATE TABLE checkpoint_chain (sequence INTEGER PRIMARY KEY AUTOINCREMENT, transition_id TEXT NOT NULL UNIQUE, prior_head TEXT NOT NULL, next_head TEXT NOT NULL, event_bytes BLOB, written_at TEXT NOT NULL);
      INSERT INTO checkpoint_chain SELECT * FROM old_chain; DROP TABLE old_chain;
      UPDATE checkpoint_chain SET event_bytes = NULL WHERE sequence = 2;`);
    db.close();
    const r = await gf('chain', 'verify', workflow, '--project', dir, '--json');
    expect(r.err).not.toContain('GF_INTERNAL');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ status: 'torn_write', first_bad_sequence: 2 });
    const show = await gf('chain', 'show', workflow, '--project', dir, '--json');
    expect(show.err).not.toContain('GF_INTERNAL');
  });
});

describe('reads are read-only', () => {
  it('gf doctor, gf chain verify and gf chain list leave no -wal/-shm beside a ledger and change no byte', { timeout: 300_000 }, async () => {
    const dir = copyDemo('read-only');
    const entries = chainEntries(dir);
    expect(entries.some((e) => e.endsWith('-wal') || e.endsWith('-shm'))).toBe(false);
    const before = treeDigest(dir);
    // As a user runs them: one process per command (a process ends without a last checkpoint of SQLite's own).
    expect((await runGf(['doctor', '--project', dir, '--json'], 60_000)).code).toBe(0);
    expect((await runGf(['chain', 'verify', '--all', '--project', dir, '--json'], 60_000)).err).toMatch(/^workflows\.checkpoint_chain_mismatch/); // the demo's tampered ledger
    expect((await runGf(['chain', 'verify', workflow, '--project', dir, '--json'], 60_000)).code).toBe(0);
    expect((await runGf(['chain', 'list', '--project', dir, '--json'], 60_000)).code).toBe(0);
    expect((await runGf(['chain', 'show', workflow, '--project', dir, '--json'], 60_000)).code).toBe(0);
    expect((await gf('doctor', '--project', dir, '--json')).code).toBe(0);
    expect((await gf('chain', 'verify', workflow, '--project', dir, '--json')).code).toBe(0);
    expect(chainEntries(dir)).toEqual(entries);
    expect(treeDigest(dir)).toEqual(before);
  });

  it('a read while another store writes sees every committed row and adds no file the writer did not make', async () => {
    const dir = copyDemo('live-writer');
    const root = path.join(dir, 'chain');
    const writer = new SqliteChainStore(root);
    try {
      const rowsOf = async (s: SqliteChainStore): Promise<number> => {
        let n = 0;
        for await (const _ of s.readPersistedRows(workflow)) n++;
        return n;
      };
      const before = await rowsOf(writer);
      await writer.connectionPragmas(workflow); // the writer's connection is open: its -wal and -shm exist now
      const reader = new SqliteChainStore(root);
      try {
        const files = chainEntries(dir);
        expect(await rowsOf(reader)).toBe(before);
        expect(await reader.tailChainHead(workflow)).toBe(await writer.tailChainHead(workflow));
        expect(chainEntries(dir)).toEqual(files);
      } finally {
        await reader.close();
      }
    } finally {
      await writer.close();
    }
  });
});
