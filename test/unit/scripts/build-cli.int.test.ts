import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBundleRecord } from '../../../scripts/build-cli.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const GF = join(ROOT, 'bin/gf.mjs');
const HOOK = join(ROOT, 'test/support/module-log-hook.mjs');
/** Packages `gf --help` must not load (issue 22): each costs tens to hundreds of milliseconds. */
const HEAVY = ['apache-arrow', 'zod', 'pg', '@duckdb/node-api', 'hash-wasm', 'better-sqlite3'];
const HEAVY_PREFIXES = ['@langchain/'];

let dist: string;
let logDir: string;

function gf(args: readonly string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [GF, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, GF_CLI_DIST: dist, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const record = (): CliBundleRecord => JSON.parse(readFileSync(join(dist, 'current.json'), 'utf8')) as CliBundleRecord;

/** The bundle files a real `gf ARGS` process loads, and the packages inside them. */
function loaded(args: readonly string[]): { files: string[]; packages: string[] } {
  const log = join(logDir, `${args.join('-').replace(/[^a-z-]/g, '')}.log`);
  const r = spawnSync(process.execPath, ['--import', HOOK, GF, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, GF_CLI_DIST: dist, GF_MODULE_LOG: log } });
  expect(r.status, r.stderr).toBe(0);
  const urls = readFileSync(log, 'utf8').trim().split('\n');
  const files = urls.filter((u) => u.startsWith('file:') && fileURLToPath(u).startsWith(dist)).map((u) => basename(fileURLToPath(u)));
  const fromNodeModules = urls.filter((u) => u.includes('/node_modules/')).map((u) => u.split('/node_modules/').pop() as string);
  const rec = record();
  const packages = new Set([...files.flatMap((f) => rec.packages[f] ?? []), ...fromNodeModules.map((p) => p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/'))]);
  return { files, packages: [...packages].sort() };
}

beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), 'gf-cli-dist-'));
  logDir = mkdtempSync(join(tmpdir(), 'gf-module-log-'));
});

afterAll(() => {
  rmSync(dist, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
});

describe('the gf CLI bundle (scripts/build-cli.mjs, bin/gf.mjs)', () => {
  it('a missing bundle is built before the first command runs, from the entry point', () => {
    const r = gf(['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: gf [options] [command]');
    const rec = record();
    expect(existsSync(join(dist, rec.entries.gf))).toBe(true);
    expect(rec.inputs.map((i) => i.path)).toContain('core/cli/main.ts');
  });

  it('`gf --help` and `gf checkpoint list --help` load none of the heavy packages (Arrow, zod, pg, DuckDB, LangGraph…)', () => {
    const help = loaded(['--help']);
    expect(help.packages.filter((p) => HEAVY.includes(p) || HEAVY_PREFIXES.some((x) => p.startsWith(x)))).toEqual([]);
    expect(help.packages).toContain('commander');
    const list = loaded(['checkpoint', 'list', '--help']);
    expect(list.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('a bundle whose recorded input no longer matches its source is rebuilt, never run', () => {
    const before = record();
    const stale: CliBundleRecord = {
      ...before,
      inputs: before.inputs.map((i) => (i.path === 'core/cli/main.ts' ? { ...i, size: i.size + 1, sha256: '0'.repeat(64) } : i)),
    };
    // The stale record points at an entry that would fail if it ran.
    const poisoned = 'gf-STALE.mjs';
    writeFileSync(join(dist, poisoned), "throw new Error('the stale bundle ran');\n");
    writeFileSync(join(dist, 'current.json'), JSON.stringify({ ...stale, entries: { ...stale.entries, gf: poisoned } }));
    const r = gf(['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: gf [options] [command]');
    const after = record();
    expect(after.entries.gf).not.toBe(poisoned);
    expect(after.inputs.find((i) => i.path === 'core/cli/main.ts')?.sha256).toBe(before.inputs.find((i) => i.path === 'core/cli/main.ts')?.sha256);
  });

  it('a touched but unchanged source keeps the bundle (hash check), and the record learns the new mtime', () => {
    const before = record();
    const moved: CliBundleRecord = { ...before, inputs: before.inputs.map((i) => (i.path === 'core/cli/main.ts' ? { ...i, mtimeMs: i.mtimeMs - 1000 } : i)) };
    writeFileSync(join(dist, 'current.json'), JSON.stringify(moved));
    const r = gf(['--help']);
    expect(r.status, r.stderr).toBe(0);
    const after = record();
    expect(after.built_at).toBe(before.built_at);
    expect(after.inputs.find((i) => i.path === 'core/cli/main.ts')?.mtimeMs).toBe(before.inputs.find((i) => i.path === 'core/cli/main.ts')?.mtimeMs);
  });
});
