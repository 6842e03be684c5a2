// The e2e harness: Chromium (found by ./chromium.ts) through playwright-core,
// and the app in browser mode (`gf serve`) as a real child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type BrowserContext } from 'playwright-core';
// @ts-expect-error plain ESM helper without type declarations
import { buildIfNeeded } from '../../scripts/build-if-needed.mjs';
import { ChromiumNotFoundError, defaultProbe, findChromium, type ChromiumChoice, type ChromiumProbe } from './chromium';

/** The package root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');
/** Screenshots and traces (gitignored). */
export const RESULTS_DIR = join(ROOT, 'test-results');
/** Chromium flags for a quiet, offline, headless run as root in a container. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** Builds the renderer when out/ is missing or stale. */
export function ensureBuilt(): void {
  (buildIfNeeded as (o: { log: (s: string) => void }) => boolean)({ log: () => undefined });
}

/** A Chromium context on a fresh user-data directory. */
export interface BrowserHandle {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

let announced: string | undefined;

/**
 * Launches the Chromium that findChromium() names (printing which, once per
 * file) with the harness's own flags (plus `extraArgs`) and a fresh profile. Throws, naming the
 * executable, when none is found or it does not start: e2e tests fail, never skip.
 */
export async function launchChromium(probe: ChromiumProbe = defaultProbe, extraArgs: readonly string[] = []): Promise<BrowserHandle> {
  const choice: ChromiumChoice = await findChromium(probe);
  if (announced !== choice.line) {
    announced = choice.line;
    console.log(choice.line);
  }
  const profile = mkdtempSync(join(tmpdir(), 'gf-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: choice.path,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      viewport: { width: 1280, height: 800 },
      // A real user's locale: under LANG=C Chromium reports `en-US@posix`, which Intl (and so uPlot) refuses.
      locale: 'en-US',
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new ChromiumNotFoundError(`e2e: Chromium from ${choice.source} (${choice.path}) did not start: ${why}`);
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A running `gf serve`. */
export interface ServeHandle {
  readonly url: string;
  readonly origin: string;
  readonly token: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const URL_LINE = /^(http:\/\/127\.0\.0\.1:\d+)\/[?#]token=([A-Za-z0-9_-]+)$/;

/**
 * Starts `gf serve` (a child process) and resolves once it printed its URL.
 * `env` adds to the test's environment (e.g. `GF_CONFIG_DIR`: the app's identity file in a temporary folder).
 */
export async function startServe(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ServeHandle> {
  // Never the tester's own identity file: a private configuration folder unless the caller names one.
  const ownConfig = env['GF_CONFIG_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'gf-config-')) : undefined;
  const child = spawn(process.execPath, [join(ROOT, 'bin/gf.mjs'), 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(ownConfig === undefined ? {} : { GF_CONFIG_DIR: ownConfig }), ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<RegExpMatchArray>((resolveUrl, reject) => {
    lines.on('line', (line) => {
      const m = URL_LINE.exec(line.trim());
      if (m !== null) resolveUrl(m);
    });
    void exited.then((code) => reject(new Error(`gf serve exited (${code}) before printing its URL: ${stderr.trim()}`)));
  });
  return {
    url: url[0],
    origin: url[1]!,
    token: url[2]!,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (ownConfig !== undefined) rmSync(ownConfig, { recursive: true, force: true });
    },
  };
}

/** Path of a screenshot in test-results/. */
export function screenshotPath(name: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  return join(RESULTS_DIR, `${name}.png`);
}
