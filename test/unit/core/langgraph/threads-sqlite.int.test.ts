// Issue 17 on SQLite: faithfulness to LangGraph, the read-only proof and bad input.
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { createFacade } from '../../../../core/api/facade';
import type { OperationResult } from '../../../../core/contract/operations';
import { buildResumeGraph, RESUME_INPUT, threadConfig } from './resume-graph';
import { caller, codeOf, threadsFaithfulness, threadsDiffAgreement, threadsListAgreement, type ThreadsBackend } from './threads-support';

const root = mkdtempSync(join(tmpdir(), 'gf-threads-sqlite-'));
afterAll(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
});
let n = 0;

function sqliteBackend(): ThreadsBackend {
  const dir = join(root, `db${(n += 1)}`);
  mkdirSync(dir);
  const path = join(dir, 'langgraph.sqlite');
  const copyPath = join(dir, 'copy.sqlite');
  const adapters: SqliteCheckpointerAdapter[] = [];
  const open = async (p: string) => {
    const a = new SqliteCheckpointerAdapter({ path: p });
    adapters.push(a);
    return a.saver();
  };
  return {
    source: { kind: 'sqlite', path },
    mainSaver: () => open(path),
    closeMain: async () => {
      await Promise.all(adapters.map((a) => a.close()));
    },
    copy: async () => {
      copyFileSync(path, copyPath);
    },
    copySaver: () => open(copyPath),
    close: async () => undefined,
  };
}

let current: ThreadsBackend | undefined;
describe('threads on SQLite: faithful to LangGraph', () => {
  current = sqliteBackend();
  threadsFaithfulness(() => current as ThreadsBackend);
});

const listBackend = sqliteBackend();
describe('threads on SQLite: the batched list and the diff', () => {
  threadsListAgreement(() => listBackend);
  threadsDiffAgreement(() => listBackend);
});

function fingerprint(path: string): string[] {
  return ['', '-wal', '-shm'].map((s) => {
    const f = `${path}${s}`;
    if (!existsSync(f)) return `${s}: absent`;
    return `${s}: ${createHash('sha256').update(readFileSync(f)).digest('hex')} ${statSync(f).mtimeMs}`;
  });
}

/** Lists, pages, shows and diffs everything in a source. */
async function browseAll(call: ReturnType<typeof caller>, source: { kind: 'sqlite'; path: string }): Promise<number> {
  let seen = 0;
  let after: string | null = null;
  do {
    const page: OperationResult<'threads.list'> = await call('threads.list', { source, limit: 1, after });
    for (const t of page.rows) {
      let hAfter: string | null = null;
      const ids: string[] = [];
      do {
        const h: OperationResult<'threads.history'> = await call('threads.history', { source, thread_id: t.thread_id, limit: 2, after: hAfter });
        ids.push(...h.rows.map((r) => r.checkpoint_id));
        hAfter = h.next_page_token;
      } while (hAfter !== null);
      for (const id of ids) {
        await call('threads.state', { source, thread_id: t.thread_id, checkpoint_id: id });
        await call('threads.diff', { source, thread_id: t.thread_id, from: id, to: 'HEAD' });
        seen += 1;
      }
    }
    after = page.next_page_token;
  } while (after !== null);
  await call('threads.health', { source });
  return seen;
}

describe('threads on SQLite: browsing never writes', () => {
  it('the database, -wal and -shm keep their SHA-256 and mtime while a live LangGraph writer holds them, through a full browse', { timeout: 60_000 }, async () => {
    const dir = join(root, 'live');
    mkdirSync(dir);
    const path = join(dir, 'langgraph.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    const graph = buildResumeGraph(await writer.saver());
    await graph.invoke(RESUME_INPUT, threadConfig('t1'));
    await graph.invoke(RESUME_INPUT, threadConfig('t2'));
    const before = fingerprint(path);
    expect(before.filter((l) => l.includes('absent'))).toEqual([]); // the writer is live: -wal and -shm exist
    const facade = createFacade({ mode: 'library' });
    try {
      expect(await browseAll(caller(facade), { kind: 'sqlite', path })).toBe(6);
    } finally {
      await facade.close();
    }
    expect(fingerprint(path)).toEqual(before);
    await writer.close();
  });

  it('a 0444 database in a 0555 directory opens and browses; nothing appears beside it', { timeout: 60_000 }, async () => {
    const dir = join(root, 'ro');
    mkdirSync(dir);
    const path = join(dir, 'langgraph.sqlite');
    const writer = new SqliteCheckpointerAdapter({ path });
    await buildResumeGraph(await writer.saver()).invoke(RESUME_INPUT, threadConfig('only'));
    await writer.close();
    chmodSync(path, 0o444);
    chmodSync(dir, 0o555);
    const before = fingerprint(path);
    const facade = createFacade({ mode: 'library' });
    try {
      expect(await browseAll(caller(facade), { kind: 'sqlite', path })).toBe(3);
    } finally {
      await facade.close();
      chmodSync(dir, 0o755);
    }
    expect(fingerprint(path)).toEqual(before);
    expect(before.slice(1)).toEqual(['-wal: absent', '-shm: absent']);
  });
});

describe('threads on SQLite: bad input gives typed errors and writes nothing', () => {
  it('not SQLite, no LangGraph tables, missing file, relative path, no Postgres configured', async () => {
    const dir = join(root, 'bad');
    mkdirSync(dir);
    const text = join(dir, 'notes.sqlite');
    writeFileSync(text, 'this is not a database\n'.repeat(100));
    const plainDb = join(dir, 'plain.sqlite');
    const db = new Database(plainDb);
    db.exec('CREATE TABLE t (x)');
    db.close();
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    const stamp = () => [fingerprint(text), fingerprint(plainDb)];
    const before = stamp();
    try {
      expect(await codeOf(call('threads.list', { source: { kind: 'sqlite', path: text } }))).toBe('GF_IO');
      expect(await codeOf(call('threads.list', { source: { kind: 'sqlite', path: plainDb } }))).toBe('GF_SCHEMA_MISMATCH');
      expect(await codeOf(call('threads.restore', { source: { kind: 'sqlite', path: plainDb }, thread_id: 't', checkpoint_id: 'c', reason: 'r', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000c1' }))).toBe('GF_SCHEMA_MISMATCH');
      expect(await codeOf(call('threads.list', { source: { kind: 'sqlite', path: join(dir, 'missing.sqlite') } }))).toBe('GF_IO');
      expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
      expect(await codeOf(call('threads.list', { source: { kind: 'sqlite', path: 'relative.sqlite' } }))).toBe('GF_VALIDATION');
      expect(await codeOf(call('threads.list', { source: { kind: 'postgres' } }))).toBe('GF_VALIDATION');
    } finally {
      await facade.close();
    }
    expect(stamp()).toEqual(before);
  });
});
