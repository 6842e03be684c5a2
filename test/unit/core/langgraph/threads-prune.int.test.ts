// threads.prune_preview / threads.prune on real databases: LangGraph.js's SqliteSaver and PostgresSaver (written by a
// real compiled graph, a restore among them), and the databases Python LangGraph's own savers wrote. The preview's
// set is checked against what LangGraph itself reads; the prune deletes exactly that set in one transaction,
// LangGraph still reads what remains, and a database that changed since the preview is refused with nothing written.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Command } from '@langchain/langgraph';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import type { OperationInput } from '../../../../core/contract/operations';
import { THREAD_PRUNE_RECORD_TABLE } from '../../../../core/contract/threads';
import { PostgresCheckpointerAdapter, SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { planPrune, postgresPruneReads, prunePostgres, pruneSqlite, sqlitePruneReads } from '../../../../core/langgraph/thread-prune';
import { usePostgres } from '../../../support/postgres';
import { putChain, sampleCheckpoint } from './langgraph-support';
import { assertMatchesPython, expectedOf, PY_SQLITE, replayPostgres, type Expected } from './python-fixtures';
import { buildResumeGraph, RESUME_ANSWER, RESUME_INPUT, threadConfig } from './resume-graph';
import { caller, codeOf } from './threads-support';

type Source = OperationInput<'threads.list'>['source'];
const root = mkdtempSync(join(tmpdir(), 'gf-threads-prune-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const server = usePostgres({ beforeAll, afterAll });

const idOf = (t: CheckpointTuple): string => String(t.config.configurable?.['checkpoint_id']);
const key = (n: number) => `018f0f4e-7b8c-7000-8000-0000000033${String(n).padStart(2, '0')}`;

/** Every root checkpoint of every thread as LangGraph's own saver lists them (newest first). */
async function langgraphThreads(saver: BaseCheckpointSaver, threads: readonly string[]): Promise<Map<string, CheckpointTuple[]>> {
  const out = new Map<string, CheckpointTuple[]>();
  for (const t of threads) {
    const tuples: CheckpointTuple[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: t, checkpoint_ns: '' } })) tuples.push(tuple);
    out.set(t, tuples);
  }
  return out;
}

/** What a prune keeping `keep` may delete, decided from LangGraph's own tuples (not the project's SQL). */
function expectedRemoval(all: Map<string, CheckpointTuple[]>, keep: number): string[] {
  const out: string[] = [];
  for (const [thread, tuples] of all) {
    const targets = new Set(tuples.map((t) => (t.metadata as Record<string, unknown> | undefined)?.['restored_from']).filter((x): x is string => typeof x === 'string'));
    tuples.forEach((t, i) => {
      const restored = typeof (t.metadata as Record<string, unknown> | undefined)?.['restored_from'] === 'string';
      const interrupted = (t.pendingWrites ?? []).some(([, channel]) => channel === '__interrupt__');
      if (i >= keep && i > 0 && !restored && !interrupted && !targets.has(idOf(t))) out.push(`${thread}/${idOf(t)}`);
    });
  }
  return out.sort();
}

interface JsBackend {
  readonly source: Source;
  readonly postgresUrl?: string;
  saver(): Promise<BaseCheckpointSaver>;
  closeSavers(): Promise<void>;
  /** Pending writes still stored for these checkpoints. */
  writesOf(keys: readonly string[]): Promise<number>;
  /** Channel blobs of the root namespace no checkpoint references (PostgreSQL; 0 for SQLite, which has none). */
  orphanBlobs(): Promise<number>;
  /** The prune records. */
  records(): Promise<{ reason: string; actor: string | null; checkpoints: number; deleted: string }[]>;
}

function sqliteJs(): JsBackend {
  const path = join(root, 'js.sqlite');
  const adapters: SqliteCheckpointerAdapter[] = [];
  const read = <T,>(f: (db: Database.Database) => T): T => {
    const db = new Database(path, { readonly: true });
    try {
      return f(db);
    } finally {
      db.close();
    }
  };
  return {
    source: { kind: 'sqlite', path },
    saver: async () => {
      const a = new SqliteCheckpointerAdapter({ path });
      adapters.push(a);
      return a.saver();
    },
    closeSavers: async () => void (await Promise.all(adapters.splice(0).map((a) => a.close()))),
    writesOf: async (keys) => read((db) => keys.reduce((n, k) => n + (db.prepare("SELECT count(*) AS n FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?").get(...k.split('/')) as { n: number }).n, 0)),
    orphanBlobs: async () => 0,
    records: async () => read((db) => db.prepare(`SELECT reason, actor, checkpoints, deleted FROM ${THREAD_PRUNE_RECORD_TABLE} ORDER BY pruned_at`).all() as never),
  };
}

function postgresJs(): JsBackend {
  const url = () => {
    const u = new URL(server().url);
    u.pathname = '/prune_js';
    return u.toString();
  };
  const pools: pg.Pool[] = [];
  const q = async <R,>(sql: string, params: unknown[] = []): Promise<R[]> => {
    const c = new pg.Client({ connectionString: url() });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as R[];
    } finally {
      await c.end();
    }
  };
  return {
    source: { kind: 'postgres' },
    get postgresUrl() {
      return url();
    },
    saver: async () => {
      if (pools.length === 0) {
        const admin = new pg.Client({ connectionString: server().url });
        await admin.connect();
        await admin.query('CREATE DATABASE prune_js').catch(() => undefined);
        await admin.end();
      }
      const pool = new pg.Pool({ connectionString: url() });
      pool.on('error', () => undefined);
      pools.push(pool);
      return new PostgresCheckpointerAdapter({ pool }).saver();
    },
    closeSavers: async () => void (await Promise.all(pools.splice(0).map((p) => p.end()))),
    writesOf: async (keys) => {
      const rows = await q<{ n: number }>("SELECT count(*)::int AS n FROM checkpoint_writes WHERE checkpoint_ns = '' AND thread_id || '/' || checkpoint_id = ANY($1)", [keys]);
      return rows[0]?.n ?? -1;
    },
    orphanBlobs: async () =>
      (
        await q<{ n: number }>(
          `SELECT count(*)::int AS n FROM checkpoint_blobs AS b WHERE b.checkpoint_ns = '' AND NOT EXISTS (
             SELECT 1 FROM checkpoints AS c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = '' AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        )
      )[0]?.n ?? -1,
    records: async () => q(`SELECT reason, actor, checkpoints, deleted FROM ${THREAD_PRUNE_RECORD_TABLE} ORDER BY pruned_at`),
  };
}

/** The prune, end to end, on a database a real LangGraph.js graph wrote (an interrupted thread, a resumed one, a restore, a chain). */
async function pruneJsDatabase(b: JsBackend): Promise<void> {
  const saver = await b.saver();
  const graph = buildResumeGraph(saver);
  await graph.invoke(RESUME_INPUT, threadConfig('a')); // waits at review: its head is interrupted
  await graph.invoke(RESUME_INPUT, threadConfig('b'));
  await graph.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig('b')); // its checkpoint at review keeps the interrupt write
  await putChain(saver, 'c', 6);
  await b.closeSavers();
  const threads = ['a', 'b', 'c'];
  const facade = createFacade({ mode: 'library', ...(b.postgresUrl === undefined ? {} : { langgraphPostgresUrl: b.postgresUrl }) });
  const call = caller(facade);
  try {
    // A restore of b to its first checkpoint: the restore's head and its target stay whatever their age.
    const hb = (await call('threads.history', { source: b.source, thread_id: 'b' })).rows;
    const target = hb[hb.length - 1]?.checkpoint_id ?? '';
    await call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: target, reason: 'rerun from the start', idempotency_key: key(1) });
    await call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: hb[1]?.checkpoint_id ?? '', reason: 'once more', idempotency_key: key(2) });

    const before = await langgraphThreads(await b.saver(), threads);
    await b.closeSavers();
    const want = expectedRemoval(before, 1);
    const preview = await call('threads.prune_preview', { source: b.source, keep_last: 1, limit: 500 });
    expect(preview.rows.map((r) => `${r.thread_id}/${r.checkpoint_id}`).sort()).toEqual(want);
    expect([preview.total, preview.truncated, preview.threads]).toEqual([want.length, false, 3]);
    expect(preview.kept.interrupted).toBeGreaterThanOrEqual(1);
    expect(preview.kept.restored_head).toBe(1); // the older of the two restores' heads (the newer one is kept as the newest)
    expect(preview.kept.restore_target).toBe(2);
    // The user's facts lead: time, step and source as LangGraph wrote them.
    const c0 = before.get('c')?.[5];
    expect(preview.rows.find((r) => r.checkpoint_id === (c0 === undefined ? '' : idOf(c0)))).toEqual({ thread_id: 'c', time: c0?.checkpoint.ts, step: 0, source: 'loop', checkpoint_id: c0 === undefined ? '' : idOf(c0) });
    const one = await call('threads.prune_preview', { source: b.source, keep_last: 1, thread_id: 'c', limit: 2 });
    expect([one.total, one.truncated, one.rows.length]).toEqual([5, true, 2]);
    const writesBefore = await b.writesOf(want);
    expect(writesBefore).toBeGreaterThan(0); // the graph's pending writes of pruned checkpoints are there to delete

    // A new checkpoint since the preview: the set differs, refused with GF_STALE_PREVIEW and nothing deleted.
    const s = await b.saver();
    const tip = before.get('c')?.[0];
    await s.put(tip?.config ?? {}, sampleCheckpoint(6), { source: 'loop', step: 6, parents: {} }, { notes: 7 });
    await b.closeSavers();
    const prune = (k: string, digest: string, extra: Partial<OperationInput<'threads.prune'>> = {}) =>
      call('threads.prune', { source: b.source, keep_last: 1, reason: '  keep the database small  ', actor: 'ops', idempotency_key: k, expected_preview_digest: digest, ...extra });
    expect(await codeOf(prune(key(3), preview.preview_digest))).toBe('GF_STALE_PREVIEW');
    const unchanged = await langgraphThreads(await b.saver(), threads);
    await b.closeSavers();
    expect(unchanged.get('c')?.length).toBe((before.get('c')?.length ?? 0) + 1);
    expect([...unchanged.values()].flat().length).toBe([...before.values()].flat().length + 1);
    expect(await codeOf(prune(key(4), preview.preview_digest, { reason: '   ' }))).toBe('GF_VALIDATION');

    const fresh = await call('threads.prune_preview', { source: b.source, keep_last: 1 });
    const receipt = await prune(key(5), fresh.preview_digest);
    expect(receipt).toMatchObject({ keep_last: 1, thread_id: null, reason: 'keep the database small', actor: 'ops', checkpoints: fresh.total, writes: writesBefore, threads: 3, recorded_in: THREAD_PRUNE_RECORD_TABLE, replayed: false });

    // LangGraph itself still reads every remaining checkpoint, values as before; exactly the previewed set is gone.
    const reader = await b.saver();
    const after = await langgraphThreads(reader, threads);
    const gone = new Set(fresh.rows.map((r) => `${r.thread_id}/${r.checkpoint_id}`));
    for (const t of threads) {
      const was = (unchanged.get(t) ?? []).filter((x) => !gone.has(`${t}/${idOf(x)}`));
      expect((after.get(t) ?? []).map(idOf)).toEqual(was.map(idOf));
      for (const x of was) {
        const now = await reader.getTuple(x.config);
        expect(now?.checkpoint.channel_values).toEqual(x.checkpoint.channel_values);
        expect(now?.pendingWrites).toEqual(x.pendingWrites);
      }
    }
    const state = await buildResumeGraph(reader).getState(threadConfig('a'));
    expect(state.tasks.some((task) => task.interrupts.length > 0)).toBe(true); // the interrupted thread still waits
    await b.closeSavers();
    expect(await b.writesOf([...gone])).toBe(0);
    expect(await b.orphanBlobs()).toBe(0);
    const records = await b.records();
    expect(records.map((r) => [r.reason, r.actor, Number(r.checkpoints)])).toEqual([['keep the database small', 'ops', fresh.total]]);
    expect((JSON.parse(records[0]?.deleted ?? '[]') as string[][]).map(([t, c]) => `${t}/${c}`).sort()).toEqual([...gone].sort());

    // A replay returns the receipt and deletes nothing more; the key with another request is a conflict.
    expect(await prune(key(5), fresh.preview_digest)).toEqual({ ...receipt, replayed: true });
    expect(await codeOf(prune(key(5), fresh.preview_digest, { reason: 'another' }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    expect((await call('threads.prune_preview', { source: b.source, keep_last: 1 })).total).toBe(0);
  } finally {
    await facade.close();
    await b.closeSavers();
  }
}

describe('threads.prune on LangGraph.js databases', () => {
  it('SQLite (SqliteSaver): the preview is LangGraph\'s own older checkpoints less the protected ones; the prune deletes exactly those, recorded', { timeout: 120_000 }, async () => {
    await pruneJsDatabase(sqliteJs());
  });

  it('PostgreSQL (PostgresSaver): the same, and the blobs only pruned checkpoints referenced are deleted, no other', { timeout: 120_000 }, async () => {
    await pruneJsDatabase(postgresJs());
  });
});

/** What remains of expected.json once the preview's checkpoints are gone. */
const remaining = (e: Expected, gone: ReadonlySet<string>): Expected => Object.fromEntries(Object.entries(e).map(([t, cps]) => [t, cps.filter((c) => !gone.has(`${t}/${c.checkpoint_id}`))]));

/** Prunes a Python-written database to its newest checkpoint per thread; the reader still equals Python's own reading of what remains. */
async function prunePython(call: ReturnType<typeof caller>, source: Source, expected: Expected): Promise<void> {
  const preview = await call('threads.prune_preview', { source, keep_last: 1, limit: 500 });
  expect(preview.total).toBeGreaterThan(0);
  // fix-2 waits at its interrupt (its head); fix-1 was resumed after one: that checkpoint stays.
  const interrupted = Object.entries(expected).flatMap(([t, cps]) => cps.filter((c) => c.interrupts.length > 0).map((c) => `${t}/${c.checkpoint_id}`));
  const gone = new Set(preview.rows.map((r) => `${r.thread_id}/${r.checkpoint_id}`));
  for (const id of interrupted) expect(gone.has(id)).toBe(false);
  expect(preview.rows.every((r) => r.time !== null && /^\d{4}-/.test(r.time))).toBe(true);
  const receipt = await call('threads.prune', { source, keep_last: 1, reason: 'old runs', idempotency_key: key(9), expected_preview_digest: preview.preview_digest });
  expect(receipt.checkpoints).toBe(preview.total);
  await assertMatchesPython(call, source, remaining(expected, gone));
}

describe('threads.prune on databases Python LangGraph wrote', () => {
  it('SQLite (Python SqliteSaver): after the prune the reader equals what remains of expected.json', { timeout: 60_000 }, async () => {
    const path = join(root, 'python.sqlite');
    copyFileSync(PY_SQLITE, path);
    const facade = createFacade({ mode: 'library' });
    try {
      await prunePython(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
    } finally {
      await facade.close();
    }
  });

  it('PostgreSQL (Python PostgresSaver, replayed): the same; no blob a remaining checkpoint names is lost', { timeout: 60_000 }, async () => {
    const admin = new pg.Client({ connectionString: server().url });
    await admin.connect();
    await admin.query('CREATE DATABASE prune_python');
    await admin.end();
    const u = new URL(server().url);
    u.pathname = '/prune_python';
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    await replayPostgres(c);
    const facade = createFacade({ mode: 'library', langgraphPostgresUrl: u.toString() });
    try {
      await prunePython(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
      const orphans = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkpoint_blobs AS b WHERE b.checkpoint_ns = '' AND NOT EXISTS (
           SELECT 1 FROM checkpoints AS k WHERE k.thread_id = b.thread_id AND k.checkpoint_ns = '' AND k.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
      );
      expect(orphans.rows[0]?.n).toBe(0);
    } finally {
      await facade.close();
      await c.end();
    }
  });
});

describe('the prune transaction plans again itself (a change after the reader\'s check)', () => {
  const req = (digest: string) => ({ keepLast: 1, threadId: null, reason: 'r', actor: null, idempotencyKey: key(20), expectedDigest: digest });

  it('SQLite: a digest that no longer matches inside the transaction is GF_STALE_PREVIEW, nothing deleted, no record', async () => {
    const path = join(root, 'tx.sqlite');
    const a = new SqliteCheckpointerAdapter({ path });
    await putChain(await a.saver(), 't', 3);
    await a.close();
    const db = new Database(path);
    try {
      const planned = planPrune(await sqlitePruneReads(db).facts(null), 1, null);
      expect(planned.remove).toHaveLength(2);
      expect(await codeOf(pruneSqlite(db, req('0'.repeat(64))))).toBe('GF_STALE_PREVIEW');
      expect((db.prepare('SELECT count(*) AS n FROM checkpoints').get() as { n: number }).n).toBe(3);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = ?").get(THREAD_PRUNE_RECORD_TABLE)).toBeUndefined();
      expect((await pruneSqlite(db, req(planned.digest))).checkpoints).toBe(2);
    } finally {
      db.close();
    }
  });

  it('PostgreSQL: the same, rolled back', async () => {
    const admin = new pg.Client({ connectionString: server().url });
    await admin.connect();
    await admin.query('CREATE DATABASE prune_tx');
    await admin.end();
    const u = new URL(server().url);
    u.pathname = '/prune_tx';
    const pool = new pg.Pool({ connectionString: u.toString() });
    pool.on('error', () => undefined);
    try {
      await putChain(await new PostgresCheckpointerAdapter({ pool }).saver(), 't', 3);
      const client = await pool.connect();
      try {
        const planned = planPrune(await postgresPruneReads(client).facts(null), 1, null);
        expect(await codeOf(prunePostgres(client, req('0'.repeat(64))))).toBe('GF_STALE_PREVIEW');
        expect((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM checkpoints')).rows[0]?.n).toBe(3);
        expect((await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [THREAD_PRUNE_RECORD_TABLE])).rows[0]?.t).toBeNull();
        expect((await prunePostgres(client, req(planned.digest))).checkpoints).toBe(2);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
