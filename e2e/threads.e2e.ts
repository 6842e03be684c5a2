// Issue 17 in real Chromium (in both transports: browser mode through `gf serve`, and
// the Electron-shaped path through the real preload and IPC handlers) on the smallest
// demo: the Agent threads screen opens the demo's langgraph.sqlite by
// default, lists its threads (search by prefix), opens an interrupted one,
// diffs two checkpoints, restores one with a reason and shows the receipt and
// the new head; bad input reads in plain language with its code second.
// Expected values come from the engine (an in-process facade over the same
// database); waits are on the DOM, never sleeps.
import { exactUtc } from '../core/contract/format';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodeOf } from '../core/contract/errors';
import type { JsonResults, OperationName } from '../core/contract/operations';
import { axeProblems, shot, startDemoApp, type DemoApp } from './support/demo-app';

let app: DemoApp;
let dir: string;
let db: string;
let page: Page;
let browser: DemoApp['browser'];
let serve: DemoApp['serve'];

async function call<N extends OperationName & keyof JsonResults>(op: N, request: unknown): Promise<JsonResults[N]> {
  return (await app.call(op, request)) as JsonResults[N];
}

/** The data rows of a grid (its header row excluded). */
const gridRows = (testId: string): Locator => page.getByTestId(testId).locator('[role="row"].grid-data-row');
const source = () => ({ kind: 'sqlite', path: db });

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-t17u-', records: 10 });
  ({ dir, browser, serve } = app);
  db = join(app.base, 'langgraph.sqlite');
  page = await browser.context.newPage();
  await page.goto(`${serve.url}#/threads`);
  await gridRows('threads-list').first().waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('Agent threads (issue 17, Chromium)', () => {
  it("opens the demo's langgraph.sqlite by default and lists exactly the engine's threads, interrupted ones flagged; the adapter has never written", async () => {
    expect(await page.getByTestId('threads-current-source').textContent()).toBe(`Reading: ${db}`);
    expect(page.url()).toContain(`#/threads?source=${encodeURIComponent(db)}`);
    const listed = await call('threads.list', { source: source() });
    expect(listed.rows.length).toBeGreaterThanOrEqual(12);
    await expect.poll(() => gridRows('threads-list').count()).toBe(listed.rows.length);
    const shown = await gridRows('threads-list').locator('[data-col="thread_id"]').allTextContents();
    expect(shown).toEqual(listed.rows.map((r) => r.thread_id));
    const waiting = await gridRows('threads-list').filter({ hasText: 'waiting for an answer' }).locator('[data-col="thread_id"]').allTextContents();
    expect(waiting).toEqual(listed.rows.filter((r) => r.interrupted).map((r) => r.thread_id));
    expect(waiting.length).toBeGreaterThan(0);
    await page.getByTestId('health-last-write').waitFor();
    expect(await page.getByTestId('health-last-write').textContent()).toBe('never');
    expect(await page.getByTestId('threads-no-postgres').isVisible()).toBe(true);
    await shot(page, 'threads-list');
    expect(await axeProblems(page)).toEqual([]);
  });

  it('searches by thread id prefix in the engine', async () => {
    await page.getByLabel('Thread id starts with').fill('review-1');
    const expected = (await call('threads.list', { source: source(), prefix: 'review-1' })).rows.map((r) => r.thread_id);
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(async () => gridRows('threads-list').locator('[data-col="thread_id"]').allTextContents()).toEqual(expected);
    await page.getByLabel('Thread id starts with').fill('');
    await expect.poll(() => gridRows('threads-list').count()).toBeGreaterThan(expected.length);
  });

  it("opens an interrupted thread: its history is the engine's, newest first, and the inspector calls out the interrupt", async () => {
    const rows = (await call('threads.list', { source: source() })).rows;
    const index = rows.findIndex((r) => r.interrupted);
    const thread = rows[index]!.thread_id;
    // Keyboard only: the thread grid takes focus, arrows move, Enter opens.
    await page.getByRole('grid', { name: 'Threads' }).focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain(`thread=${thread}`);
    const history = await call('threads.history', { source: source(), thread_id: thread });
    await expect.poll(() => gridRows('thread-history').count()).toBe(history.rows.length);
    // Local time and a relative form on screen; the exact UTC value in the attribute (microseconds) and on hover.
    expect(await gridRows('thread-history').locator('[data-col="time"] time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')))).toEqual(history.rows.map((r) => exactUtc(r.time)));
    const state = await call('threads.state', { source: source(), thread_id: thread });
    expect(state.interrupts.length).toBeGreaterThan(0);
    await page.getByTestId('state-interrupts').waitFor();
    expect(await page.getByTestId('state-head').count()).toBe(1);
    expect(await page.getByTestId('state-next').textContent()).toBe(state.next.join(', '));
    // The JSON tree is keyboard operable: a channel opens with Enter on its summary.
    const topic = page.getByTestId('state-value-topic');
    expect(await topic.textContent()).toContain(JSON.stringify(state.values.find((v) => v.channel === 'topic')!.value));
    const findings = page.getByTestId('state-value-findings').locator('summary').first();
    await findings.focus();
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('state-value-findings').locator('details').first().getAttribute('open')).not.toBeNull();
    await shot(page, 'threads-interrupted'); // axe runs on this page with the diff added, next
  });

  it("diffs two checkpoints: the channel summary and value changes are the engine's", async () => {
    const thread = (await call('threads.list', { source: source() })).rows.find((r) => r.interrupted)!.thread_id;
    const history = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    const from = history[history.length - 1]!.checkpoint_id;
    const to = history[0]!.checkpoint_id;
    await page.getByLabel('From', { exact: true }).selectOption(from);
    await page.getByLabel('To', { exact: true }).selectOption(to);
    const diff = await call('threads.diff', { source: source(), thread_id: thread, from, to });
    expect(diff.total_changes).toBeGreaterThan(0);
    await page.getByTestId('thread-diff-total').waitFor();
    expect(await page.getByTestId('thread-diff-total').textContent()).toContain(diff.total_changes.toLocaleString('en-US'));
    expect(await page.getByTestId('thread-diff-channel').count()).toBe(diff.channels.length);
    await expect.poll(() => gridRows('thread-diff-rows').count()).toBe(Math.min(diff.rows.length, diff.total_changes));
    expect(await gridRows('thread-diff-rows').first().locator('[data-col="pointer"]').textContent()).toBe(diff.rows[0]!.pointer);
    expect(page.url()).toContain(`from=${from}`);
    await shot(page, 'threads-diff');
    expect(await axeProblems(page)).toEqual([]);
  });

  it('restores a checkpoint with a reason: preview from the head, typed confirmation, the receipt, and the new head in the history', async () => {
    const thread = (await call('threads.list', { source: source() })).rows.find((r) => r.interrupted)!.thread_id;
    const before = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    const target = before[2]!;
    // By its checkpoint id: two checkpoints written in the same millisecond share a time.
    await gridRows('thread-history').filter({ has: page.locator(`[data-col="checkpoint_id"][title="${target.checkpoint_id}"]`) }).click();
    const preview = await call('threads.diff', { source: source(), thread_id: thread, from: 'HEAD', to: target.checkpoint_id });
    await page.getByTestId('restore-preview-total').waitFor();
    expect(await page.getByTestId('restore-preview-total').textContent()).toContain(preview.total_changes.toLocaleString('en-US'));
    // A blank reason is refused as typed (the contract's rule), and Restore stays disabled.
    await page.getByLabel('Reason (required)').fill('   ');
    expect(await page.getByTestId('restore-reason-problem').textContent()).toMatch(/reason/i);
    expect(await page.getByTestId('restore-submit').isDisabled()).toBe(true);
    const reason = 'the extraction was rerun on the wrong sources';
    await page.getByLabel('Reason (required)').fill(reason);
    expect(await page.getByTestId('restore-submit').isDisabled()).toBe(true);
    await page.getByLabel(/Type the thread id to confirm/).fill(thread);
    await page.getByTestId('restore-submit').click();
    await page.getByTestId('restore-receipt').waitFor();
    const after = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    expect(after.length).toBe(before.length + 1);
    const head = after[0]!;
    expect(head.restored_from).toBe(target.checkpoint_id);
    expect(await page.getByTestId('receipt-new-head').textContent()).toBe(head.checkpoint_id);
    expect(await page.getByTestId('receipt-restored-from').textContent()).toBe(target.checkpoint_id);
    expect(await page.getByTestId('receipt-reason').textContent()).toBe(reason);
    // The history reloads with the new head first; the health now has a write.
    await expect.poll(() => gridRows('thread-history').count()).toBe(after.length);
    expect(await gridRows('thread-history').first().locator('[data-col="checkpoint_id"]').getAttribute('title')).toBe(head.checkpoint_id);
    await expect.poll(() => page.getByTestId('health-last-write').textContent()).not.toBe('never');
    await page.getByTestId('receipt-inspect').click();
    await page.getByTestId('restore-is-head').waitFor();
    const state = await call('threads.state', { source: source(), thread_id: thread });
    expect(state.checkpoint_id).toBe(head.checkpoint_id);
    expect(await page.getByTestId('state-next').textContent()).toBe(state.next.join(', '));
    await shot(page, 'threads-restore-receipt');
    expect(await axeProblems(page)).toEqual([]);
  });

  it('prunes old checkpoints of one thread: the preview first (times lead), a reason, a database changed since the preview is refused and previewed again, then the receipt', async () => {
    const rows = (await call('threads.list', { source: source() })).rows;
    const thread = rows.find((r) => !r.interrupted && r.checkpoint_count >= 4)!.thread_id;
    const before = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    await page.goto(app.link(`#/threads?source=${encodeURIComponent(db)}&thread=${encodeURIComponent(thread)}`));
    await gridRows('thread-history').first().waitFor();
    await page.getByLabel('Checkpoints each thread keeps (newest)').fill('1');
    await page.getByLabel(`only “${thread}”`).check();
    await page.getByTestId('prune-preview-submit').click();
    await page.getByTestId('prune-preview-total').waitFor();
    const preview = await call('threads.prune_preview', { source: source(), keep_last: 1, thread_id: thread, limit: 500 });
    expect(preview.total).toBeGreaterThan(0);
    expect(await page.getByTestId('prune-preview-total').textContent()).toContain(`${preview.total.toLocaleString('en-US')} checkpoint`);
    await expect.poll(() => gridRows('prune-preview-rows').count()).toBe(preview.rows.length);
    expect(await gridRows('prune-preview-rows').locator('[data-col="checkpoint_id"]').evaluateAll((cells) => cells.map((c) => c.getAttribute('title')))).toEqual(preview.rows.map((r) => r.checkpoint_id));
    expect(await gridRows('prune-preview-rows').first().locator('[data-col="time"] time').getAttribute('datetime')).toBe(exactUtc(preview.rows[0]!.time!));
    expect(await page.getByTestId('prune-submit').isDisabled()).toBe(true); // no reason yet
    await page.locator('#prune-reason').fill('old extraction runs');
    expect(await page.getByTestId('prune-submit').isEnabled()).toBe(true);
    await shot(page, 'threads-prune-preview');
    expect(await axeProblems(page)).toEqual([]);

    // Another client restores first: the old head becomes an older checkpoint, so the set changed under the preview.
    await call('threads.restore', { source: source(), thread_id: thread, checkpoint_id: before[before.length - 1]!.checkpoint_id, reason: 'another client', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000033e1' });
    const moved = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    await page.getByTestId('prune-submit').click();
    await page.getByTestId('prune-stale').waitFor();
    expect((await call('threads.history', { source: source(), thread_id: thread })).rows.length).toBe(moved.length); // nothing deleted
    const again = await call('threads.prune_preview', { source: source(), keep_last: 1, thread_id: thread, limit: 500 });
    expect(again.preview_digest).not.toBe(preview.preview_digest);
    await expect.poll(() => page.getByTestId('prune-preview-total').textContent()).toContain(`${again.total.toLocaleString('en-US')} checkpoint`);
    await page.getByTestId('prune-submit').click();
    await page.getByTestId('prune-receipt').waitFor();
    expect(await page.getByTestId('prune-receipt-reason').textContent()).toBe('old extraction runs');
    const gone = new Set(again.rows.map((r) => r.checkpoint_id));
    const after = (await call('threads.history', { source: source(), thread_id: thread })).rows;
    expect(after.map((r) => r.checkpoint_id)).toEqual(moved.map((r) => r.checkpoint_id).filter((id) => !gone.has(id)));
    await expect.poll(() => gridRows('thread-history').count()).toBe(after.length);
    await shot(page, 'threads-prune-receipt');
  });

  it('a deep link lands on its thread and checkpoint', async () => {
    const thread = (await call('threads.list', { source: source() })).rows[0]!;
    const second = await browser.context.newPage();
    await second.goto(app.link(`#/threads?source=${encodeURIComponent(db)}&thread=${encodeURIComponent(thread.thread_id)}&checkpoint=${encodeURIComponent(thread.latest_checkpoint_id)}`));
    await second.getByTestId('state-head').waitFor();
    await second.getByLabel('Show technical details').check();
    expect(await second.getByTestId('state-checkpoint-id').textContent()).toBe(thread.latest_checkpoint_id);
    await second.close();
  });

  it('bad input reads in plain language, the code second: a file that is not SQLite, a relative path', async () => {
    const notSqlite = join(dir, 'FORMAT');
    const engine = await call('threads.list', { source: { kind: 'sqlite', path: notSqlite } }).then(() => null, (e: unknown) => e as Error);
    expect(errorCodeOf(engine)).toBe('GF_IO');
    await page.getByLabel('SQLite checkpoint database (absolute path)').fill(notSqlite);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByTestId('threads-error').waitFor();
    expect(await page.getByTestId('threads-error-message').textContent()).toBe('The file is not a SQLite database');
    expect(engine!.message).toContain('the file is not a SQLite database');
    expect(await page.getByTestId('threads-error-code').textContent()).toBe('GF_IO');
    await shot(page, 'threads-not-sqlite');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByLabel('SQLite checkpoint database (absolute path)').fill('langgraph.sqlite');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect.poll(() => page.getByTestId('threads-error-code').textContent()).toBe('GF_VALIDATION');
    // The demo database answered before: it is among the recents, one click away.
    await page.getByText(/Recent databases/).click();
    await page.getByRole('button', { name: db }).click();
    await expect.poll(() => gridRows('threads-list').count()).toBeGreaterThanOrEqual(12);
  });
});
