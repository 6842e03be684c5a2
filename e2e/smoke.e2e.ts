// Smoke: the built renderer, served by `gf serve` over a real workspace,
// shows the workspace's real history in Debian Chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, registryCatalog } from '../core/project/index';
import { putConfig, putNodes } from '../test/support/project-fixtures';
import { ensureBuilt, launchChromium, screenshotPath, startServe, type BrowserHandle, type ServeHandle } from './support/browser';

let dir: string;
let serve: ServeHandle;
let browser: BrowserHandle;
const generations: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = join(mkdtempSync(join(tmpdir(), 'gf-e2e-')), 'workspace');
  const p = await createProject(dir, { catalog: registryCatalog });
  const g1 = await p.publish({ parent: null, changes: [putNodes(3, 'a'), putConfig('one')] });
  const g2 = await p.publish({ parent: g1.generationUuid, changes: [putNodes(5, 'a')] });
  const g3 = await p.publish({ parent: g2.generationUuid, changes: [putConfig('three')] });
  generations.push(g3.generationUuid, g2.generationUuid, g1.generationUuid);
  serve = await startServe(['--project', dir]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  if (dir !== undefined) rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe('browser mode smoke', () => {
  it('loads the renderer through the bridge and shows the project history', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(serve.url);
    await page.getByTestId('generation-count').waitFor();
    expect(await page.getByTestId('generation-count').textContent()).toBe('3');
    expect(await page.getByTestId('mode').textContent()).toContain('browser mode over http');
    expect(await page.getByTestId('project-label').textContent()).toBe('workspace');
    const rows = await page.locator('section[aria-label="Generations"] tbody tr td:first-child').allTextContents();
    expect(rows).toEqual(generations);
    // The token left the address bar and lives only in memory.
    expect(page.url()).not.toContain(serve.token);
    await page.screenshot({ path: screenshotPath('smoke-browser-mode'), fullPage: true });
    // Our own bundle runs under the strict CSP without a single violation.
    expect(problems).toEqual([]);
  });

  it('the same page without the token gets no data (401 from every API call)', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${serve.origin}/`);
    await page.getByTestId('error').waitFor();
    expect(await page.getByTestId('error').textContent()).toMatch(/GF_VALIDATION/);
    expect(await page.getByTestId('generation-count').count()).toBe(0);
  });
});
