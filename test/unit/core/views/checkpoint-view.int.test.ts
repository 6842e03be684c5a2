import path from 'node:path';
import { Schema, Table, tableFromIPC } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { formatUuid, recordFingerprintsHex } from '../../../../core/canonical';
import { familyByKey } from '../../../../core/participants/index';
import { tryExclusive } from '../../../../core/project/sqlite-lock';
import { OPERATIONS, OPERATION_NAMES } from '../../../../core/contract/operations';
import { createFacade } from '../../../../core/api/facade';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { Project } from '../../../../core/project/project';
import { revertToCheckpoint } from '../../../../core/revert/index';
import { codeOf, workspace } from '../checkpoints/checkpoint-support';
import type { Workspace } from '../checkpoints/checkpoint-support';

const spaces: Workspace[] = [];
async function ws(): Promise<Workspace> {
  const w = await workspace();
  spaces.push(w);
  return w;
}
afterEach(() => {
  for (const w of spaces.splice(0)) w.close();
});

/** Methods of Project and Checkpoints that only read (everything else on them is writer-side). */
const PROJECT_READS: ReadonlySet<string> = new Set(['constructor', 'catalog', 'retainAncestors', 'state', 'current', 'lease', 'leaseGeneration', 'history', 'listGenerations']);
const CHECKPOINTS_READS: ReadonlySet<string> = new Set(['constructor', 'listCheckpoints', 'showCheckpoint', 'registryState', 'openCheckpoint']);

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('CheckpointView', () => {
  it('checkpoint_view_rejects_every_mutator', async () => {
    const w = await ws();
    await w.publish('g1');
    await w.cps.checkpoint({ name: 'ro', idempotencyKey: op(1) });
    const view = w.cps.openCheckpoint('ro');
    const revision = w.cps.registryState().revision;
    const current = w.project.current();
    // The writer-side API, enumerated from the classes themselves (not from the view's own list):
    // every method of Project and Checkpoints that is not a known read is a mutator.
    const writers = [
      ...Object.getOwnPropertyNames(Project.prototype).filter((m) => !PROJECT_READS.has(m)),
      ...Object.getOwnPropertyNames(Checkpoints.prototype).filter((m) => !CHECKPOINTS_READS.has(m)),
    ];
    expect(writers).toEqual(expect.arrayContaining(['publish', 'withWriter', 'cleanup', 'recover', 'checkpoint', 'deleteCheckpoint', 'recoverRegistry']));
    const reachable: string[] = [];
    // Hold the writer lock and the checkpoints lock elsewhere: a view that tried to lock would see busy.
    await w.project.withWriter(async () => {
      const cp = tryExclusive(path.join(w.dir, 'locks', 'checkpoints.lock'), 'locks/checkpoints.lock');
      expect(cp.kind).toBe('held');
      try {
        for (const m of writers) {
          const fn = (view as unknown as Record<string, unknown>)[m];
          // Unreachable (the view has no such member) or refused at once.
          if (fn === undefined) continue;
          reachable.push(m);
          expect(typeof fn, m).toBe('function');
          expect(await codeOf(() => (fn as (...a: unknown[]) => unknown).call(view, { name: 'x', idempotencyKey: op(9), reason: 'r', parent: null, changes: [] }, async () => undefined)), m).toBe('GF_READ_ONLY_VIEW');
        }
        // The engine's writer entry points handed a view in place of a project cannot run:
        // they need the workspace directory, which a view does not carry, and fail before any write.
        const asProject = view as unknown as Project<Table>;
        expect(await codeOf(() => revertToCheckpoint(asProject, { name: 'ro', reason: 'r', idempotencyKey: op(10) }))).not.toBe('accepted');
        expect(await codeOf(() => new Checkpoints(asProject).checkpoint({ name: 'x', idempotencyKey: op(11) }))).not.toBe('accepted');
        expect(await codeOf(() => new Checkpoints(asProject).deleteCheckpoint({ name: 'ro', idempotencyKey: op(12) }))).not.toBe('accepted');
      } finally {
        if (cp.kind === 'held') cp.lock.release();
      }
    });
    // The view's refusals cover the writer names it carries (publish, withWriter, checkpoint, …).
    expect(reachable).toEqual(expect.arrayContaining(['publish', 'withWriter', 'checkpoint', 'deleteCheckpoint']));
    // Nothing reachable from the view leads to a writer, a project or the registry.
    const own = Object.getOwnPropertyNames(view);
    expect(own.some((k) => /project|store|writer/i.test(k))).toBe(false);
    for (const k of own) {
      const v = (view as unknown as Record<string, unknown>)[k];
      expect(v instanceof Project || v instanceof Checkpoints, k).toBe(false);
    }
    expect(w.cps.registryState().revision).toBe(revision);
    expect(w.project.current()).toEqual(current);
    // Reads still work.
    expect(view.participants.length).toBeGreaterThan(0);
    view.release();
  });

  it('checkpoint_view_rejects_every_mutator through the facade: every writing operation refuses a view handle and changes nothing', async () => {
    const w = await ws();
    await w.publish('g1');
    await w.cps.checkpoint({ name: 'ro', idempotencyKey: op(1) });
    const facade = createFacade({ mode: 'library' });
    try {
      const ok = async (o: string, req: unknown): Promise<Record<string, unknown>> => {
        const env = await facade.dispatcher.dispatch(o, req);
        if (!env.ok) throw new Error(`${o}: ${env.error.code}`);
        return env.value as Record<string, unknown>;
      };
      const project = (await ok('project.open', { path: w.dir }))['project'] as string;
      const viewHandle = (await ok('view.open', { project, name: 'ro' }))['view'] as string;
      // Requests of every operation the contract marks as writing, with the view's handle where a project goes.
      const requests: Record<string, (h: string) => Record<string, unknown> | null> = {
        'project.create': () => null, // takes a path, not a handle: nothing of a view can reach it
        'checkpoints.create': (h) => ({ project: h, name: 'via-view', idempotency_key: op(20) }),
        'checkpoints.delete': (h) => ({ project: h, name: 'ro', idempotency_key: op(21) }),
        'checkpoints.revert': (h) => ({ project: h, name: 'ro', reason: 'via a view', idempotency_key: op(22) }),
        'retention.set': (h) => ({ project: h, retain_ancestors: 5 }),
        'project.publish': (h) => ({ project: h, changes: [{ kind: 'remove', capability_id: 'demo', record_family_id: 'items' }] }),
        'workspace.adopt_ontology': (h) => ({ project: h, source: '{}', source_format: 'json', mode: 'advisory', idempotency_key: op(23) }),
        'workspace.clear_ontology': (h) => ({ project: h, idempotency_key: op(24) }),
        'demo.create': () => null, // takes a path, not a handle
        'project.doctor': () => null, // takes a path, not a handle
        'threads.restore': () => null, // takes a LangGraph source, not a project handle
        'threads.prune': () => null, // takes a LangGraph source, not a project handle
        'actor.rename': () => null, // writes the app's own actors.json, takes no project handle
        'actor.resolve': () => null, // remembers a name in the app's own actors.json, takes no project handle
      };
      const writing = OPERATION_NAMES.filter((n) => OPERATIONS[n].writes);
      expect([...writing].sort()).toEqual(Object.keys(requests).sort());
      const revision = w.cps.registryState().revision;
      const current = w.project.current();
      for (const o of writing) {
        const req = requests[o]!(viewHandle);
        if (req === null) continue;
        const env = await facade.dispatcher.dispatch(o, req);
        expect(env.ok ? 'ok' : env.error.code, o).toBe('GF_VALIDATION');
      }
      expect(w.cps.registryState().revision).toBe(revision);
      expect(w.project.current()).toEqual(current);
      // The same requests with the project handle do write (so the refusals above are about the handle).
      expect((await facade.dispatcher.dispatch('checkpoints.create', requests['checkpoints.create']!(project))).ok).toBe(true);
    } finally {
      await facade.close();
    }
  });

  it('reads a family in keyset pages and a single record by identity', async () => {
    const w = await ws();
    await w.publish('g1', 25);
    await w.cps.checkpoint({ name: 'p', idempotencyKey: op(1) });
    const view = w.cps.openCheckpoint('p');
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = view.readRecords('graph/node', { limit: 10, after });
      const col = tableFromIPC(page.bytes).getChild('node_uuid')!;
      for (let i = 0; i < col.length; i++) seen.push(formatUuid(col.get(i) as Uint8Array));
      after = page.next;
      pages += 1;
    } while (after !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(25);
    expect([...seen].sort()).toEqual(seen);
    const one = view.readRecord('graph/node', { node_uuid: seen[7]! });
    expect(one.rowCount).toBe(1);
    expect(formatUuid(tableFromIPC(one.bytes).getChild('node_uuid')!.get(0) as Uint8Array)).toBe(seen[7]);
    expect(view.readRecord('graph/node', { node_uuid: '00000000-0000-8000-8000-000000000000' }).rowCount).toBe(0);
    // By identity fingerprint: the canonical fingerprint of the identity projection (as record diff rows carry it).
    const family = familyByKey('graph/node')!;
    const whole = tableFromIPC(view.readRecords('graph/node', { limit: 100 }).bytes);
    const idField = family.schema.fields.find((f) => f.name === 'node_uuid')!;
    const projection = new Table(new Schema([idField], family.schema.metadata), { node_uuid: whole.getChild('node_uuid')! });
    const fps = recordFingerprintsHex(projection, family.identityFingerprintDomain);
    const byFp = view.readRecordByFingerprint('graph/node', fps[11]!);
    expect(byFp.rowCount).toBe(1);
    expect(formatUuid(tableFromIPC(byFp.bytes).getChild('node_uuid')!.get(0) as Uint8Array)).toBe(seen[11]);
    expect(view.readRecordByFingerprint('graph/node', '0'.repeat(64)).rowCount).toBe(0);
    expect(await codeOf(() => view.readRecordByFingerprint('graph/node', 'XYZ'))).toBe('GF_VALIDATION');
    expect(await codeOf(() => view.readRecord('graph/node', { label: 'x' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => view.readRecords('graph/node', { after: 'AAAA' }))).toBe('GF_PAGE_INVALID');
    expect(await codeOf(() => view.readRecords('graph/node', { limit: 0 }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => view.readRecords('nope/nothing'))).toBe('GF_VALIDATION');
    view.release();
  });
});
