// ADR-0014 "Write errors carry committed; read errors do not": request and
// contract refusals of every write operation say committed: false.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let project: string;

const call = (op: string, req: unknown): Promise<Envelope> => facade.dispatcher.dispatch(op, req);
const outcome = (env: Envelope): { code: string; committed: boolean | null | undefined } => (env.ok ? { code: 'ok', committed: undefined } : { code: env.error.code, committed: env.error.committed });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-write-errors-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library', micros: () => 1_767_312_000_000_000, configDir: join(root, 'config') });
  const env = await call('project.open', { path: ws.dir });
  if (!env.ok) throw new Error(env.error.code);
  project = (env.value as { project: string }).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('write_errors_carry_committed', () => {
  it('every contract refusal of a write operation says committed: false; a read refusal carries none', async () => {
    const key = testUuid('write-errors-key');
    const writes = (Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[]).filter((op) => OPERATIONS[op].writes);
    expect(writes.sort()).toEqual([
      'actor.rename', 'actor.resolve', 'checkpoints.create', 'checkpoints.delete', 'checkpoints.revert', 'demo.create', 'project.create', 'project.doctor',
      'project.publish', 'retention.set', 'threads.prune', 'threads.restore', 'workspace.adopt_ontology', 'workspace.clear_ontology',
    ]);
    const bad: Array<[string, unknown]> = [
      ['actor.rename', { display_name: '\u0000' }],
      ['actor.resolve', { actor: '' }],
      ['checkpoints.create', { project, name: 'x', idempotency_key: 'not-a-uuid' }],
      ['checkpoints.create', { project, name: 'x', idempotency_key: key, surprise: 1 }],
      ['checkpoints.create', 'not an object'],
      ['checkpoints.delete', { project, idempotency_key: key }],
      ['checkpoints.revert', { project, name: 'baseline', reason: '   ', idempotency_key: key }],
      ['project.create', { path: 'relative/dir' }],
      ['retention.set', { project, retain_ancestors: -1 }],
      ['demo.create', { path: join(root, 'demo'), records: -1 }],
      ['project.doctor', { path: ws.dir, repair: 'yes' }],
      ['project.publish', { project, changes: [] }],
      ['threads.restore', { source: { kind: 'postgres' }, thread_id: 't', checkpoint_id: 'c', reason: '   ', idempotency_key: key }],
      ['threads.prune', { source: { kind: 'postgres' }, keep_last: 1, reason: '   ', idempotency_key: key, expected_preview_digest: 'a'.repeat(64) }],
      ['workspace.adopt_ontology', { project, source: '', source_format: 'xml', mode: 'strict', idempotency_key: key }],
      ['workspace.clear_ontology', { project, idempotency_key: 'not-a-uuid' }],
    ];
    // Every write operation is exercised by at least one bad request.
    expect([...new Set(bad.map(([op]) => op))].sort()).toEqual(writes);
    for (const [op, req] of bad) expect({ op, ...outcome(await call(op, req)) }).toEqual({ op, code: 'GF_VALIDATION', committed: false });
    expect(outcome(await call('checkpoints.list', { project, limit: 0 }))).toEqual({ code: 'GF_VALIDATION', committed: null });
  });

  it('the library refuses bad create and delete requests with committed: false', async () => {
    const p = await openCheckpointedProject(ws.dir);
    const cps = new Checkpoints(p);
    const key = testUuid('write-errors-lib');
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['create, bad key', () => cps.checkpoint({ name: 'x', idempotencyKey: 'nope' })],
      ['create, bad name', () => cps.checkpoint({ name: '../x', idempotencyKey: key })],
      ['create, bad description', () => cps.checkpoint({ name: 'x', description: 'a'.repeat(100_000), idempotencyKey: key })],
      ['create, bad actor', () => cps.checkpoint({ name: 'x', idempotencyKey: key, actorUuid: 'someone' })],
      ['delete, bad key', () => cps.deleteCheckpoint({ name: 'x', idempotencyKey: 7 })],
      ['delete, bad name', () => cps.deleteCheckpoint({ name: '', idempotencyKey: key })],
    ];
    for (const [label, f] of cases) {
      const e = await f().then(() => ({ code: 'accepted', committed: undefined }), (x: unknown) => x as { code?: string; committed?: boolean });
      expect({ label, code: e.code, committed: e.committed }).toEqual({ label, code: 'GF_VALIDATION', committed: false });
    }
  });
});
