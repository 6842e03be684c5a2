// Smoke: the built renderer over a real workspace shows the workspace's real
// history in the harness's Chromium, in this run's transport (browser mode
// through `gf serve`, or the Electron-shaped path: file://, the real preload,
// the real IPC handlers). Where the two differ the difference is asserted:
// "Open workspace…" is Electron's folder dialog in the desktop app (main's
// real dialog port over a stand-in of `dialog.showOpenDialog`), a typed path in
// browser mode.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORKFLOWS } from '../core/demo/demo-ledgers';
import { buildApiWorkspace, type ApiWorkspace } from '../test/support/api-workspace';
import { MODE_LINE, TRANSPORT, launchApp, type AppHandle } from './support/app';
import { ensureBuilt, screenshotPath } from './support/browser';
import { gfCli } from './support/demo-app';
import { FOLDER_DIALOG_OPTIONS } from '../electron/main/folder-dialog';
import { SHELL_WINDOW } from './support/ipc-shell';

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
      expect(await page.getByTestId('link-no-session').textContent()).toBe('Open the link printed at start: this address has no sign-in token.');
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

  // Last: opening another workspace closes the launched one's handle in this app (later pages would boot on it).
  it(TRANSPORT === 'ipc' ? 'desktop: "Open workspace…" asks main for Electron\'s folder dialog (one folder, modal to the window); the chosen demo workspace opens; cancelling opens nothing' : 'browser mode: the open screen has the path field and no dialog button; the dialog operation answers GF_DESKTOP_ONLY', async () => {
    const page = await app.browser.context.newPage();
    await page.goto(app.serve.url);
    await page.getByTestId('generation-count').waitFor();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workspaces', exact: true }).click();
    await page.getByRole('heading', { name: 'Open a workspace' }).waitFor();
    expect(await page.getByLabel('Workspace folder (absolute path)').isVisible()).toBe(true);
    if (TRANSPORT === 'http') {
      expect(await page.getByTestId('choose-workspace').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Open workspace…' }).count()).toBe(0);
      const env = await app.callApp('app.choose_workspace', {});
      expect(env.ok ? 'ok' : env.error.code).toBe('GF_DESKTOP_ONLY');
      await page.screenshot({ path: screenshotPath('open-workspace-http'), fullPage: true });
      await page.close();
      return;
    }
    const dialog = app.shell!.dialog;
    const demo = join(dir, '..', 'chosen-demo');
    gfCli('demo', 'create', demo, '--records', '20');
    // Cancelled: the dialog was shown, nothing opens.
    dialog.answer = { canceled: true, filePaths: [] };
    await page.getByTestId('choose-workspace').click();
    await expect.poll(() => dialog.calls.length).toBe(1);
    await expect.poll(() => page.getByTestId('choose-workspace').isEnabled()).toBe(true);
    expect(await page.getByTestId('project-label').textContent()).toBe('workspace');
    // A folder chosen: the renderer opens it with project.open.
    dialog.answer = { canceled: false, filePaths: [demo] };
    await page.getByTestId('choose-workspace').click();
    await expect.poll(() => page.getByTestId('project-label').textContent()).toBe('chosen-demo');
    expect(dialog.calls).toEqual([
      { window: SHELL_WINDOW, options: { ...FOLDER_DIALOG_OPTIONS, properties: ['openDirectory'] } },
      { window: SHELL_WINDOW, options: { ...FOLDER_DIALOG_OPTIONS, properties: ['openDirectory'] } },
    ]);
    // The demo's own checkpoints are on screen (its history, not the launched workspace's).
    await page.getByTestId('checkpoint-label').first().waitFor();
    await expect.poll(async () => (await page.getByTestId('checkpoint-label').allTextContents()).includes('Before curation')).toBe(true);
    await page.screenshot({ path: screenshotPath('open-workspace-ipc'), fullPage: true });
    await page.close();
  });
});
