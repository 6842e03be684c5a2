// `npm start` fetching what the desktop window needs (scripts/electron-runtime.mjs),
// against local download mirrors on 127.0.0.1: one that refuses (browser mode,
// in one line, remembered for a day), one that never answers (abandoned at the
// fetch timeout) and one that serves a stub `electron`
// and a stub Electron build of better-sqlite3, which `npm start` then launches
// with the app's arguments. Works on a copy of node_modules/electron, so the
// real package is never touched.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, registryCatalog } from '../core/project/index';
import { putNodes } from '../test/support/project-fixtures';
import { tarGzOf, zipOf } from './support/archives';
import { ROOT, ensureBuilt } from './support/browser';

const ELECTRON_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
const SQLITE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
const ELECTRON_ABI = readFileSync(join(ROOT, 'node_modules/electron/abi_version'), 'utf8').trim();
const ZIP = `electron-v${ELECTRON_VERSION}-${process.platform}-${process.arch}.zip`;
const NATIVE_TGZ = `better-sqlite3-v${SQLITE_VERSION}-electron-v${ELECTRON_ABI}-${process.platform}-${process.arch}.tar.gz`;

let base: string;
let project: string;

beforeAll(async () => {
  ensureBuilt();
  base = mkdtempSync(join(tmpdir(), 'gf-start-electron-'));
  project = join(base, 'workspace');
  const p = await createProject(project, { catalog: registryCatalog });
  await p.publish({ parent: null, changes: [putNodes(2, 's')] });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Mirror {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

/** A download mirror on 127.0.0.1: serves `files` by file name, refuses every request (403) when null, or never answers when 'hang'. */
async function mirror(files: ReadonlyMap<string, Buffer> | null | 'hang'): Promise<Mirror> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (files === 'hang') return;
    const name = decodeURIComponent((req.url ?? '').split('?')[0]!.split('/').pop() ?? '');
    const body = files?.get(name);
    if (body === undefined) {
      res.writeHead(files === null ? 403 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A private copy of the electron package (no binary) and private cache/state directories. */
function sandbox(label: string): { readonly env: NodeJS.ProcessEnv; readonly dir: string } {
  const dir = join(base, label);
  mkdirSync(dir);
  cpSync(join(ROOT, 'node_modules/electron'), join(dir, 'electron'), {
    recursive: true,
    filter: (src) => !/[/\\]electron[/\\](dist|path\.txt)$/.test(src),
  });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^(npm_config_|ELECTRON_|electron_)/i.test(k)) delete env[k];
  return {
    dir,
    env: {
      ...env,
      GF_ELECTRON_DIR: join(dir, 'electron'),
      GF_ELECTRON_NATIVE_DIR: join(dir, 'native'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      XDG_DATA_HOME: join(dir, 'data'),
      electron_config_cache: join(dir, 'electron-cache'),
      npm_config_cache: join(dir, 'npm-cache'),
      ELECTRON_GET_NO_PROGRESS: '1',
    },
  };
}

interface StartRun {
  readonly lines: string[];
  readonly stderr: string;
  readonly code: number | null;
  readonly url: string | undefined;
}

/** Runs `npm start` (scripts/start.mjs); resolves when it prints its browser-mode URL (then stops it) or exits. */
async function start(args: readonly string[], env: NodeJS.ProcessEnv): Promise<StartRun> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string | undefined>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const m = /(http:\/\/127\.0\.0\.1:\d+\/[?#]token=[A-Za-z0-9_-]+)$/.exec(line);
      if (m !== null) resolve(m[1]);
    });
    void exited.then(() => resolve(undefined));
  });
  if (url !== undefined && child.exitCode === null) child.kill('SIGTERM');
  const code = await exited;
  return { lines, stderr, code, url };
}

describe('npm start fetches Electron on first use', () => {
  it('a mirror that refuses: browser mode in one line; the failure is remembered, so the next start asks no one; --browser skips Electron', async () => {
    const m = await mirror(null);
    try {
      const { env, dir } = sandbox('refused');
      env['ELECTRON_MIRROR'] = m.url;
      const first = await start(['--project', project], env);
      expect(first.url, first.lines.join('\n') + first.stderr).toBeDefined();
      const fallback = first.lines.filter((l) => l.startsWith('Checkpoint Studio opens in browser mode'));
      expect(fallback).toHaveLength(1);
      expect(fallback[0]).toMatch(new RegExp(`^Checkpoint Studio opens in browser mode: the Electron ${ELECTRON_VERSION.replace(/\./g, '\\.')} download failed \\(.*403.*\\); retried after \\d{4}-\\d\\d-\\d\\dT`));
      expect(first.lines.some((l) => l.startsWith(`Checkpoint Studio: downloading Electron ${ELECTRON_VERSION} from ${m.url}`))).toBe(true);
      expect(m.requests.some((r) => r.endsWith(`/${ZIP}`))).toBe(true);
      expect(existsSync(join(dir, 'electron', 'path.txt'))).toBe(false);
      const state = JSON.parse(readFileSync(join(dir, 'cache', 'checkpoint-studio', 'electron-fetch.json'), 'utf8')) as { electron: { version: string } };
      expect(state.electron.version).toBe(ELECTRON_VERSION);

      // Within the day: no new download attempt, the one line says when it is retried.
      const asked = m.requests.length;
      const second = await start(['--project', project], env);
      expect(second.url).toBeDefined();
      expect(second.lines.filter((l) => l.startsWith('Checkpoint Studio opens in browser mode'))).toEqual([expect.stringMatching(/download failed at .* it is retried after /)]);
      expect(second.lines.some((l) => l.includes('downloading Electron'))).toBe(false);
      expect(m.requests.length).toBe(asked);

      // --browser: Electron is not considered at all.
      const third = await start(['--project', project, '--browser'], { ...env, XDG_CACHE_HOME: join(dir, 'cache-2') });
      expect(third.url).toBeDefined();
      expect(third.lines).toContain('Checkpoint Studio: --browser given, so it opens in browser mode.');
      expect(m.requests.length).toBe(asked);
    } finally {
      await m.close();
    }
  });

  it('a mirror that never answers: the fetch is abandoned at its timeout and browser mode opens, in one line', async () => {
    const m = await mirror('hang');
    try {
      const { env } = sandbox('hung');
      env['ELECTRON_MIRROR'] = m.url;
      env['GF_ELECTRON_FETCH_TIMEOUT_S'] = '2';
      const run = await start(['--project', project], env);
      expect(run.url, run.lines.join('\n') + run.stderr).toBeDefined();
      expect(run.lines.some((l) => l.includes('downloading Electron') && l.includes('up to 2 s'))).toBe(true);
      expect(run.lines.filter((l) => l.startsWith('Checkpoint Studio opens in browser mode'))).toEqual([expect.stringContaining('download failed (no answer within 2 s)')]);
      expect(m.requests.some((r) => r.endsWith(`/${ZIP}`))).toBe(true);
    } finally {
      await m.close();
    }
  });

  it('a mirror that serves Electron and the Electron build of better-sqlite3: npm start launches that electron with the app arguments', async () => {
    const record = join(base, 'stub-record.txt');
    const stub = Buffer.from(`#!/bin/sh\n{ for a in "$@"; do printf 'arg:%s\\n' "$a"; done; printf 'native:%s\\n' "$GF_SQLITE_NATIVE_BINDING"; } > "${record}"\n`);
    const zip = zipOf([{ name: process.platform === 'linux' ? 'electron' : 'Electron', data: stub, mode: 0o755 }]);
    const nativeBytes = Buffer.from('stub better_sqlite3.node for Electron\n');
    const files = new Map<string, Buffer>([
      [ZIP, zip],
      ['SHASUMS256.txt', Buffer.from(`${createHash('sha256').update(zip).digest('hex')} *${ZIP}\n`)],
      [NATIVE_TGZ, tarGzOf([{ name: 'build/Release/better_sqlite3.node', data: nativeBytes, mode: 0o644 }])],
    ]);
    const m = await mirror(files);
    try {
      const { env, dir } = sandbox('served');
      env['ELECTRON_MIRROR'] = m.url;
      env['electron_use_remote_checksums'] = '1';
      env['npm_config_better_sqlite3_binary_host'] = m.url.replace(/\/$/, '');
      const run = await start(['--project', project], env);
      expect(run.url, run.lines.join('\n') + run.stderr).toBeUndefined();
      expect(run.code, run.lines.join('\n') + run.stderr).toBe(0);
      expect(m.requests.some((r) => r.endsWith(`/${ZIP}`))).toBe(true);
      expect(m.requests.some((r) => r.endsWith(`/${NATIVE_TGZ}`))).toBe(true);
      const launched = readFileSync(record, 'utf8').trim().split('\n');
      const native = join(dir, 'native', 'better_sqlite3.node');
      expect(launched).toEqual([`arg:${ROOT}`, 'arg:--project', `arg:${project}`, `native:${native}`]);
      expect(readFileSync(native)).toEqual(nativeBytes);
      expect(run.lines.some((l) => l.startsWith('Checkpoint Studio opens in browser mode'))).toBe(false);
    } finally {
      await m.close();
    }
  });
});
