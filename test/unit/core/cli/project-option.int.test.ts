import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CHECKPOINTS, DEMO_DELETED_CHECKPOINT } from '../../../../core/demo/demo-checkpoints';
import { main } from '../../../../core/cli/main';

const GF = resolve(import.meta.dirname, '../../../../bin/gf.mjs');
let tmp: string;
let dir: string;

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

/** Runs the real `gf` binary in `cwd` (no `process.chdir` in the test process). */
async function spawnGf(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [GF, ...argv], { cwd, encoding: 'utf8' });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'gf-project-default-'));
  dir = join(tmp, 'demo');
  expect((await gf('demo', 'create', dir, '--records', '40', '--seed', '3')).code).toBe(0);
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('--project defaults to the current directory', () => {
  it('gf checkpoint list --json run inside the project lists its checkpoints, the same as with --project', { timeout: 60_000 }, async () => {
    const here = await spawnGf(dir, 'checkpoint', 'list', '--json');
    expect([here.code, here.err]).toEqual([0, '']);
    const doc = JSON.parse(here.out) as { rows: { name: string }[] };
    expect(doc.rows.map((r) => r.name).sort()).toEqual(DEMO_CHECKPOINTS.map((c) => c.name).filter((n) => n !== DEMO_DELETED_CHECKPOINT).sort());
    expect(here.out).toBe((await gf('checkpoint', 'list', '--json', '--project', dir)).out);
    // Elsewhere (not a project) the same command fails with a GF code, not a usage error.
    const elsewhere = await spawnGf(tmp, 'checkpoint', 'list', '--json');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err).toMatch(/^GF_[A-Z_]+/);
  });

  it('every project command documents the default in --help', async () => {
    const commands = [
      ['checkpoint', 'create'], ['checkpoint', 'list'], ['checkpoint', 'open'], ['checkpoint', 'delete'], ['checkpoint', 'diff'], ['checkpoint', 'revert'],
      ['chain', 'list'], ['chain', 'show'], ['chain', 'verify'], ['publish'],
    ];
    for (const c of commands) {
      const help = await gf(...c, '--help');
      expect([c.join(' '), help.code, help.out.replace(/\s+/g, ' ')]).toEqual([c.join(' '), 0, expect.stringContaining('--project <dir>')]);
      expect([c.join(' '), help.out.replace(/\s+/g, ' ')]).toEqual([c.join(' '), expect.stringContaining('(default: the current directory)')]);
    }
  });
});
