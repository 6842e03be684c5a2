// The reviewer diff through the contract on a real demo workspace: every
// family of the registry (restoration_transition included) opens in the
// record diff with the scope derived from the registry, and a checkpoint
// compared with the CURRENT just reverted to it reads as bookkeeping only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { diffScopeOfParticipant, parseDisplay, type DiffStatResult } from '../../../../core/contract/diff';
import type { Envelope } from '../../../../core/contract/wire';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { RECORD_FAMILIES, displayFieldsOf } from '../../../../core/participants/index';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let facade: Facade;
let project: string;
const call = (op: string, req: object): Promise<Envelope> => facade.dispatcher.dispatch(op, req);

async function ok<T>(op: string, req: object): Promise<T> {
  const env = await call(op, { project, ...req });
  if (!env.ok) throw new Error(`${op}: ${env.error.code} ${env.error.message}`);
  return env.value as T;
}

function rows(bytes: Uint8Array): Record<string, unknown>[] {
  const t = tableFromIPC(bytes);
  return t.toArray().map((r) => r.toJSON() as Record<string, unknown>);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-display-contract-'));
  const dir = join(root, 'ws');
  await createDemoWorkspace(dir, { records: 40 });
  facade = createFacade({ mode: 'library' });
  const opened = await call('project.open', { path: dir });
  if (!opened.ok) throw new Error(opened.error.code);
  project = (opened.value as { project: string }).project;
}, 120_000);

afterAll(async () => {
  await facade?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('reviewer diff through the contract', () => {
  it('every registry family opens in the record diff, with the scope derived from the registry', async () => {
    for (const family of RECORD_FAMILIES) {
      const scope = diffScopeOfParticipant(family.scope);
      const page = await ok<{ bytes: Uint8Array }>('checkpoints.diff', {
        from: 'Graph imported',
        to: 'CURRENT',
        scope,
        detail: 'records',
        record_family_id: family.recordFamilyId,
        display: true,
        limit: 5,
      });
      for (const r of rows(page.bytes)) {
        expect(r['record_family_id']).toBe(family.recordFamilyId);
        expect(Object.keys(parseDisplay(r['display'] as string))).toEqual(displayFieldsOf(family).map((f) => f.name));
      }
    }
    // The scope a participant lists (workspace) is not a request scope: deriving it never sends it.
    expect(diffScopeOfParticipant('workspace')).toBe('all');
  });

  it('a checkpoint against the CURRENT just reverted to it: content identical, 1 restoration record, and that record opens', async () => {
    // The demo's CURRENT already has the release's content: a same-content revert must be confirmed.
    await ok('checkpoints.revert', { name: 'Release 1.0', reason: 'back to the release', idempotency_key: testUuid('display-contract-revert') });
    const stat = await ok<DiffStatResult>('checkpoints.diff_stat', { from: 'Release 1.0', to: 'CURRENT', scope: 'all' });
    expect(stat.headline).toBe('content identical; 1 restoration record');
    const books = stat.families.filter((f) => f.change_kind !== 'unchanged');
    // The restored generation holds exactly its own restoration record; Release 1.0 (a later publication than the
    // demo's earlier revert) carries none forward, so the one record is added and nothing is removed.
    expect(books.map((f) => [f.record_family_id, f.bookkeeping, f.added, f.removed, f.modified])).toEqual([['restoration_transition', true, 1, 0, 0]]);
    const page = await ok<{ bytes: Uint8Array }>('checkpoints.diff', {
      from: 'Release 1.0',
      to: 'CURRENT',
      scope: diffScopeOfParticipant('workspace'),
      detail: 'records',
      record_family_id: 'restoration_transition',
      display: true,
    });
    const got = rows(page.bytes);
    const added = got.filter((r) => r['change_kind'] === 'added');
    expect(added.map((r) => [parseDisplay(r['display'] as string)['reason'], String(r['total_rows'])])).toEqual([['back to the release', '1']]);
    // Microseconds, through the one formatter.
    expect(parseDisplay(added[0]?.['display'] as string)['restored_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('display fields without a family, and filters without display, are GF_VALIDATION', async () => {
    for (const bad of [
      { display: true },
      { change_kinds: ['added'], record_family_id: 'node' },
      { display: true, record_family_id: 'node', changed_field: 'no_such_field' },
      { display: true, record_family_id: 'node', position: 3, after: 'abc.def' },
      { changed_values: true, record_family_id: 'node' },
    ]) {
      const env = await call('checkpoints.diff', { project, from: 'Graph imported', to: 'CURRENT', scope: 'all', detail: 'records', ...bad });
      expect(env.ok, JSON.stringify(bad)).toBe(false);
      if (!env.ok) expect(env.error.code).toBe('GF_VALIDATION');
    }
  });
});
