// `gf threads health --postgres-url URL | --sqlite PATH`: the LangGraph adapter's health record,
// as a table and as JSON; bad input changes nothing; the password is never printed.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { putChain } from '../langgraph/langgraph-support';

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
  it('--postgres-url prints the adapter record: one idle connection, never written (table and JSON)', async () => {
    const json = await gf('threads', 'health', '--postgres-url', server().url, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ pool_in_use: 0, pool_idle: 1, last_write_age_seconds: null });
    const table = await gf('threads', 'health', '--postgres-url', server().url);
    expect(table.code).toBe(0);
    expect(rowsOf(table.out)).toEqual([
      ['pool_in_use', '0'],
      ['pool_idle', '1'],
      ['last_write_age_seconds', 'never'],
    ]);
  });

  it('--sqlite prints the record of an existing LangGraph database', async () => {
    const path = join(dir, 'threads.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    await putChain(await writer.saver(), 'thread-1', 2);
    await writer.close();
    const json = await gf('threads', 'health', '--sqlite', path, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ pool_in_use: 0, pool_idle: 1, last_write_age_seconds: null });
    const table = await gf('threads', 'health', '--sqlite', path);
    expect(rowsOf(table.out)).toEqual([
      ['pool_in_use', '0'],
      ['pool_idle', '1'],
      ['last_write_age_seconds', 'never'],
    ]);
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

  it('a wrong password or a closed port fails with GF_IO, the URL shown with its password redacted', async () => {
    const wrong = server().url.replace(server().password, 'not-the-password-7f3a');
    const denied = await gf('threads', 'health', '--postgres-url', wrong);
    expect(denied.code).toBe(1);
    expect(denied.err).toContain('GF_IO: the LangGraph PostgreSQL database at postgres://postgres:[REDACTED]@127.0.0.1:');
    expect(denied.err).not.toContain('not-the-password-7f3a');
    const closed = await gf('threads', 'health', '--postgres-url', `postgres://postgres:${server().password}@127.0.0.1:1/postgres`, '--json');
    expect([closed.code, closed.out]).toEqual([1, '']);
    expect(closed.err).toMatch(/^GF_IO: /);
  });
});
