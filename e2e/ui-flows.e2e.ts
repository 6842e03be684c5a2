// The desktop UI's flows in the harness's Chromium, in both transports (browser mode
// through `gf serve`; the Electron-shaped path through the real preload and IPC handlers)
// against a demo workspace created once for this file. Expected values come
// from the engine itself (an in-process facade over the same workspace), so
// the assertions check what a person would: rows, counts, badges, receipts
// and error messages. Screenshots go to test-results/screens/ (gitignored);
// axe-core checks every main screen for serious or critical violations.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult, JsonResults, OperationName } from '../core/contract/operations';
import { unwrapEnvelope, type Envelope } from '../core/contract/wire';
import { openProject } from '../core/project/index';
import { registryCatalog } from '../core/participants/index';
import { TRANSPORT } from './support/app';
import { axeProblems as axeOf, shot as shotOf, startDemoApp, type DemoApp } from './support/demo-app';

let app: DemoApp;
let base: string;
let dir: string;
let browser: DemoApp['browser'];
let facade: DemoApp['facade'];
let project: string;
let page: Page;

async function call<N extends OperationName>(op: N, request: unknown): Promise<N extends 'checkpoints.list' | 'checkpoints.diff' | 'view.records' ? ArrowResult : N extends keyof JsonResults ? JsonResults[N] : ArrowResult> {
  return unwrapEnvelope(await facade.dispatcher.dispatch(op, request)) as never;
}

/** Rows of CSV text (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (c !== '\r') cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The error code of a failure envelope (null for a success). */
const codeOf = (env: Envelope): string | null => (env.ok ? null : env.error.code);

const shot = (name: string): Promise<void> => shotOf(page, name);
/** Serious or critical axe violations on the current page (ids and targets only). */
const axeProblems = (): Promise<string[]> => axeOf(page);

async function nav(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: label, exact: true }).click();
}

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-ui-', records: 300 });
  ({ base, dir, project, facade, browser } = app);
  // `gf demo create` writes the scripted workflows' ledgers (one tampered) into <project>/chain.
  expect(existsSync(join(dir, 'chain'))).toBe(true);
  page = await browser.context.newPage();
  await page.goto(app.serve.url);
  await page.getByTestId('generation-count').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe(`desktop UI flows (${TRANSPORT}, Chromium)`, () => {
  it('history: every generation newest first, CURRENT, and the active checkpoints as labels', async () => {
    const summary = await call('project.summary', { project });
    const listed = tableFromIPC((await call('checkpoints.list', { project })).bytes);
    const names = listed.getChild('name')!.toArray() as string[];
    await nav('History');
    expect(await page.getByTestId('generation-count').textContent()).toBe(String(summary.generations.length));
    const ids = await page.locator('[data-testid="generation-row"] [data-testid="row-generation"]').allTextContents();
    expect(ids).toEqual(summary.generations.map((g) => g.generation_uuid));
    // CURRENT's row by its status marker (other rows mention CURRENT in their "Diff with CURRENT" action).
    const currentRow = page.locator('[data-testid="generation-row"][data-status="current"]');
    expect(await currentRow.count()).toBe(1);
    expect(await currentRow.getByTestId('row-generation').textContent()).toBe(summary.current!.generation_uuid);
    expect((await page.getByTestId('checkpoint-label').allTextContents()).sort()).toEqual([...names].sort());
    // The deleted demo checkpoint is not among the labels.
    expect(await page.getByTestId('checkpoint-label').filter({ hasText: 'Curation scratch' }).count()).toBe(0);
    // It appears as a tombstone only when asked ("Show deleted checkpoints").
    expect(await page.getByTestId('tombstone-row').count()).toBe(0);
    await page.getByTestId('show-deleted').check();
    await expect.poll(() => page.getByTestId('tombstone-name').allTextContents()).toEqual(['Curation scratch']);
    expect(await page.getByTestId('tombstone-row').textContent()).not.toContain('Release 1.0');
    await shot('history');
    expect(await axeProblems()).toEqual([]);
    await page.getByTestId('show-deleted').uncheck();
    expect(await page.getByTestId('tombstone-row').count()).toBe(0);
  });

  it('checkpoint view: participants by scope with row counts, records paged as you scroll, lookup by identity', async () => {
    const opened = await call('view.open', { project, name: 'Release 1.0' });
    const participants = (await call('view.participants', { view: opened.view })).participants;
    const node = participants.find((p) => p.record_family_id === 'node')!;
    const edge = participants.find((p) => p.record_family_id === 'edge')!;
    const first = tableFromIPC((await call('view.records', { view: opened.view, capability_id: 'graph', record_family_id: 'node', limit: 1 })).bytes);
    await call('view.close', { view: opened.view });

    await page.getByTestId('checkpoint-label').filter({ hasText: 'Release 1.0' }).click();
    await page.getByTestId('participant').first().waitFor();
    expect(await page.getByTestId('participant').count()).toBe(participants.length);
    const graphGroup = page.locator('.scope-group').filter({ has: page.getByRole('heading', { name: 'graph', exact: true }) });
    expect(await graphGroup.getByTestId('participant-rows').allTextContents()).toEqual([`${edge.row_count} rows`, `${node.row_count} rows`]);

    await graphGroup.getByTestId('participant').filter({ hasText: 'graph/edge' }).click();
    const grid = page.getByRole('grid', { name: 'Records of graph/edge' });
    await expect.poll(() => page.getByTestId('records-pages').textContent()).toBe(`100 of ${edge.row_count} loaded in 1 page`);
    // Only the visible rows are in the DOM (virtualized), not the 100 loaded.
    expect(await grid.getByRole('row').count()).toBeLessThan(60);
    // Keyboard: End scrolls to the last loaded row, which asks the engine for the next page.
    await grid.focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.getByTestId('records-pages').textContent()).toBe(`${edge.row_count} of ${edge.row_count} loaded in 2 pages`);
    await shot('checkpoint-view');
    expect(await axeProblems()).toEqual([]);

    await graphGroup.getByTestId('participant').filter({ hasText: 'graph/node' }).click();
    await expect.poll(() => page.getByTestId('records-pages').textContent()).toContain(`of ${node.row_count} loaded`);
    const uuidBytes = first.getChild('node_uuid')!.get(0) as Uint8Array;
    const hex = Buffer.from(uuidBytes).toString('hex');
    const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    await page.getByLabel('node_uuid', { exact: true }).fill(uuid);
    await page.getByRole('button', { name: 'Look up' }).click();
    const result = page.getByTestId('lookup-result');
    await result.waitFor();
    expect(await result.locator('dt', { hasText: 'node_uuid' }).locator('xpath=following-sibling::dd').textContent()).toBe(uuid);
    expect(await result.locator('dt', { hasText: 'label' }).locator('xpath=following-sibling::dd').textContent()).toBe(String(first.getChild('label')!.get(0)));
  });

  it('checkpoint view: the ontology and configuration of the opened checkpoint are what workspace.ontology / workspace.configuration return for its view', async () => {
    const hex = (v: unknown): string | null => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : null);
    const engine = async (name: string) => {
      const v = (await call('view.open', { project, name })).view;
      try {
        const o = tableFromIPC((await call('workspace.ontology', { view: v })).bytes).toArray()[0]!.toJSON() as Record<string, unknown>;
        const c = tableFromIPC((await call('workspace.configuration', { view: v })).bytes).toArray()[0]!.toJSON() as Record<string, unknown>;
        return { o, c };
      } finally {
        await call('view.close', { view: v });
      }
    };
    const shown = async (name: string) => {
      await nav('Checkpoint');
      await page.getByLabel('Checkpoint', { exact: true }).selectOption(name);
      const { o, c } = await engine(name);
      const panel = page.getByTestId('ws-documents');
      await expect.poll(() => panel.getByTestId('ws-ontology-mode').textContent().catch(() => null)).toBe(String(o['mode']));
      expect(await panel.getByTestId('ws-ontology-format').textContent()).toBe(String(o['source_format'] ?? '—'));
      expect(await panel.getByTestId('ws-ontology-version').textContent()).toBe(String(o['contract_version']));
      expect(await panel.getByTestId('ws-ontology-counts').textContent()).toBe(`${String(o['class_count'])} classes · ${String(o['relation_count'])} relations`);
      // Configuration: the mode, every capability setting, every embedding setting, in the document's order.
      const caps = JSON.parse(String(c['capability_configuration'])) as Record<string, Record<string, unknown>>;
      const emb = JSON.parse(String(c['embedding_configuration'])) as Record<string, unknown>;
      const want = [
        ['workspace', 'ontology_mode', String(c['ontology_mode'])],
        ...Object.entries(caps).flatMap(([cap, settings]) => Object.entries(settings).map(([k, v]) => [cap, k, String(v)])),
        ...Object.entries(emb).map(([k, v]) => ['embedding', k, String(v)]),
      ];
      const rows = panel.getByTestId('ws-config-row');
      expect(await rows.count()).toBe(want.length);
      for (let i = 0; i < want.length; i++) expect(await rows.nth(i).locator('td').allTextContents()).toEqual(want[i]);
      return { o, c };
    };

    const advisory = await shown('Graph imported');
    expect(advisory.o['mode']).toBe('advisory');
    const strict = await shown('Release 1.0');
    expect([strict.o['mode'], strict.c['ontology_mode']]).toEqual(['strict', 'strict']);
    const panel = page.getByTestId('ws-documents');
    // The digest is secondary: hidden until asked for.
    expect(await panel.getByTestId('ws-ontology-digest').count()).toBe(0);
    await panel.getByTestId('ws-show-digests').check();
    expect(await panel.getByTestId('ws-ontology-digest').textContent()).toBe(hex(strict.o['canonical_ontology_sha256']));
    expect(await panel.getByTestId('ws-configuration-digest').textContent()).toBe(hex(strict.c['document_sha256']));
    // The canonical ontology is readable on request, and it is the engine's model.
    const content = panel.getByTestId('ws-ontology-content');
    expect(await content.isVisible()).toBe(false);
    await panel.getByText('Canonical ontology', { exact: true }).click();
    expect(JSON.parse((await content.textContent()) ?? '')).toEqual(JSON.parse(String(strict.o['canonical_ontology'])));
    await shot('checkpoint-ontology');
    expect(await axeProblems()).toEqual([]);
    await panel.getByTestId('ws-show-digests').uncheck();
  });

  it('diff: summary counts per participant, swap, record drill-down colour-coded and filterable, changed fields, CSV export', async () => {
    const expected = tableFromIPC((await call('checkpoints.diff', { project, from: 'Graph imported', to: 'Release 1.0', scope: 'all', detail: 'summary', limit: 1000 })).bytes);
    const kinds = expected.getChild('change_kind')!.toArray() as string[];
    const changed = kinds.filter((k) => k !== 'unchanged').length;
    const nodeDiff = tableFromIPC((await call('checkpoints.diff', { project, from: 'Graph imported', to: 'Release 1.0', scope: 'graph', detail: 'records', limit: 10_000 })).bytes);
    const nodeKinds = (nodeDiff.getChild('change_kind')!.toArray() as string[]).filter((_k, i) => nodeDiff.getChild('record_family_id')!.get(i) === 'node');
    const count = (k: string) => nodeKinds.filter((x) => x === k).length;

    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption('Release 1.0');
    await page.getByLabel('To', { exact: true }).selectOption('Graph imported');
    await page.getByRole('button', { name: 'Swap from and to' }).click();
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('Graph imported');
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('Release 1.0');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('diff-result').waitFor();
    expect(await page.getByTestId('diff-changed').textContent()).toBe(String(changed));
    expect(await page.getByTestId('diff-unchanged').textContent()).toBe(String(kinds.length - changed));
    const summaryGrid = page.getByRole('grid', { name: 'Diff summary by participant' });
    expect(await summaryGrid.locator('.grid-data-row').count()).toBe(kinds.length);

    // Keyboard: move to the graph/node row and open it with Enter.
    const families = expected.getChild('record_family_id')!.toArray() as string[];
    const nodeIndex = families.indexOf('node');
    await summaryGrid.focus();
    for (let i = 0; i < nodeIndex; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('record-diff').waitFor();
    await expect.poll(() => page.getByTestId('count-modified').textContent()).toBe(String(count('modified')));
    expect(await page.getByTestId('count-added').textContent()).toBe(String(count('added')));
    expect(await page.getByTestId('count-removed').textContent()).toBe(String(count('removed')));
    const recordGrid = page.getByRole('grid', { name: 'Record changes of node' });
    // The chips are exact from the statistics before any row arrives: wait for the first page of rows.
    await recordGrid.locator('.grid-data-row').first().waitFor();
    if (count('added') > 0) expect(await recordGrid.locator('.grid-data-row.change-added').count()).toBeGreaterThan(0);
    // Filter: only modified rows remain.
    await page.getByRole('checkbox', { name: /added/ }).uncheck();
    await page.getByRole('checkbox', { name: /removed/ }).uncheck();
    // The engine filters: the grid reloads with the modified rows alone (every one of them, one page).
    const loaded = async () => Number(((await page.getByTestId('loaded-rows').textContent()) ?? '').split(' ')[0]!.replace(/,/g, ''));
    await expect.poll(loaded).toBe(count('modified'));
    await recordGrid.locator('.grid-data-row').first().waitFor();
    const classes = await recordGrid.locator('.grid-data-row').evaluateAll((rows) => rows.map((r) => r.className));
    expect(classes.length).toBeGreaterThan(0);
    expect(classes.every((c) => c.includes('change-modified'))).toBe(true);
    // A modified record: its changed fields, before and after.
    await recordGrid.locator('.grid-data-row').first().click();
    const fields = page.getByTestId('changed-fields');
    await fields.waitFor();
    expect(await fields.locator('tbody tr[data-changed="true"]').count()).toBeGreaterThan(0);
    await shot('diff');
    expect(await axeProblems()).toEqual([]);

    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('diff-summary-all.csv');
    const target = join(base, 'export.csv');
    await file.saveAs(target);
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(target, 'utf8').trim().split('\n');
    expect(lines[0]).toContain('change_kind');
    expect(lines.length).toBe(kinds.length + 1);
  });

  it('cancelled diff: Cancel stops it and no half result is shown', async () => {
    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption('Graph imported');
    await page.getByLabel('To', { exact: true }).selectOption('CURRENT');
    // Hold the diff request until Cancel was pressed, so the race is decided, not timed.
    const wire = app.wire(page);
    const held = await wire.hold('checkpoints.diff');
    const settled = wire.next('checkpoints.diff');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('diff-progress').waitFor();
    const cancelled = wire.next('operation.cancel');
    await page.getByTestId('diff-cancel').click();
    await (await cancelled).envelope;
    await held.release();
    // The engine refused the diff as cancelled (the id was cancelled before it ran).
    expect(codeOf(await (await settled).envelope)).toBe('GF_CANCELLED');
    expect(await page.getByTestId('diff-notice').textContent()).toContain('Diff cancelled');
    expect(await page.getByTestId('diff-result').count()).toBe(0);
    expect(await page.getByTestId('diff-progress').count()).toBe(0);
  });

  it('cancelled record diff: Cancel on a loading record page stops the engine call, shows no rows, and Load again shows them all', async () => {
    const recordDiff = tableFromIPC((await call('checkpoints.diff', { project, from: 'Graph imported', to: 'Release 1.0', scope: 'graph', detail: 'records', limit: 10_000 })).bytes);
    const nodeRows = (recordDiff.getChild('record_family_id')!.toArray() as string[]).filter((f) => f === 'node').length;
    expect(nodeRows).toBeGreaterThan(0);
    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption('Graph imported');
    await page.getByLabel('To', { exact: true }).selectOption('Release 1.0');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('diff-result').waitFor();
    // Hold the first record page until Cancel was pressed, so the race is decided, not timed.
    const wire = app.wire(page);
    const isRecordPage = (r: unknown) => (r as { detail?: unknown }).detail === 'records';
    const held = await wire.hold('checkpoints.diff', isRecordPage);
    const settled = wire.next('checkpoints.diff', isRecordPage);
    await page.getByRole('grid', { name: 'Diff summary by participant' }).locator('.grid-data-row').filter({ hasText: 'node' }).first().click();
    const status = page.getByTestId('record-diff-status');
    await status.getByRole('button', { name: 'Cancel' }).waitFor();
    expect(await status.textContent()).toContain('Loading record changes');
    const cancelled = wire.next('operation.cancel');
    await status.getByRole('button', { name: 'Cancel' }).click();
    await (await cancelled).envelope;
    await held.release();
    // The engine refused the page as cancelled (its operation id was cancelled before it ran).
    expect(codeOf(await (await settled).envelope)).toBe('GF_CANCELLED');
    expect(await page.getByTestId('record-diff-notice').textContent()).toBe('Record diff cancelled. No rows are shown.');
    expect(await page.getByRole('grid', { name: 'Record changes of node' }).count()).toBe(0);
    expect(await page.getByTestId('loaded-rows').textContent()).toBe('0 loaded from row 1');
    await shot('diff-cancelled');
    expect(await axeProblems()).toEqual([]);
    // Load again: the whole family diff, nothing missing.
    await page.getByRole('button', { name: 'Load again' }).click();
    const counts = async () => Number(((await page.getByTestId('loaded-rows').textContent()) ?? '').split(' ')[0]!.replace(/,/g, ''));
    const grid = page.getByRole('grid', { name: 'Record changes of node' });
    await grid.waitFor();
    for (let i = 0; i < 100 && (await counts()) < nodeRows; i++) {
      await grid.focus();
      await page.keyboard.press('End');
      await expect.poll(() => grid.getAttribute('aria-busy')).not.toBe('true');
    }
    expect(await counts()).toBe(nodeRows);
    expect(await page.getByTestId('record-diff-notice').count()).toBe(0);
  });

  it('export every record change: a cancelled export writes no file; a finished one leads with the record content the engine gives, for every change of the family', async () => {
    const recordDiff = tableFromIPC((await call('checkpoints.diff', { project, from: 'Graph imported', to: 'Release 1.0', scope: 'graph', detail: 'records', limit: 10_000 })).bytes);
    const families = recordDiff.getChild('record_family_id')!.toArray() as string[];
    const nodeRows = families.filter((f) => f === 'node').length;
    // The record diff of node from the previous test is open. Hold the export's first page until Cancel.
    const wire = app.wire(page);
    const isExportPage = (r: unknown) => (r as { limit?: unknown }).limit === 5000;
    const held = await wire.hold('checkpoints.diff', isExportPage);
    let downloads = 0;
    const counted = () => void downloads++;
    page.on('download', counted);
    const settled = wire.next('checkpoints.diff', isExportPage);
    await page.getByTestId('export-family-csv').click();
    const progress = page.getByTestId('export-progress');
    await progress.waitFor();
    expect(await progress.textContent()).toContain('Exporting record changes (csv)');
    await held.arrived;
    const cancelled = wire.next('operation.cancel');
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await (await cancelled).envelope;
    await held.release();
    expect(codeOf(await (await settled).envelope)).toBe('GF_CANCELLED');
    expect(await page.getByTestId('export-notice').textContent()).toBe('Export cancelled. No file was written.');
    expect(await page.getByTestId('export-progress').count()).toBe(0);
    expect(downloads).toBe(0);
    page.off('download', counted);
    // Uncancelled: the header leads with the content, then one row per node change.
    const download = page.waitForEvent('download');
    await page.getByTestId('export-family-csv').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('diff-records-node.csv');
    const target = join(base, 'records.csv');
    await file.saveAs(target);
    const { readFileSync } = await import('node:fs');
    const [header, ...rows] = parseCsv(readFileSync(target, 'utf8'));
    expect(header!.slice(0, 5)).toEqual(['change_kind', 'record_family_id', 'label', 'kind', 'changed_fields']);
    expect(header!.slice(-5)).toEqual(['scope', 'record_uuid', 'record_identity_fingerprint', 'from_record_fingerprint', 'to_record_fingerprint']);
    expect(rows.length).toBe(nodeRows);
    const cell = (row: readonly string[], column: string) => row[header!.indexOf(column)] ?? '';
    expect(rows.every((r) => cell(r, 'record_family_id') === 'node')).toBe(true);
    // The export's content of a modified record is the engine's: its changed fields, their values before and after, its label.
    const kinds = recordDiff.getChild('change_kind')!.toArray() as string[];
    const at = kinds.findIndex((k, i) => k === 'modified' && families[i] === 'node');
    expect(at).toBeGreaterThanOrEqual(0);
    const hex = Buffer.from(recordDiff.getChild('record_uuid')!.get(at) as Uint8Array).toString('hex');
    const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const expected = await call('checkpoints.record_change', { project, from: 'Graph imported', to: 'Release 1.0', record_family_id: 'node', identity: { node_uuid: uuid } });
    expect(expected.change_kind).toBe('modified');
    expect(expected.changed_fields.length).toBeGreaterThan(0);
    const row = rows.find((r) => cell(r, 'record_uuid') === uuid);
    expect(row).toBeDefined();
    const iso = (us: string) => `${new Date(Number(BigInt(us) / 1000n)).toISOString().slice(0, 19)}.${us.slice(-6)}Z`;
    const text = (f: string, v: unknown) => (v === null || v === undefined ? '' : expected.timestamp_fields.includes(f) ? iso(String(v)) : String(v));
    expect(cell(row!, 'change_kind')).toBe('modified');
    expect(cell(row!, 'label')).toBe(text('label', expected.to?.['label']));
    expect(cell(row!, 'changed_fields')).toBe(expected.changed_fields.join(' '));
    for (const f of expected.changed_fields) {
      expect([f, cell(row!, `${f} before`), cell(row!, `${f} after`)]).toEqual([f, text(f, expected.from?.[f]), text(f, expected.to?.[f])]);
    }
    expect(await page.getByTestId('export-notice').textContent()).toBe(`Exported ${nodeRows.toLocaleString('en-US')} record changes.`);
  });

  it('changed fields against CURRENT: a modified record shows exactly the engine\'s changed fields with before and after values', async () => {
    await nav('Diff');
    await page.getByLabel('From', { exact: true }).selectOption('Graph imported');
    await page.getByLabel('To', { exact: true }).selectOption('CURRENT');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('diff-result').waitFor();
    await page.getByRole('grid', { name: 'Diff summary by participant' }).locator('.grid-data-row').filter({ hasText: 'node' }).first().click();
    await page.getByRole('checkbox', { name: /added/ }).uncheck();
    await page.getByRole('checkbox', { name: /removed/ }).uncheck();
    const grid = page.getByRole('grid', { name: 'Record changes of node' });
    const first = grid.locator('.grid-data-row.change-modified').first();
    await first.waitFor();
    const uuid = (await first.locator('[data-col="record_uuid"]').textContent()) ?? '';
    expect(uuid).toMatch(/^[0-9a-f]{8}-/);
    await first.click();
    const expected = await call('checkpoints.record_change', { project, from: 'Graph imported', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuid } });
    expect(expected.change_kind).toBe('modified');
    expect(expected.changed_fields.length).toBeGreaterThan(0);
    const table = page.getByTestId('changed-fields');
    await table.waitFor();
    expect(await table.locator('caption').textContent()).toBe(`modified record, every field (Graph imported → CURRENT): ${expected.changed_fields.length} changed, highlighted`);
    const shown = await table.locator('tbody tr[data-changed="true"]').evaluateAll((rows) => rows.map((r) => [(r as HTMLElement).dataset['field'] ?? '', ...Array.from(r.querySelectorAll('td'), (c) => c.textContent ?? '')]));
    // Timestamps (UTC microseconds) are shown as ISO 8601 with six fraction digits.
    const iso = (us: string) => `${new Date(Number(BigInt(us) / 1000n)).toISOString().slice(0, 19)}.${us.slice(-6)}Z`;
    const text = (f: string, v: unknown) => (v === null || v === undefined ? '—' : expected.timestamp_fields.includes(f) ? iso(String(v)) : String(v));
    expect(expected.changed_fields.some((f) => expected.timestamp_fields.includes(f))).toBe(true);
    expect(shown).toEqual(expected.changed_fields.map((f) => [f, text(f, expected.from?.[f]), text(f, expected.to?.[f])]));
  });

  it('changed fields of a family without record_uuid: the configuration entry the demo modifies shows the engine\'s before and after', async () => {
    // What the engine says: the family-scoped record diff of configuration, and its modified entry by the row's identity fingerprint.
    const diff = tableFromIPC((await call('checkpoints.diff', { project, from: 'Graph imported', to: 'CURRENT', scope: 'configuration', detail: 'records', record_family_id: 'configuration', limit: 100 })).bytes);
    const kinds = diff.getChild('change_kind')!.toArray() as string[];
    const at = kinds.indexOf('modified');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(diff.getChild('record_uuid')!.get(at)).toBeNull();
    const fingerprint = Buffer.from(diff.getChild('record_identity_fingerprint')!.get(at) as Uint8Array).toString('hex');
    const expected = await call('checkpoints.record_change', { project, from: 'Graph imported', to: 'CURRENT', record_family_id: 'configuration', record_identity_fingerprint: fingerprint });
    expect(expected.change_kind).toBe('modified');
    expect(expected.changed_fields).toEqual(['value']);
    // Named by its identity value instead (configuration is one document: rows {field, value}, identity `field`), the engine gives the same answer.
    const byField = await call('checkpoints.record_change', { project, from: 'Graph imported', to: 'CURRENT', record_family_id: 'configuration', identity: { field: String(expected.from?.['field']) } });
    expect(byField).toEqual(expected);

    // The diff from the previous test (Graph imported → CURRENT) is shown; drill into configuration.
    const asked = app.wire(page).next('checkpoints.diff', (r) => (r as { detail?: unknown }).detail === 'records');
    await page.getByRole('grid', { name: 'Diff summary by participant' }).locator('.grid-data-row').filter({ hasText: 'configuration' }).first().click();
    // The drill-down asks the engine for this family alone (no client-side filtering of the scope's rows).
    const body = (await asked).request as Record<string, unknown>;
    expect([body['record_family_id'], body['capability_id'], body['scope']]).toEqual(['configuration', 'workspace', 'configuration']);
    const grid = page.getByRole('grid', { name: 'Record changes of configuration' });
    await expect.poll(() => page.getByTestId('count-modified').textContent()).toBe(String(kinds.filter((k) => k === 'modified').length));
    expect(await page.getByTestId('count-added').textContent()).toBe(String(kinds.filter((k) => k === 'added').length));
    expect(await page.getByTestId('count-removed').textContent()).toBe(String(kinds.filter((k) => k === 'removed').length));
    const row = grid.locator('.grid-data-row.change-modified').filter({ has: page.locator(`[title="${fingerprint}"]`) });
    await row.click();
    const table = page.getByTestId('changed-fields');
    await table.waitFor();
    expect(await table.locator('caption').textContent()).toBe('modified record, every field (Graph imported → CURRENT): 1 changed, highlighted');
    const shown = await table.locator('tbody tr[data-changed="true"]').evaluateAll((rows) => rows.map((r) => [(r as HTMLElement).dataset['field'] ?? '', ...Array.from(r.querySelectorAll('td'), (c) => c.textContent ?? '')]));
    expect(shown).toEqual([['value', String(expected.from?.['value']), String(expected.to?.['value'])]]);
  });

  it('ledgers: workflows with integrity badges, the tampered chain at its sequence, a chain table with evidence links, store health', async () => {
    const verify = await call('chain.verify', { project });
    await nav('Ledgers');
    await expect.poll(() => page.getByTestId('workflow-row').count()).toBe(verify.results.length);
    await expect.poll(() => page.getByTestId('verify-status').first().textContent()).not.toBe('not verified');
    for (const r of verify.results) {
      const row = page.getByTestId('workflow-row').filter({ hasText: r.workflow_id });
      const text = r.status === 'ok' ? 'ok' : r.status === 'chain_mismatch' ? `chain_mismatch at sequence ${r.first_bad_sequence}` : 'torn write';
      expect(await row.getByTestId('verify-status').textContent()).toContain(text);
    }
    expect(await page.getByTestId('workflow-row').filter({ hasText: 'demo-tampered' }).getByTestId('verify-status').textContent()).toBe('chain_mismatch at sequence 2');
    const clean = verify.results.find((r) => r.workflow_id === 'demo-clean-completion')!;
    await page.getByTestId('workflow-id').filter({ hasText: 'demo-clean-completion' }).click();
    const chain = page.getByRole('grid', { name: 'Transitions of demo-clean-completion' });
    await expect.poll(() => chain.locator('.grid-data-row').count()).toBe(clean.rows);
    expect(await page.getByTestId('evidence-link').count()).toBeGreaterThan(0);
    await page.getByTestId('verify-one').click();
    await expect.poll(() => page.getByTestId('chain-verify-status').textContent()).toBe('ok');
    expect(await page.getByTestId('health-backend').textContent()).toBe('sqlite');
    await shot('ledgers');
    expect(await axeProblems()).toEqual([]);
  });

  it('one request where screens made two or three: Ledgers open, revert preview, checkpoint participants (request log)', async () => {
    const recording = app.wire(page).record();
    const asked = recording.ops;
    try {
      await nav('History');
      asked.length = 0;
      // Ledgers: chain.list carries each workflow's latest state and verdict (no chain.read per workflow, no chain.verify).
      await nav('Ledgers');
      await expect.poll(() => asked.includes('chain.health')).toBe(true);
      expect(asked.filter((op) => op.startsWith('chain.'))).toEqual(['chain.list', 'chain.health']);
      expect(await page.getByTestId('workflow-row').filter({ hasText: 'demo-tampered' }).getByTestId('verify-status').textContent()).toBe('chain_mismatch at sequence 2');

      // Revert preview: one revert.preview per chosen checkpoint, no second diff.
      asked.length = 0;
      await nav('Revert');
      await page.getByTestId('revert-preview').waitFor();
      expect(asked.filter((op) => op === 'revert.preview' || op === 'checkpoints.diff')).toEqual(['revert.preview']);

      // Checkpoint view: its participants (with their registry scopes) in one view.participants call.
      asked.length = 0;
      await nav('Checkpoint');
      await page.getByTestId('participant').first().waitFor();
      expect(asked.filter((op) => op.startsWith('view.'))).toEqual(['view.open', 'view.participants']);
    } finally {
      recording.stop();
    }
  });

  it('create checkpoint: invalid name refused as typed with the engine rule, valid name created, delete after confirmation', async () => {
    await nav('History');
    await page.getByTestId('create-checkpoint').click();
    const dialog = page.getByRole('dialog', { name: 'Create a checkpoint' });
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    await dialog.getByLabel('Name').fill('notes/draft');
    expect(await dialog.getByTestId('name-problem').textContent()).toBe('A name cannot contain "/" or "\\" (names are never paths).');
    expect(await dialog.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Name').fill('Release 1.0');
    expect(await dialog.getByTestId('name-problem').textContent()).toBe('A checkpoint with this name already exists.');
    await dialog.getByLabel('Name').fill('Reviewed by UI');
    await shot('create-checkpoint');
    expect(await axeProblems()).toEqual([]);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
    const label = page.getByTestId('checkpoint-label').filter({ hasText: 'Reviewed by UI' });
    await label.waitFor();
    const current = (await call('project.summary', { project })).current!.generation_uuid;
    expect(await page.getByTestId('generation-row').filter({ has: label }).getByTestId('row-generation').textContent()).toBe(current);

    await page.getByRole('button', { name: 'Delete checkpoint Reviewed by UI' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete checkpoint “Reviewed by UI”?' });
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    expect(await label.count()).toBe(1);
    await page.getByRole('button', { name: 'Delete checkpoint Reviewed by UI' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await label.waitFor({ state: 'detached' });
    const names = tableFromIPC((await call('checkpoints.list', { project })).bytes).getChild('name')!.toArray() as string[];
    expect(names).not.toContain('Reviewed by UI');
  });

  it('busy writer: creating a checkpoint while another process holds the writer lock shows GF_WRITER_BUSY and changes nothing', async () => {
    const holder = await openProject(dir, { catalog: registryCatalog });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const writer = holder.withWriter(async () => {
      locked();
      await held;
    });
    await isLocked;
    try {
      await page.getByTestId('create-checkpoint').click();
      const dialog = page.getByRole('dialog', { name: 'Create a checkpoint' });
      await dialog.getByLabel('Name').fill('While busy');
      await dialog.getByRole('button', { name: 'Create' }).click();
      const err = dialog.getByTestId('create-error');
      await err.waitFor();
      expect(await err.getByTestId('create-error-code').textContent()).toBe('GF_WRITER_BUSY');
      expect(await err.textContent()).toContain('Wait for it to finish');
      await shot('error-writer-busy');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    } finally {
      release();
      await writer;
    }
    const names = tableFromIPC((await call('checkpoints.list', { project })).bytes).getChild('name')!.toArray() as string[];
    expect(names).not.toContain('While busy');
  });

  it('guided revert: preview, empty reason refused, confirm by name, receipt, history updated, retry shows the original receipt', async () => {
    // Revert is wired: the session offers it, and the screen must work (no gate, no skip).
    const session = await call('app.session', {});
    expect(session.operations).toEqual(expect.arrayContaining(['checkpoints.revert', 'revert.preview']));
    const before = await call('project.summary', { project });
    await nav('Revert');
    await page.getByLabel('Checkpoint', { exact: true }).selectOption('Graph imported');
    await page.getByTestId('revert-preview').waitFor();
    expect(Number(await page.getByTestId('revert-change-count').textContent())).toBeGreaterThan(0);
    await page.getByLabel('Reason (required)').fill('   ');
    expect(await page.getByTestId('reason-problem').textContent()).toBe('A reason is required (1–1,024 UTF-8 bytes).');
    await page.getByLabel(/Type the checkpoint name/).fill('Graph imported');
    // Disabled (not a button that silently does nothing) while the reason is blank, and says why.
    expect(await page.getByTestId('revert-submit').isDisabled()).toBe(true);
    expect(await page.getByTestId('revert-blocked').textContent()).toBe('Revert needs a reason (1 to 1,024 bytes).');
    await page.getByLabel('Reason (required)').fill('curation broke the graph');
    expect(await page.getByTestId('reason-problem').textContent()).toBe('24 / 1,024 bytes');
    // The first attempt commits on the engine but its answer is lost on the way back (as after a crash of the window).
    const lost = await app.wire(page).loseAnswer('checkpoints.revert');
    await page.getByTestId('revert-submit').click();
    await page.getByTestId('revert-error').waitFor();
    expect((await lost.answered).ok).toBe(true);
    // Browser mode lost its server; the desktop has no server to lose (a reply main never gave is a defect), and says nothing of one.
    expect(await page.getByTestId('revert-error-code').textContent()).toBe(TRANSPORT === 'http' ? 'GF_SERVER_UNREACHABLE' : 'GF_INTERNAL');
    if (TRANSPORT === 'ipc') expect(await page.getByTestId('revert-error').textContent()).not.toMatch(/server|npm start|gf serve/i);
    const mid = await call('project.summary', { project });
    expect(mid.current!.generation_uuid).not.toBe(before.current!.generation_uuid);
    // The live update recomputes the preview against the new CURRENT, which already has the target's content:
    // Revert now asks to confirm a same-content publication before it is enabled again.
    await page.getByTestId('revert-same-content').waitFor();
    expect(await page.getByTestId('revert-submit').isDisabled()).toBe(true);
    expect(await page.getByTestId('revert-blocked').textContent()).toBe('Confirm that you want to publish a generation that only records this revert.');
    await page.getByTestId('revert-same-confirm').check();
    // Retrying reuses the request's idempotency key: the original receipt, not a second revert.
    await page.getByTestId('revert-submit').click();
    const receipt = page.getByTestId('revert-receipt');
    await receipt.waitFor();
    const after = await call('project.summary', { project });
    expect(after.current!.generation_uuid).toBe(mid.current!.generation_uuid);
    expect(await page.getByTestId('receipt-generation').textContent()).toBe(after.current!.generation_uuid);
    const listed = tableFromIPC((await call('checkpoints.list', { project })).bytes);
    const names = listed.getChild('name')!.toArray() as string[];
    const gi = names.indexOf('Graph imported');
    const target = Buffer.from(listed.getChild('generation_uuid')!.get(gi) as Uint8Array).toString('hex');
    expect(after.generations[0]!.restoration?.source_generation_uuid.replace(/-/g, '')).toBe(target);
    await shot('revert-receipt');
    expect(await axeProblems()).toEqual([]);
    await page.getByRole('button', { name: 'See it in the history' }).click();
    // History counts every publication of the lineage log (retention-pruned ones included), not only the retained generations.
    const published = (await call('history.list', { project, limit: 1 })).total_records;
    expect(published).toBeGreaterThanOrEqual(after.generations.length);
    // Until history.list answers, the header shows the summary's retained generations: wait for the log's count.
    await expect.poll(() => page.getByTestId('generation-count').textContent()).toBe(published.toLocaleString('en-US'));
    const first = page.getByTestId('generation-row').first();
    await expect.poll(() => first.getByTestId('row-generation').textContent()).toBe(after.current!.generation_uuid);
    expect(await first.getByTestId('produced-by').textContent()).toContain('revert to Graph imported');
  });

  it('corrupt and unsupported workspaces: the open screen shows the GF code and what to do, never a blank page', async () => {
    const corrupt = join(base, 'corrupt');
    mkdirSync(corrupt);
    writeFileSync(join(corrupt, 'FORMAT'), 'graphforge-project/v1\n');
    const unsupported = join(base, 'unsupported');
    mkdirSync(unsupported);
    writeFileSync(join(unsupported, 'FORMAT'), 'graphforge-project/v9\n');
    await nav('Workspaces');
    await page.getByLabel('Workspace folder (absolute path)').fill(corrupt);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const err = page.getByTestId('open-error');
    await err.waitFor();
    expect(await err.getByTestId('open-error-code').textContent()).toBe('GF_PROJECT_CORRUPT');
    expect(await err.textContent()).toContain('Restore the folder from a backup');
    expect(await err.textContent()).not.toContain(corrupt);
    await shot('error-corrupt-project');
    expect(await axeProblems()).toEqual([]);
    await page.getByLabel('Workspace folder (absolute path)').fill(unsupported);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect.poll(() => err.getByTestId('open-error-code').textContent()).toBe('GF_UNSUPPORTED_PROJECT_FORMAT');
    // The workspace that was open is still open and listed as a recent one.
    expect(await page.getByTestId('project-label').textContent()).toBe('demo');
    await page.getByRole('list', { name: 'Recent workspaces' }).waitFor({ state: 'detached' }).catch(() => undefined);
  });
});
