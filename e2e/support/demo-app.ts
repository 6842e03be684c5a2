// The e2e set-up every app flow repeats, once: a demo workspace created by the
// real `gf demo create`, an in-process facade over it (the engine's own
// answers, to compare the page with), the app over this run's transport
// (./app.ts: `gf serve` as a child process, or the Electron-shaped main) and
// the harness's Chromium; plus the screenshot and axe helpers.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { createFacade, type Facade } from '../../core/api/facade';
import type { OperationName, OperationResult } from '../../core/contract/operations';
import { unwrapEnvelope } from '../../core/contract/wire';
import { launchApp, type AppHandle, type Wire } from './app';
import { ROOT, RESULTS_DIR, ensureBuilt, type BrowserHandle, type ServeHandle } from './browser';

/** Screenshots of each state (gitignored). */
export const SCREENS_DIR = join(RESULTS_DIR, 'screens');

/** Runs the real `gf` CLI (a child process) in the package root; throws on a non-zero exit. */
export function gfCli(...args: string[]): void {
  execFileSync(process.execPath, [join(ROOT, 'bin/gf.mjs'), ...args], { cwd: ROOT, stdio: 'ignore' });
}

/** A full-page screenshot into test-results/screens/NAME.png. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`), fullPage: true });
}

/** Serious or critical axe violations on the page (ids and targets only). */
export async function axeProblems(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The running demo app: its workspace, the engine beside it, `gf serve` and Chromium. */
export interface DemoApp {
  /** The temporary folder holding the workspace (removed by `close`). */
  readonly base: string;
  /** The demo workspace. */
  readonly dir: string;
  /** The facade's handle of the workspace. */
  readonly project: string;
  readonly facade: Facade;
  /** `serve.url` opens the app in either transport; see {@link AppHandle.serve}. */
  readonly serve: ServeHandle;
  readonly browser: BrowserHandle;
  /** The app over this run's transport (deep links, the page's calls). */
  readonly app: AppHandle;
  /** A deep link to `hash` in the running app. */
  link(hash: string): string;
  /** The page's calls, whatever the transport. */
  wire(page: Page): Wire;
  /** One engine call through the dispatcher, unwrapped (JSON value or Arrow result, as the contract declares). */
  call<N extends OperationName>(op: N, request: unknown): Promise<OperationResult<N>>;
  /** Stops Chromium and the server, closes the facade and removes the workspace. */
  close(): Promise<void>;
}

/** What a flow needs before the server starts. */
export interface DemoAppOptions {
  /** Temporary folder prefix (names the test file in tmp). */
  readonly prefix: string;
  /** `gf demo create --records`: keep it small unless the flow needs volume. */
  readonly records: number;
  /** Runs after the workspace is open in the facade and before `gf serve` starts (e.g. a retention policy). */
  readonly prepare?: (app: Pick<DemoApp, 'call' | 'project' | 'dir'>) => Promise<void>;
}

/**
 * `gf demo create` output, made once per e2e run and size (both transports'
 * passes copy it: same bytes, one creation). Outside a run with the e2e
 * global set-up (no cache folder), each call creates its own.
 */
function createDemo(base: string, records: number): void {
  const dir = join(base, 'demo');
  const cache = inject('e2eDemoCache') as string | undefined;
  if (cache === undefined) {
    gfCli('demo', 'create', dir, '--records', String(records));
    return;
  }
  const template = join(cache, `records-${records}`);
  if (!existsSync(template)) {
    // Built aside and renamed into place: a concurrent pass either sees the whole template or makes its own.
    const aside = mkdtempSync(join(cache, `.making-${records}-`));
    gfCli('demo', 'create', join(aside, 'demo'), '--records', String(records));
    try {
      renameSync(aside, template);
    } catch {
      rmSync(aside, { recursive: true, force: true });
    }
  }
  cpSync(template, base, { recursive: true });
}

/**
 * Creates the demo, opens it in an in-process facade, starts the app on it
 * over this run's transport and launches Chromium. The caller opens its own
 * pages (`serve.url` is the launch URL). On a failure part-way, what started
 * is stopped again.
 */
export async function startDemoApp(options: DemoAppOptions): Promise<DemoApp> {
  ensureBuilt();
  const base = mkdtempSync(join(tmpdir(), options.prefix));
  const dir = join(base, 'demo');
  let facade: Facade | undefined;
  let app: AppHandle | undefined;
  const close = async () => {
    await app?.close();
    await facade?.close();
    rmSync(base, { recursive: true, force: true });
  };
  try {
    createDemo(base, options.records);
    const f = createFacade({ mode: 'library' });
    facade = f;
    const call = async <N extends OperationName>(op: N, request: unknown): Promise<OperationResult<N>> => unwrapEnvelope(await f.dispatcher.dispatch(op, request)) as OperationResult<N>;
    const project = (await call('project.open', { path: dir })).project;
    await options.prepare?.({ call, project, dir });
    const a = await launchApp(dir);
    app = a;
    return { base, dir, project, facade: f, serve: a.serve, browser: a.browser, app: a, link: (hash) => a.link(hash), wire: (page) => a.wire(page), call, close };
  } catch (e) {
    await close();
    throw e;
  }
}
