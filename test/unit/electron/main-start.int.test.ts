// The built Electron main (out/main/index.js), started for real under Node with
// a recording stand-in of the `electron` module (test/support/electron-stand-in):
// what main does at start is asserted from what it asked of Electron, and its
// listeners and handlers are called as Electron would call them. The Electron
// binary itself (a real window) is e2e/electron.e2e.ts, where it exists.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../../core/api/security';
import { CHAIN_POSTGRES_URL_ENV } from '../../../core/contract/chain';
import { OPERATION_NAMES } from '../../../core/contract/operations';
import { LANGGRAPH_POSTGRES_URL_ENV } from '../../../core/contract/threads';
import { ipcChannel, type Envelope } from '../../../core/contract/wire';
import { WEB_PREFERENCES } from '../../../electron/main/config';
import { FOLDER_DIALOG_OPTIONS } from '../../../electron/main/folder-dialog';
import { buildApiWorkspace } from '../../support/api-workspace';
// @ts-expect-error plain ESM helper without type declarations
import { buildIfNeeded } from '../../../scripts/build-if-needed.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const MAIN = join(ROOT, 'out', 'main', 'index.js');
const INDEX = join(ROOT, 'out', 'renderer', 'index.html');
const INDEX_URL = pathToFileURL(INDEX).href;
const REGISTER = join(ROOT, 'test', 'support', 'electron-stand-in', 'register.mjs');
/** Secrets in the two Postgres URLs: they may reach the facade, and nothing else main writes or says. */
const CHAIN_SECRET = 'ChainPw-7f3a91';
const LANGGRAPH_SECRET = 'LangPw-c2d84e';
const PG_ENV = {
  [CHAIN_POSTGRES_URL_ENV]: `postgres://gf:${CHAIN_SECRET}@127.0.0.1:9/chain`,
  [LANGGRAPH_POSTGRES_URL_ENV]: `postgres://lg:${LANGGRAPH_SECRET}@127.0.0.1:9/langgraph`,
};
const PROBES = {
  permissions: ['media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'fullscreen'],
  /** The app's own page, then pages that are not it. */
  permissionPages: [INDEX_URL, 'file:///etc/passwd', 'https://example.com/'],
  urls: [INDEX_URL, pathToFileURL(join(ROOT, 'out', 'renderer', 'assets', 'index.js')).href, 'file:///etc/passwd', 'https://example.com/', 'http://127.0.0.1:9/api/app.session', 'devtools://devtools/bundled/index.html'],
  headers: { 'content-security-policy': ["default-src *; script-src 'unsafe-inline'"], 'X-Other': 'kept' },
};

interface Facts {
  readonly calls: readonly (readonly [string, boolean, unknown?])[];
  readonly channels: readonly string[];
  readonly windows: readonly { readonly options: { readonly webPreferences: Record<string, unknown> } & Record<string, unknown>; readonly loadFile: readonly string[]; readonly loadURL: readonly string[]; readonly once: readonly string[] }[];
  readonly permissionRequest: readonly unknown[];
  readonly permissionCheck: readonly unknown[];
  readonly beforeRequest: readonly unknown[];
  readonly headers: unknown;
  readonly contents: { readonly prevented: readonly (readonly [string, boolean])[]; readonly windowOpen: unknown };
  readonly appEvents: readonly string[];
}

/** The built main, running under Node against the stand-in. */
interface MainProcess {
  readonly child: ChildProcess;
  readonly out: () => string;
  readonly err: () => string;
  readonly exited: Promise<number | null>;
  facts(): Promise<Facts>;
  invoke(op: (typeof OPERATION_NAMES)[number], request: unknown, url?: string): Promise<Envelope>;
  /** What the stand-in's `dialog.showOpenDialog` answers from now on. */
  answerDialogs(answer: { readonly canceled: boolean; readonly filePaths: readonly string[] }): Promise<void>;
  quit(): Promise<number>;
}

function startMain(args: readonly string[], env: Record<string, string>): { main: MainProcess; loaded: Promise<void> } {
  const child = spawn(process.execPath, ['--import', pathToFileURL(REGISTER).href, MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waiting = new Map<string, (m: Record<string, unknown>) => void>();
  let next = 0;
  child.on('message', (m: Record<string, unknown>) => {
    const key = m['type'] === 'answer' ? `answer:${String(m['id'])}` : String(m['type']);
    waiting.get(key)?.(m);
    waiting.delete(key);
  });
  const ask = (key: string, message: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((r, reject) => {
      waiting.set(key, r);
      child.send(message);
      void exited.then((code) => reject(new Error(`main exited (${code}) before answering ${key}: ${err}`)));
    });
  const loaded = new Promise<void>((r, reject) => {
    waiting.set('loaded', () => r());
    void exited.then((code) => reject(new Error(`main exited (${code}) before loading its window: ${err}`)));
  });
  loaded.catch(() => undefined); // awaited by the tests that expect a window; a start that fails is asserted from its exit
  const main: MainProcess = {
    child,
    out: () => out,
    err: () => err,
    exited,
    facts: async () => (await ask('facts', { type: 'facts', probes: PROBES }))['facts'] as Facts,
    invoke: async (op, request, url = INDEX_URL) => {
      const id = String(next++);
      return (await ask(`answer:${id}`, { type: 'invoke', id, channel: ipcChannel(op), url, args: [request] }))['answer'] as Envelope;
    },
    answerDialogs: async (answer) => void (await ask('dialog', { type: 'dialog', answer })),
    async quit() {
      const m = await ask('quit', { type: 'quit' });
      await exited;
      return m['handlersLeft'] as number;
    },
  };
  return { main, loaded };
}

/** Every file under `dir` (names and contents), for a search of secrets. */
function allText(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    text += `${name}\n`;
    if (statSync(p).isFile()) text += readFileSync(p).toString('latin1');
  }
  return text;
}

let base: string;
let dir: string;
let main: MainProcess;
let facts: Facts;

beforeAll(async () => {
  (buildIfNeeded as (o: { log: (s: string) => void }) => boolean)({ log: () => undefined });
  base = mkdtempSync(join(tmpdir(), 'gf-main-start-'));
  dir = join(base, 'workspace');
  await buildApiWorkspace(dir);
  const started = startMain(['--project', dir], PG_ENV);
  main = started.main;
  await started.loaded;
  facts = await main.facts();
});

afterAll(async () => {
  if (main?.child.exitCode === null) main.child.kill('SIGKILL');
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe('Electron main, started for real (built out/main/index.js under a recording electron)', () => {
  it('enables the sandbox before the app is ready, and guards every web contents (no navigation, no new windows)', () => {
    expect(facts.calls.find((c) => c[0] === 'app.enableSandbox')).toEqual(['app.enableSandbox', false]);
    expect(facts.appEvents).toEqual(expect.arrayContaining(['web-contents-created', 'window-all-closed', 'will-quit']));
    expect(facts.contents.prevented).toEqual([['will-navigate', true], ['will-redirect', true], ['will-attach-webview', true]]);
    expect(facts.contents.windowOpen).toEqual({ action: 'deny' });
  });

  it('the session denies every permission request and check, but the sanitized clipboard write of the app\'s own page', () => {
    const expected = PROBES.permissionPages.map((url) => PROBES.permissions.map((p) => p === 'clipboard-sanitized-write' && url === INDEX_URL));
    expect(facts.permissionRequest).toEqual(expected);
    expect(facts.permissionCheck).toEqual(expected);
  });

  it('onBeforeRequest lets only the built renderer load; the CSP listener replaces any policy with the app\'s', () => {
    expect(facts.beforeRequest).toEqual([{ cancel: false }, { cancel: false }, { cancel: true }, { cancel: true }, { cancel: true }, { cancel: false }]);
    expect(facts.headers).toEqual({ responseHeaders: { 'X-Other': ['kept'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });

  it('registers one IPC handler per contract operation (the contract\'s list, not a copy), after the session is locked down', () => {
    expect([...facts.channels].sort()).toEqual(OPERATION_NAMES.map(ipcChannel).sort());
    const order = facts.calls.map((c) => c[0]);
    expect(order.indexOf('webRequest.onHeadersReceived')).toBeLessThan(order.indexOf('new BrowserWindow'));
  });

  it('opens one window with mainWindowOptions, a preload that exists and is CommonJS, and loadFile of the built index', () => {
    expect(facts.windows.length).toBe(1);
    const [win] = facts.windows;
    const { preload, ...prefs } = win!.options.webPreferences;
    expect(prefs).toEqual(WEB_PREFERENCES);
    expect(win!.options).toMatchObject({ show: false, title: 'Checkpoint Studio' });
    expect(typeof preload).toBe('string');
    expect(existsSync(preload as string)).toBe(true);
    expect(preload as string).toMatch(/\.cjs$/);
    const source = readFileSync(preload as string, 'utf8');
    expect(source).toMatch(/require\("electron"\)/);
    expect(source).not.toMatch(/^\s*(import|export)\s/m);
    expect(win!.loadFile).toEqual([INDEX]);
    expect(win!.loadURL).toEqual([]);
    expect(win!.once).toContain('ready-to-show');
  });

  it('--project DIR is the launched workspace; main\'s handlers answer the app\'s page and refuse any other sender', async () => {
    const session = await main.invoke('app.session', {});
    expect(session.ok && (session.value as { mode: string; project: { path?: string; label?: string } | null }).mode).toBe('electron');
    expect(session.ok && (session.value as { project: { label: string } | null }).project?.label).toBe('workspace');
    const other = await main.invoke('app.session', {}, 'file:///tmp/other.html');
    expect(other.ok ? 'ok' : other.error.details['reason']).toBe('untrusted_sender');
  });

  it('the chain and LangGraph Postgres URLs from the environment reach the facade, and nothing else', async () => {
    const session = await main.invoke('app.session', {});
    expect(session.ok && (session.value as { threads: { postgres: boolean } }).threads.postgres).toBe(true);
    const project = session.ok ? (session.value as { project: { project: string } }).project.project : '';
    const health = await main.invoke('chain.health', { project });
    // The chain store is the URL's (unreachable on port 9), not the per-project SQLite default.
    expect(health.ok ? 'ok' : health.error.code).toBe('GF_STORE_UNREACHABLE');
    const said = JSON.stringify([facts, session, health, main.out(), main.err()]) + allText(base);
    for (const secret of [CHAIN_SECRET, LANGGRAPH_SECRET]) expect(said).not.toContain(secret);
  });

  it('"Open workspace…": app.choose_workspace is Electron\'s dialog.showOpenDialog, modal to main\'s window, for one folder; the chosen folder comes back, a cancel is null', async () => {
    await main.answerDialogs({ canceled: false, filePaths: [dir] });
    const chosen = await main.invoke('app.choose_workspace', {});
    expect(chosen.ok ? chosen.value : chosen.error.code).toEqual({ path: dir });
    await main.answerDialogs({ canceled: true, filePaths: [] });
    const cancelled = await main.invoke('app.choose_workspace', {});
    expect(cancelled.ok ? cancelled.value : cancelled.error.code).toEqual({ path: null });
    const asked = (await main.facts()).calls.filter((c) => c[0] === 'dialog.showOpenDialog');
    const once = ['dialog.showOpenDialog', true, { window: 0, options: { ...FOLDER_DIALOG_OPTIONS, properties: ['openDirectory'] } }];
    expect(asked).toEqual([once, once]);
  });

  it('quitting removes every handler', async () => {
    expect(await main.quit()).toBe(0);
  });

  it('GF_PROJECT is honoured when --project is not given', async () => {
    const started = startMain([], { GF_PROJECT: dir });
    await started.loaded;
    const session = await started.main.invoke('app.session', {});
    expect(session.ok && (session.value as { project: { label: string } | null }).project?.label).toBe('workspace');
    expect(await started.main.quit()).toBe(0);
  });

  it('a missing project path stops the start in one line with its GF_* code, and opens no window', async () => {
    const missing = join(base, 'no-such-folder');
    const { main: failed } = startMain(['--project', missing], {});
    const code = await failed.exited;
    expect(code).toBe(1);
    const lines = failed.err().split('\n').filter((l) => l !== '');
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(new RegExp(`^Checkpoint Studio: GF_[A-Z_]+: .+ \\(${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`));
    expect(failed.out()).toBe('');
  });
});
