// The CLI side of the audit trail and of the reviewer fixes: --actor / GF_ACTOR
// on writes (a name becomes its derived actor UUID and is remembered for the
// app), --expect-current and --expect-head refusing a moved CURRENT or head,
// `--family graph/node` (the form --stat prints), --family implying record
// detail or naming the missing flag, counts in the default summary table,
// the command that continues a page instead of a token line, and `gf log`
// naming its actors as the app does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import type { CliIo } from '../../../../core/cli/io';
import { ActorStore, derivedActorUuid } from '../../../../core/actor/actor-store';
import { workspace, type Workspace } from '../checkpoints/checkpoint-support';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  const chunks: Buffer[] = [];
  let err = '';
  return {
    io: { stdout: (c) => void chunks.push(Buffer.from(c)), stderr: (c) => void (err += c) },
    out: () => Buffer.concat(chunks).toString('utf8'),
    err: () => err,
  };
}

async function gf(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await main(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

// The CLI's facade reads the app's configuration folder from GF_CONFIG_DIR: a private one, never the tester's.
const config = mkdtempSync(join(tmpdir(), 'gf-audit-cli-config-'));
const saved = { dir: process.env['GF_CONFIG_DIR'], actor: process.env['GF_ACTOR'] };
beforeAll(() => {
  process.env['GF_CONFIG_DIR'] = config;
  delete process.env['GF_ACTOR'];
});
afterAll(() => {
  if (saved.dir === undefined) delete process.env['GF_CONFIG_DIR'];
  else process.env['GF_CONFIG_DIR'] = saved.dir;
  if (saved.actor === undefined) delete process.env['GF_ACTOR'];
  else process.env['GF_ACTOR'] = saved.actor;
  rmSync(config, { recursive: true, force: true });
});

let ws: Workspace | undefined;
afterEach(() => {
  delete process.env['GF_ACTOR'];
  ws?.close();
  ws = undefined;
});

async function twoCheckpoints(nodes: number): Promise<string> {
  ws = await workspace();
  await ws.publish('a', nodes);
  await ws.cps.checkpoint({ name: 'one', idempotencyKey: '018f0f4e-7b8c-7000-8000-0000000035c1' });
  await ws.publish('b', nodes);
  return ws.dir;
}

describe('gf --actor and GF_ACTOR', () => {
  it('a display name is recorded as its derived actor UUID and remembered for the app; GF_ACTOR stands in for --actor; a UUID is kept as it is', async () => {
    const dir = await twoCheckpoints(3);
    expect((await gf('checkpoint', 'create', 'by-name', '--project', dir, '--actor', 'Ada Lovelace', '--json')).code).toBe(0);
    process.env['GF_ACTOR'] = 'Grace Hopper';
    expect((await gf('checkpoint', 'create', 'by-env', '--project', dir, '--json')).code).toBe(0);
    delete process.env['GF_ACTOR'];
    const uuid = '018f0f4e-7b8c-7000-8000-0000000035c9';
    expect((await gf('checkpoint', 'create', 'by-uuid', '--project', dir, '--actor', uuid, '--json')).code).toBe(0);
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    const rows = (JSON.parse(list.out) as { rows: { name: string; created_by: string | null }[] }).rows;
    const by = Object.fromEntries(rows.map((r) => [r.name, r.created_by]));
    expect(by).toMatchObject({ 'by-name': derivedActorUuid('Ada Lovelace'), 'by-env': derivedActorUuid('Grace Hopper'), 'by-uuid': uuid, one: null });
    // The app's configuration folder now knows both names (and nothing was written into the workspace about them).
    const book = JSON.parse(readFileSync(join(config, 'actors.json'), 'utf8')) as { known: Record<string, { display_name: string }> };
    expect(book.known[derivedActorUuid('Ada Lovelace')]?.display_name).toBe('Ada Lovelace');
    expect(book.known[derivedActorUuid('Grace Hopper')]?.display_name).toBe('Grace Hopper');
    // A name with a control character is refused before anything is written.
    const bad = await gf('checkpoint', 'create', 'by-bad', '--project', dir, '--actor', 'tab\there');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('GF_VALIDATION');
    expect((await gf('checkpoint', 'show', 'by-bad', '--project', dir)).err).toContain('GF_CHECKPOINT_NOT_FOUND');
  });

  it('revert --expect-current: a moved CURRENT is GF_STALE_PREVIEW and nothing is published; the right one publishes with the actor', async () => {
    const dir = await twoCheckpoints(3);
    const preview = JSON.parse((await gf('checkpoint', 'revert', 'one', '--project', dir, '--preview', '--json')).out) as { current_generation_uuid: string };
    await ws!.publish('c', 3);
    const stale = await gf('checkpoint', 'revert', 'one', '--project', dir, '--reason', 'confirmed on the old preview', '--expect-current', preview.current_generation_uuid);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain('GF_STALE_PREVIEW');
    const history = async () => (JSON.parse((await gf('log', '--project', dir, '--json')).out) as { entries: { kind: string; actor: string | null }[] }).entries;
    expect((await history()).filter((h) => h.kind === 'revert')).toHaveLength(0);
    const fresh = JSON.parse((await gf('checkpoint', 'revert', 'one', '--project', dir, '--preview', '--json')).out) as { current_generation_uuid: string };
    const ok = await gf('checkpoint', 'revert', 'one', '--project', dir, '--reason', 'confirmed on the new preview', '--expect-current', fresh.current_generation_uuid, '--actor', 'Ada Lovelace');
    expect(ok.code).toBe(0);
    expect((await history())[0]).toMatchObject({ kind: 'revert', actor: derivedActorUuid('Ada Lovelace') });
  });
});

describe('gf checkpoint diff: --family, counts, continuing', () => {
  it('--family graph/node (the form --stat prints) and --family node give the node records; --family implies --detail records', async () => {
    const dir = await twoCheckpoints(4);
    const stat = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--stat');
    expect(stat.out).toContain('graph/node');
    const slash = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'graph/node', '--json');
    expect(slash.code).toBe(0);
    const parsed = JSON.parse(slash.out) as { schema: string; rows: { record_family_id: string }[] };
    expect(parsed.schema).toBe('checkpoint_record_diff@1');
    expect(parsed.rows.length).toBe(8); // 4 removed + 4 added nodes
    expect(new Set(parsed.rows.map((r) => r.record_family_id))).toEqual(new Set(['node']));
    const bare = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'node', '--json');
    expect(JSON.parse(bare.out)).toEqual(parsed);
    // A wrong capability for the family is refused by the engine, not silently widened.
    expect((await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'workspace/node')).err).toContain('GF_VALIDATION');
  });

  it('a filter without --family, or with an explicit --detail summary, names the missing flag', async () => {
    const dir = await twoCheckpoints(2);
    const noFamily = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--kind', 'added');
    expect(noFamily.code).toBe(1);
    expect(noFamily.err).toContain('--kind needs --family');
    const summary = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'node', '--detail', 'summary', '--kind', 'added');
    expect(summary.code).toBe(1);
    expect(summary.err).toContain('--kind needs --detail records');
    expect(summary.err).not.toContain('request does not match the operation contract');
  });

  it('the default summary table shows each family\'s added, removed and modified counts (the exact statistics)', async () => {
    const dir = await twoCheckpoints(5);
    const table = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^family +change +added +removed +modified +from rows +to rows$/);
    const node = lines.find((l) => l.startsWith('graph/node'));
    expect(node?.split(/ {2,}/)).toEqual(['graph/node', '~ modified', '5', '5', '0', '5', '5']);
  });

  it('a page that continues prints the command for the next page (a short line), and that command prints the next rows', async () => {
    const dir = await twoCheckpoints(5);
    const first = await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'node', '--limit', '3');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^rows 1–3( of 10)?$/m);
    const hint = first.err.split('\n').find((l) => l.startsWith('more rows: '));
    expect(hint).toBe(`more rows: gf checkpoint diff one CURRENT --project ${dir} --family node --limit 3 --position 3`);
    expect(first.err).not.toContain('--after');
    for (const l of first.err.split('\n')) expect(l.length).toBeLessThan(200);
    const next = await gf(...(hint ?? '').slice('more rows: gf '.length).split(' '));
    expect(next.code).toBe(0);
    expect(next.out).toMatch(/^rows 4–6( of 10)?$/m);
    // The machine formats keep the next-page token.
    const json = JSON.parse((await gf('checkpoint', 'diff', 'one', 'CURRENT', '--project', dir, '--family', 'node', '--limit', '3', '--json')).out) as { next_page_token: string | null };
    expect(typeof json.next_page_token).toBe('string');
  });
});

describe('gf log: who, by name', () => {
  it("shows the app user's name and names seen before (actor.resolve over the app's actors.json), a short id for an actor never seen; --ids, --json and --csv carry the UUID too; nothing is written", async () => {
    const dir = await twoCheckpoints(2);
    // The app's own user, as the app made and renamed it (a real actors.json in the private configuration folder).
    const store = new ActorStore(config);
    const self = store.rename('Margaret Hamilton').actor_uuid;
    const stranger = '018f0f4e-7b8c-7000-8000-0000000035ca';
    for (const [actor, reason] of [['Ada Lovelace', 'by a name given on the CLI'], [self, 'by the app user'], [stranger, 'by an actor never seen']] as const) {
      expect((await gf('checkpoint', 'revert', 'one', '--project', dir, '--reason', reason, '--actor', actor)).code).toBe(0);
    }
    const ada = derivedActorUuid('Ada Lovelace');
    const before = readFileSync(join(config, 'actors.json'), 'utf8');

    const lineOf = (out: string, reason: string): string => out.split('\n').find((l) => l.includes(reason)) ?? '';
    const text = await gf('log', '--project', dir);
    expect(text.code).toBe(0);
    expect(lineOf(text.out, 'by a name given on the CLI')).toMatch(/ by Ada Lovelace$/);
    expect(lineOf(text.out, 'by the app user')).toMatch(/ by Margaret Hamilton$/);
    expect(lineOf(text.out, 'by an actor never seen')).toMatch(/ by 018f0f4e$/);
    for (const id of [ada, self, stranger]) expect(text.out).not.toContain(id);

    const ids = await gf('log', '--project', dir, '--ids');
    expect(lineOf(ids.out, 'by a name given on the CLI')).toMatch(new RegExp(` by Ada Lovelace \\(${ada}\\)$`));
    expect(lineOf(ids.out, 'by the app user')).toMatch(new RegExp(` by Margaret Hamilton \\(${self}\\)$`));
    expect(lineOf(ids.out, 'by an actor never seen')).toMatch(new RegExp(` by ${stranger}$`));

    const json = JSON.parse((await gf('log', '--project', dir, '--kind', 'revert', '--json')).out) as { entries: { reason: string; actor: string | null; actor_name: string | null }[] };
    expect(json.entries.map((e) => [e.reason, e.actor, e.actor_name])).toEqual([
      ['by an actor never seen', stranger, null],
      ['by the app user', self, 'Margaret Hamilton'],
      ['by a name given on the CLI', ada, 'Ada Lovelace'],
    ]);
    const csv = (await gf('log', '--project', dir, '--kind', 'revert', '--csv')).out.trim().split('\n');
    const header = csv[0]!.split(',');
    const cell = (row: string, column: string): string | undefined => row.split(',')[header.indexOf(column)];
    expect(csv.slice(1).map((r) => [cell(r, 'actor'), cell(r, 'actor_name')])).toEqual([[stranger, ''], [self, 'Margaret Hamilton'], [ada, 'Ada Lovelace']]);

    // Reading the history wrote nothing into the app's configuration (actor.resolve of a UUID only reads).
    expect(readFileSync(join(config, 'actors.json'), 'utf8')).toBe(before);
  });
});
