import { afterEach, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { main } from '../../../../core/cli/main';
import type { CliIo } from '../../../../core/cli/io';
import { RECORD_DIFF_SCHEMA } from '../../../../core/diff';
import { workspace } from '../checkpoints/checkpoint-support';
import type { Workspace } from '../checkpoints/checkpoint-support';

function capture(): { io: CliIo; out: () => string; bytes: () => Buffer; err: () => string } {
  const chunks: Buffer[] = [];
  let err = '';
  return {
    io: { stdout: (c) => void chunks.push(Buffer.from(c)), stderr: (c) => void (err += c) },
    out: () => Buffer.concat(chunks).toString('utf8'),
    bytes: () => Buffer.concat(chunks),
    err: () => err,
  };
}

let ws: Workspace | undefined;
afterEach(() => {
  ws?.close();
  ws = undefined;
});

describe('gf checkpoint diff', () => {
  it('prints summary and record pages as JSON, text and Arrow, with a next-page token', async () => {
    ws = await workspace();
    await ws.publish('a', 6);
    await ws.cps.checkpoint({ name: 'one', idempotencyKey: '018f0f4e-7b8c-7000-8000-0000000000c1' });
    await ws.publish('b', 6);
    const dir = ws.dir;

    const s = capture();
    expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--json'], s.io)).toBe(0);
    const summary = JSON.parse(s.out()) as { schema: string; rows: Record<string, unknown>[]; next_page_token: string | null };
    expect(summary.schema).toBe('checkpoint_summary_diff@1');
    expect(summary.rows.map((r) => [r.record_family_id, r.change_kind])).toEqual([
      ['configuration', 'modified'],
      ['node', 'modified'],
    ]);

    const p1 = capture();
    expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--detail', 'records', '--scope', 'graph', '--limit', '5', '--json'], p1.io)).toBe(0);
    const page1 = JSON.parse(p1.out()) as { rows: Record<string, unknown>[]; next_page_token: string };
    expect(page1.rows).toHaveLength(5);
    expect(typeof page1.next_page_token).toBe('string');
    const p2 = capture();
    expect(
      await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--detail', 'records', '--scope', 'graph', '--limit', '5', '--after', page1.next_page_token, '--arrow'], p2.io),
    ).toBe(0);
    const t = tableFromIPC(p2.bytes());
    expect(t.schema.fields.map((f) => [f.name, String(f.type), f.nullable])).toEqual(RECORD_DIFF_SCHEMA.fields.map((f) => [f.name, String(f.type), f.nullable]));
    expect(t.numRows).toBe(5); // 6 removed + 6 added = 12 changes: pages of 5, 5, 2
    expect(p2.err()).toContain('next page: --after ');

    // --family: the configuration family alone (the all-scope diff also changes node).
    const fam = capture();
    expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--detail', 'records', '--family', 'configuration', '--json'], fam.io)).toBe(0);
    const famRows = (JSON.parse(fam.out()) as { rows: Record<string, unknown>[] }).rows;
    expect(famRows.length).toBeGreaterThan(0);
    expect(new Set(famRows.map((r) => r.record_family_id))).toEqual(new Set(['configuration']));

    const txt = capture();
    expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir], txt.io)).toBe(0);
    expect(txt.out().split('\n')[0]).toBe('from_checkpoint_uuid\tto_checkpoint_uuid\tscope\tcapability_id\trecord_family_id\tchange_kind\tfrom_row_count\tto_row_count\tfrom_schema_fingerprint\tto_schema_fingerprint\tfrom_content_sha256\tto_content_sha256');
  });

  it('exits 1 with the GF code for bad input, unknown names and edited tokens', async () => {
    ws = await workspace();
    await ws.publish('a', 2);
    await ws.cps.checkpoint({ name: 'one', idempotencyKey: '018f0f4e-7b8c-7000-8000-0000000000c2' });
    const dir = ws.dir;
    for (const [args, code] of [
      [['--limit', '0'], 'GF_VALIDATION'],
      [['--limit', '10001'], 'GF_VALIDATION'],
      [['--scope', 'nope'], 'GF_VALIDATION'],
      [['--after', 'garbage'], 'GF_PAGE_INVALID'],
      [['--family', 'no_such_family'], 'GF_VALIDATION'],
    ] as const) {
      const c = capture();
      expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, ...args], c.io)).toBe(1);
      expect(c.err()).toContain(code);
    }
    const c = capture();
    expect(await main(['checkpoint', 'diff', 'missing', 'CURRENT', '--project', dir], c.io)).toBe(1);
    expect(c.err()).toContain('GF_CHECKPOINT_NOT_FOUND');
    expect(await main(['checkpoint', 'diff', 'one', '--project', dir], capture().io)).toBe(2);
  });
});
