import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import type { ChainRowEntry } from '../../../../core/contract/maintenance';
import { DEMO_WORKFLOWS, writeDemoLedgers } from '../../../../core/demo/demo-ledgers';
import { DEFAULT_CONFIGURATION } from '../../../../core/participants/document-values';
import { configurationDocumentBytes } from '../../../../core/participants/workspace-bytes';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/canonical-fingerprint-v1.subset.json', import.meta.url));

let root: string;
let facade: Facade;

type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: { code: string; committed: boolean | null } };
const call = async (op: string, request: object): Promise<Outcome> => (await facade.dispatcher.dispatch(op, request)) as unknown as Outcome;
const value = (o: Outcome): Record<string, unknown> => {
  if (!o.ok) throw new Error(`expected ok, got ${o.error.code}`);
  return o.value;
};
const code = (o: Outcome): string | null => (o.ok ? null : o.error.code);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gf-maint-ops-'));
  facade = createFacade({ mode: 'library' });
});
afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the operations the CLI goes through (chain.open, chain.rows, project.publish, demo.create, canonical.vectors, project.doctor)', () => {
  it('chain.open opens ledgers without a project; chain.rows pages a workflow with its heads', async () => {
    const dir = join(root, 'ledgers-only');
    const store = new SqliteChainStore(join(dir, 'chain'));
    await writeDemoLedgers(store, { manifestSha256: ['c'.repeat(64)] });
    const tail = await store.tailChainHead('demo-clean-completion');
    await store.close();
    expect(code(await call('chain.open', { path: join(root, 'missing') }))).toBe('GF_IO');
    const { project } = value(await call('chain.open', { path: dir })) as { project: string };
    const listed = value(await call('chain.list', { project })) as { workflows: { workflow_id: string }[] };
    expect(listed.workflows.map((w) => w.workflow_id)).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    const first = value(await call('chain.rows', { project, workflow_id: 'demo-clean-completion', limit: 2 })) as { rows: ChainRowEntry[]; next_page_token: string | null };
    expect(first.rows.map((r) => [r.sequence, r.event?.next_state_id])).toEqual([[1, 'plan_ready'], [2, 'patch_applied']]);
    expect(first.rows[1]?.prior_head).toBe(first.rows[0]?.next_head);
    const second = value(await call('chain.rows', { project, workflow_id: 'demo-clean-completion', limit: 2, after: first.next_page_token })) as { rows: ChainRowEntry[]; next_page_token: string | null };
    expect([second.rows.map((r) => r.sequence), second.rows[0]?.next_head, second.next_page_token]).toEqual([[3], tail, null]);
    expect(code(await call('chain.rows', { project, workflow_id: 'no-such-workflow' }))).toBe('workflows.workflow_not_found');
    expect(code(await call('chain.rows', { project, workflow_id: 'demo-failed', after: 'not-a-token' }))).toBe('GF_PAGE_INVALID');
    const verified = await call('chain.verify', { project, workflow_id: 'demo-clean-completion', expect_head: `blake3:${'0'.repeat(64)}` });
    expect(code(verified)).toBe('workflows.checkpoint_head_unexpected');
  });

  it('demo.create builds a workspace; project.publish publishes through it; unregistered families change nothing', async () => {
    const dir = join(root, 'demo');
    const created = value(await call('demo.create', { path: dir, records: 20, seed: 4 })) as { records: number; generations: { generation_uuid: string }[] };
    expect(created.records).toBe(20);
    const last = created.generations.at(-1)?.generation_uuid;
    const { project } = value(await call('project.open', { path: dir })) as { project: string };
    const refused = await call('project.publish', { project, changes: [{ kind: 'remove', capability_id: 'graph', record_family_id: 'no_such_family' }] });
    expect(refused.ok ? null : [refused.error.code, refused.error.committed]).toEqual(['GF_VALIDATION', false]);
    // The demo ends with a strict ontology: a configuration document must name the same ontology mode (o21).
    const cfg = configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, ontology_mode: 'strict', embedding_configuration: { model_id: 'maint' } });
    const receipt = value(await call('project.publish', { project, changes: [{ kind: 'put', capability_id: 'workspace', record_family_id: 'configuration', bytes_base64: Buffer.from(cfg).toString('base64') }] }));
    expect(receipt['parent_generation_uuid']).toBe(last);
    const summary = value(await call('project.summary', { project })) as { current: { generation_uuid: string } };
    expect(summary.current.generation_uuid).toBe(receipt['generation_uuid']);
    expect(code(await call('demo.create', { path: dir, records: 5 }))).toBe('GF_VALIDATION');
  });

  it('canonical.vectors computes the golden vectors; project.doctor reports a workspace it cannot open', async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const expected = JSON.parse(text) as { vectors: { id: string; sha256: string }[] };
    const { results } = value(await call('canonical.vectors', { text })) as { results: { id: string; cases?: { sha256: string }[] }[] };
    for (const v of expected.vectors) expect(results.find((r) => r.id === v.id)?.cases?.[0]?.sha256).toBe(v.sha256);
    expect(code(await call('canonical.vectors', { text: '{not json' }))).toBe('GF_VALIDATION');
    const notProject = join(root, 'not-a-project');
    mkdirSync(notProject);
    expect(code(await call('project.doctor', { path: notProject }))).toBe('GF_UNSUPPORTED_PROJECT_FORMAT');
    const healthy = value(await call('project.doctor', { path: join(root, 'demo') }));
    expect(healthy).toEqual({ anomalies: [], rebuilt_current: null, repaired: [] });
  });
});
