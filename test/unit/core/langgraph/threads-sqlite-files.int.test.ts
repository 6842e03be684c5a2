import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { gf, runGf } from '../../../support/cli-run';
import { ensureCliBundle } from '../../../../scripts/build-cli.mjs';
import { putChain } from './langgraph-support';

// The LangGraph SQLite path is the user's: a FIFO there is refused without
// blocking (it would hang open(2) forever), and a refused restore leaves the
// user's database exactly as it was (no journal-mode switch, no new file).

let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-threads-files-'));
  await ensureCliBundle();
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sha = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('a FIFO where a LangGraph SQLite file is expected', () => {
  it('threads list, history, show, health and restore refuse it at once with GF_IO naming a FIFO', async () => {
    const fifo = path.join(dir, 'f.sqlite');
    execFileSync('mkfifo', [fifo]);
    const runs = [
      ['threads', 'list', '--sqlite', fifo],
      ['threads', 'history', 't1', '--sqlite', fifo],
      ['threads', 'show', 't1', '--sqlite', fifo],
      ['threads', 'health', '--sqlite', fifo],
      ['threads', 'restore', 't1', '018f0f4e-7b8c-7000-8000-00000000c11a', '--sqlite', fifo, '--reason', 'undo'],
    ];
    for (const args of runs) {
      // A process blocked in open(2) is killed after a minute; the refusal itself takes milliseconds.
      const r = await runGf(args, 60_000);
      expect({ args, timedOut: r.timedOut }).toEqual({ args, timedOut: false });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^GF_IO: the SQLite checkpoint database path is a FIFO \(named pipe\), not a regular file/m); // restore notes its idempotency key first
    }
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  }, 400_000);

  it('a symbolic link to a real database still opens (the path is the user\u2019s choice)', async () => {
    const real = path.join(dir, 'real.sqlite');
    const adapter = new SqliteCheckpointerAdapter({ path: real });
    await putChain(await adapter.saver(), 'linked', 2);
    await adapter.close();
    const link = path.join(dir, 'link.sqlite');
    fs.symlinkSync(real, link);
    const r = await gf('threads', 'list', '--sqlite', link, '--json');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { rows: { thread_id: string }[] }).rows.map((x) => x.thread_id)).toEqual(['linked']);
  });
});

describe('a refused threads restore changes nothing', () => {
  it('checkpoint not found, thread not found, already the head: the database keeps its bytes, its journal mode and its directory', async () => {
    const file = path.join(dir, 'rollback.sqlite');
    const adapter = new SqliteCheckpointerAdapter({ path: file });
    const head = await putChain(await adapter.saver(), 'review', 3);
    await adapter.close();
    const db = new Database(file);
    db.pragma('journal_mode = DELETE'); // a database some other tool keeps in rollback-journal mode
    db.close();
    const headId = head.configurable?.['checkpoint_id'] as string;
    const names = fs.readdirSync(dir).sort();
    const bytes = sha(file);
    const refusals: [string[], string][] = [
      [['threads', 'restore', 'review', '018f0f4e-7b8c-7000-8000-00000000dead', '--sqlite', file, '--reason', 'undo'], 'GF_CHECKPOINT_NOT_FOUND'],
      [['threads', 'restore', 'nobody', headId, '--sqlite', file, '--reason', 'undo'], 'GF_CHECKPOINT_NOT_FOUND'],
      [['threads', 'restore', 'review', headId, '--sqlite', file, '--reason', 'undo'], 'GF_VALIDATION'],
    ];
    for (const [args, code] of refusals) {
      const r = await gf(...args);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^${code}: `, 'm'));
      expect(fs.readdirSync(dir).sort()).toEqual(names);
      expect(sha(file)).toBe(bytes);
    }
    const check = new Database(file, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
  });
});
