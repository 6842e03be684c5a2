import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { tamperDemoLedger } from '../../../../core/demo/demo-ledgers';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { gf } from '../../../support/cli-run';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let project: string;

async function token(): Promise<string> {
  const env = await facade.dispatcher.dispatch('project.changes', { project });
  if (!env.ok) throw new Error(env.error.message);
  return (env.value as { token: string }).token;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-changes-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library' });
  const opened = await facade.dispatcher.dispatch('project.open', { path: ws.dir });
  if (!opened.ok) throw new Error(opened.error.message);
  project = (opened.value as { project: string }).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('project.changes (the token the app polls for live updates)', () => {
  it('is stable while nothing changes, and changes with a checkpoint, a revert (CURRENT) and a ledger write made through other handles', async () => {
    const t0 = await token();
    expect(t0).toMatch(/^[0-9a-f]{32}$/);
    expect(await token()).toBe(t0);
    // The CLI writes the registry through its own project handle.
    expect((await gf('checkpoint', 'create', 'From the CLI', '--project', ws.dir)).code).toBe(0);
    const t1 = await token();
    expect(t1).not.toBe(t0);
    expect(await token()).toBe(t1);
    // A revert publishes a generation: CURRENT is replaced.
    expect((await gf('checkpoint', 'revert', 'baseline', '--project', ws.dir, '--reason', 'back to the first import')).code).toBe(0);
    const t2 = await token();
    expect(t2).not.toBe(t1);
    // A ledger file written by another store handle.
    await tamperDemoLedger(join(ws.dir, 'chain'), 'demo-clean-completion');
    const t3 = await token();
    expect(t3).not.toBe(t2);
    expect(await token()).toBe(t3);
  });

  it('an unknown project handle is GF_VALIDATION', async () => {
    const env = await facade.dispatcher.dispatch('project.changes', { project: '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b' });
    expect(env.ok ? null : env.error.code).toBe('GF_VALIDATION');
  });
});
