// checkpoints.list with `deleted: true`: the registry's tombstones as checkpoint_tombstone@1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { main } from '../../../../core/cli/main';
import type { Envelope } from '../../../../core/contract/wire';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let project: string;
const DELETED_AT = 1_767_312_000_000_000;

function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}
const code = (env: Envelope): string => (env.ok ? 'ok' : env.error.code);
const call = (op: string, req: object) => facade.dispatcher.dispatch(op, req);
const rows = (r: ArrowResult) => tableFromIPC(r.bytes).toArray().map((x) => ({ ...(x as Record<string, unknown>) }));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-tombstones-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library', micros: () => DELETED_AT });
  project = value<{ project: string }>(await call('project.open', { path: ws.dir })).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('checkpoints.list deleted: true', () => {
  it('lists nothing before a delete, then each deleted name once, in deletion order, paged; never among active ones', async () => {
    const empty = value<ArrowResult>(await call('checkpoints.list', { project, deleted: true }));
    expect(tableFromIPC(empty.bytes).schema.metadata.get('graphforge.contract.result_schema')).toBe('checkpoint_tombstone@1');
    expect([tableFromIPC(empty.bytes).numRows, empty.next_page_token]).toEqual([0, null]);
    const active = rows(value<ArrowResult>(await call('checkpoints.list', { project })));
    const byName = new Map(active.map((r) => [r.name as string, r]));
    for (const [i, name] of ['more nodes', 'baseline'].entries()) {
      value(await call('checkpoints.delete', { project, name, idempotency_key: testUuid(`tomb-${i}`) }));
    }
    const t = tableFromIPC(value<ArrowResult>(await call('checkpoints.list', { project, deleted: true })).bytes);
    expect(t.schema.fields.map((f) => f.name)).toEqual(['name', 'checkpoint_uuid', 'generation_uuid', 'deleted_at', 'deleted_revision']);
    const all = t.toArray().map((x) => x as { name: string; deleted_at: bigint; deleted_revision: bigint });
    expect(all.map((r) => r.name)).toEqual(['more nodes', 'baseline']);
    // apache-arrow reads timestamp[us] cells as epoch milliseconds.
    expect(all.map((r) => Number(r.deleted_at))).toEqual([DELETED_AT / 1000, DELETED_AT / 1000]);
    expect(Number(all[1]?.deleted_revision)).toBe(Number(all[0]?.deleted_revision) + 1);
    const gen = (u: unknown) => Buffer.from(u as Uint8Array).toString('hex');
    expect(gen(t.getChild('generation_uuid')?.get(1))).toBe(gen(byName.get('baseline')?.generation_uuid));
    expect(rows(value<ArrowResult>(await call('checkpoints.list', { project }))).length).toBe(0);

    const p1 = value<ArrowResult>(await call('checkpoints.list', { project, deleted: true, limit: 1 }));
    expect(rows(p1).map((r) => r.name)).toEqual(['more nodes']);
    expect(p1.next_page_token).not.toBeNull();
    const p2 = value<ArrowResult>(await call('checkpoints.list', { project, deleted: true, limit: 1, after: p1.next_page_token }));
    expect([rows(p2).map((r) => r.name), p2.next_page_token]).toEqual([['baseline'], null]);
    // A tombstone token is foreign to the active listing (and edited tokens are refused).
    expect(code(await call('checkpoints.list', { project, after: p1.next_page_token }))).toBe('GF_PAGE_INVALID');
    expect(code(await call('checkpoints.list', { project, deleted: true, after: `${p1.next_page_token ?? ''}x` }))).toBe('GF_PAGE_INVALID');
    expect(code(await call('checkpoints.list', { project, deleted: 'yes' }))).toBe('GF_VALIDATION');
  });

  it('gf checkpoint list --deleted gives the same Arrow bytes as the facade; --json rows in schema order with ISO timestamps', async () => {
    const run = async (...argv: string[]): Promise<{ code: number; out: Buffer; err: string }> => {
      const chunks: Buffer[] = [];
      let err = '';
      const code = await main(argv, { stdout: (c) => void chunks.push(Buffer.from(c)), stderr: (c) => void (err += c) });
      return { code, out: Buffer.concat(chunks), err };
    };
    const facadePage = value<ArrowResult>(await call('checkpoints.list', { project, deleted: true, limit: 1 }));
    const cli = await run('checkpoint', 'list', '--deleted', '--limit', '1', '--arrow', '--project', ws.dir);
    expect([cli.code, cli.err]).toEqual([0, '']);
    expect(cli.out.equals(Buffer.from(facadePage.bytes))).toBe(true);
    const json = await run('checkpoint', 'list', '--deleted', '--json', '--project', ws.dir);
    const doc = JSON.parse(json.out.toString('utf8')) as { rows: Record<string, unknown>[]; next_page_token: string | null };
    expect(doc.next_page_token).toBeNull();
    expect(doc.rows.map((r) => Object.keys(r))).toEqual([0, 1].map(() => ['name', 'checkpoint_uuid', 'generation_uuid', 'deleted_at', 'deleted_revision']));
    expect(doc.rows.map((r) => [r.name, r.deleted_at])).toEqual([
      ['more nodes', '2026-01-02T00:00:00.000000Z'],
      ['baseline', '2026-01-02T00:00:00.000000Z'],
    ]);
  });
});
