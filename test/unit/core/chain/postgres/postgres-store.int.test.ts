import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { GfError, isGfError } from '../../../../../core/errors';
import { GENESIS, nextHead, type ChainHead } from '../../../../../core/chain/head';
import { openPostgresChainStore } from '../../../../../core/chain/postgres/postgres-config';
import { CHAIN_TABLE_VERSION } from '../../../../../core/chain/postgres/postgres-schema';
import { PostgresChainStore, type PostgresChainHealth } from '../../../../../core/chain/postgres/postgres-store';
import { InMemoryChainStore } from '../../../../../core/chain/memory/memory-store';
import type { ChainStoreWithReaders } from '../../../../../core/chain/port';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { prepareAppend } from '../../../../../core/chain/store-support';
import { verify } from '../../../../../core/chain/verify';
import { usePostgres } from '../../../../support/postgres';
import { eventSpecArb, expectedHeads, materialize } from '../conformance/support';
import { collect, countingPool, event, freshSchema } from './postgres-support';

let parityRun = 0;

const run = promisify(execFile);
const server = usePostgres({ beforeAll, afterAll });
let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: server().url, max: 2 });
  admin.on('error', () => undefined);
});
afterAll(async () => {
  await admin.end();
});

function newPool(config: pg.PoolConfig = {}): pg.Pool {
  return new pg.Pool({ connectionString: server().url, connectionTimeoutMillis: 10_000, ...config });
}

async function withStore<T>(config: pg.PoolConfig, fn: (store: PostgresChainStore, pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = newPool(config);
  const store = new PostgresChainStore({ pool, schema: freshSchema() });
  try {
    return await fn(store, pool);
  } finally {
    await store.close();
    await pool.end();
  }
}

/** One linear, contiguous, verified chain whose rows are exactly the acknowledged appends, each appender's in its own order. */
async function expectLinearHistory(store: PostgresChainStore, wf: string, acks: readonly (readonly { transition_id: string; head: ChainHead }[])[], total: number): Promise<void> {
  const rows = await collect(store.readPersistedRows(wf));
  expect(rows.length).toBe(total);
  expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  let prior: string = GENESIS;
  for (const r of rows) {
    expect(r.prior_head).toBe(prior);
    prior = r.next_head;
  }
  const v = await verify(store, wf);
  expect([v.status, v.rows]).toEqual(['ok', total]);
  const persisted = new Map(rows.map((r) => [r.transition_id, r]));
  for (const mine of acks) {
    let lastSeq = 0;
    for (const ack of mine) {
      const row = persisted.get(ack.transition_id);
      expect(row?.next_head).toBe(ack.head);
      expect(row?.sequence ?? 0).toBeGreaterThan(lastSeq);
      lastSeq = row?.sequence ?? 0;
    }
  }
  expect(new Set(acks.flat().map((a) => a.head)).size).toBe(total);
}

describe('PostgresChainStore — package surface (A)', () => {
  it('A2: structurally implements the chain-store port and its read-side ports, plus setup() and health()', async () => {
    expectTypeOf<PostgresChainStore>().toMatchTypeOf<ChainStoreWithReaders>();
    const pool = newPool();
    try {
      const store: ChainStoreWithReaders = new PostgresChainStore({ pool });
      for (const op of ['append', 'readAllForWorkflow', 'tailChainHead', 'lock', 'close', 'listWorkflows', 'readPersistedRows', 'setup', 'health'] as const) {
        expect(typeof (store as unknown as Record<string, unknown>)[op], op).toBe('function');
      }
      // The pool is injected: constructing the store opens no connection and sends nothing.
      expect(pool.totalCount).toBe(0);
      await store.close();
    } finally {
      await pool.end();
    }
  });

  it('rejects a schema name that is not a plain lowercase identifier, before any I/O', () => {
    const pool = newPool();
    try {
      expect(() => new PostgresChainStore({ pool, schema: 'x"; DROP TABLE y; --' })).toThrow(GfError);
      try {
        new PostgresChainStore({ pool, schema: 'Bad-Name' });
      } catch (e) {
        expect((e as GfError).code).toBe('GF_VALIDATION');
      }
      expect(pool.totalCount).toBe(0);
    } finally {
      void pool.end();
    }
  });
});

describe('PostgresChainStore — setup (B)', () => {
  it('B1: setup() creates the schema with the fork-guard constraints, in one round trip', async () => {
    const { pool, sent } = countingPool({ connectionString: server().url });
    const schema = freshSchema('b1');
    const store = new PostgresChainStore({ pool, schema });
    try {
      await store.setup();
      expect(sent()).toBe(1);
      const r = await admin.query<{ conname: string; contype: string }>(
        `SELECT conname, contype FROM pg_constraint WHERE conrelid = to_regclass($1) ORDER BY conname`,
        [`${schema}.checkpoint_chain`],
      );
      const named = r.rows.filter((c) => c.contype === 'p' || c.contype === 'u').map((c) => c.conname);
      expect(named).toEqual(['checkpoint_chain_pkey', 'checkpoint_chain_prior_head_key', 'checkpoint_chain_transition_id_key']);
      // Idempotent DDL: a second instance on the same schema sets up again without error.
      const again = new PostgresChainStore({ pool, schema });
      await again.setup();
      await again.close();
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('chain_table_version_checked_at_setup: a foreign or older checkpoint_chain table is refused at setup, untouched', async () => {
    const { pool } = countingPool({ connectionString: server().url });
    const foreign = freshSchema('foreign');
    const older = freshSchema('older');
    // A foreign table of the same name, and the exact table an older engine created (same columns, no version stamp).
    await admin.query(`CREATE SCHEMA ${foreign}; CREATE TABLE ${foreign}.checkpoint_chain (id INT PRIMARY KEY, note TEXT)`);
    const fresh = new PostgresChainStore({ pool, schema: older });
    await fresh.setup();
    await fresh.close();
    await admin.query(`COMMENT ON TABLE ${older}.checkpoint_chain IS NULL`);
    try {
      for (const schema of [foreign, older]) {
        const store = new PostgresChainStore({ pool, schema });
        const err = await store.setup().then(() => null, (e: unknown) => e);
        expect(isGfError(err) ? { code: err.code, reason: err.details['reason'] } : err).toEqual({ code: 'GF_CHAIN_STORE', reason: 'table_version' });
        await store.close();
      }
      const rows = await admin.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${foreign}.checkpoint_chain`);
      expect(rows.rows[0]?.n).toBe('0');
      // The stamp this engine writes is accepted.
      await admin.query(`COMMENT ON TABLE ${older}.checkpoint_chain IS '${CHAIN_TABLE_VERSION}'`);
      const ok = new PostgresChainStore({ pool, schema: older });
      await ok.setup();
      await ok.close();
    } finally {
      await pool.end();
    }
  });

  it('B2: a second setup() (and concurrent first calls) send nothing more to the server', async () => {
    const { pool, sent } = countingPool({ connectionString: server().url });
    const store = new PostgresChainStore({ pool, schema: freshSchema('b2') });
    try {
      await Promise.all([store.setup(), store.setup(), store.setup()]);
      expect(sent()).toBe(1);
      await store.setup();
      await store.setup();
      expect(sent()).toBe(1);
      // Operations call setup() implicitly: still no DDL again, one statement per warm append.
      await store.append(event('wf-b2', 0));
      const afterFirst = sent();
      await store.append(event('wf-b2', 1));
      expect(sent() - afterFirst).toBe(1);
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('refuses a server session where commits would not be durable (synchronous_commit off)', async () => {
    await withStore({ options: '-c synchronous_commit=off' }, async (store) => {
      const e = await store.setup().then(() => null, (x: unknown) => x);
      expect(isGfError(e)).toBe(true);
      expect((e as GfError).code).toBe('GF_CHAIN_STORE');
      expect((e as GfError).details.reason).toBe('not_durable');
    });
  });
});

describe('PostgresChainStore — health() (C)', () => {
  it('C1: health() has exactly pool_in_use, pool_idle, last_write_age_seconds, all numbers', async () => {
    await withStore({}, async (store) => {
      const h = store.health();
      expect(Object.keys(h).sort()).toEqual(['last_write_age_seconds', 'pool_idle', 'pool_in_use']);
      for (const v of Object.values(h)) expect(typeof v).toBe('number');
      expectTypeOf(h).toEqualTypeOf<PostgresChainHealth>();
    });
  });

  it('C2: with min 2 / max 4 and two checked-out clients, pool_in_use is 2 and pool_idle in {0,1,2}', async () => {
    await withStore({ min: 2, max: 4 }, async (store, pool) => {
      const a = await pool.connect();
      const b = await pool.connect();
      try {
        const h = store.health();
        expect(h.pool_in_use).toBe(2);
        expect([0, 1, 2]).toContain(h.pool_idle);
      } finally {
        a.release();
        b.release();
      }
      const after = store.health();
      expect(after.pool_in_use).toBe(0);
      expect(after.pool_idle).toBe(2);
    });
  });

  it('C3: last_write_age_seconds is Infinity before the first write, < 1 right after, and follows the monotonic clock', async () => {
    let now = 1_000;
    const pool = newPool();
    const store = new PostgresChainStore({ pool, schema: freshSchema('c3'), monotonicNow: () => now });
    const real = new PostgresChainStore({ pool, schema: freshSchema('c3') });
    try {
      expect(store.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY);
      expect(real.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY);
      await store.setup();
      await store.tailChainHead('wf-c3');
      expect(store.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY); // reads are not writes
      await store.append(event('wf-c3', 0));
      expect(store.health().last_write_age_seconds).toBe(0);
      now += 2_500;
      expect(store.health().last_write_age_seconds).toBe(2.5);
      await real.append(event('wf-c3', 0));
      expect(real.health().last_write_age_seconds).toBeLessThan(1);
    } finally {
      await store.close();
      await real.close();
      await pool.end();
    }
  });

  it('C4: concurrent health() calls check out no connection, send nothing and agree', async () => {
    await withStore({ max: 3 }, async (store, pool) => {
      await store.setup();
      const held = await pool.connect();
      let acquired = 0;
      const onAcquire = (): void => {
        acquired += 1;
      };
      pool.on('acquire', onAcquire);
      try {
        const before = { total: pool.totalCount, idle: pool.idleCount };
        const results = await Promise.all(Array.from({ length: 500 }, async () => store.health()));
        expect(new Set(results.map((h) => `${h.pool_in_use}/${h.pool_idle}`))).toEqual(new Set(['1/0']));
        expect(acquired).toBe(0);
        expect({ total: pool.totalCount, idle: pool.idleCount }).toEqual(before);
      } finally {
        pool.off('acquire', onAcquire);
        held.release();
      }
    });
    // Works even when the server is unreachable: health never talks to it.
    const dead = new pg.Pool({ host: '127.0.0.1', port: 1, connectionTimeoutMillis: 200 });
    const store = new PostgresChainStore({ pool: dead });
    expect(store.health()).toEqual({ pool_in_use: 0, pool_idle: 0, last_write_age_seconds: Number.POSITIVE_INFINITY });
    await store.close();
    await dead.end();
  });
});

describe('PostgresChainStore — failures (D)', () => {
  it("D1/D2: with the pool's only connection held, a write fails within the pool timeout with the pool's own error; health still works; the next write succeeds", async () => {
    await withStore({ max: 1, min: 1, connectionTimeoutMillis: 500 }, async (store, pool) => {
      await store.setup();
      const held = await pool.connect();
      const t0 = performance.now();
      let error: unknown;
      try {
        await store.append(event('wf-d1', 0));
      } catch (e) {
        error = e;
      }
      const elapsed = performance.now() - t0;
      try {
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toBe('timeout exceeded when trying to connect');
        expect(isGfError(error)).toBe(false); // not wrapped
        expect((error as { errorId?: unknown }).errorId).toBeUndefined();
        expect(elapsed).toBeGreaterThanOrEqual(450);
        expect(elapsed).toBeLessThan(5_000);
        // D2: no broken state.
        expect(store.health()).toEqual({ pool_in_use: 1, pool_idle: 0, last_write_age_seconds: Number.POSITIVE_INFINITY });
      } finally {
        held.release();
      }
      const head = await store.append(event('wf-d1', 0));
      expect(await store.tailChainHead('wf-d1')).toBe(head);
      expect(store.health().last_write_age_seconds).toBeLessThan(1);
      expect((await verify(store, 'wf-d1')).status).toBe('ok');
    });
  });

  it('an idle connection terminated by the server does not crash the process; the next call succeeds', async () => {
    await withStore({ max: 1, application_name: 'gf-idle-kill' }, async (store, pool) => {
      await store.append(event('wf-idle', 0));
      expect(pool.idleCount).toBe(1);
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'gf-idle-kill'`);
      expect(killed.rows).toEqual([{ ok: true }]);
      // The pool notices the dead idle client and drops it (it emits 'error'; the store's guard keeps the process alive).
      await vi.waitFor(() => expect(pool.totalCount).toBe(0), { timeout: 10_000, interval: 20 });
      const head = await store.append(event('wf-idle', 1));
      expect(await store.tailChainHead('wf-idle')).toBe(head);
      expect((await verify(store, 'wf-idle')).rows).toBe(2);
    });
  });

  it('a connection killed inside lock fails that call with GF_CHAIN_STORE connection_lost; the append it acknowledged stays; the next append succeeds', async () => {
    await withStore({ max: 2, application_name: 'gf-busy-kill' }, async (store) => {
      const wf = 'wf-busy';
      await store.append(event(wf, 0));
      let error: unknown;
      let kept: ChainHead | undefined;
      try {
        await store.lock(wf, async () => {
          kept = await store.append(event(wf, 1));
          // The lock's own connection: the one holding the workflow's session advisory lock.
          const r = await admin.query(
            `SELECT pg_terminate_backend(a.pid) AS ok FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid WHERE a.application_name = 'gf-busy-kill' AND l.locktype = 'advisory' AND l.granted`,
          );
          expect(r.rows).toEqual([{ ok: true }]);
          return 'done';
        });
      } catch (e) {
        error = e;
      }
      expect(isGfError(error)).toBe(true);
      expect((error as GfError).code).toBe('GF_CHAIN_STORE');
      expect((error as GfError).details.reason).toBe('connection_lost');
      expect(JSON.stringify((error as GfError).details)).not.toContain(server().password);
      // The in-lock append was acknowledged, so it was committed: the chain ends at it.
      expect(kept).toBeDefined();
      expect(await store.tailChainHead(wf)).toBe(kept);
      const next = event(wf, 2);
      const head = await store.append(next);
      expect(head).toBe(nextHead(kept as ChainHead, prepareAppend(next).bytes));
      const v = await verify(store, wf);
      expect([v.status, v.rows]).toEqual(['ok', 3]);
    });
  });
});

describe('PostgresChainStore — concurrency and correctness (E)', () => {
  it('E1: 20 workflows x 10 checkpoints concurrently on one pool (min 2, max 20): 200 committed, chains verify, no timeout', async () => {
    await withStore({ min: 2, max: 20, connectionTimeoutMillis: 10_000 }, async (store, pool) => {
      await store.setup();
      const ids = Array.from({ length: 20 }, (_, i) => `wf-e1-${i}`);
      const heads = await Promise.all(
        ids.map(async (id) => {
          const out: ChainHead[] = [];
          for (let n = 0; n < 10; n++) out.push(await store.append(event(id, n)));
          return out;
        }),
      );
      const count = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${store.schema}".checkpoint_chain`);
      expect(Number(count.rows[0]?.n)).toBe(200);
      for (const [i, id] of ids.entries()) {
        const v = await verify(store, id);
        expect([v.status, v.rows, v.tail_head]).toEqual(['ok', 10, heads[i]?.[9]]);
      }
      const h = store.health();
      expect(h.pool_in_use + h.pool_idle).toBe(pool.totalCount);
      // Group commit: 20 concurrent workflows never need more than a few connections.
      expect(pool.totalCount).toBeGreaterThanOrEqual(2);
      expect(pool.totalCount).toBeLessThan(20);
      expect(h.pool_in_use).toBe(0);
      expect(await store.listWorkflows()).toEqual([...ids].sort());
    });
  });

  it('group commit: concurrent appends to many workflows share statements, and every row is exactly a lone append\'s row', async () => {
    const { pool, sent } = countingPool({ connectionString: server().url, max: 8 });
    const schema = freshSchema('group');
    const store = new PostgresChainStore({ pool, schema });
    try {
      await store.setup();
      const ids = Array.from({ length: 16 }, (_, i) => `wf-group-${i}`);
      const events = ids.map((id) => Array.from({ length: 6 }, (_, n) => event(id, n)));
      const s0 = sent();
      const heads = await Promise.all(
        events.map(async (evs) => {
          const out: ChainHead[] = [];
          for (const e of evs) out.push(await store.append(e));
          return out;
        }),
      );
      // 96 appends, one statement each without group commit.
      expect(sent() - s0).toBeLessThan(96 / 2);
      for (const [i, id] of ids.entries()) {
        let prior: ChainHead = GENESIS;
        const expected = (events[i] ?? []).map((e) => (prior = nextHead(prior, prepareAppend(e).bytes)));
        expect(heads[i]).toEqual(expected);
        const v = await verify(store, id);
        expect([v.status, v.rows, v.tail_head]).toEqual(['ok', 6, expected.at(-1)]);
      }
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('group commit: a stale tail in a shared statement re-links that append alone; the others commit in the statement', async () => {
    const pool = newPool({ max: 4 });
    const schema = freshSchema('gstale');
    const a = new PostgresChainStore({ pool, schema });
    const b = new PostgresChainStore({ pool, schema });
    try {
      const ids = Array.from({ length: 8 }, (_, i) => `wf-gstale-${i}`);
      await Promise.all(ids.map((id) => a.append(event(id, 0))));
      const stale = ids[3] as string;
      const other = await b.append(event(stale, 1)); // a's hint for `stale` is now one row behind
      const next = ids.map((id) => event(id, 2));
      const heads = await Promise.all(next.map((e) => a.append(e)));
      expect(heads[3]).toBe(nextHead(other, prepareAppend(next[3] as ReturnType<typeof event>).bytes));
      for (const [i, id] of ids.entries()) {
        const v = await verify(a, id);
        expect([v.status, v.rows, v.tail_head]).toEqual(['ok', id === stale ? 3 : 2, heads[i]]);
      }
    } finally {
      await a.close();
      await b.close();
      await pool.end();
    }
  });

  it('group commit: a statement the database refuses is retried row by row; only the refused append fails, with its code', async () => {
    const pool = newPool({ max: 4 });
    const schema = freshSchema('grefuse');
    const store = new PostgresChainStore({ pool, schema });
    try {
      await store.setup();
      await admin.query(`ALTER TABLE "${schema}".checkpoint_chain ADD CONSTRAINT refuse_one CHECK (workflow_id <> 'wf-refused')`);
      const ids = Array.from({ length: 12 }, (_, i) => (i === 8 ? 'wf-refused' : `wf-ok-${i}`));
      // All in flight at once: the refused row shares a statement with others.
      const outcomes = await Promise.all(
        ids.map(async (id) =>
          store.append(event(id, 0)).then(
            (h) => ({ id, ok: true as const, h }),
            (e: unknown) => ({ id, ok: false as const, code: (e as GfError).code, reason: (e as GfError).details.reason, committed: (e as GfError).committed }),
          ),
        ),
      );
      const byId = new Map(outcomes.map((o) => [o.id, o]));
      expect(byId.get('wf-refused')).toMatchObject({ ok: false, code: 'GF_CHAIN_STORE', reason: 'database_error', committed: false });
      for (const id of ids.filter((x) => x !== 'wf-refused')) {
        expect(byId.get(id)?.ok).toBe(true);
        const v = await verify(store, id);
        expect([v.status, v.rows]).toEqual(['ok', 1]);
      }
      expect(await store.tailChainHead('wf-refused')).toBe(GENESIS);
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('E2: a second process with a fresh adapter reads byte-identical events and heads', async () => {
    await withStore({}, async (store) => {
      const wf = 'wf-e2';
      const events = Array.from({ length: 6 }, (_, n) => event(wf, n, n === 3 ? 'token ghp_0123456789abcdefghijABCDEFGHIJ0123456789 leaked' : `step ${n}`));
      const heads: ChainHead[] = [];
      for (const e of events) heads.push(await store.append(e));
      const mine = await collect(store.readPersistedRows(wf));
      const child = join(import.meta.dirname, 'postgres-reader.child.ts');
      const { stdout } = await run(process.execPath, ['--import', 'tsx', child, store.schema, wf], {
        env: { ...process.env, GF_CHAIN_POSTGRES_URL: server().url },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const theirs = JSON.parse(stdout) as { pid: number; rows: { sequence: number; transition_id: string; prior_head: string; next_head: string; event_bytes: string; written_at: string }[]; events: unknown[]; tail: string };
      expect(theirs.pid).not.toBe(process.pid);
      expect(theirs.rows.map((r) => r.next_head)).toEqual(heads);
      expect(theirs.tail).toBe(heads[5]);
      expect(theirs.rows.map((r) => Buffer.from(r.event_bytes, 'base64'))).toEqual(mine.map((r) => Buffer.from(r.event_bytes)));
      expect(theirs.rows.map((r) => [r.sequence, r.transition_id, r.prior_head, r.written_at])).toEqual(mine.map((r) => [r.sequence, r.transition_id, r.prior_head, r.written_at]));
      expect(theirs.events).toEqual(JSON.parse(JSON.stringify(await collect(store.readAllForWorkflow(wf)))));
      expect(stdout).not.toContain('ghp_0123456789');
    });
  }, 90_000);

  it('E3: 1,024 create/use/close cycles leak no connections, checkouts or file descriptors (pools recycled every 64 cycles)', async () => {
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const serverConnections = async (): Promise<number> =>
      Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'gf-e3'`)).rows[0]?.n);
    const schema = freshSchema('e3');
    const before = fds();
    let pool = newPool({ max: 2, application_name: 'gf-e3' });
    try {
      for (let i = 0; i < 1024; i++) {
        if (i > 0 && i % 64 === 0) {
          expect(pool.totalCount - pool.idleCount).toBe(0); // every checkout was given back
          await pool.end();
          pool = newPool({ max: 2, application_name: 'gf-e3' });
        }
        const store = new PostgresChainStore({ pool, schema });
        const id = `wf-e3-${i}`;
        const head = await store.append(event(id, i));
        expect(await store.tailChainHead(id)).toBe(head);
        await store.close();
      }
      expect(pool.listenerCount('error')).toBe(0); // closed stores leave no listener behind
    } finally {
      await pool.end();
    }
    expect(fds()).toBeLessThanOrEqual(before + 4);
    await vi.waitFor(async () => expect(await serverConnections()).toBe(0), { timeout: 15_000, interval: 50 });
    const count = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".checkpoint_chain`);
    expect(Number(count.rows[0]?.n)).toBe(1024);
  }, 120_000);

  // 8,000 appends: ~14 s at load 7 on this 2-core machine (minutes when it is heavily overloaded).
  it('16 concurrent appenders on one workflow x 500 appends: one linear, contiguous, verified chain equal to the acknowledged history', async () => {
    const APPENDERS = 16;
    const PER = 500;
    await withStore({ max: 8 }, async (store) => {
      const wf = 'wf-linear';
      const acks = await Promise.all(
        Array.from({ length: APPENDERS }, async (_, a) => {
          const mine: { transition_id: string; head: ChainHead }[] = [];
          for (let n = 0; n < PER; n++) {
            const e = event(wf, a * PER + n);
            mine.push({ transition_id: e.transition_id, head: await store.append(e) });
          }
          return mine;
        }),
      );
      await expectLinearHistory(store, wf, acks, APPENDERS * PER);
    });
  }, 240_000);

  it('4 stores as 4 machines x 4 appenders on one workflow: the database alone keeps the chain linear under contention', async () => {
    const pool = newPool({ max: 8 });
    const schema = freshSchema('machines');
    const stores = Array.from({ length: 4 }, () => new PostgresChainStore({ pool, schema }));
    const wf = 'wf-machines';
    try {
      const acks = await Promise.all(
        Array.from({ length: 16 }, async (_, a) => {
          const store = stores[a % stores.length] as PostgresChainStore;
          const mine: { transition_id: string; head: ChainHead }[] = [];
          for (let n = 0; n < 25; n++) {
            const e = event(wf, a * 25 + n);
            mine.push({ transition_id: e.transition_id, head: await store.append(e) });
          }
          return mine;
        }),
      );
      await expectLinearHistory(stores[0] as PostgresChainStore, wf, acks, 400);
    } finally {
      for (const s of stores) await s.close();
      await pool.end();
    }
  }, 120_000);

  it('two stores with stale tails (two machines) never fork: the loser re-reads and links to the winner', async () => {
    const { pool, sent } = countingPool({ connectionString: server().url, max: 4 });
    const schema = freshSchema('stale');
    const a = new PostgresChainStore({ pool, schema });
    const b = new PostgresChainStore({ pool, schema });
    try {
      await a.setup();
      await b.setup();
      const wf = 'wf-stale';
      const e0 = event(wf, 0);
      const e1 = event(wf, 1);
      const e2 = event(wf, 2);
      const h0 = await a.append(e0);
      const h1 = await b.append(e1); // b has never seen the workflow: its optimistic GENESIS insert is refused
      const s0 = sent();
      const h2 = await a.append(e2); // a's tail hint (h0) is stale now
      expect(sent() - s0).toBeGreaterThan(1); // the refused optimistic insert, then the locked re-read
      expect(h1).toBe(nextHead(h0, prepareAppend(e1).bytes));
      expect(h2).toBe(nextHead(h1, prepareAppend(e2).bytes));
      const v = await verify(a, wf);
      expect([v.status, v.rows]).toEqual(['ok', 3]);
      // And the database itself refuses a forked row, whoever sends it.
      const fork = await admin.query(
        `INSERT INTO "${schema}".checkpoint_chain (workflow_id, sequence, transition_id, prior_head, next_head, event_bytes, written_at)
         VALUES ($1, 99, '01JZZZZZZZZZZZZZZZZZZZZZZZ', $2, $3, '\\x7b7d', 'x')`,
        [wf, h0, nextHead(h0, new Uint8Array([1]))],
      ).then(() => 'inserted', (e: { code?: string; constraint?: string }) => `${e.code}/${e.constraint}`);
      expect(fork).toBe('23505/checkpoint_chain_prior_head_key');
    } finally {
      await a.close();
      await b.close();
      await pool.end();
    }
  });
});

describe('openPostgresChainStore (the caller side)', () => {
  it('creates the pool, sets the schema up and closes both; an unreachable server fails with the driver error and leaves no pool', async () => {
    const opened = await openPostgresChainStore(server().url, { schema: freshSchema('open'), max: 2 });
    try {
      const head = await opened.store.append(event('wf-open', 0));
      expect(await opened.store.tailChainHead('wf-open')).toBe(head);
      const sc = await opened.pool.query<{ v: string }>("SELECT current_setting('synchronous_commit') AS v");
      expect(sc.rows[0]?.v).toBe('on');
    } finally {
      await opened.close();
      await opened.close();
    }
    expect(opened.pool.ending).toBe(true);
    const e = await openPostgresChainStore('postgres://u:p@127.0.0.1:1/none', { connectionTimeoutMillis: 2_000 }).then(() => null, (x: unknown) => x);
    expect((e as { code?: string }).code).toBe('ECONNREFUSED');
  });
});

describe('cross-adapter parity: memory, SQLite, Postgres', () => {
  it('the same inputs give the same heads, tails, read sequences and persisted rows on all three adapters', async () => {
    const clock = (): Date => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    const pool = newPool({ max: 4 });
    const root = mkdtempSync(join(tmpdir(), 'gf-parity-'));
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), eventSpecArb), { minLength: 1, maxLength: 12 }), async (draws) => {
          const a = `wf-par-a-${(parityRun += 1)}`;
          const b = `wf-par-b-${parityRun}`;
          const events = draws.map(([toA, spec]) => materialize(spec, toA ? a : b));
          const stores: readonly ChainStoreWithReaders[] = [
            new InMemoryChainStore({ clock }),
            new SqliteChainStore(join(root, String(parityRun)), { clock }),
            new PostgresChainStore({ pool, schema: freshSchema('par'), clock }),
          ];
          const seen = [];
          for (const store of stores) {
            const heads: string[] = [];
            for (const e of events) heads.push(await store.append(e));
            const per = async (wf: string) => ({
              tail: await store.tailChainHead(wf),
              events: await collect(store.readAllForWorkflow(wf)),
              rows: (await collect(store.readPersistedRows(wf))).map((r) => ({ ...r, event_bytes: Buffer.from(r.event_bytes).toString('hex') })),
            });
            seen.push({ heads, a: await per(a), b: await per(b), listed: (await store.listWorkflows()).filter((w) => w === a || w === b) });
            await store.close();
          }
          expect(seen[1]).toEqual(seen[0]);
          expect(seen[2]).toEqual(seen[0]);
          // And they are the heads of the pure functions, each workflow its own chain.
          const wantA = expectedHeads(events.filter((e) => e.workflow_id === a));
          const wantB = expectedHeads(events.filter((e) => e.workflow_id === b));
          let ia = 0;
          let ib = 0;
          expect(seen[0]?.heads).toEqual(events.map((e) => (e.workflow_id === a ? wantA[ia++] : wantB[ib++])));
        }),
        { numRuns: 6 },
      );
    } finally {
      await pool.end();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
