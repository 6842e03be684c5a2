// The screens reviewers live in, in real Chromium over `gf serve` on a 1,000
// record demo: the diff summary's counts in view at 1024 px and at 200% zoom
// (a 512 px CSS viewport) with thousands separators and no fixed-height cut,
// an export whose added records carry their field values, the checkpoint
// screen (facts first, records above the fold, search, sort, open on click),
// the thread state inspector using the screen's width, and the workspaces
// screen listing the open workspace. Light and dark screenshots with axe.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResults, OperationName } from '../core/contract/operations';
import { TRANSPORT } from './support/app';
import { axeProblems, shot, startDemoApp, type DemoApp } from './support/demo-app';

const FROM = 'Graph imported';
let app: DemoApp;
let page: Page;

async function call<N extends OperationName & keyof JsonResults>(op: N, request: unknown): Promise<JsonResults[N]> {
  return (await app.call(op, request)) as JsonResults[N];
}

async function shots(p: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    await shot(p, `i35-${name}${TRANSPORT === 'ipc' ? '-ipc' : ''}-${scheme}`);
    expect(await axeProblems(p), `${name} (${scheme})`).toEqual([]);
  }
  await p.emulateMedia({ colorScheme: 'light' });
}

/** True when the element lies inside the viewport horizontally (nothing to scroll sideways to see it). */
async function inView(p: Page, l: Locator): Promise<boolean> {
  const box = await l.boundingBox();
  const width = p.viewportSize()?.width ?? 0;
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

async function compare(p: Page): Promise<void> {
  await p.goto(app.link(`#/diff?from=${encodeURIComponent(FROM)}&to=CURRENT`));
  await p.getByTestId('diff-result').waitFor();
}

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-i35s-', records: 1000 });
  page = await app.browser.context.newPage();
  await page.goto(`${app.serve.url}#/history`);
  await page.getByTestId('timeline').waitFor();
}, 240_000);

afterAll(async () => {
  await app?.close();
});

describe(`reviewer screens (${TRANSPORT})`, () => {
  for (const [label, width, height] of [['1024 px', 1024, 768], ['200% zoom at 1024 px', 512, 384]] as const) {
    it(`diff summary at ${label}: the added, removed and modified counts are in view, every row shown, counts with separators`, async () => {
      await page.setViewportSize({ width, height });
      await compare(page);
      const grid = page.getByRole('grid', { name: 'Diff summary by participant' });
      const stat = await call('checkpoints.diff_stat', { project: app.project, from: FROM, to: 'CURRENT', scope: 'all' });
      await expect.poll(() => grid.locator('.grid-data-row').count()).toBe(stat.families.length);
      for (const h of ['added', 'removed', 'modified']) expect(await inView(page, grid.getByRole('columnheader', { name: h, exact: true })), h).toBe(true);
      const busiest = [...stat.families].sort((a, b) => b.added + b.removed + b.modified - (a.added + a.removed + a.modified))[0]!;
      const row = grid.locator('.grid-data-row').filter({ has: page.locator('[data-col="record_family_id"]', { hasText: new RegExp(`^${busiest.record_family_id}$`) }) }).first();
      for (const k of ['added', 'removed', 'modified'] as const) {
        const cell = row.locator(`[data-col="${k}"]`);
        expect(await cell.textContent()).toBe(busiest[k].toLocaleString('en-US'));
        expect(await inView(page, cell), k).toBe(true);
      }
      // Not cut at a fixed height: the summary box grows with its rows while the window has room (70% of its height).
      expect(await grid.evaluate((g) => g.clientHeight + 1 >= Math.min(g.scrollHeight, 0.7 * window.innerHeight))).toBe(true);
      if (width === 1024) expect(await grid.evaluate((g) => g.scrollHeight <= g.clientHeight + 1)).toBe(true);
      // Row counts with thousands separators, like the other counts.
      const big = stat.families.find((f) => f.added + f.removed + f.modified >= 1000 || f.modified >= 1000);
      const rowTexts = await grid.locator('.grid-data-row [data-col="from_row_count"]').allTextContents();
      expect(rowTexts.every((t) => t === '—' || /^\d{1,3}(,\d{3})*$/.test(t))).toBe(true);
      if (big !== undefined) expect(rowTexts.some((t) => t.includes(','))).toBe(true);
      await shots(page, `diff-summary-${width}`);
    });
  }

  it('an export of a family lists its added records with their field values (not before/after null)', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await compare(page);
    const stat = await call('checkpoints.diff_stat', { project: app.project, from: FROM, to: 'CURRENT', scope: 'all' });
    const withAdded = stat.families.find((f) => f.added > 0 && !f.bookkeeping)!;
    const grid = page.getByRole('grid', { name: 'Diff summary by participant' });
    await grid.locator('.grid-data-row').filter({ has: page.locator('[data-col="record_family_id"]', { hasText: new RegExp(`^${withAdded.record_family_id}$`) }) }).first().click();
    await page.getByTestId('record-diff').waitFor();
    const download = page.waitForEvent('download');
    await page.getByTestId('export-family-json').click();
    const file = await download;
    const target = join(app.base, 'export.json');
    await file.saveAs(target);
    const doc = JSON.parse(readFileSync(target, 'utf8')) as { rows: { change_kind: string; display: Record<string, unknown>; before: Record<string, unknown> | null; after: Record<string, unknown> | null }[] };
    const added = doc.rows.filter((r) => r.change_kind === 'added');
    expect(added.length).toBe(withAdded.added);
    for (const r of added) {
      expect(r.before).toBeNull();
      expect(r.after).not.toBeNull();
      // Every display field is among the exported values, with the same text.
      for (const [k, v] of Object.entries(r.display)) expect(r.after?.[k]).toBe(v);
    }
  });

  it('checkpoint screen: its time, actor and description first; records above the fold; search, sort and open on click', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(app.link(`#/checkpoint?name=${encodeURIComponent('Release 1.0')}&family=${encodeURIComponent('graph/node')}`));
    await page.getByTestId('checkpoint-facts').waitFor();
    expect(await page.getByTestId('checkpoint-description').textContent()).toBe('release candidate');
    expect(await page.getByTestId('checkpoint-created').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const grid = page.getByRole('grid', { name: 'Records of graph/node' });
    await grid.locator('.grid-data-row').first().waitFor();
    const box = await grid.boundingBox();
    expect((box?.y ?? 10_000)).toBeLessThan(900);
    // Open on click: the record's fields below its row.
    await grid.locator('.grid-data-row').first().click();
    await grid.getByTestId('record-open').waitFor();
    // Sort by label, descending: the first row's label is the greatest of the loaded ones.
    await page.getByTestId('records-sort').selectOption('label');
    await page.getByLabel('descending').check();
    const labels = await grid.locator('.grid-data-row [data-col="label"]').allTextContents();
    const sorted = [...labels].sort(new Intl.Collator(undefined, { numeric: true }).compare).reverse();
    expect(labels).toEqual(sorted);
    // Search the loaded records.
    const needle = labels[0]!;
    await page.getByTestId('records-search').fill(needle);
    await expect.poll(() => grid.locator('.grid-data-row [data-col="label"]').allTextContents()).toEqual(labels.filter((l) => l.toLowerCase().includes(needle.toLowerCase())));
    expect(await page.getByTestId('records-filtered').textContent()).toContain('loaded records shown');
    await shots(page, 'checkpoint-screen');
  });

  it('agent threads: the state inspector uses the screen width', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const source = { kind: 'sqlite', path: join(app.base, 'langgraph.sqlite') };
    const thread = (await call('threads.list', { source })).rows[0]!;
    await page.goto(app.link(`#/threads?source=${encodeURIComponent(source.path)}&thread=${encodeURIComponent(thread.thread_id)}&checkpoint=${encodeURIComponent(thread.latest_checkpoint_id)}`));
    const state = page.getByTestId('thread-state');
    await state.waitFor();
    const main = await page.locator('main').boundingBox();
    const box = await state.boundingBox();
    expect((box?.width ?? 0) / (main?.width ?? 1)).toBeGreaterThan(0.8);
    await shots(page, 'threads-inspector');
  });

  it('workspaces screen: the open workspace is among the recent ones, marked open', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workspaces', exact: true }).click();
    const open = page.getByTestId('recent-workspace').filter({ has: page.getByTestId('recent-open') });
    await open.waitFor();
    expect(await open.getByRole('button').textContent()).toBe(app.dir);
    expect(await page.locator('body').textContent()).not.toContain('create one there');
    await shots(page, 'workspaces');
  });
});
