// Databases written by Python LangGraph's own SqliteSaver and PostgresSaver: browsed through the threads.*
// operations, the answers equal what Python LangGraph itself reads back (expected.json), and browsing writes nothing.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { OperationInput } from '../../../../core/contract/operations';
import { usePostgres } from '../../../support/postgres';
import { assertMatchesPython, expectedOf, PY_SQLITE, replayPostgres } from './python-fixtures';
import { caller } from './threads-support';

const root = mkdtempSync(join(tmpdir(), 'gf-threads-python-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fingerprint = (path: string): string[] =>
  [path, `${path}-wal`, `${path}-shm`, `${path}-journal`].map((p) => (existsSync(p) ? `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${statSync(p).mtimeMs}` : 'absent'));

type Source = OperationInput<'threads.list'>['source'];

/** The diff between two checkpoints of `fix-1`: after `plan` ran and the head (after the scans and the gate). */
async function assertFix1Diff(call: ReturnType<typeof caller>, source: Source, from: string, to: string): Promise<void> {
  const diff = await call('threads.diff', { source, thread_id: 'fix-1', from, to });
  const byChannel = Object.fromEntries(diff.channels.map((c) => [c.channel, c.change]));
  expect(byChannel).toEqual({ elapsed: 'unchanged', findings: 'modified', messages: 'modified', plan: 'unchanged', priority: 'unchanged', raw: 'unchanged', run_id: 'unchanged', seen: 'unchanged', window: 'unchanged' });
  const rows = diff.rows.map((r) => [r.pointer, r.kind]);
  expect(rows).toEqual([
    ['/findings/0', 'added'],
    ['/findings/1', 'added'],
    ['/messages/3', 'added'],
  ]);
  const added = diff.rows.find((r) => r.pointer === '/findings/0')?.after;
  expect(added).toEqual({ python_type: 'Finding', python_module: '__main__', fields: { cve: 'CVE-2026-0001', severity: 7.5, fixed: false } });
  expect((diff.rows.find((r) => r.pointer === '/messages/3')?.after as { fields?: { content?: unknown } }).fields?.content).toBe('approved=yes');
}

describe('threads on a SQLite file written by Python LangGraph (SqliteSaver)', () => {
  let facade: Facade;
  const path = join(root, 'python.sqlite');
  beforeAll(() => {
    copyFileSync(PY_SQLITE, path);
    facade = createFacade({ mode: 'library' });
  });
  afterAll(() => facade.close());

  it('list, history, state and interrupts equal what Python LangGraph reads back, value by value; browsing changes no byte of the file', async () => {
    const before = fingerprint(path);
    const compared = await assertMatchesPython(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
    expect(compared).toBe(9 * 14 - 7 * 3); // 14 checkpoints × 9 channels, less 7 for each of the 3 input checkpoints (2 channels)
    expect(fingerprint(path)).toEqual(before);
  });

  it('diffs two checkpoints of fix-1 as Python values', async () => {
    const e = expectedOf('sqlite')['fix-1'] ?? [];
    await assertFix1Diff(caller(facade), { kind: 'sqlite', path }, e[2]?.checkpoint_id ?? '', e[0]?.checkpoint_id ?? '');
  });
});

const server = usePostgres({ beforeAll, afterAll });

describe('threads on a PostgreSQL database written by Python LangGraph (PostgresSaver), replayed', () => {
  let facade: Facade;
  beforeAll(async () => {
    const u = new URL(server().url);
    const admin = new pg.Client({ connectionString: server().url });
    await admin.connect();
    await admin.query('CREATE DATABASE python_fixture');
    await admin.end();
    u.pathname = '/python_fixture';
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    await replayPostgres(c);
    await c.end();
    facade = createFacade({ mode: 'library', langgraphPostgresUrl: u.toString() });
  }, 60_000);
  afterAll(() => facade.close());

  it('list, history, state and interrupts equal what Python LangGraph reads back, value by value', async () => {
    const compared = await assertMatchesPython(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
    expect(compared).toBe(9 * 14 - 7 * 3);
  });

  it('diffs two checkpoints of fix-1 as Python values', async () => {
    const e = expectedOf('postgres')['fix-1'] ?? [];
    await assertFix1Diff(caller(facade), { kind: 'postgres' }, e[2]?.checkpoint_id ?? '', e[0]?.checkpoint_id ?? '');
  });
});
