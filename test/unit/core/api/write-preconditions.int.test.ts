// A revert or thread restore confirmed against a preview that is no longer
// true is refused (GF_STALE_PREVIEW, committed: false) and writes nothing; a
// request without the precondition keeps the ADR's behaviour; a replay of a
// published revert still returns its receipt. On the real demo workspace and
// its real LangGraph SQLite file, through the dispatcher.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { ArrowResult } from '../../../../core/contract/operations';
import { DEMO_LANGGRAPH_FILE } from '../../../../core/contract/threads';
import { decodeArrow } from '../../../../renderer/arrow-rows';
import { caller, codeOf } from '../langgraph/threads-support';

let root: string;
let facade: Facade;
let project: string;
let call: ReturnType<typeof caller>;
const sqlite = () => ({ kind: 'sqlite' as const, path: join(root, DEMO_LANGGRAPH_FILE) });
const errorOf = async (p: Promise<unknown>): Promise<{ code?: string; committed?: boolean; details?: Record<string, unknown> }> =>
  p.then(() => ({ code: 'ok' }), (e: unknown) => e as { code?: string; committed?: boolean; details?: Record<string, unknown> });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-preconditions-'));
  facade = createFacade({ mode: 'library', configDir: join(root, 'config') });
  call = caller(facade);
  await call('demo.create', { path: join(root, 'demo'), records: 200 });
  project = (await call('project.open', { path: join(root, 'demo') })).project;
}, 120_000);

afterAll(async () => {
  await facade?.close();
  rmSync(root, { recursive: true, force: true });
});

const currentOf = async (): Promise<string> => (await call('project.summary', { project })).current?.generation_uuid ?? '';
const receiptGeneration = (r: ArrowResult): string => decodeArrow(r.bytes, 'checkpoints.revert').rows[0]?.result_generation_uuid ?? '';

describe('revert precondition (expected_current_generation_uuid)', () => {
  it('a preview of another CURRENT is refused with GF_STALE_PREVIEW and nothing is written; the matching one publishes, with its actor', async () => {
    const preview = await call('revert.preview', { project, name: 'Graph imported' });
    // Another tab reverts first: CURRENT moves.
    await call('checkpoints.revert', { project, name: 'Before curation', reason: 'the other tab', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000c001' });
    const moved = await currentOf();
    expect(moved).not.toBe(preview.current_generation_uuid);
    const before = (await call('history.list', { project, limit: 1 })).total_records;
    const stale = await errorOf(call('checkpoints.revert', {
      project, name: 'Graph imported', reason: 'confirmed against the old preview', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000c002',
      expected_current_generation_uuid: preview.current_generation_uuid,
    }));
    expect(stale.code).toBe('GF_STALE_PREVIEW');
    expect(stale.committed).toBe(false);
    expect(stale.details).toMatchObject({ expected_current_generation_uuid: preview.current_generation_uuid, current_generation_uuid: moved });
    expect(await currentOf()).toBe(moved);
    expect((await call('history.list', { project, limit: 1 })).total_records).toBe(before);
    // The same key against the new preview: published (the refusal left no journal behind), with the actor recorded.
    const fresh = await call('revert.preview', { project, name: 'Graph imported' });
    expect(fresh.current_generation_uuid).toBe(moved);
    const actor = (await call('actor.show', {})).self.actor_uuid;
    const r = await call('checkpoints.revert', {
      project, name: 'Graph imported', reason: 'confirmed against the new preview', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000c002',
      expected_current_generation_uuid: fresh.current_generation_uuid, actor_uuid: actor,
    });
    const published = receiptGeneration(r);
    expect(await currentOf()).toBe(published);
    const top = (await call('history.list', { project, limit: 1 })).entries[0];
    expect(top).toMatchObject({ generation_uuid: published, actor, kind: 'revert', reason: 'confirmed against the new preview' });
    // A replay of the published revert returns its receipt even though its precondition is no longer CURRENT.
    const replay = await call('checkpoints.revert', {
      project, name: 'Graph imported', reason: 'confirmed against the new preview', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000c002',
      expected_current_generation_uuid: fresh.current_generation_uuid, actor_uuid: actor,
    });
    expect(receiptGeneration(replay)).toBe(published);
    expect((await call('history.list', { project, limit: 1 })).total_records).toBe(before + 1);
  }, 60_000);

  it('a request without the precondition publishes on whatever CURRENT is (ADR-0014)', async () => {
    const before = await currentOf();
    const r = await call('checkpoints.revert', { project, name: 'Release 1.0', reason: 'no precondition', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000c003' });
    expect(await currentOf()).toBe(receiptGeneration(r));
    expect(receiptGeneration(r)).not.toBe(before);
  }, 60_000);
});

describe('thread restore precondition (expected_head_checkpoint_id)', () => {
  it('another head than the previewed one is GF_STALE_PREVIEW and writes no checkpoint; the current head restores, with reason and actor in the history row', async () => {
    const threads = (await call('threads.list', { source: sqlite(), limit: 50 })).rows;
    const thread = threads.find((t) => t.checkpoint_count >= 3);
    expect(thread).toBeDefined();
    const id = thread?.thread_id ?? '';
    const rows = (await call('threads.history', { source: sqlite(), thread_id: id, limit: 50 })).rows;
    const head = rows[0]?.checkpoint_id ?? '';
    const target = rows[2]?.checkpoint_id ?? '';
    const olderHead = rows[1]?.checkpoint_id ?? '';
    expect(await codeOf(call('threads.restore', { source: sqlite(), thread_id: id, checkpoint_id: target, reason: 'stale preview', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000d001', expected_head_checkpoint_id: olderHead }))).toBe('GF_STALE_PREVIEW');
    const after = (await call('threads.history', { source: sqlite(), thread_id: id, limit: 50 })).rows;
    expect(after.map((r) => r.checkpoint_id)).toEqual(rows.map((r) => r.checkpoint_id));
    const receipt = await call('threads.restore', { source: sqlite(), thread_id: id, checkpoint_id: target, reason: '  the head it was previewed on  ', actor: 'ada-uuid', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000d002', expected_head_checkpoint_id: head });
    expect(receipt.parent_checkpoint_id).toBe(head);
    const top = (await call('threads.history', { source: sqlite(), thread_id: id, limit: 1 })).rows[0];
    expect(top).toMatchObject({ checkpoint_id: receipt.checkpoint_id, restored_from: target, restore_reason: 'the head it was previewed on', restore_actor: 'ada-uuid' });
    // An ordinary checkpoint has neither.
    expect(after.find((r) => r.restored_from === null)).toMatchObject({ restore_reason: null, restore_actor: null });
  }, 60_000);
});
