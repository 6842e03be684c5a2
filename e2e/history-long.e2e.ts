// A long history in real Chromium (both transports): 230 later publications
// on the demo. The timeline draws every entry; the table lists the newest
// rows first and the rest as the reader scrolls to its end or asks for all,
// and a mark the table has not listed yet still selects its row.
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResults } from '../core/contract/operations';
import type { OntologyMode } from '../core/contract/workspace';
import { openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { WORKSPACE_CONFIGURATION, configurationDocumentBytes } from '../core/participants/index';
import type { ParticipantChange } from '../core/project/index';
import { axeProblems, startDemoApp, type DemoApp } from './support/demo-app';

const LATER = 230;
let app: DemoApp;
let page: Page;
/** A configuration publication the demo accepts (its CURRENT's ontology mode), whose embedding model names publication `i`. */
function configurationChange(i: number, mode: OntologyMode): ParticipantChange {
  const bytes = configurationDocumentBytes({ contract_version: 1, ontology_mode: mode, capability_configuration: {}, embedding_configuration: { model_id: `history-long-${i}` } });
  return { kind: 'put', capabilityId: WORKSPACE_CONFIGURATION.capabilityId, recordFamilyId: WORKSPACE_CONFIGURATION.recordFamilyId, bytes };
}
let entries: JsonResults['history.list']['entries'][number][] = [];

const rows = () => page.getByTestId('generation-row');

/** History in a new page, scrolled to its top (a reload would restore the last scroll position, and the table would grow by itself). */
async function freshPage(): Promise<void> {
  await page.close();
  page = await app.browser.context.newPage();
  await page.goto(`${app.serve.url}#/history`);
  await page.locator('[data-testid="history-timeline"][data-drawn="true"]').waitFor();
}

beforeAll(async () => {
  app = await startDemoApp({
    prefix: 'gf-history-long-',
    records: 100,
    prepare: async ({ dir, call, project }) => {
      const info = tableFromIPC((await call('workspace.configuration', { project })).bytes).get(0)?.toJSON();
      const mode = String(info?.['ontology_mode']) as OntologyMode;
      const p = await openCheckpointedProject(dir);
      let parent = p.current()?.generationUuid ?? null;
      for (let i = 0; i < LATER; i++) parent = (await p.publish({ parent, changes: [configurationChange(i, mode)] })).generationUuid;
    },
  });
  let after: string | null = null;
  do {
    const page: JsonResults['history.list'] = await app.call('history.list', { project: app.project, limit: 500, ...(after === null ? {} : { after }) });
    entries.push(...page.entries);
    after = page.next_page_token;
  } while (after !== null);
  entries = [...entries].sort((a, b) => b.seq - a.seq);
  page = await app.browser.context.newPage();
  await page.goto(`${app.serve.url}#/history`);
  await page.locator('[data-testid="history-timeline"][data-drawn="true"]').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('a long history (230 later publications)', () => {
  it('the timeline draws every entry while the table lists the newest 200, newest first, and says how many are listed', async () => {
    expect(entries.length).toBeGreaterThan(LATER);
    const marks = await page.getByTestId('history-timeline').evaluate((e) => ((e as unknown as Record<string, { marks: unknown[] }>)['__gfPicture']?.marks.length ?? 0));
    expect(marks).toBe(entries.length);
    await expect.poll(() => rows().count()).toBe(200);
    const listed = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-generation')));
    expect(listed).toEqual(entries.slice(0, 200).map((e) => e.generation_uuid));
    expect(await page.getByTestId('history-rows-more').textContent()).toContain(`200 of ${entries.length.toLocaleString('en-US')} rows listed`);
    expect(await axeProblems(page)).toEqual([]);
  });

  it('scrolling to the end of the table lists the next rows', async () => {
    await page.getByTestId('history-rows-more').scrollIntoViewIfNeeded();
    await expect.poll(() => rows().count()).toBeGreaterThan(200);
    const listed = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-generation')));
    expect(listed).toEqual(entries.slice(0, listed.length).map((e) => e.generation_uuid));
  });

  it('the oldest mark, chosen on the timeline by keyboard, selects its row though the table had not listed it', async () => {
    await freshPage();
    await expect.poll(() => rows().count()).toBe(200);
    const oldest = entries[entries.length - 1]!;
    await page.getByTestId('timeline-canvas').focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="generation-row"][data-generation="${oldest.generation_uuid}"][aria-current="true"]`).waitFor();
    expect(await rows().count()).toBe(entries.length);
  });

  it('"List all" lists every row', async () => {
    await freshPage();
    // Pressed where it is, without scrolling to it: the button sits in the table's end marker, and bringing that into
    // view lists the next 200 rows by itself, which here are all of them, so a pointer click that scrolls first raced
    // the growth on a loaded machine (the button left the page before the click landed: one fresh-clone run failed).
    await page.getByTestId('history-rows-all').dispatchEvent('click');
    await expect.poll(() => rows().count()).toBe(entries.length);
    expect(await page.getByTestId('history-rows-more').count()).toBe(0);
  });
});
