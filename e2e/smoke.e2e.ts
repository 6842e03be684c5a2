// Smoke: the built renderer over a real workspace shows the workspace's real
// history in the harness's Chromium, in this run's transport (browser mode
// through `gf serve`, or the Electron-shaped path: file://, the real preload,
// the real IPC handlers). Where the two differ the difference is asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORKFLOWS } from '../core/demo/demo-ledgers';
import { buildApiWorkspace, type ApiWorkspace } from '../test/support/api-workspace';
import { MODE_LINE, TRANSPORT, launchApp, type AppHandle } from './support/app';
import { ensureBuilt, screenshotPath } from './support/browser';

let dir: string;
let app: AppHandle;
let ws: ApiWorkspace;

beforeAll(async () => {
  ensureBuilt();
  dir = join(mkdtempSync(join(tmpdir(), 'gf-e2e-')), 'workspace');
  ws = await buildApiWorkspace(dir);
  app = await launchApp(dir);
});

afterAll(async () => {
  await app?.close();
  if (dir !== undefined) rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe(`smoke (${TRANSPORT})`, () => {
  it('loads the renderer and shows the real history, checkpoints (Arrow) and ledgers', async () => {
    const page = await app.browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(app.serve.url);
    await page.getByTestId('generation-count').waitFor();
    expect(await page.getByTestId('generation-count').textContent()).toBe(String(ws.generations.length));
    expect(await page.getByTestId('mode').textContent()).toContain(MODE_LINE[TRANSPORT]);
    expect(await page.getByTestId('project-label').textContent()).toBe('workspace');
    // Checkpoint names come from checkpoint@1 Arrow bytes decoded in the page.
    await page.getByTestId('checkpoint-label').first().waitFor();
    expect((await page.getByTestId('checkpoint-label').allTextContents()).sort()).toEqual([...ws.checkpoints].sort());
    await page.screenshot({ path: screenshotPath(`smoke-${TRANSPORT}`), fullPage: true });
    await page.getByRole('button', { name: 'Ledgers' }).click();
    await page.getByTestId('workflow-id').first().waitFor();
    expect((await page.getByTestId('workflow-id').allTextContents()).sort()).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    expect(page.url()).toBe(app.link('#/ledgers'));
    await page.screenshot({ path: screenshotPath(`smoke-${TRANSPORT}-ledgers`), fullPage: true });
    // Our own bundle runs under the strict CSP without a single violation.
    expect(problems).toEqual([]);
    await page.close();
  });

  if (TRANSPORT === 'http') {
    it('browser mode: the token is exchanged for the session cookie; without both there is no app and no data (the link-expired page)', async () => {
      const page = await app.browser.context.newPage();
      await page.goto(app.serve.url);
      await page.getByTestId('generation-count').waitFor();
      expect(page.url()).not.toContain(app.serve.token);
      expect((await app.browser.context.cookies()).length).toBe(1);
      await app.browser.context.clearCookies();
      const res = await page.goto(`${app.serve.origin}/`);
      expect(res?.status()).toBe(401);
      expect(await page.getByTestId('link-expired').textContent()).toBe('This link has expired; use the URL that npm start printed.');
      expect(await page.getByTestId('generation-count').count()).toBe(0);
    });
  } else {
    it('desktop: no session cookie, no token, no server: the page loads only its own files and every call goes through the preload', async () => {
      const page = await app.browser.context.newPage();
      const requested: string[] = [];
      const log = (r: Request): void => void requested.push(new URL(r.url()).protocol);
      page.on('request', log);
      const calls = app.wire(page).record();
      await page.goto(app.serve.url);
      await page.getByTestId('generation-count').waitFor();
      calls.stop();
      page.off('request', log);
      expect(await app.browser.context.cookies()).toEqual([]);
      expect(page.url()).toBe(app.link('#/history'));
      expect([...new Set(requested)]).toEqual(['file:']);
      expect(calls.ops).toEqual(expect.arrayContaining(['app.session', 'project.summary', 'checkpoints.list']));
      // No Node in the page; the preload's one door is `invoke`.
      const seen = await page.evaluate(() => {
        const g = globalThis as unknown as Record<string, unknown>;
        return [typeof g['require'], typeof g['process'], Object.keys(g['gf'] as object)];
      });
      expect(seen).toEqual(['undefined', 'undefined', ['invoke']]);
      await page.close();
    });
  }
});
