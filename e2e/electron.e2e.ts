// The real Electron shell, driven by Playwright's `_electron`. Runs where the
// Electron binary exists; elsewhere it is skipped and says why.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject } from '../core/project/index';
import { registryCatalog } from '../core/participants/index';
import { putNodes } from '../test/support/project-fixtures';
import { OPERATION_NAMES } from '../core/contract/operations';
import { ROOT, ensureBuilt, screenshotPath } from './support/browser';
import { electronExecutable } from './support/electron';

const electron = electronExecutable();
if ('skip' in electron) process.stdout.write(`electron e2e skipped: ${electron.skip}\n`);

describe.skipIf('skip' in electron)('Electron shell', () => {
  let app: ElectronApplication | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await app?.close();
    if (dir !== undefined) rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('opens one hardened window on the project and shows its history over IPC', async () => {
    if ('skip' in electron) return;
    ensureBuilt();
    dir = join(mkdtempSync(join(tmpdir(), 'gf-electron-')), 'workspace');
    const p = await createProject(dir, { catalog: registryCatalog });
    const g1 = await p.publish({ parent: null, changes: [putNodes(2, 'e')] });
    await p.publish({ parent: g1.generationUuid, changes: [putNodes(3, 'e')] });
    app = await _electron.launch({ executablePath: electron.path, args: [ROOT, '--project', dir], cwd: ROOT });
    const win = await app.firstWindow();
    await win.getByTestId('generation-count').waitFor();
    expect(await win.getByTestId('generation-count').textContent()).toBe('2');
    expect(await win.getByTestId('mode').textContent()).toContain('electron mode over ipc');
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    // No Node in the page; the preload's one door is `invoke`.
    const seen = await win.evaluate(() => {
      const g = globalThis as unknown as Record<string, unknown>;
      return [typeof g['require'], typeof g['process'], Object.keys(g['gf'] as object)];
    });
    expect(seen).toEqual(['undefined', 'undefined', ['invoke']]);
    // Every contract operation reaches main through the real preload and Electron's own IPC, answered as itself.
    const answers = await win.evaluate(async (names) => {
      const gf = (globalThis as unknown as { gf: { invoke(op: string, req: unknown): Promise<{ ok: boolean; error?: { code: string; details: Record<string, unknown> } }> } }).gf;
      const out: Record<string, unknown> = {};
      for (const op of names) {
        const env = await gf.invoke(op, { parity_probe: 1 });
        out[op] = env.ok ? 'ok' : [env.error?.code, env.error?.details['operation']];
      }
      return out;
    }, [...OPERATION_NAMES]);
    expect(answers).toEqual(Object.fromEntries(OPERATION_NAMES.map((op) => [op, ['GF_VALIDATION', op]])));
    await win.screenshot({ path: screenshotPath('electron-window') });
  });
});
