import { afterEach, describe, expect, it } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { main } from '../../../../core/cli/main';
import type { CliIo } from '../../../../core/cli/io';
import { RECORD_DIFF_SCHEMA } from '../../../../core/diff/arrow-schemas';
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
      // Every generation holds the mandatory ontology document; the publications leave it as it was.
      ['ontology', 'unchanged'],
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
    expect(txt.out().split('\n')[0]).toMatch(/^family +change +added +removed +modified +from rows +to rows$/);
    expect(txt.out()).toContain('graph/node');
  });

  it('a record table fitted to the terminal: change, display fields, changed fields, middle-truncated ids; --wide; --stat', async () => {
    ws = await workspace();
    await ws.publish('a', 8);
    await ws.cps.checkpoint({ name: 'one', idempotencyKey: '018f0f4e-7b8c-7000-8000-0000000000c3' });
    await ws.publish('b', 8);
    const dir = ws.dir;
    const prev = process.env['COLUMNS'];
    process.env['COLUMNS'] = '60';
    try {
      const t = capture();
      expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--detail', 'records', '--family', 'node', '--limit', '3'], t.io)).toBe(0);
      const lines = t.out().trimEnd().split('\n');
      expect(lines[0]).toMatch(/^change +label +kind +changed +id$/);
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(60);
      // Ids are cut in the middle (both ends identify), never a 64-character hash.
      expect(lines.slice(1, -1).every((l) => /[0-9a-f]+…[0-9a-f]+$/.test(l))).toBe(true);
      expect(lines[lines.length - 1]).toMatch(/^rows 1–3( of \d+)?$/);
      expect(t.out()).not.toMatch(/[0-9a-f]{64}/);

      const wide = capture();
      expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--detail', 'records', '--family', 'node', '--limit', '3', '--wide'], wide.io)).toBe(0);
      expect(wide.out().split('\n')[0]).toContain('to_record_fingerprint');
      expect(wide.out()).toMatch(/[0-9a-f]{64}/);

      const stat = capture();
      expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--stat'], stat.io)).toBe(0);
      expect(stat.out()).toMatch(/^ graph\/node +\| +\d+ \+*-*~*$/m);
      for (const l of stat.out().split('\n')) expect([...l].length).toBeLessThanOrEqual(60);
      expect(stat.out().trimEnd().split('\n').pop()).toMatch(/^ \d+ famil(y|ies) changed: \d+ added, \d+ removed, \d+ modified$/);
      const statJson = capture();
      expect(await main(['checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--stat', '--json'], statJson.io)).toBe(0);
      const parsed = JSON.parse(statJson.out()) as { families: { record_family_id: string; added: number }[] };
      expect(parsed.families.some((f) => f.record_family_id === 'node')).toBe(true);
    } finally {
      if (prev === undefined) delete process.env['COLUMNS'];
      else process.env['COLUMNS'] = prev;
    }
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
