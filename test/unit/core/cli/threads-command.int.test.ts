// `gf threads health --postgres-url URL | --sqlite PATH`: the LangGraph adapter's health record,
// as a table and as JSON; bad input changes nothing; the password is never printed.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { Command } from '@langchain/langgraph';
import { putChain, sampleCheckpoint } from '../langgraph/langgraph-support';
import { buildResumeGraph, RESUME_ANSWER, RESUME_INPUT, threadConfig } from '../langgraph/resume-graph';

const server = usePostgres({ beforeAll, afterAll });
const dir = mkdtempSync(join(tmpdir(), 'gf-threads-cli-'));
const outputs: string[] = [];

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  outputs.push(out, err);
  return { code, out, err };
}

const rowsOf = (table: string): string[][] => table.split('\n').filter(Boolean).map((l) => l.split(/\s+/));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  const all = outputs.join('\n');
  expect(all.length).toBeGreaterThan(0);
  expect(all).not.toContain(server().password);
});

describe('gf threads health', () => {
  it('--postgres-url prints the adapter record (no adapter wrote here: no connection, never written), not the browsing pool\'s; beside it, waiting callers and whether the browser can read (table and JSON)', async () => {
    const json = await gf('threads', 'health', '--postgres-url', server().url, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ pool_in_use: 0, pool_idle: 0, last_write_age_seconds: null, pool_waiting: 0, readable: false, unreadable_reason: 'the PostgreSQL database has no LangGraph checkpoint tables (checkpoints, writes)' });
    const table = await gf('threads', 'health', '--postgres-url', server().url);
    expect(table.code).toBe(0);
    expect(rowsOf(table.out).slice(0, 4)).toEqual([
      ['pool_in_use', '0'],
      ['pool_idle', '0'],
      ['last_write_age_seconds', 'never'],
      ['pool_waiting', '0'],
    ]);
    expect(table.out).toContain('readable                no: the PostgreSQL database has no LangGraph checkpoint tables');
  });

  it('--sqlite prints the record of the adapter that wrote the database in this process: that write\'s age', async () => {
    const path = join(dir, 'threads.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    await putChain(await writer.saver(), 'thread-1', 2);
    const json = await gf('threads', 'health', '--sqlite', path, '--json');
    expect(json.code).toBe(0);
    const h = JSON.parse(json.out) as { last_write_age_seconds: number | null };
    expect(h).toEqual({ pool_in_use: 0, pool_idle: 1, last_write_age_seconds: h.last_write_age_seconds, pool_waiting: 0, readable: true, unreadable_reason: null });
    expect(h.last_write_age_seconds).not.toBeNull();
    expect(h.last_write_age_seconds).toBeLessThanOrEqual(writer.health().last_write_age_seconds);
    await writer.close();
    const table = await gf('threads', 'health', '--sqlite', path);
    expect(rowsOf(table.out).map((r) => r[0])).toEqual(['pool_in_use', 'pool_idle', 'last_write_age_seconds', 'pool_waiting', 'readable']);
    expect(rowsOf(table.out)[1]).toEqual(['pool_idle', '0']); // the adapter closed its connection
    expect(rowsOf(table.out)[4]).toEqual(['readable', 'yes']);
  });

  it('a missing --sqlite file is GF_IO and is not created', async () => {
    const path = join(dir, 'missing.sqlite');
    const r = await gf('threads', 'health', '--sqlite', path);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^GF_IO: /);
    expect(existsSync(path)).toBe(false);
  });

  it('neither or both options, or a URL that is not postgres://, is GF_VALIDATION', async () => {
    expect((await gf('threads', 'health')).err).toMatch(/^GF_VALIDATION: give exactly one of --postgres-url or --sqlite/);
    expect((await gf('threads', 'health', '--postgres-url', server().url, '--sqlite', join(dir, 'x.sqlite'))).err).toMatch(/^GF_VALIDATION: /);
    const r = await gf('threads', 'health', '--postgres-url', `http://postgres:${server().password}@127.0.0.1/x`);
    expect([r.code, r.err.split(':')[0]]).toEqual([1, 'GF_VALIDATION']);
  });

  it('a wrong password or a closed port fails with GF_IO naming HOST:PORT and the cause, never the credentials', async () => {
    const wrong = server().url.replace(server().password, 'not-the-password-7f3a');
    const denied = await gf('threads', 'health', '--postgres-url', wrong);
    expect(denied.code).toBe(1);
    expect(denied.err).toMatch(/^GF_IO: the LangGraph PostgreSQL database at 127\.0\.0\.1:\d+ refused the credentials/);
    expect(denied.err).not.toContain('not-the-password-7f3a');
    expect(denied.err).not.toContain('postgres://');
    const closed = await gf('threads', 'health', '--postgres-url', `postgres://postgres:${server().password}@127.0.0.1:1/postgres`, '--json');
    expect([closed.code, closed.out]).toEqual([1, '']);
    expect(closed.err).toMatch(/^GF_IO: the LangGraph PostgreSQL database at 127\.0\.0\.1:1 refused the connection/);
  });
});

describe('gf threads list | history | show | diff | restore (issue 17)', () => {
  it('browses a LangGraph database written by a real graph, as a table, JSON and CSV, and restores with a reason', { timeout: 60_000 }, async () => {
    const path = join(dir, 'graph.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    const graph = buildResumeGraph(await writer.saver());
    await graph.invoke(RESUME_INPUT, threadConfig('review-1'));
    await graph.invoke(RESUME_INPUT, threadConfig('review-2'));
    await graph.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig('review-2'));
    await writer.close();

    const table = await gf('threads', 'list', '--sqlite', path);
    expect(table.code).toBe(0);
    expect(rowsOf(table.out)[0]).toEqual(['thread_id', 'checkpoints', 'latest_time', 'step', 'source', 'interrupted', 'latest_checkpoint_id']);
    expect(rowsOf(table.out).slice(2).map((r) => [r[0], r[5]])).toEqual([['review-1', 'true'], ['review-2', 'false']]);
    const csv = await gf('threads', 'list', '--sqlite', path, '--csv', '--prefix', 'review-2');
    expect(csv.out.split('\n')[1]?.startsWith('review-2,')).toBe(true);
    const page = JSON.parse((await gf('threads', 'list', '--sqlite', path, '--json', '--limit', '1')).out) as { rows: { thread_id: string }[]; next_page_token: string };
    expect(page.rows.map((r) => r.thread_id)).toEqual(['review-1']);
    const next = JSON.parse((await gf('threads', 'list', '--sqlite', path, '--json', '--limit', '1', '--after', page.next_page_token)).out) as { rows: { thread_id: string }[] };
    expect(next.rows.map((r) => r.thread_id)).toEqual(['review-2']);

    const history = JSON.parse((await gf('threads', 'history', 'review-2', '--sqlite', path, '--json')).out) as { rows: { checkpoint_id: string; next: string[] }[] };
    const ids: string[] = [];
    for await (const s of buildResumeGraph(await new SqliteCheckpointerAdapter({ path }).saver()).getStateHistory(threadConfig('review-2'))) ids.push(s.config.configurable?.['checkpoint_id'] as string);
    expect(history.rows.map((r) => r.checkpoint_id)).toEqual(ids);
    const atReview = history.rows.find((r) => r.next.join() === 'review')?.checkpoint_id as string;

    const show = await gf('threads', 'show', 'review-1', '--sqlite', path);
    expect(show.out).toMatch(/^thread review-1 checkpoint \S+ \(head\) at /);
    expect(show.out).toMatch(/interrupt\s+\S+\s+interrupt\s+\{"question":"apply the plan\?","total":5\}/);
    const diff = await gf('threads', 'diff', 'review-2', atReview, 'HEAD', '--sqlite', path);
    expect(diff.out.split('\n')[0]).toBe('channels: approval modified (1), steps modified (2), total modified (1); 4 value changes');
    expect(diff.out).toMatch(/\/total\s+modified\s+5\s+35/);

    const noReason = await gf('threads', 'restore', 'review-2', atReview, '--sqlite', path);
    expect(noReason.code).not.toBe(0);
    const blank = await gf('threads', 'restore', 'review-2', atReview, '--sqlite', path, '--reason', '   ');
    expect(blank.err).toBe('GF_VALIDATION: A reason is required (1–1,024 UTF-8 bytes). (committed: false)\n');
    const long = await gf('threads', 'restore', 'review-2', atReview, '--sqlite', path, '--reason', 'é'.repeat(513));
    expect(long.err).toMatch(/^GF_VALIDATION: The reason is 1026 bytes after trimming/);
    const key = '018f0f4e-7b8c-7000-8000-00000000c11a';
    const restored = await gf('threads', 'restore', 'review-2', atReview, '--sqlite', path, '--reason', 'approved by mistake', '--idempotency-key', key, '--json');
    expect(restored.code).toBe(0);
    const receipt = JSON.parse(restored.out) as { restored_from: string; replayed: boolean };
    expect(receipt).toMatchObject({ restored_from: atReview, replayed: false });
    const replay = JSON.parse((await gf('threads', 'restore', 'review-2', atReview, '--sqlite', path, '--reason', 'approved by mistake', '--idempotency-key', key, '--json')).out) as { replayed: boolean };
    expect(replay.replayed).toBe(true);
    const head = await gf('threads', 'history', 'review-2', '--sqlite', path, '--json', '--limit', '1');
    expect((JSON.parse(head.out) as { rows: { restored_from: string }[] }).rows[0]?.restored_from).toBe(atReview);
  });

  it('bad input is a one-line typed error; --help shows examples', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database');
    const r = await gf('threads', 'list', '--sqlite', text);
    expect([r.code, r.err.split('\n').filter(Boolean).length, r.err.split(':')[0]]).toEqual([1, 1, 'GF_IO']);
    const unknown = await gf('threads', 'history', 'nobody', '--sqlite', join(dir, 'graph.sqlite'));
    expect(unknown.err).toMatch(/^GF_CHECKPOINT_NOT_FOUND: no thread with this id/);
    const forged = await gf('threads', 'list', '--sqlite', join(dir, 'graph.sqlite'), '--after', 'abc.def');
    expect(forged.err).toMatch(/^GF_PAGE_INVALID: /);
    const help = await gf('threads', 'restore', '--help');
    expect(help.out).toContain('gf threads restore review-07');
  });
});

describe('gf threads prune', () => {
  it('--preview lists what would go and the digest, writing nothing; the prune needs a reason and that digest, refuses a stale one, and LangGraph reads what remains', { timeout: 60_000 }, async () => {
    const path = join(dir, 'prune.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    const saver = await writer.saver();
    await putChain(saver, 'run-1', 4);
    const tip = await putChain(saver, 'run-2', 3);
    await writer.close();
    const before = statSync(path).mtimeMs;

    const preview = await gf('threads', 'prune', '--keep-last', '2', '--preview', '--sqlite', path);
    expect(preview.code).toBe(0);
    const lines = preview.out.split('\n');
    expect(lines[0]).toBe('3 checkpoints of 2 threads would be deleted');
    expect(rowsOf(preview.out)[1]).toEqual(['thread_id', 'time', 'step', 'source', 'checkpoint_id']);
    expect(rowsOf(preview.out).slice(3, 6).map((r) => [r[0], r[2], r[3]])).toEqual([['run-1', '1', 'loop'], ['run-1', '0', 'loop'], ['run-2', '0', 'loop']]);
    const digest = /^preview digest: ([0-9a-f]{64})$/m.exec(preview.out)?.[1] ?? '';
    expect(preview.out).toContain(`to delete them: gf threads prune --keep-last 2 --reason <text> --expect-preview ${digest}`);
    const json = JSON.parse((await gf('threads', 'prune', '--keep-last', '2', '--preview', '--sqlite', path, '--json')).out) as { total: number; preview_digest: string };
    expect([json.total, json.preview_digest]).toEqual([3, digest]);
    expect(statSync(path).mtimeMs).toBe(before);

    const noDigest = await gf('threads', 'prune', '--keep-last', '2', '--reason', 'old runs', '--sqlite', path);
    expect([noDigest.code, noDigest.err]).toEqual([2, "error: required option '--expect-preview <digest>' not specified (run with --preview first: it prints the digest)\n"]);
    const blank = await gf('threads', 'prune', '--keep-last', '2', '--reason', '  ', '--expect-preview', digest, '--sqlite', path);
    expect(blank.err).toBe('GF_VALIDATION: A reason is required (1–1,024 UTF-8 bytes). (committed: false)\n');
    const badKeep = await gf('threads', 'prune', '--keep-last', '-1', '--preview', '--sqlite', path);
    expect([badKeep.code, badKeep.err.split(':')[0]]).toEqual([1, 'GF_VALIDATION']);

    // Another checkpoint since the preview: refused, nothing deleted.
    const again = new SqliteCheckpointerAdapter({ path });
    await (await again.saver()).put(tip, sampleCheckpoint(3), { source: 'loop', step: 3, parents: {} });
    await again.close();
    const stale = await gf('threads', 'prune', '--keep-last', '2', '--reason', 'old runs', '--expect-preview', digest, '--sqlite', path);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/^GF_STALE_PREVIEW: the checkpoints this prune would delete changed since it was previewed; nothing was deleted/m);
    const fresh = JSON.parse((await gf('threads', 'prune', '--keep-last', '2', '--preview', '--sqlite', path, '--json')).out) as { total: number; preview_digest: string; rows: { checkpoint_id: string }[] };
    expect(fresh.total).toBe(4);

    const done = await gf('threads', 'prune', '--keep-last', '2', '--reason', 'old runs', '--actor', 'Ada Lovelace', '--expect-preview', fresh.preview_digest, '--sqlite', path, '--json');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({ checkpoints: 4, threads: 2, reason: 'old runs', replayed: false });
    expect((JSON.parse(done.out) as { actor: string }).actor).toMatch(/^[0-9a-f-]{36}$/); // the name's derived actor UUID
    const reader = new SqliteCheckpointerAdapter({ path });
    try {
      for (const t of ['run-1', 'run-2']) {
        const left = [];
        for await (const c of (await reader.saver()).list({ configurable: { thread_id: t, checkpoint_ns: '' } })) left.push(c.checkpoint.channel_values['notes']);
        expect(left).toEqual(t === 'run-1' ? ['step 3', 'step 2'] : ['step 3', 'step 2']);
      }
    } finally {
      await reader.close();
    }
  });
});
