import path from 'node:path';
import { Schema, Table, tableFromIPC } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { formatUuid, recordFingerprintsHex } from '../../../../core/canonical';
import { familyByKey } from '../../../../core/participants/index';
import { tryExclusive } from '../../../../core/project/sqlite-lock';
import { VIEW_MUTATORS } from '../../../../core/views/checkpoint-view';
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

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('CheckpointView', () => {
  it('checkpoint_view_rejects_every_mutator', async () => {
    const w = await ws();
    await w.publish('g1');
    await w.cps.checkpoint({ name: 'ro', idempotencyKey: op(1) });
    const view = w.cps.openCheckpoint('ro');
    const revision = w.cps.registryState().revision;
    const current = w.project.current();
    // Hold the writer lock and the checkpoints lock elsewhere: a view that tried to lock would see busy.
    await w.project.withWriter(async () => {
      const cp = tryExclusive(path.join(w.dir, 'locks', 'checkpoints.lock'), 'locks/checkpoints.lock');
      expect(cp.kind).toBe('held');
      try {
        for (const m of VIEW_MUTATORS) {
          const fn = (view as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
          expect(typeof fn, m).toBe('function');
          expect(await codeOf(() => fn!.call(view, { name: 'x', idempotencyKey: op(9), reason: 'r' })), m).toBe('GF_READ_ONLY_VIEW');
        }
      } finally {
        if (cp.kind === 'held') cp.lock.release();
      }
    });
    // Nothing reachable from the view leads to a writer, a project or the registry.
    const own = Object.getOwnPropertyNames(view);
    expect(own.some((k) => /project|store|writer/i.test(k))).toBe(false);
    expect(w.cps.registryState().revision).toBe(revision);
    expect(w.project.current()).toEqual(current);
    // Reads still work.
    expect(view.participants.length).toBeGreaterThan(0);
    view.release();
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
