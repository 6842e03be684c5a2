// The reviewer's diff (issue 18) and the checkpoint view's lease (issue 20) in
// the harness's Chromium (browser mode through `gf serve`) on a demo created
// once for this file. Expected values come from the engine itself (an
// in-process facade over the same workspace). Screenshots of each state go to
// test-results/screens/; axe-core checks each for serious or critical
// violations; expand, filter and jump are driven by the keyboard alone.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { tableFromIPC } from 'apache-arrow';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult, JsonResults, OperationName } from '../core/contract/operations';
import { microsIso } from '../core/contract/time';
import { createFacade, type Facade } from '../core/api/facade';
import { API_PREFIX, decodeHttpResponse, unwrapEnvelope } from '../core/contract/wire';
import { ROOT, RESULTS_DIR, ensureBuilt, launchChromium, startServe, type BrowserHandle, type ServeHandle } from './support/browser';

/**
 * Records of the demo. The reviewer works on 200,000 records; this
 * file uses a smaller demo so that it stays within its share of the suite's
 * budget on two shared cores (the engine's 200k/1M figures are benchmarks).
 */
const RECORDS = 300;
const SCREENS_DIR = join(RESULTS_DIR, 'screens');
let base: string;
let dir: string;
let serve: ServeHandle;
let browser: BrowserHandle;
let facade: Facade;
let project: string;
let page: Page;

async function call<N extends OperationName>(op: N, request: unknown): Promise<N extends 'checkpoints.list' | 'checkpoints.diff' | 'view.records' | 'view.record' ? ArrowResult : N extends keyof JsonResults ? JsonResults[N] : ArrowResult> {
  return unwrapEnvelope(await facade.dispatcher.dispatch(op, request)) as never;
}

/** Calls the running `gf serve` directly (what its session table holds, not what the page believes). */
async function served(op: OperationName, request: unknown): Promise<{ ok: true } | { ok: false; code: string }> {
  const res = await fetch(`${serve.origin}${API_PREFIX}${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
    body: JSON.stringify(request),
  });
  const env = await decodeHttpResponse(res);
  return env.ok ? { ok: true } : { ok: false, code: env.error.code };
}

async function shot(name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`), fullPage: true });
}

/** Serious or critical axe violations on the current page (ids and targets only). */
async function axeProblems(): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function nav(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: label, exact: true }).click();
}

/** Every `view.open` answer and `view.close` request the page makes. */
const opened: string[] = [];
const closed: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  base = mkdtempSync(join(tmpdir(), 'gf-reviewer-'));
  dir = join(base, 'demo');
  execFileSync(process.execPath, [join(ROOT, 'bin/gf.mjs'), 'demo', 'create', dir, '--records', String(RECORDS)], { cwd: ROOT, stdio: 'ignore' });
  facade = createFacade({ mode: 'library' });
  project = (await call('project.open', { path: dir })).project;
  serve = await startServe(['--project', dir]);
  browser = await launchChromium();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
  page = await browser.context.newPage();
  page.on('request', (r) => {
    if (r.url().endsWith(`${API_PREFIX}view.close`)) closed.push(String((JSON.parse(r.postData() ?? '{}') as { view?: unknown }).view));
  });
  page.on('response', (r) => {
    if (!r.url().endsWith(`${API_PREFIX}view.open`) || r.status() !== 200) return;
    void r.json().then((env: { ok?: boolean; value?: { view?: string } }) => {
      if (env.ok === true && typeof env.value?.view === 'string') opened.push(env.value.view);
    });
  });
  await page.goto(serve.url);
  await page.getByTestId('generation-count').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await facade?.close();
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
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
    await expect.poll(() => opened.length).toBeGreaterThan(0);
    const mine = opened[opened.length - 1]!;
    expect(await served('view.participants', { view: mine })).toEqual({ ok: true });
    await nav('History');
    await expect.poll(() => closed).toContain(mine);
    await expect.poll(() => served('view.participants', { view: mine })).toEqual({ ok: false, code: 'GF_VALIDATION' });
  });

  it('a view whose open answers after the screen unmounted is closed as soon as its handle arrives', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: (view: string) => void;
    const handle = new Promise<string>((r) => (arrived = r));
    // The server opens the view at once (its lease is taken); the page sees the answer only after the gate.
    await page.route(`**${API_PREFIX}view.open`, async (route: Route) => {
      const res = await route.fetch();
      const env = (await res.json()) as { value: { view: string } };
      arrived(env.value.view);
      await gate;
      await route.fulfill({ response: res });
    });
    await nav('History');
    await nav('Checkpoint');
    const view = await handle;
    expect(await served('view.participants', { view })).toEqual({ ok: true });
    // Unmount before view.open resolved in the page.
    await nav('History');
    await page.getByTestId('generation-count').waitFor();
    release();
    await expect.poll(() => closed).toContain(view);
    await expect.poll(() => served('view.participants', { view })).toEqual({ ok: false, code: 'GF_VALIDATION' });
    await page.unroute(`**${API_PREFIX}view.open`);
    // Every view the page opened in this file is closed.
    await expect.poll(() => opened.filter((v) => !closed.includes(v))).toEqual([]);
  });
});
