// Who did what, when, and safely, in real Chromium over `gf serve` on the
// demo: the app user's identity (named in the header, stored in the app's
// configuration folder), the actor shown after a revert and a thread restore,
// the thread history row's restore reason, ledger evidence naming who
// published the generation it links to, two tabs whose preview went stale
// (refused by the engine or seen by the page, confirmed again), a deep link
// without the token, and a stopped server (one banner, polling stopped:
// requests counted under a page clock the test drives). Expected values come
// from the engine (an in-process facade over the same workspace and the same
// configuration folder); waits are on the DOM or on the page's own clock.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeArrow } from '../renderer/arrow-rows';
import type { JsonResults, OperationName } from '../core/contract/operations';
import { SqliteChainStore } from '../core/chain/sqlite/sqlite-store';
import { runScript, SCRIPTS } from '../core/chain/scenarios';
import { NO_LINKED_GENERATION } from '../core/contract/chain';
import { TRANSPORT } from './support/app';
import { axeProblems, shot, startDemoApp, type DemoApp } from './support/demo-app';

const NAME = 'Ada Reviewer';
let app: DemoApp;
let page: Page;

async function call<N extends OperationName & keyof JsonResults>(op: N, request: unknown): Promise<JsonResults[N]> {
  return (await app.call(op, request)) as JsonResults[N];
}
const currentOf = async (): Promise<string> => (await call('project.summary', { project: app.project })).current?.generation_uuid ?? '';
const link = (hash: string): string => app.link(`#${hash}`);
/** Loads the app afresh on a deep link (a new document: no state or pending call of the previous one survives). */
async function open(p: Page, hash: string): Promise<void> {
  await p.goto('about:blank');
  await p.goto(link(hash));
}

/** Light and dark screenshots of the page's state, each with axe: no serious or critical violation. */
async function shots(p: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    await shot(p, `i35-${name}${TRANSPORT === 'ipc' ? '-ipc' : ''}-${scheme}`);
    expect(await axeProblems(p), `${name} (${scheme})`).toEqual([]);
  }
  await p.emulateMedia({ colorScheme: 'light' });
}

/** Types a revert's reason and confirmation on the revert screen (the preview shown). */
async function fillRevert(p: Page, name: string, reason: string): Promise<void> {
  await p.getByTestId('revert-preview').waitFor();
  await p.getByLabel('Reason (required)').fill(reason);
  await p.getByLabel(/Type the checkpoint name/).fill(name);
}

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-i35-', records: 200 });
  page = await app.browser.context.newPage();
  await page.goto(`${app.serve.url}#/history`);
  await page.getByTestId('timeline').waitFor();
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe(`the audit trail and safe writes (${TRANSPORT})`, () => {
  it("the header names the app user (the identity the server keeps in the app's configuration folder); renaming keeps the actor UUID", async () => {
    await page.getByTestId('identity-name').waitFor();
    const before = (await call('actor.show', {})).self;
    expect(await page.getByTestId('identity-name').textContent()).toBe(before.display_name);
    await page.getByTestId('identity-edit').click();
    await page.getByTestId('identity-input').fill('   ');
    expect(await page.getByTestId('identity-save').isDisabled()).toBe(true);
    await page.getByTestId('identity-input').fill(NAME);
    await shots(page, 'identity-edit');
    await page.getByTestId('identity-save').click();
    await expect.poll(() => page.getByTestId('identity-name').textContent()).toBe(NAME);
    expect((await call('actor.show', {})).self).toEqual({ actor_uuid: before.actor_uuid, display_name: NAME });
  });

  it('a revert from the app records the actor: the receipt takes focus and shows the name; History shows it with the UUID one toggle away', async () => {
    const self = (await call('actor.show', {})).self;
    await open(page, '/revert?name=Graph+imported');
    await fillRevert(page, 'Graph imported', 'undo the curation run');
    await page.getByTestId('revert-submit').click();
    await page.getByTestId('revert-receipt').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('revert-receipt-title');
    const top = (await call('history.list', { project: app.project, limit: 1 })).entries[0];
    expect(top).toMatchObject({ kind: 'revert', actor: self.actor_uuid, reason: 'undo the curation run' });
    expect(await page.getByTestId('receipt-actor').locator('.actor-name').textContent()).toBe(NAME);
    expect(await page.getByTestId('receipt-time').getAttribute('datetime')).toBe(top?.published_at);
    // The preview refreshed against the generation this revert published: that is no stale preview.
    await expect.poll(() => page.getByTestId('preview-current').textContent()).toBe(top?.generation_uuid.slice(0, 8));
    expect(await page.getByTestId('revert-stale').count()).toBe(0);
    // The receipt sits at the top of the screen, above the form: its buttons are in view at 900 px.
    await page.setViewportSize({ width: 1440, height: 900 });
    const box = await page.getByTestId('revert-receipt').getByRole('button', { name: 'See it in the history' }).boundingBox();
    expect((box?.y ?? 10_000) + (box?.height ?? 0)).toBeLessThan(900);
    await shots(page, 'revert-receipt');
    await page.getByTestId('revert-receipt').getByRole('button', { name: 'See it in the history' }).click();
    const row = page.getByTestId('generation-row').first();
    await expect.poll(() => row.getByTestId('row-actor').locator('.actor-name').textContent()).toBe(NAME);
    expect(await row.getByTestId('row-actor').locator('.actor-name').getAttribute('title')).toBe(self.actor_uuid);
    await row.getByTestId('row-actor').getByRole('button', { name: `Show the actor id of ${NAME}` }).click();
    expect(await row.getByTestId('row-actor').locator('.actor-id').textContent()).toBe(self.actor_uuid);
    // An actor never seen by name (the demo's curator) shows a short id, the whole one on hover.
    const demo = (await call('history.list', { project: app.project, limit: 500 })).entries.find((e) => e.actor !== null && e.actor !== self.actor_uuid);
    if (demo?.actor != null) {
      const unknown = page.locator(`[data-testid="row-actor"][data-actor="${demo.actor}"]`).first();
      expect(await unknown.textContent()).toBe(demo.actor.slice(0, 8));
      expect(await unknown.getAttribute('title')).toBe(demo.actor);
    }
    await shots(page, 'history-actors');
  });

  it("ledger evidence names who published the linked generation (the lineage's actor, by name; chain events carry none), and says where the workspace has no such generation", async () => {
    const self = (await call('actor.show', {})).self;
    // The revert the app user made above published a generation; a workflow's patch step now names its manifest.
    const mine = (await call('history.list', { project: app.project, limit: 500 })).entries.find((e) => e.kind === 'revert' && e.actor === self.actor_uuid)!;
    const store = new SqliteChainStore(join(app.dir, 'chain'));
    try {
      const evidence = (digest: string) => (_i: number, step: { to: string }) => (step.to === 'patch_applied' ? digest : null);
      await runScript(store, 'i35-reviewed-patch', SCRIPTS.clean_completion, { start: new Date(Date.UTC(2026, 0, 6, 9)), seed: 35, evidence: evidence(`sha256:${mine.manifest_sha256}`) });
      await runScript(store, 'i35-foreign-patch', SCRIPTS.clean_completion, { start: new Date(Date.UTC(2026, 0, 6, 10)), seed: 36, evidence: evidence(`sha256:${'e'.repeat(64)}`) });
    } finally {
      await store.close();
    }
    await open(page, '/ledgers?workflow=i35-reviewed-patch');
    const grid = page.getByRole('grid', { name: 'Transitions of i35-reviewed-patch' });
    await grid.getByTestId('evidence-link').waitFor();
    expect(await grid.getByTestId('evidence-link').getAttribute('data-generation')).toBe(mine.generation_uuid);
    expect(await grid.getByTestId('evidence-publisher').textContent()).toMatch(new RegExp(`^published by ${NAME}`));
    expect(await grid.getByTestId('evidence-publisher-actor').locator('.actor-name').getAttribute('title')).toBe(self.actor_uuid);
    // The transition's detail labels it: the publisher of the linked generation, its id one toggle away.
    await grid.locator('.grid-data-row').filter({ has: page.getByTestId('evidence-link') }).locator('[data-col="sequence"]').click();
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    expect(await detail.locator('dt').allTextContents()).toContain('publisher of the linked generation');
    expect(await detail.getByTestId('event-publisher').locator('.actor-name').textContent()).toBe(NAME);
    await detail.getByTestId('event-publisher').getByRole('button', { name: `Show the actor id of ${NAME}` }).click();
    expect(await detail.getByTestId('event-publisher').locator('.actor-id').textContent()).toBe(self.actor_uuid);
    expect(await detail.getByTestId('event-linked').textContent()).toContain(`generation ${mine.generation_uuid.slice(0, 8)}, published`);
    await shots(page, 'ledger-evidence-publisher');

    // Evidence naming a manifest this workspace has no generation of says so (no link, no publisher).
    await open(page, '/ledgers?workflow=i35-foreign-patch');
    const foreign = page.getByRole('grid', { name: 'Transitions of i35-foreign-patch' });
    await foreign.getByTestId('evidence-unlinked').waitFor();
    expect(await foreign.getByTestId('evidence-unlinked').textContent()).toBe(NO_LINKED_GENERATION);
    expect(await foreign.getByTestId('evidence-link').count()).toBe(0);

    // The demo's own evidence: a generation its curator published (an actor never seen by name: a short id, the whole on hover).
    const demo = (await call('chain.read', { project: app.project, workflow_id: 'demo-clean-completion' })).evidence_generations?.[0]?.generation;
    await open(page, '/ledgers?workflow=demo-clean-completion');
    const demoGrid = page.getByRole('grid', { name: 'Transitions of demo-clean-completion' });
    await demoGrid.getByTestId('evidence-publisher').waitFor();
    if (demo?.actor == null) expect(await demoGrid.getByTestId('evidence-publisher').textContent()).toBe('its publisher was not recorded');
    else {
      expect(await demoGrid.getByTestId('evidence-publisher-actor').textContent()).toBe(demo.actor.slice(0, 8));
      expect(await demoGrid.getByTestId('evidence-publisher-actor').getAttribute('title')).toBe(demo.actor);
    }
  });

  it('two tabs: the engine refuses a revert confirmed against an old CURRENT (nothing written); the page shows the new preview and asks again', async () => {
    await open(page, '/revert?name=Before+curation');
    await fillRevert(page, 'Before curation', 'tab A: back to the complete import');
    const previewed = await currentOf();
    // Tab A does not hear of the change yet (its live check is held): only the engine can catch the stale preview.
    const held = await app.wire(page).hold('project.changes');
    const tabB = await app.browser.context.newPage();
    try {
      await open(tabB, '/revert?name=Strict+ontology');
      await fillRevert(tabB, 'Strict ontology', 'tab B reverts elsewhere');
      await tabB.getByTestId('revert-submit').click();
      await tabB.getByTestId('revert-receipt').waitFor();
    } finally {
      await tabB.close();
    }
    const moved = await currentOf();
    expect(moved).not.toBe(previewed);
    const count = (await call('history.list', { project: app.project, limit: 1 })).total_records;
    await page.getByTestId('revert-submit').click();
    await page.getByTestId('revert-stale').waitFor();
    expect(await page.getByTestId('revert-stale').textContent()).toContain('CURRENT changed since you previewed');
    await expect.poll(() => page.getByTestId('preview-current').textContent()).toBe(moved.slice(0, 8));
    expect((await call('history.list', { project: app.project, limit: 1 })).total_records).toBe(count);
    expect(await currentOf()).toBe(moved);
    expect(await page.getByLabel(/Type the checkpoint name/).inputValue()).toBe('');
    expect(await page.getByTestId('revert-submit').isDisabled()).toBe(true);
    expect(await page.getByLabel('Reason (required)').inputValue()).toBe('tab A: back to the complete import');
    expect(await page.getByTestId('revert-error').count()).toBe(0);
    await shots(page, 'revert-stale');
    await held.release();
    await page.getByLabel(/Type the checkpoint name/).fill('Before curation');
    await page.getByTestId('revert-submit').click();
    await page.getByTestId('revert-receipt').waitFor();
    const top = (await call('history.list', { project: app.project, limit: 1 })).entries[0];
    expect(top).toMatchObject({ kind: 'revert', restored_checkpoint_name: 'Before curation', parent_generation_uuid: moved });
  });

  it('two tabs: a page that hears of the moved CURRENT (live update) shows it before any click and asks for the confirmation again', async () => {
    await open(page, '/revert?name=Graph+imported');
    await fillRevert(page, 'Graph imported', 'tab A again');
    expect(await page.getByTestId('revert-submit').isEnabled()).toBe(true);
    const r = await app.call('checkpoints.revert', { project: app.project, name: 'Release 1.0', reason: 'another process', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000035a1' });
    const moved = decodeArrow(r.bytes, 'checkpoints.revert').rows[0]?.result_generation_uuid ?? '';
    await page.getByTestId('revert-stale').waitFor();
    await expect.poll(() => page.getByTestId('preview-current').textContent()).toBe(moved.slice(0, 8));
    expect(await page.getByLabel(/Type the checkpoint name/).inputValue()).toBe('');
    expect(await page.getByTestId('revert-submit').isDisabled()).toBe(true);
  });

  it('a thread restore records the actor; the thread history row shows the reason and who; a restore previewed on an old head is refused and asked again', async () => {
    const self = (await call('actor.show', {})).self;
    const source = { kind: 'sqlite', path: join(app.base, 'langgraph.sqlite') };
    const thread = (await call('threads.list', { source })).rows.find((t) => t.checkpoint_count >= 4)!.thread_id;
    const rows = (await call('threads.history', { source, thread_id: thread })).rows;
    const target = rows[2]!.checkpoint_id;
    await open(page, `/threads?source=${encodeURIComponent(source.path)}&thread=${encodeURIComponent(thread)}&checkpoint=${encodeURIComponent(target)}`);
    await page.getByTestId('restore-preview-total').waitFor();
    await page.getByLabel('Reason (required)').fill('the review was approved by mistake');
    await page.getByLabel(/Type the thread id to confirm/).fill(thread);
    // Another tab restores first: this tab's preview was computed from the old head.
    const other = await call('threads.restore', { source, thread_id: thread, checkpoint_id: rows[1]!.checkpoint_id, reason: 'the other tab', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000035b1' });
    await page.getByTestId('restore-submit').click();
    await page.getByTestId('restore-stale').waitFor();
    expect((await call('threads.history', { source, thread_id: thread, limit: 1 })).rows[0]?.checkpoint_id).toBe(other.checkpoint_id);
    expect(await page.getByLabel(/Type the thread id to confirm/).inputValue()).toBe('');
    await shots(page, 'restore-stale');
    await page.getByLabel(/Type the thread id to confirm/).fill(thread);
    await page.getByTestId('restore-submit').click();
    await page.getByTestId('restore-receipt').waitFor();
    const head = (await call('threads.history', { source, thread_id: thread, limit: 1 })).rows[0];
    expect(head).toMatchObject({ parent_checkpoint_id: other.checkpoint_id, restored_from: target, restore_reason: 'the review was approved by mistake', restore_actor: self.actor_uuid });
    expect(await page.getByTestId('restore-receipt-actor').locator('.actor-name').textContent()).toBe(NAME);
    // The history reloaded with this restore's head: that is no stale preview.
    await page.getByTestId('restore-is-head').or(page.getByTestId('restore-preview-total')).first().waitFor();
    await expect.poll(() => page.getByTestId('thread-history').locator('[role="row"].grid-data-row').first().locator('[data-col="checkpoint_id"]').getAttribute('title')).toBe(head?.checkpoint_id);
    expect(await page.getByTestId('restore-stale').count()).toBe(0);
    const top = page.getByTestId('thread-history').locator('[role="row"].grid-data-row').first();
    await expect.poll(() => top.getByTestId('thread-row-reason').textContent()).toBe('the review was approved by mistake');
    expect(await top.getByTestId('thread-row-actor').locator('.actor-name').textContent()).toBe(NAME);
    await shots(page, 'thread-restore-receipt');
  });

  // A sign-in token and a server that can stop exist in browser mode only (the desktop app has neither).
  if (TRANSPORT === 'http') {
    it('a deep link without the token says to open the link printed at start (nothing expired)', async () => {
      await app.browser.context.clearCookies();
      const fresh = await app.browser.context.newPage();
      try {
        const res = await fresh.goto(link('/revert?name=Graph+imported'));
        expect(res?.status()).toBe(401);
        expect(await fresh.getByTestId('link-no-session').textContent()).toBe('Open the link printed at start: this address has no sign-in token.');
        expect(await fresh.content()).not.toContain('expired');
        await shots(fresh, 'deep-link-no-token');
      } finally {
        await fresh.close();
      }
    });

    it('a stopped server: one banner at once, no backticks, and polling stops (requests counted while the page clock runs on)', async () => {
      const p = await app.browser.context.newPage();
      await p.clock.install();
      let polls = 0;
      p.on('request', (r) => {
        if (r.url().endsWith('/api/project.changes')) polls += 1;
      });
      await p.goto(`${app.serve.url}#/history`);
      await p.getByTestId('timeline').waitFor();
      await expect.poll(() => polls).toBeGreaterThan(0);
      await app.serve.stop();
      await p.clock.runFor(2_000);
      await p.getByTestId('server-lost').waitFor();
      const seen = polls;
      // Ten more poll intervals on the page's clock, each followed by a real round trip through the network stack.
      for (let i = 0; i < 10; i++) {
        await p.clock.runFor(1_000);
        await p.evaluate(() => fetch('/api/none', { method: 'POST' }).then(() => 0, () => 0));
      }
      expect(polls).toBe(seen);
      expect(await p.getByTestId('server-lost').count()).toBe(1);
      await p.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Revert', exact: true }).click();
      expect(await p.getByTestId('server-lost').count()).toBe(1);
      expect(await p.locator('body').textContent()).not.toContain('`');
      await shots(p, 'server-stopped');
    });
  }
});
