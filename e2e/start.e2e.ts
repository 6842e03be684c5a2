// `npm start -- --browser`: creates the demo on first run and serves browser
// mode, printing the URL with its token; a bad --project is one line with its
// GF code and the path. (Fetching Electron: start-electron.e2e.ts.)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, launchChromium } from './support/browser';

const dataHome = mkdtempSync(join(tmpdir(), 'gf-start-'));
afterAll(() => rmSync(dataHome, { recursive: true, force: true }));

describe('npm start in browser mode', () => {
  it('npm start -- --project /does/not/exist: one line with the GF code and the path, exit 1, no stack trace', async () => {
    ensureBuilt();
    const missing = join(dataHome, 'does', 'not', 'exist');
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--project', missing], {
      cwd: ROOT,
      env: { ...process.env, XDG_DATA_HOME: dataHome, XDG_CACHE_HOME: join(dataHome, 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err.trim().split('\n')).toEqual([`npm start: GF_UNSUPPORTED_PROJECT_FORMAT: no project at this location (${missing})`]);
  });

  it('--browser: creates the demo on first run, says why in one line and serves it', async () => {
    ensureBuilt();
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--browser'], {
      cwd: ROOT,
      env: { ...process.env, XDG_DATA_HOME: dataHome, XDG_CACHE_HOME: join(dataHome, 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        const m = /(http:\/\/127\.0\.0\.1:\d+\/[?#]token=[A-Za-z0-9_-]+)$/.exec(line);
        if (m !== null) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`npm start exited early: ${lines.join(' | ')}`)));
    });
    try {
      expect(lines.filter((l) => /opens in browser mode/.test(l))).toEqual(['Checkpoint Studio: --browser given, so it opens in browser mode.']);
      const browser = await launchChromium();
      try {
        const page = await browser.context.newPage();
        await page.goto(url);
        await page.getByTestId('mode').waitFor();
        expect(await page.getByTestId('mode').textContent()).toContain('browser mode');
        // The demo workspace created on first run is open, with its real history.
        expect(await page.getByTestId('project-label').textContent()).toBe('demo');
        await page.getByTestId('generation-count').waitFor();
        expect(Number(await page.getByTestId('generation-count').textContent())).toBeGreaterThan(1);
      } finally {
        await browser.close();
      }
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
