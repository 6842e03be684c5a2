// The reviewer's diff (issue 18) and the checkpoint view's lease (issue 20) in
// the harness's Chromium (in both transports: browser mode through `gf serve`, and the
// Electron-shaped path through the real preload and IPC handlers) on a demo created
// once for this file. Expected values come from the engine itself (an
// in-process facade over the same workspace). Screenshots of each state go to
// test-results/screens/; axe-core checks each for serious or critical
// violations; expand, filter and jump are driven by the keyboard alone.
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult, JsonResults, OperationName } from '../core/contract/operations';
import { microsIso } from '../core/contract/time';
import { unwrapEnvelope } from '../core/contract/wire';
import { axeProblems as axeOf, shot as shotOf, startDemoApp, type DemoApp } from './support/demo-app';

/**
 * Records of the demo: the 200,000 (graph/node then has 4,003 added
 * and 796 modified records between "Graph imported" and "Release 1.0", so
 * the modified list has a last page beyond the first 500 rows).
 */
const RECORDS = 200_000;
/** How long a poll waits for the page to show an engine answer (two shared cores under load answer slowly; a poll returns as soon as it holds). */
const WAIT = { timeout: 60_000, interval: 100 } as const;
let app: DemoApp;
let browser: DemoApp['browser'];
let facade: DemoApp['facade'];
let project: string;
let page: Page;

async function call<N extends OperationName>(op: N, request: unknown): Promise<N extends 'checkpoints.list' | 'checkpoints.diff' | 'view.records' | 'view.record' ? ArrowResult : N extends keyof JsonResults ? JsonResults[N] : ArrowResult> {
  return unwrapEnvelope(await facade.dispatcher.dispatch(op, request)) as never;
}

/** Calls the running app's main side directly (what its session table holds, not what the page believes). */
async function served(op: OperationName, request: unknown): Promise<{ ok: true } | { ok: false; code: string }> {
  const env = await app.app.callApp(op, request);
  return env.ok ? { ok: true } : { ok: false, code: env.error.code };
}

const shot = (name: string): Promise<void> => shotOf(page, name);
/** Serious or critical axe violations on the current page (ids and targets only). */
const axeProblems = (): Promise<string[]> => axeOf(page);

async function nav(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: label, exact: true }).click();
}

/** Every `view.open` answer and `view.close` request the page makes. */
const opened: string[] = [];
const closed: string[] = [];

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-reviewer-', records: RECORDS });
  ({ project, facade, browser } = app);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await browser.context.newPage();
  app.wire(page).observe((c) => {
    if (c.op === 'view.close') closed.push(String((c.request as { view?: unknown } | undefined)?.view));
    if (c.op === 'view.open') {
      void c.envelope.then((env) => {
        const view = env.ok ? (env.value as { view?: unknown }).view : undefined;
        if (typeof view === 'string') opened.push(view);
      });
    }
  });
  await page.goto(app.serve.url);
  await page.getByTestId('generation-count').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('checkpoint view: record browser and its view lease', () => {
  it('timestamps with microseconds, lookup by identity fields only (its error names them), and the lease closed when the screen goes', async () => {
    const v = await call('view.open', { project, name: 'Release 1.0' });
    const node = (await call('view.participants', { view: v.view })).participants.find((p) => p.record_family_id === 'node')!;
    const first = tableFromIPC((await call('view.records', { view: v.view, capability_id: 'graph', record_family_id: 'node', limit: 1 })).bytes);
    await call('view.close', { view: v.view });
    expect(node.identity_fields).toEqual(['node_uuid']);

    await page.getByTestId('checkpoint-label').filter({ hasText: 'Release 1.0' }).click();
    await page.getByTestId('participant').filter({ hasText: 'graph/node' }).click();
    const grid = page.getByRole('grid', { name: 'Records of graph/node' });
    const createdCell = grid.locator('.grid-data-row').first().locator('[data-col="created_at"]');
    await createdCell.waitFor();
    // The one formatter: six fraction digits, the engine's exact microseconds.
    const createdUs = (first.getChild('created_at')!.data[0]!.values as BigInt64Array)[0]!;
    expect(await createdCell.textContent()).toBe(microsIso(createdUs));
    expect(await createdCell.textContent()).toMatch(/\.\d{6}Z$/);

    // Lookup offers exactly the identity fields; an empty one is refused naming them, a bad value too.
    const lookup = page.getByRole('form', { name: 'Look up a record by identity' });
    expect(await lookup.getByTestId('lookup-field').count()).toBe(1);
    expect(await lookup.locator('label').allTextContents()).toEqual(['node_uuid']);
    await lookup.getByRole('button', { name: 'Look up' }).click();
    expect(await page.getByTestId('lookup-missing').textContent()).toContain('node_uuid is empty');
    await lookup.getByLabel('node_uuid', { exact: true }).fill('not-a-uuid');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    expect(await page.getByTestId('lookup-result').textContent()).toBe('No record has this identity.');
    // A value the contract refuses (over 1,024 characters): the engine's code, and the identity fields named.
    await lookup.getByLabel('node_uuid', { exact: true }).fill('x'.repeat(1100));
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await page.getByTestId('lookup-error').waitFor();
    expect(await page.getByTestId('lookup-error-code').textContent()).toBe('GF_VALIDATION');
    expect(await page.getByTestId('lookup-error-fields').textContent()).toBe('A record of graph/node is named by its identity field node_uuid.');
    await shot('reviewer-record-browser');
    expect(await axeProblems()).toEqual([]);

    // Leaving the screen closes its view on the server.
    await expect.poll(() => opened.length, WAIT).toBeGreaterThan(0);
    const mine = opened[opened.length - 1]!;
    expect(await served('view.participants', { view: mine })).toEqual({ ok: true });
    await nav('History');
    await expect.poll(() => closed, WAIT).toContain(mine);
    await expect.poll(() => served('view.participants', { view: mine }), WAIT).toEqual({ ok: false, code: 'GF_VALIDATION' });
  });

  it('a view whose open answers after the screen unmounted is closed as soon as its handle arrives', async () => {
    // The app opens the view at once (its lease is taken); the page sees the answer only after the release.
    const held = await app.wire(page).holdAnswer('view.open');
    await nav('History');
    await nav('Checkpoint');
    const view = ((await held.answered) as { ok: true; value: { view: string } }).value.view;
    expect(await served('view.participants', { view })).toEqual({ ok: true });
    // Unmount before view.open resolved in the page.
    await nav('History');
    await page.getByTestId('generation-count').waitFor();
    await held.release();
    await expect.poll(() => closed, WAIT).toContain(view);
    await expect.poll(() => served('view.participants', { view }), WAIT).toEqual({ ok: false, code: 'GF_VALIDATION' });
    // Every view the page opened in this file is closed.
    await expect.poll(() => opened.filter((v) => !closed.includes(v)), WAIT).toEqual([]);
  });
});

/** One row of a display record diff as the engine pages it. */
interface EngineRow {
  readonly id: string;
  readonly kind: string;
  readonly rowNumber: number;
  readonly display: Readonly<Record<string, string | null>>;
  readonly changed: readonly string[];
}

const hexOf = (b: Uint8Array | null): string | null => (b === null ? null : Buffer.from(b).toString('hex'));
const uuidOf = (b: Uint8Array | null): string | null => {
  const h = hexOf(b);
  return h === null ? null : `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** Every row of a family's display record diff (filtered by the engine), walked page by page. */
async function engineRows(from: string, to: string, scope: string, family: string, filter: Record<string, unknown>): Promise<EngineRow[]> {
  const out: EngineRow[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page: ArrowResult = await call('checkpoints.diff', { project, from, to, scope, detail: 'records', record_family_id: family, display: true, limit: 10_000, after, ...filter });
    const t = tableFromIPC(page.bytes);
    for (let r = 0; r < t.numRows; r++) {
      const uuid = uuidOf(t.getChild('record_uuid')!.get(r) as Uint8Array | null);
      const changed = t.getChild('changed_fields')!.get(r) as string | null;
      out.push({
        id: uuid ?? hexOf(t.getChild('record_identity_fingerprint')!.get(r) as Uint8Array)!,
        kind: String(t.getChild('change_kind')!.get(r)),
        rowNumber: Number(t.getChild('row_number')!.get(r)),
        display: JSON.parse(String(t.getChild('display')!.get(r))) as Record<string, string | null>,
        changed: changed === null || changed === '' ? [] : changed.split(','),
      });
    }
    after = page.next_page_token;
    if (after === null) break;
  }
  return out;
}

/** The record ids of the grid rows in the DOM, top to bottom. */
async function gridIds(grid: ReturnType<Page['getByRole']>): Promise<string[]> {
  return grid.locator('.grid-data-row [data-col="record_uuid"]').evaluateAll((cells) =>
    cells
      .map((c) => ({ y: (c.parentElement as HTMLElement).getBoundingClientRect().top, id: c.getAttribute('title') ?? '' }))
      .sort((a, b) => a.y - b.y)
      .map((c) => c.id),
  );
}

describe('the reviewer\'s diff (issue 18)', () => {
  const FROM = 'Graph imported';
  const TO = 'Release 1.0';
  let familyId: string;
  let stat: JsonResults['checkpoints.diff_stat']['families'][number];
  let modified: EngineRow[];

  it('exact totals before scrolling: the summary\'s per-family counts and the chips equal the engine\'s statistics', async () => {
    const all = await call('checkpoints.diff_stat', { project, from: FROM, to: TO, scope: 'all' });
    // The content family with the most modified records (graph/node in the demo).
    stat = [...all.families].filter((f) => !f.bookkeeping).sort((a, b) => b.modified - a.modified)[0]!;
    familyId = stat.record_family_id;
    expect(stat.modified).toBeGreaterThanOrEqual(3);
    modified = await engineRows(FROM, TO, stat.scope, familyId, { change_kinds: ['modified'] });
    expect(modified).toHaveLength(stat.modified);

    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption(FROM);
    await page.getByLabel('To', { exact: true }).selectOption(TO);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('diff-result').waitFor();
    expect(await page.getByTestId('diff-headline').textContent()).toBe(all.headline);
    const summary = page.getByRole('grid', { name: 'Diff summary by participant' });
    const row = summary.locator('.grid-data-row').filter({ has: page.locator('[data-col="record_family_id"]', { hasText: new RegExp(`^${familyId}$`) }) });
    expect(await row.locator('[data-col="modified"]').textContent()).toBe(stat.modified.toLocaleString('en-US'));
    expect(await row.locator('[data-col="added"]').textContent()).toBe(stat.added.toLocaleString('en-US'));

    // Keyboard: move to the family's summary row and open it with Enter.
    const index = all.families.findIndex((f) => f.record_family_id === familyId);
    await summary.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const grid = page.getByRole('grid', { name: `Record changes of ${familyId}` });
    await grid.locator('.grid-data-row').first().waitFor();
    // Exact from the first paint, before any scrolling: not the rows loaded so far.
    for (const k of ['added', 'removed', 'modified'] as const) expect(await page.getByTestId(`count-${k}`).textContent()).toBe(stat[k].toLocaleString('en-US'));
    const total = stat.added + stat.removed + stat.modified;
    expect(await page.getByTestId('rows-range').textContent()).toMatch(new RegExp(`^rows 1–\\d+ of ${total.toLocaleString('en-US')}$`));
    // The grid leads with the family's display fields; fingerprints only behind "technical columns".
    const headers = await grid.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(['change', ...stat.display_fields, 'changed fields', 'record id']);
    await shot('reviewer-diff-totals');
    expect(await axeProblems()).toEqual([]);
  });

  it('filter to modified (keyboard), expand three rows: changed cells highlighted, unchanged not', async () => {
    const asked = app.wire(page).next('checkpoints.diff', (r) => JSON.stringify((r as { change_kinds?: unknown }).change_kinds) === '["modified"]');
    await page.getByRole('checkbox', { name: /^added/ }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('checkbox', { name: /^removed/ }).focus();
    await page.keyboard.press('Space');
    // The engine filters (the request carries the kinds), and the range counts the filtered list.
    await asked;
    await expect.poll(() => page.getByTestId('rows-range').textContent(), WAIT).toMatch(new RegExp(`of ${stat.modified.toLocaleString('en-US')}$`));
    const grid = page.getByRole('grid', { name: `Record changes of ${familyId}` });
    const classes = await grid.locator('.grid-data-row').evaluateAll((rows) => rows.map((r) => r.className));
    expect(classes.length).toBeGreaterThan(0);
    expect(classes.every((c) => c.includes('change-modified'))).toBe(true);
    expect(await gridIds(grid)).toEqual(modified.slice(0, classes.length).map((r) => r.id));

    // Keyboard: expand the first three rows (Enter on each), several open at once.
    await grid.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const expansions = grid.getByTestId('record-expansion');
    await expect.poll(() => expansions.locator('[data-testid="changed-fields"]').count(), WAIT).toBe(3);
    for (let i = 0; i < 3; i++) {
      const engine = modified[i]!;
      const row = grid.locator('.grid-data-row').filter({ has: page.locator(`[data-col="record_uuid"][title="${engine.id}"]`) });
      const table = row.getByTestId('changed-fields');
      const lines = await table.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          field: (tr as HTMLElement).dataset['field'] ?? '',
          changed: (tr as HTMLElement).dataset['changed'] === 'true',
          highlighted: Array.from(tr.querySelectorAll('td')).map((td) => td.classList.contains('cell-changed')),
        })),
      );
      expect(lines.filter((l) => l.changed).map((l) => l.field)).toEqual(engine.changed);
      for (const l of lines) expect(l.highlighted).toEqual(l.changed ? [true, true] : [false, false]);
      expect(lines.some((l) => !l.changed)).toBe(true);
      // The highlight is visible: a changed cell's background differs from an unchanged one's.
      const bg = async (changed: boolean) => table.locator(`tbody tr[data-changed="${changed}"] td`).first().evaluate((td) => getComputedStyle(td).backgroundColor);
      expect(await bg(true)).not.toBe(await bg(false));
    }
    await shot('reviewer-diff-expanded');
    expect(await axeProblems()).toEqual([]);
    // Copy the first record's row as JSON: what lands on the clipboard is that record's change.
    await grid.locator('.grid-data-row').first().getByTestId('copy-json').click();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { record_uuid: string; changed_fields: string[] };
    expect([copied.record_uuid, copied.changed_fields]).toEqual([modified[0]!.id, modified[0]!.changed]);
  });

  it('jump (keyboard): the last page and a position show the rows the walk reaches there; the expansions close', async () => {
    const grid = page.getByRole('grid', { name: `Record changes of ${familyId}` });
    const m = stat.modified;
    await page.getByTestId('jump-last').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('rows-range').textContent(), WAIT).toMatch(new RegExp(`of ${m.toLocaleString('en-US')}$`));
    await expect.poll(async () => (await gridIds(grid))[0], WAIT).toBe(modified[Math.max(0, m - 500)]!.id);
    expect(await grid.getByTestId('record-expansion').count()).toBe(0);
    await grid.focus();
    await page.keyboard.press('End');
    await expect.poll(async () => (await gridIds(grid)).at(-1), WAIT).toBe(modified[m - 1]!.id);
    expect(await page.getByTestId('rows-range').textContent()).toMatch(new RegExp(`–${m.toLocaleString('en-US')} of ${m.toLocaleString('en-US')}$`));
    await shot('reviewer-diff-last-page');
    expect(await axeProblems()).toEqual([]);
    // Go to a row in the middle by typing its number.
    const mid = Math.ceil(m / 2);
    await page.getByTestId('jump-row').focus();
    await page.keyboard.type(String(mid));
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await gridIds(grid))[0], WAIT).toBe(modified[mid - 1]!.id);
    expect(await page.getByTestId('rows-range').textContent()).toMatch(new RegExp(`^rows ${mid.toLocaleString('en-US')}–`));
  });

  it('search a label: the engine\'s matches, paged', async () => {
    const label = stat.display_fields[0]!;
    const wanted = modified[Math.floor(modified.length / 3)]!.display[label]!;
    const expected = await engineRows(FROM, TO, stat.scope, familyId, { change_kinds: ['modified'], search: wanted });
    expect(expected.length).toBeGreaterThan(0);
    await page.getByTestId('diff-search').fill(wanted);
    await page.getByTestId('diff-search').press('Enter');
    const grid = page.getByRole('grid', { name: `Record changes of ${familyId}` });
    await expect.poll(async () => (await gridIds(grid))[0], WAIT).toBe(expected[0]!.id);
    const ids = await gridIds(grid);
    expect(ids).toEqual(expected.slice(0, ids.length).map((r) => r.id));
    expect(await page.getByTestId('rows-range').textContent()).toMatch(new RegExp(`of ${expected.length.toLocaleString('en-US')}$`));
    const labels = await grid.locator(`.grid-data-row [data-col="display:${label}"]`).allTextContents();
    expect(labels.every((l) => l.toLowerCase().includes(wanted.toLowerCase()))).toBe(true);
    await shot('reviewer-diff-search');
    expect(await axeProblems()).toEqual([]);
  });

  it('after a revert, the checkpoint against CURRENT reads "content identical; 1 restoration record", and the restoration record opens', async () => {
    const reason = 'Review found the release candidate right: restore it';
    // CURRENT already holds this checkpoint's content (the demo's last revert), so the revert is confirmed as a same-content one.
    await call('checkpoints.revert', { project, name: TO, reason, idempotency_key: '6a1f0c3e-7d2b-4c8e-9f10-0b5e2d7c4a91' });
    const all = await call('checkpoints.diff_stat', { project, from: TO, to: 'CURRENT', scope: 'all' });
    expect(all.headline).toBe('content identical; 1 restoration record');
    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption(TO);
    await page.getByLabel('To', { exact: true }).selectOption('CURRENT');
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.getByTestId('diff-headline').textContent(), WAIT).toBe(all.headline);
    const summary = page.getByRole('grid', { name: 'Diff summary by participant' });
    await summary.locator('.grid-data-row').filter({ hasText: 'restoration_transition' }).click();
    const grid = page.getByRole('grid', { name: 'Record changes of restoration_transition' });
    await grid.locator('.grid-data-row').first().waitFor();
    // The new restoration record (the demo's own earlier one is what the checkpoint holds).
    expect(await page.getByTestId('count-added').textContent()).toBe('1');
    expect(await page.getByTestId('record-diff-error').count()).toBe(0);
    const kinds = await grid.locator('.grid-data-row').evaluateAll((rows) => rows.map((r) => (r.className.includes('change-added') ? 'added' : 'other')));
    const at = kinds.indexOf('added');
    const added = grid.locator('.grid-data-row.change-added');
    expect(await added.locator('[data-col="display:reason"]').textContent()).toBe(reason);
    await grid.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < at; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const table = added.getByTestId('changed-fields');
    await table.waitFor();
    expect(await table.locator('tbody tr[data-field="reason"] td').nth(1).textContent()).toBe(reason);
    await shot('reviewer-diff-restoration');
    expect(await axeProblems()).toEqual([]);
  });
});
