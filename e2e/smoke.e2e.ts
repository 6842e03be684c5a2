// Smoke: the built renderer, served by `gf serve` over a real workspace,
// shows the workspace's real history in the harness's Chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORKFLOWS } from '../core/demo/demo-ledgers';
import { buildApiWorkspace, type ApiWorkspace } from '../test/support/api-workspace';
import { ensureBuilt, launchChromium, screenshotPath, startServe, type BrowserHandle, type ServeHandle } from './support/browser';

let dir: string;
let serve: ServeHandle;
let browser: BrowserHandle;
let ws: ApiWorkspace;

beforeAll(async () => {
  ensureBuilt();
  dir = join(mkdtempSync(join(tmpdir(), 'gf-e2e-')), 'workspace');
  ws = await buildApiWorkspace(dir);
  serve = await startServe(['--project', dir]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  if (dir !== undefined) rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe('browser mode smoke', () => {
  it('loads the renderer through the bridge and shows the real history, checkpoints (Arrow) and ledgers', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(serve.url);
    await page.getByTestId('generation-count').waitFor();
    expect(await page.getByTestId('generation-count').textContent()).toBe(String(ws.generations.length));
    expect(await page.getByTestId('mode').textContent()).toContain('browser mode over http');
    expect(await page.getByTestId('project-label').textContent()).toBe('workspace');
    // Checkpoint names come from checkpoint@1 Arrow bytes decoded in the page.
    await page.getByTestId('checkpoint-label').first().waitFor();
    expect((await page.getByTestId('checkpoint-label').allTextContents()).sort()).toEqual([...ws.checkpoints].sort());
    await page.screenshot({ path: screenshotPath('smoke-browser-mode'), fullPage: true });
    await page.getByRole('button', { name: 'Ledgers' }).click();
    await page.getByTestId('workflow-id').first().waitFor();
    expect((await page.getByTestId('workflow-id').allTextContents()).sort()).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    // The token was exchanged for the session cookie: it left the address bar.
    expect(page.url()).not.toContain(serve.token);
    await page.screenshot({ path: screenshotPath('smoke-browser-mode-ledgers'), fullPage: true });
    // Our own bundle runs under the strict CSP without a single violation.
    expect(problems).toEqual([]);
  });

  it('the same address without the token or the session cookie gets no app and no data (the link-expired page)', async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    const res = await page.goto(`${serve.origin}/`);
    expect(res?.status()).toBe(401);
    expect(await page.getByTestId('link-no-session').textContent()).toBe('Open the link printed at start: this address has no sign-in token.');
    expect(await page.getByTestId('generation-count').count()).toBe(0);
  });
});
