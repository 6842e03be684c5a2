// The facade's checkpoint, view, diff and chain operations on a real workspace.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEXT_PAGE_TOKEN_KEY, type ArrowResult, type JsonResults } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { DEMO_WORKFLOWS } from '../../../../core/demo/demo-ledgers';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let project: string;

function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}
const code = (env: Envelope): string => (env.ok ? 'ok' : env.error.code);
const call = (op: string, req: object) => facade.dispatcher.dispatch(op, req);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-facade-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library', micros: () => 1_767_312_000_000_000 });
  project = value<{ project: string }>(await call('project.open', { path: ws.dir })).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('checkpoint operations', () => {
  it('lists checkpoint@1 rows as Arrow, paged with the token in the schema metadata', async () => {
    const first = value<ArrowResult>(await call('checkpoints.list', { project, limit: 1 }));
    const t1 = tableFromIPC(first.bytes);
    expect(t1.schema.fields.map((f) => f.name)).toEqual(['checkpoint_uuid', 'name', 'description', 'generation_uuid', 'generation_manifest_sha256', 'created_at', 'created_by']);
    expect(t1.getChild('name')?.toArray()).toEqual(['baseline']);
    expect(first.next_page_token).not.toBeNull();
    expect(t1.schema.metadata.get(NEXT_PAGE_TOKEN_KEY)).toBe(first.next_page_token);
    const second = value<ArrowResult>(await call('checkpoints.list', { project, limit: 1, after: first.next_page_token }));
    expect(tableFromIPC(second.bytes).getChild('name')?.toArray()).toEqual(['more nodes']);
    expect(second.next_page_token).toBeNull();
    expect(code(await call('checkpoints.list', { project, after: `${first.next_page_token}x` }))).toBe('GF_PAGE_INVALID');
  });

  it('creates and deletes with receipts, replays by idempotency key, and refuses a taken name', async () => {
    const key = testUuid('facade-create');
    const r1 = value<ArrowResult>(await call('checkpoints.create', { project, name: 'facade one', idempotency_key: key }));
    const receipt = tableFromIPC(r1.bytes);
    expect(receipt.numRows).toBe(1);
    expect(receipt.getChild('operation')?.get(0)).toBe('checkpoint');
    expect(receipt.getChild('source_generation_uuid')?.get(0)).toBeInstanceOf(Uint8Array);
    const replay = value<ArrowResult>(await call('checkpoints.create', { project, name: 'facade one', idempotency_key: key }));
    expect(Buffer.from(replay.bytes).equals(Buffer.from(r1.bytes))).toBe(true);
    expect(code(await call('checkpoints.create', { project, name: 'facade one', idempotency_key: testUuid('other') }))).toBe('GF_CHECKPOINT_EXISTS');
    const registryBefore = readFileSync(join(ws.dir, 'checkpoints', 'registry.json'));
    expect(code(await call('checkpoints.create', { project, name: 'bad/name', idempotency_key: testUuid('x') }))).toBe('GF_VALIDATION');
    expect(readFileSync(join(ws.dir, 'checkpoints', 'registry.json')).equals(registryBefore)).toBe(true);
    const del = value<ArrowResult>(await call('checkpoints.delete', { project, name: 'facade one', idempotency_key: testUuid('facade-delete') }));
    expect(tableFromIPC(del.bytes).getChild('operation')?.get(0)).toBe('delete_checkpoint');
    expect(code(await call('checkpoints.delete', { project, name: 'facade one', idempotency_key: testUuid('facade-delete-2') }))).toBe('GF_CHECKPOINT_NOT_FOUND');
  });

  it('opens a view, lists its participants, pages records and finds one by identity', async () => {
    const v = value<JsonResults['view.open']>(await call('view.open', { project, name: 'baseline' }));
    expect(v.generation_uuid).toBe(ws.generations[1]);
    const parts = value<JsonResults['view.participants']>(await call('view.participants', { view: v.view }));
    expect(parts.participants.map((p) => `${p.capability_id}/${p.record_family_id}:${p.row_count}`).sort()).toEqual(['graph/edge:4', 'graph/node:6', 'workspace/configuration:4', 'workspace/ontology:5']);
    const p1 = value<ArrowResult>(await call('view.records', { view: v.view, capability_id: 'graph', record_family_id: 'node', limit: 4 }));
    const p2 = value<ArrowResult>(await call('view.records', { view: v.view, capability_id: 'graph', record_family_id: 'node', limit: 4, after: p1.next_page_token }));
    expect(tableFromIPC(p1.bytes).numRows + tableFromIPC(p2.bytes).numRows).toBe(6);
    expect(p2.next_page_token).toBeNull();
    const firstUuid = testUuid('w-node-0');
    const one = value<ArrowResult>(await call('view.record', { view: v.view, capability_id: 'graph', record_family_id: 'node', identity: { node_uuid: firstUuid } }));
    expect(tableFromIPC(one.bytes).getChild('label')?.get(0)).toBe('Node w 0');
    expect(value<{ closed: boolean }>(await call('view.close', { view: v.view })).closed).toBe(true);
    expect(code(await call('view.participants', { view: v.view }))).toBe('GF_VALIDATION');
    expect(code(await call('view.open', { project, name: 'never made' }))).toBe('GF_CHECKPOINT_NOT_FOUND');
  });

  it('diffs summary and records between checkpoints and CURRENT, and honours a cancel sent first', async () => {
    const summary = value<ArrowResult>(await call('checkpoints.diff', { project, from: 'baseline', to: 'more nodes', scope: 'all', detail: 'summary' }));
    const s = tableFromIPC(summary.bytes);
    const kinds = new Map<string, string>();
    for (let i = 0; i < s.numRows; i++) kinds.set(`${s.getChild('capability_id')?.get(i)}/${s.getChild('record_family_id')?.get(i)}`, s.getChild('change_kind')?.get(i));
    expect(kinds.get('graph/node')).toBe('modified');
    expect(kinds.get('graph/edge')).toBe('unchanged');
    const records = value<ArrowResult>(await call('checkpoints.diff', { project, from: 'baseline', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 2 }));
    expect(tableFromIPC(records.bytes).numRows).toBe(2);
    expect(records.next_page_token).not.toBeNull();
    const op = testUuid('cancel-me');
    expect(value<{ cancelled: boolean }>(await call('operation.cancel', { operation_id: op })).cancelled).toBe(false);
    expect(code(await call('checkpoints.diff', { project, from: 'baseline', to: 'CURRENT', scope: 'all', detail: 'records', operation_id: op }))).toBe('GF_CANCELLED');
    // The cancellation was consumed: the same id runs normally afterwards.
    expect(code(await call('checkpoints.diff', { project, from: 'baseline', to: 'CURRENT', scope: 'all', detail: 'summary', operation_id: op }))).toBe('ok');
  });
});

describe('chain operations', () => {
  it('lists the project ledgers, reads a chain in pages and verifies: the tampered one is found', async () => {
    const list = value<JsonResults['chain.list']>(await call('chain.list', { project }));
    expect(list.workflows.map((w) => w.workflow_id)).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    const v = value<JsonResults['chain.verify']>(await call('chain.verify', { project }));
    const status = Object.fromEntries(v.results.map((r) => [r.workflow_id, [r.status, r.first_bad_sequence]]));
    expect(status['demo-tampered']).toEqual(['chain_mismatch', 2]);
    expect(status['demo-clean-completion']).toEqual(['ok', null]);
    const clean = v.results.find((r) => r.workflow_id === 'demo-clean-completion')!;
    const expectOk = value<JsonResults['chain.verify']>(await call('chain.verify', { project, workflow_id: 'demo-clean-completion', expect_head: clean.tail_head }));
    expect(expectOk.results[0]?.status).toBe('ok');
    const wrongHead = `blake3:${'0'.repeat(64)}`;
    expect(code(await call('chain.verify', { project, workflow_id: 'demo-clean-completion', expect_head: wrongHead }))).toBe('workflows.checkpoint_head_unexpected');
    expect(code(await call('chain.verify', { project, workflow_id: 'no-such-flow' }))).toBe('workflows.workflow_not_found');
    expect(code(await call('chain.verify', { project, expect_head: wrongHead }))).toBe('GF_VALIDATION');

    const a = value<JsonResults['chain.read']>(await call('chain.read', { project, workflow_id: 'demo-clean-completion', limit: 2 }));
    expect(a.events.map((e) => e.sequence)).toEqual([1, 2]);
    expect(a.events[0]?.prior_state_id).toBe('needs_plan');
    const b = value<JsonResults['chain.read']>(await call('chain.read', { project, workflow_id: 'demo-clean-completion', limit: 100, after: a.next_page_token }));
    expect(b.events[0]?.sequence).toBe(3);
    expect(a.events.length + b.events.length).toBe(clean.rows);
    expect(b.next_page_token).toBeNull();
    const h = value<JsonResults['chain.health']>(await call('chain.health', { project }));
    expect(h).toMatchObject({ backend: 'sqlite', workflows: DEMO_WORKFLOWS.length });
    expect(code(await call('chain.read', { project, workflow_id: '../etc' }))).toBe('GF_VALIDATION');
  });
});

describe('revert operations', () => {
  it('previews, reverts with a reason, records the restoration in the summary and replays by key', async () => {
    const current = readFileSync(join(ws.dir, 'CURRENT'));
    expect(code(await call('checkpoints.revert', { project, name: 'baseline', reason: '   ', idempotency_key: testUuid('rv-empty') }))).toBe('GF_VALIDATION');
    expect(code(await call('checkpoints.revert', { project, name: 'gone', reason: 'why', idempotency_key: testUuid('rv-gone') }))).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(readFileSync(join(ws.dir, 'CURRENT')).equals(current)).toBe(true);

    const preview = value<JsonResults['revert.preview']>(await call('revert.preview', { project, name: 'baseline' }));
    expect(preview.source_generation_uuid).toBe(ws.generations[1]);
    expect(preview.current_generation_uuid).toBe(ws.generations[0]);
    expect(preview.participant_changes.modified).toBeGreaterThanOrEqual(1);

    const key = testUuid('rv-ok');
    const r = value<ArrowResult>(await call('checkpoints.revert', { project, name: 'baseline', reason: 'the second import was wrong', idempotency_key: key }));
    const receipt = tableFromIPC(r.bytes);
    expect(receipt.getChild('operation')?.get(0)).toBe('revert_to_checkpoint');
    const again = value<ArrowResult>(await call('checkpoints.revert', { project, name: 'baseline', reason: 'the second import was wrong', idempotency_key: key }));
    expect(Buffer.from(again.bytes).equals(Buffer.from(r.bytes))).toBe(true);

    const s = value<JsonResults['project.summary']>(await call('project.summary', { project }));
    expect(s.generations).toHaveLength(3);
    const restored = s.generations[0]!;
    expect(restored.parent_generation_uuid).toBe(ws.generations[0]);
    expect(restored.restoration?.checkpoint_uuid).toBe(preview.checkpoint_uuid);
    expect(restored.restoration?.source_generation_uuid).toBe(ws.generations[1]);
    expect(restored.restoration?.restored_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(JSON.stringify(s)).not.toContain('the second import was wrong');
    expect(s.generations.slice(1).every((g) => g.restoration === null)).toBe(true);
  });
});

