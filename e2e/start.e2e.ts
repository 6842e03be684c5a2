// `npm start` on this machine (no Electron binary): says so in one line and
// serves browser mode, printing the URL with its token.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, launchChromium } from './support/browser';
import { electronExecutable } from './support/electron';

const dataHome = mkdtempSync(join(tmpdir(), 'gf-start-'));
afterAll(() => rmSync(dataHome, { recursive: true, force: true }));

describe.skipIf(!('skip' in electronExecutable()))('npm start without the Electron binary', () => {
  it('creates the demo on first run, falls back to browser mode in one line and serves it', async () => {
    ensureBuilt();
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: { ...process.env, XDG_DATA_HOME: dataHome },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)$/.exec(line);
        if (m !== null) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`npm start exited early: ${lines.join(' | ')}`)));
    });
    try {
      expect(lines.filter((l) => /Electron is not installed/.test(l))).toHaveLength(1);
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
