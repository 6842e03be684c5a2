import { tableFromIPC } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { workspace } from './checkpoint-support';
import type { Workspace } from './checkpoint-support';

const spaces: Workspace[] = [];
afterEach(() => {
  for (const w of spaces.splice(0)) w.close();
});

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string; bytes: Uint8Array }> {
  const chunks: Uint8Array[] = [];
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (c) => {
      if (typeof c === 'string') out += c;
      else chunks.push(c);
    },
    stderr: (c) => {
      err += c;
    },
  });
  return { code, out, err, bytes: Buffer.concat(chunks) };
}

describe('gf checkpoint', () => {
  it('create (key generated and printed, then replayed), list, open -- reads, delete', async () => {
    const w = await workspace();
    spaces.push(w);
    const gen = await w.publish('g1', 12);
    const created = await gf('checkpoint', 'create', 'Release 1.0', '--project', w.dir, '--description', 'rc', '--json');
    expect(created.code).toBe(0);
    const key = /idempotency key: ([0-9a-f-]{36})/.exec(created.err)?.[1];
    expect(key).toBeDefined();
    const receipt = JSON.parse(created.out) as Record<string, unknown>;
    expect(receipt).toMatchObject({ operation: 'checkpoint', operation_uuid: key, name: 'Release 1.0', source_generation_uuid: gen, registry_revision: 1 });
    // Replaying with the printed key returns the original receipt.
    const replay = await gf('checkpoint', 'create', 'Release 1.0', '--project', w.dir, '--description', 'rc', '--idempotency-key', key!, '--json');
    expect(JSON.parse(replay.out)).toEqual(receipt);
    const conflict = await gf('checkpoint', 'create', 'Release 1.0', '--project', w.dir, '--idempotency-key', key!);
    expect(conflict.code).toBe(1);
    expect(conflict.err).toContain('GF_IDEMPOTENCY_CONFLICT');
    expect(conflict.err).toContain('committed: false');

    const list = await gf('checkpoint', 'list', '--project', w.dir, '--json');
    const listed = JSON.parse(list.out) as { rows: Array<{ name: string; created_at: string }>; next_page_token: string | null };
    expect(listed.rows.map((r) => r.name)).toEqual(['Release 1.0']);
    expect(listed.rows[0]?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(listed.next_page_token).toBeNull();
    const arrow = await gf('checkpoint', 'list', '--project', w.dir, '--arrow');
    const t = tableFromIPC(arrow.bytes);
    expect(t.schema.fields.map((f) => f.name)).toEqual(['checkpoint_uuid', 'name', 'description', 'generation_uuid', 'generation_manifest_sha256', 'created_at', 'created_by']);
    expect(t.numRows).toBe(1);

    const parts = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--json', '--', 'participants');
    expect(parts.code).toBe(0);
    const families = (JSON.parse(parts.out) as { participants: Array<{ capability_id: string; record_family_id: string }> }).participants.map((p) => `${p.capability_id}/${p.record_family_id}`);
    expect(families).toContain('graph/node');
    const page = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--json', '--', 'records', 'graph/node', '--limit', '5');
    const body = JSON.parse(page.out) as { records: Array<{ node_uuid: string }>; next_page_token: string };
    expect(body.records).toHaveLength(5);
    const next = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--json', '--', 'records', 'graph/node', '--limit', '10', '--after', body.next_page_token);
    expect((JSON.parse(next.out) as { records: unknown[] }).records).toHaveLength(7);
    const one = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--json', '--', 'record', 'graph/node', body.records[2]!.node_uuid);
    expect((JSON.parse(one.out) as { records: Array<{ node_uuid: string }> }).records.map((r) => r.node_uuid)).toEqual([body.records[2]!.node_uuid]);
    const bad = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--', 'rm', '-rf', '/');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('GF_VALIDATION');

    const del = await gf('checkpoint', 'delete', 'Release 1.0', '--project', w.dir, '--idempotency-key', '018f0f4e-7b8c-7000-8000-0000000000d1', '--json');
    expect(JSON.parse(del.out)).toMatchObject({ operation: 'delete_checkpoint', registry_revision: 2 });
    const gone = await gf('checkpoint', 'open', 'Release 1.0', '--project', w.dir, '--', 'participants');
    expect(gone.err).toContain('GF_CHECKPOINT_NOT_FOUND');
    const badName = await gf('checkpoint', 'create', '../escape', '--project', w.dir, '--idempotency-key', '018f0f4e-7b8c-7000-8000-0000000000d2');
    expect(badName.err).toContain('GF_VALIDATION');
    expect(badName.err).not.toContain('../escape');
  });
});
