// Issue 19 in real Chromium, in both transports (browser mode through `gf serve`;
// the Electron-shaped path through the real preload and IPC handlers), on the demo:
// a revert under a retention window of 2 (the preview warns what becomes
// prunable, History then lists it as pruned with its reason and time), a
// double click that publishes exactly one generation, reload / bookmark /
// second tab (on the session cookie in browser mode), a checkpoint created by the CLI appearing
// without Refresh, and deep links. Expected values come from the engine (an
// in-process facade over the same workspace); waits are on the DOM, never sleeps.
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT } from './support/app';
import { axeProblems, gfCli, shot, startDemoApp, type DemoApp } from './support/demo-app';

const TARGET = 'Graph imported';
let app: DemoApp;
let page: Page;
/** Shorthands for the fixture's parts. */
let dir: string;
let project: string;
let browser: DemoApp['browser'];
const call: DemoApp['call'] = (op, request) => app.call(op, request);

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-h19-', records: 200, prepare: async (a) => void (await a.call('retention.set', { project: a.project, retain_ancestors: 2 })) });
  ({ dir, project, browser } = app);
  page = await browser.context.newPage();
  // The launch URL with a deep link (browser mode: the token is exchanged for the cookie, the fragment survives the redirect).
  await page.goto(`${app.serve.url}#/revert?name=${encodeURIComponent(TARGET)}`);
  await page.getByTestId('revert-preview').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('history and revert (issue 19, Chromium)', () => {
  it('the deep link opened the revert screen on its checkpoint, and the token left the address bar', async () => {
    expect(page.url()).toBe(app.link('#/revert?name=Graph+imported'));
    if (TRANSPORT === 'http') expect(page.url()).not.toContain(app.serve.token);
    expect(await page.getByLabel('Checkpoint', { exact: true }).inputValue()).toBe(TARGET);
  });

  it('retention window 2: the preview lists what becomes prunable; a double click publishes exactly one generation; History then shows the pruned rows with reason and time', async () => {
    const preview = await call('revert.preview', { project, name: TARGET });
    expect(preview.retain_ancestors).toBe(2);
    expect(await page.getByTestId('prunable-row').count()).toBe(preview.prunable.length);
    // On the demo, window 2: one unnamed generation leaves the window.
    expect(preview.prunable.length).toBeGreaterThan(0);
    expect(await page.getByTestId('revert-prunable').textContent()).toContain(`${preview.prunable.length === 1 ? '1 generation becomes' : `${preview.prunable.length} generations become`} prunable`);
    await shot(page, 'h19-revert-preview-prunable');
    expect(await axeProblems(page)).toEqual([]);
    // "Create a checkpoint on CURRENT first", in the same flow: its dialog opens over the form (and closes without creating).
    await page.getByTestId('checkpoint-current-first').click();
    await page.getByTestId('create-dialog').waitFor();
    await shot(page, 'h19-revert-checkpoint-current-first');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByTestId('create-dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('create-dialog').waitFor({ state: 'detached' });
    const before = await call('history.list', { project, limit: 1, after: null });
    // Keyboard only: type into the reason and the confirmation, then Enter on the focused button.
    await page.getByLabel('Reason (required)').focus();
    await page.keyboard.type('the curation run broke the graph');
    await page.keyboard.press('Tab');
    await page.keyboard.type(TARGET);
    expect(await page.getByTestId('revert-submit').isEnabled()).toBe(true);
    await page.getByTestId('revert-submit').dblclick();
    await page.getByTestId('revert-receipt').waitFor();
    const after = await call('history.list', { project, limit: 500, after: null });
    expect(after.total_records).toBe(before.total_records + 1);
    expect(after.entries[0]?.kind).toBe('revert');
    expect(after.entries[0]?.reason).toBe('the curation run broke the graph');
    await expect.poll(() => page.getByTestId('receipt-reason').textContent()).toBe('the curation run broke the graph');
    // The form reset: a further click cannot publish again.
    expect(await page.getByTestId('revert-submit').isDisabled()).toBe(true);
    await shot(page, 'h19-revert-receipt');
    expect(await axeProblems(page)).toEqual([]);
    // The refreshed preview: CURRENT now holds the target's content, so another revert to it needs the explicit second confirmation.
    await page.getByTestId('revert-same-content').waitFor();
    await shot(page, 'h19-revert-same-content');
    expect(await axeProblems(page)).toEqual([]);
    // History: the generations the preview named are pruned rows (cleanup ran after the publication), with their time.
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'History', exact: true }).click();
    await page.getByTestId('timeline').waitFor();
    const prunedNow = after.entries.filter((e) => e.status === 'pruned');
    expect(prunedNow.length).toBeGreaterThan(0);
    for (const g of preview.prunable) expect(prunedNow.map((e) => e.generation_uuid)).toContain(g.generation_uuid);
    await expect.poll(() => page.locator('[data-testid="generation-row"][data-status="pruned"]').count()).toBe(prunedNow.length);
    for (const e of prunedNow) {
      const row = page.locator(`[data-testid="generation-row"][data-status="pruned"]`).filter({ hasText: e.generation_uuid });
      expect(await row.locator('time').textContent()).toBe(e.published_at);
      if (e.reason !== null) expect(await row.getByTestId('row-reason').textContent()).toBe(e.reason);
    }
    const first = page.getByTestId('generation-row').first();
    expect(await first.getByTestId('row-reason').textContent()).toBe('the curation run broke the graph');
    await shot(page, 'h19-history-pruned');
    expect(await axeProblems(page)).toEqual([]);
  });

  it(TRANSPORT === 'http' ? 'reload, a bookmark and a second tab work on the session cookie' : 'reload, a bookmark and a second window work (each window has the preload; no session)', async () => {
    await page.reload();
    await page.getByTestId('timeline').waitFor();
    expect(page.url()).toBe(app.link(`#/history`));
    const tab = await browser.context.newPage();
    try {
      await tab.goto(app.link(`#/ledgers?workflow=demo-tampered`));
      await tab.getByTestId('chain').waitFor();
      await expect.poll(() => tab.getByTestId('chain-verify-status').textContent()).toBe('chain_mismatch at sequence 2');
      await shot(tab, 'h19-second-tab-ledger-deep-link');
      expect(await axeProblems(tab)).toEqual([]);
      // At the break, the expected and the stored head: the verifier's answer, the stored one being what the ledger holds at sequence 2.
      const verdict = (await call('chain.verify', { project, workflow_id: 'demo-tampered' })).results[0];
      const stored = (await call('chain.rows', { project, workflow_id: 'demo-tampered', limit: 10, after: null })).rows.find((r) => r.sequence === 2);
      expect(verdict?.break_head).toEqual({ column: 'next_head', expected_head: expect.stringMatching(/^blake3:[0-9a-f]{64}$/), stored_head: stored?.next_head });
      expect(verdict?.break_head?.expected_head).not.toBe(verdict?.break_head?.stored_head);
      const brk = tab.getByTestId('chain-break');
      await brk.waitFor();
      expect(await brk.textContent()).toContain('plan_ready → patch_applied');
      expect(await tab.getByTestId('break-expected-head').getAttribute('data-head')).toBe(verdict?.break_head?.expected_head);
      expect(await tab.getByTestId('break-stored-head').getAttribute('data-head')).toBe(verdict?.break_head?.stored_head);
      await tab.getByTestId('break-full-heads').click();
      expect(await tab.getByTestId('break-expected-head').textContent()).toBe(verdict?.break_head?.expected_head);
      expect(await tab.getByTestId('break-stored-head').textContent()).toBe(verdict?.break_head?.stored_head);
      await shot(tab, 'h19-ledger-break-heads');
      expect(await axeProblems(tab)).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('a checkpoint created by the CLI appears within 2 s without Refresh', async () => {
    gfCli('checkpoint', 'create', 'Made in the terminal', '--project', dir);
    await page.getByTestId('checkpoint-label').filter({ hasText: 'Made in the terminal' }).waitFor({ timeout: 2000 });
    await shot(page, 'h19-live-cli-checkpoint');
  });

  it('search by checkpoint name and filter by kind live in the link', async () => {
    await page.getByTestId('history-search').fill('terminal');
    await expect.poll(() => page.getByTestId('generation-row').count()).toBe(1);
    expect(page.url()).toBe(app.link(`#/history?q=terminal`));
    await page.getByTestId('history-search').fill('');
    await page.getByTestId('history-kind').focus();
    await page.getByTestId('history-kind').selectOption('revert');
    const reverts = await call('history.list', { project, limit: 500, after: null, kind: 'revert' });
    await expect.poll(() => page.getByTestId('generation-row').count()).toBe(reverts.entries.length);
    expect(await page.getByTestId('history-kind').evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
  });

  it('a deep link to a diff opens that diff in a fresh tab: the summary rows are the engine\'s, and the family, filter and position come back', async () => {
    const summary = await call('checkpoints.diff', { project, from: TARGET, to: 'CURRENT', scope: 'all', detail: 'summary', limit: 1000, after: null });
    const cols = ['capability_id', 'record_family_id', 'change_kind', 'from_row_count', 'to_row_count'] as const;
    const table = tableFromIPC(summary.bytes);
    const expected = Array.from({ length: table.numRows }, (_, i) => cols.map((c) => {
      const v: unknown = table.getChild(c)?.get(i);
      return v === null || v === undefined ? '—' : String(v);
    }).join('|'));
    expect(expected.length).toBeGreaterThan(0);
    const stat = await call('checkpoints.diff_stat', { project, from: TARGET, to: 'CURRENT', scope: 'all' });
    const fam = [...stat.families].filter((f) => f.added + f.removed + f.modified > 0).sort((a, b) => b.modified + b.added - (a.modified + a.added))[0]!;
    const familyKey = `${fam.capability_id}/${fam.record_family_id}`;
    const link = app.link(`#/diff?from=${encodeURIComponent(TARGET)}&to=CURRENT&family=${encodeURIComponent(familyKey)}`);
    const tab = await browser.context.newPage();
    try {
      await tab.goto(link);
      await tab.getByTestId('diff-result').waitFor();
      const shown = await tab.getByRole('grid', { name: 'Diff summary by participant' }).locator('.grid-data-row').evaluateAll((rows, c) =>
        rows.map((r) => c.map((k) => r.querySelector(`[data-col="${k}"]`)?.textContent ?? '').join('|')), cols);
      expect(shown).toEqual(expected);
      expect(await tab.getByLabel('From', { exact: true }).inputValue()).toBe(TARGET);
      expect(await tab.getByLabel('To', { exact: true }).inputValue()).toBe('CURRENT');
      // The link's family opened with the engine's exact counts.
      await tab.getByTestId('record-diff').waitFor();
      expect(await tab.getByTestId('count-modified').textContent()).toBe(fam.modified.toLocaleString('en-US'));
      // A filter chosen goes into the link; a reload reopens the same diff, family and filter.
      await tab.getByRole('checkbox', { name: /^added/ }).uncheck();
      await expect.poll(() => tab.url()).toContain('kinds=modified%2Cremoved');
      await tab.reload();
      await tab.getByTestId('record-diff').waitFor();
      expect(await tab.getByRole('checkbox', { name: /^added/ }).isChecked()).toBe(false);
      expect(await tab.getByRole('checkbox', { name: /^modified/ }).isChecked()).toBe(true);
      await shot(tab, 'h19-diff-deep-link');
      expect(await axeProblems(tab)).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('a deep link to a checkpoint opens that checkpoint and participant', async () => {
    const tab = await browser.context.newPage();
    try {
      await tab.goto(app.link(`#/checkpoint?name=${encodeURIComponent(TARGET)}&family=graph%2Fnode`));
      await tab.locator('[data-testid="participant"][aria-pressed="true"]').waitFor();
      expect(await tab.locator('[data-testid="participant"][aria-pressed="true"]').textContent()).toContain('graph/node');
      expect(await tab.getByLabel('Checkpoint', { exact: true }).inputValue()).toBe(TARGET);
    } finally {
      await tab.close();
    }
  });

  it(TRANSPORT === 'http' ? 'the expired-link page (a stale token) says which URL to use, and passes axe' : 'the desktop window has no link to expire: a token in its address changes nothing, no cookie is set', async () => {
    const tab = await browser.context.newPage();
    try {
      if (TRANSPORT === 'http') {
        await tab.goto(`${app.serve.origin}/?token=stale-link-from-an-earlier-run`);
        expect(await tab.getByTestId('link-expired').textContent()).toContain('This link has expired');
        await shot(tab, 'h19-link-expired');
        expect(await axeProblems(tab)).toEqual([]);
      } else {
        await tab.goto(`${app.serve.url}?token=stale-link-from-an-earlier-run`);
        await tab.getByTestId('timeline').waitFor();
        expect(await tab.getByTestId('link-expired').count()).toBe(0);
        expect(await browser.context.cookies()).toEqual([]);
      }
    } finally {
      await tab.close();
    }
  });

  it('at 200% zoom (640×400 CSS px) History, the revert form and Ledgers reflow without horizontal scrolling', async () => {
    const tab = await browser.context.newPage();
    try {
      await tab.setViewportSize({ width: 640, height: 400 });
      // No horizontal scroll; when there is, the deepest elements past the right edge name the culprit.
      const sideways = () => tab.evaluate(() => {
        const el = document.scrollingElement!;
        if (el.scrollWidth <= el.clientWidth) return [];
        const past = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > el.clientWidth + 0.5);
        return past.filter((e) => !past.some((o) => o !== e && e.contains(o))).slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className} ${(e.textContent ?? '').slice(0, 40)}`);
      });
      await tab.goto(app.link(`#/history`));
      await tab.getByTestId('timeline').waitFor();
      expect(await sideways()).toEqual([]);
      await shot(tab, 'h19-zoom-200-history');
      await tab.goto(app.link(`#/revert?name=${encodeURIComponent(TARGET)}`));
      await tab.getByTestId('revert-preview').waitFor();
      expect(await sideways()).toEqual([]);
      await shot(tab, 'h19-zoom-200-revert');
      await tab.goto(app.link(`#/ledgers?workflow=demo-tampered`));
      await tab.getByTestId('chain-break').waitFor();
      await tab.getByTestId('break-full-heads').click();
      expect(await sideways()).toEqual([]);
      await shot(tab, 'h19-zoom-200-ledgers');
    } finally {
      await tab.close();
    }
  });
});
