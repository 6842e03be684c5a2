// Story S5-01 A–F against a real PostgreSQL server (one per file).
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import pg from 'pg';
import { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import * as langgraph from '../../../../core/langgraph';
import { CHECKPOINTER_HEALTH_FIELDS, PostgresCheckpointerAdapter, type CheckpointerHealth, type LangGraphCheckpointerPort } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { putChain, sampleCheckpoint } from './langgraph-support';

const server = usePostgres({ beforeAll, afterAll });
const pools: pg.Pool[] = [];
/** A pool for one test; ended after the file. */
function newPool(config: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: server().url, ...config });
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
});
let threads = 0;
const freshThread = (prefix: string): string => `${prefix}-${process.pid}-${(threads += 1)}`;

describe('S5-01 A: package surface and the port', () => {
  it('A1: core/langgraph exports the adapters and the health record helpers, never the upstream saver classes', () => {
    expect(Object.keys(langgraph).sort()).toEqual(['CHECKPOINTER_HEALTH_FIELDS', 'PostgresCheckpointerAdapter', 'SqliteCheckpointerAdapter', 'checkpointerHealth', 'openCheckpointerPool']);
  });

  it('A2: the adapter satisfies LangGraphCheckpointerPort, at the type level and at run time', async () => {
    const adapter = new PostgresCheckpointerAdapter({ pool: newPool() });
    const port: LangGraphCheckpointerPort = adapter;
    expectTypeOf(adapter).toExtend<LangGraphCheckpointerPort>();
    expectTypeOf(adapter.health).returns.toEqualTypeOf<CheckpointerHealth>();
    expectTypeOf<Awaited<ReturnType<LangGraphCheckpointerPort['saver']>>>().toEqualTypeOf<BaseCheckpointSaver>();
    const saver = await port.saver();
    expect(saver).toBeInstanceOf(BaseCheckpointSaver);
    expect(Object.keys(port.health())).toEqual([...CHECKPOINTER_HEALTH_FIELDS]);
  });

  it('A3: the constructor takes only the pool and opens no connection of its own', async () => {
    expect(PostgresCheckpointerAdapter.length).toBe(1);
    const pool = newPool();
    // @ts-expect-error a connection string is not accepted: the pool is injected
    void new PostgresCheckpointerAdapter({ pool, connectionString: server().url });
    const adapter = new PostgresCheckpointerAdapter({ pool });
    expect(pool.totalCount).toBe(0);
    const saver = await adapter.saver();
    expect((saver as unknown as { pool: pg.Pool }).pool).toBe(pool);
  });
});

describe('S5-01 B: saver() and the upstream setup', () => {
  it('B1: saver() is upstream PostgresSaver bound to the injected pool, the same object on every call', async () => {
    const pool = newPool();
    const adapter = new PostgresCheckpointerAdapter({ pool });
    const first = await adapter.saver();
    expect(first).toBeInstanceOf(PostgresSaver);
    expect(Object.getPrototypeOf(first)).toBe(PostgresSaver.prototype);
    expect(await adapter.saver()).toBe(first);
    expect(await adapter.saver()).toBe(first);
    expect((first as unknown as { pool: pg.Pool }).pool).toBe(pool);
  });

  it('B2: upstream setup() runs exactly once, also under 10 concurrent first calls, and creates the checkpoint tables', async () => {
    const pool = newPool();
    await pool.query('DROP TABLE IF EXISTS public.checkpoints, public.checkpoint_blobs, public.checkpoint_writes, public.checkpoint_migrations');
    const setup = vi.spyOn(PostgresSaver.prototype, 'setup');
    try {
      const adapter = new PostgresCheckpointerAdapter({ pool });
      const savers = await Promise.all(Array.from({ length: 10 }, () => adapter.saver()));
      expect(new Set(savers).size).toBe(1);
      expect(setup).toHaveBeenCalledTimes(1);
      await adapter.saver();
      await adapter.saver();
      expect(setup).toHaveBeenCalledTimes(1);
      const { rows } = await pool.query<{ t: string | null }>("SELECT to_regclass('public.checkpoints')::text AS t");
      expect(rows[0]?.t).toBe('checkpoints');
    } finally {
      setup.mockRestore();
    }
  });

  it('B2: a failed setup is not cached: the next call runs setup again and succeeds', async () => {
    const pool = newPool();
    const setup = vi.spyOn(PostgresSaver.prototype, 'setup').mockRejectedValueOnce(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
    try {
      const adapter = new PostgresCheckpointerAdapter({ pool });
      await expect(adapter.saver()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      const saver = await adapter.saver();
      expect(saver).toBeInstanceOf(PostgresSaver);
      expect(setup).toHaveBeenCalledTimes(2);
    } finally {
      setup.mockRestore();
    }
  });
});

describe('S5-01 C: health()', () => {
  it('C1: health() is a frozen record with exactly pool_in_use, pool_idle and last_write_age_seconds', () => {
    const health = new PostgresCheckpointerAdapter({ pool: newPool() }).health();
    expect(Object.keys(health)).toEqual(['pool_in_use', 'pool_idle', 'last_write_age_seconds']);
    expect(Object.isFrozen(health)).toBe(true);
    expect(health).toEqual({ pool_in_use: 0, pool_idle: 0, last_write_age_seconds: Number.POSITIVE_INFINITY });
  });

  it("C2: the counters are the pool's own: two connections checked out of a max-4 pool", async () => {
    const pool = newPool({ max: 4 });
    const adapter = new PostgresCheckpointerAdapter({ pool });
    const a = await pool.connect();
    const b = await pool.connect();
    const c = await pool.connect();
    c.release();
    expect(adapter.health()).toMatchObject({ pool_in_use: 2, pool_idle: 1 });
    a.release();
    b.release();
    expect(adapter.health()).toMatchObject({ pool_in_use: 0, pool_idle: 3 });
  });

  it('C3: last_write_age_seconds is Infinity before the first successful write and at most 1 s after one (put and putWrites)', async () => {
    const adapter = new PostgresCheckpointerAdapter({ pool: newPool() });
    const saver = await adapter.saver();
    expect(adapter.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY);
    // A failed write notes nothing.
    await expect(saver.put({}, sampleCheckpoint(0), { source: 'loop', step: 0, parents: {} }, {})).rejects.toThrow('Missing "configurable" field');
    expect(adapter.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY);
    const config = await putChain(saver, freshThread('c3'), 1);
    const afterPut = adapter.health().last_write_age_seconds;
    expect(afterPut).toBeGreaterThanOrEqual(0);
    expect(afterPut).toBeLessThanOrEqual(1);

    const other = new PostgresCheckpointerAdapter({ pool: newPool() });
    const otherSaver = await other.saver();
    await otherSaver.putWrites(config, [['notes', 'a write']], 'task-1');
    expect(other.health().last_write_age_seconds).toBeLessThanOrEqual(1);
  });

  it('C4: 10 concurrent health() calls return in < 100 ms and leave pool_in_use unchanged', async () => {
    const pool = newPool();
    const adapter = new PostgresCheckpointerAdapter({ pool });
    await adapter.saver();
    const before = adapter.health();
    const t0 = performance.now();
    const all = await Promise.all(Array.from({ length: 10 }, async () => adapter.health()));
    expect(performance.now() - t0).toBeLessThan(100);
    for (const h of all) expect(h.pool_in_use).toBe(before.pool_in_use);
    expect(pool.totalCount).toBe(before.pool_in_use + before.pool_idle);
    expect(adapter.health().pool_in_use).toBe(before.pool_in_use);
  });
});

describe('S5-01 D: pool exhaustion', () => {
  it("D1/D2: with the only connection held, a write rejects within 1 s with node-postgres's own timeout error, unwrapped; health stays readable and the next write resets the age", async () => {
    const pool = newPool({ max: 1, connectionTimeoutMillis: 500 });
    const adapter = new PostgresCheckpointerAdapter({ pool });
    const saver = await adapter.saver();
    const thread = freshThread('d1');
    await putChain(saver, thread, 1);

    const hold = pool.query('SELECT pg_sleep(2)');
    await vi.waitFor(() => expect(adapter.health().pool_in_use).toBe(1), { interval: 5 });
    // node-postgres's own error for the same wait, for comparison.
    const expected = await pool.connect().then(
      (c) => {
        c.release();
        return new Error('the pool was not exhausted');
      },
      (e: unknown) => e as Error,
    );
    const t0 = performance.now();
    const failure = await saver.put({ configurable: { thread_id: thread, checkpoint_ns: '' } }, sampleCheckpoint(1), { source: 'loop', step: 1, parents: {} }, {}).then(
      () => new Error('the write succeeded'),
      (e: unknown) => e as Error,
    );
    const waited = performance.now() - t0;
    expect(waited).toBeLessThan(1000);
    expect(failure.message).toBe(expected.message);
    expect(failure.message).toBe('timeout exceeded when trying to connect');
    expect(failure.constructor).toBe(expected.constructor);
    expect(failure.cause).toBeUndefined();
    expect(adapter.health()).toMatchObject({ pool_in_use: 1, pool_idle: 0 });
    const ageAfterFailure = adapter.health().last_write_age_seconds;
    expect(ageAfterFailure).toBeGreaterThanOrEqual(waited / 1000 - 0.05);

    await hold;
    await putChain(saver, freshThread('d2'), 1);
    expect(adapter.health().last_write_age_seconds).toBeLessThan(ageAfterFailure);
  });
});

describe('S5-01 E: concurrency', () => {
  it("E1: 20 threads × 10 checkpoints through one max-20 pool all commit; at every sample pool_in_use equals the connections the pool's own acquire/release events say callers hold, pool_idle its idle count", async () => {
    const pool = newPool({ max: 20, connectionTimeoutMillis: 5_000 });
    const adapter = new PostgresCheckpointerAdapter({ pool });
    let held = 0; // counted here, independently of the adapter, from the pool's events
    pool.on('acquire', () => void (held += 1));
    pool.on('release', () => void (held -= 1));
    const saver = await adapter.saver();
    const samples: string[] = [];
    let count = 0;
    let busy = 0;
    const sample = (): void => {
      const h = adapter.health();
      count += 1;
      if (h.pool_in_use > 0) busy += 1;
      if (h.pool_in_use !== held || h.pool_idle !== pool.idleCount) samples.push(`in_use ${h.pool_in_use} vs held ${held}, idle ${h.pool_idle} vs ${pool.idleCount}`);
    };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sample();
        await new Promise((r) => setImmediate(r));
      }
    })();
    const ids = Array.from({ length: 20 }, () => freshThread('e1'));
    const results = await Promise.allSettled(ids.map((id) => putChain(saver, id, 10)));
    sampling = false;
    await sampler;
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(count).toBeGreaterThan(20);
    expect(samples).toEqual([]);
    expect(busy).toBeGreaterThan(0); // health was called while writes held connections (C4: concurrent, not one after another)
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM public.checkpoints WHERE thread_id = ANY($1)', [ids]);
    expect(Number(rows[0]?.n)).toBe(200);
    expect(pool.totalCount).toBeLessThanOrEqual(20);
    expect(adapter.health().last_write_age_seconds).toBeLessThanOrEqual(1);
  });
});
