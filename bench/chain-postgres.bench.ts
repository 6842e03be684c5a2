import pg from 'pg';
import type { TransitionEvent } from '../core/chain/event';
import { GENESIS, nextHead, type ChainHead } from '../core/chain/head';
import { PostgresChainStore } from '../core/chain/postgres/postgres-store';
import { prepareAppend } from '../core/chain/store-support';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { benchEvents } from './chain-events';
import { defineBench, perSecond } from './harness';
import type { BenchSize } from './harness';

/**
 * Postgres chain store: appends per second through the adapter beside bare
 * autocommit INSERTs of the same row bytes, on the same server and the same
 * pool, for 1 and for 20 concurrent workflows (one sequential writer each).
 *
 * The server keeps its data on disk with its durable defaults (fsync and
 * synchronous_commit on), so both sides pay real commit flushes. The bare
 * table has the same columns and constraints as the chain table.
 */

const APPENDS_PER_WORKFLOW: Readonly<Record<BenchSize, Readonly<Record<1 | 20, number>>>> = {
  tiny: { 1: 20, 20: 2 },
  small: { 1: 300, 20: 30 },
  large: { 1: 2_000, 20: 200 },
};
const SCHEMA = 'gf_chain_bench';
/** Alternating slices per measured run (see `measure`). */
const SLICES = 10;

interface RawRow {
  readonly workflow_id: string;
  readonly sequence: number;
  readonly transition_id: string;
  readonly prior_head: ChainHead;
  readonly next_head: ChainHead;
  readonly event_bytes: Buffer;
  readonly written_at: string;
}

interface State {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
  readonly store: PostgresChainStore;
  readonly size: BenchSize;
  run: number;
}

/** The rows the adapter would persist for `evs` (computed outside the timed loop). */
function rowsOf(evs: readonly TransitionEvent[]): RawRow[] {
  let prior: ChainHead = GENESIS;
  return evs.map((e, i) => {
    const p = prepareAppend(e);
    const next = nextHead(prior, p.bytes);
    const row: RawRow = {
      workflow_id: e.workflow_id,
      sequence: i + 1,
      transition_id: e.transition_id,
      prior_head: prior,
      next_head: next,
      event_bytes: Buffer.from(p.bytes),
      written_at: '2026-01-01T00:00:00.000000Z',
    };
    prior = next;
    return row;
  });
}

const RAW_INSERT = `INSERT INTO ${SCHEMA}.raw_chain (workflow_id, sequence, transition_id, prior_head, next_head, event_bytes, written_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`;

async function measure(state: State, workflows: 1 | 20): Promise<{ adapter: number; raw: number }> {
  const per = APPENDS_PER_WORKFLOW[state.size][workflows];
  state.run += 1;
  const ids = Array.from({ length: workflows }, (_, w) => `bench-${state.run}-${workflows}-${w}`);
  const adapterEvents = ids.map((id) => benchEvents(id, per));
  const rawRows = ids.map((id) => rowsOf(benchEvents(`raw-${id}`, per)));

  // Interleaved in slices, alternating which side goes first, so that the machine's drift
  // (other processes, the server's checkpoints) falls on both sides alike.
  const slices = Math.min(SLICES, per);
  const bounds = (k: number): readonly [number, number] => [Math.floor((k * per) / slices), Math.floor(((k + 1) * per) / slices)];
  const adapterSlice = async (k: number): Promise<number> => {
    const [from, to] = bounds(k);
    const t0 = performance.now();
    await Promise.all(
      adapterEvents.map(async (evs) => {
        for (const e of evs.slice(from, to)) await state.store.append(e);
      }),
    );
    return performance.now() - t0;
  };
  const rawSlice = async (k: number): Promise<number> => {
    const [from, to] = bounds(k);
    const t0 = performance.now();
    await Promise.all(
      rawRows.map(async (rows) => {
        for (const r of rows.slice(from, to)) await state.pool.query(RAW_INSERT, [r.workflow_id, r.sequence, r.transition_id, r.prior_head, r.next_head, r.event_bytes, r.written_at]);
      }),
    );
    return performance.now() - t0;
  };
  let adapterMs = 0;
  let rawMs = 0;
  for (let k = 0; k < slices; k++) {
    if ((k + state.run) % 2 === 0) {
      adapterMs += await adapterSlice(k);
      rawMs += await rawSlice(k);
    } else {
      rawMs += await rawSlice(k);
      adapterMs += await adapterSlice(k);
    }
  }
  return { adapter: perSecond(workflows * per, adapterMs), raw: perSecond(workflows * per, rawMs) };
}

export const benchmarks = [
  defineBench<State>({
    id: 'chain.pg',
    results: {
      'chain.pg.appends_per_s.1': 'appends/s',
      'chain.pg.raw_appends_per_s.1': 'appends/s',
      'chain.pg.appends_per_s.20': 'appends/s',
      'chain.pg.raw_appends_per_s.20': 'appends/s',
    },
    ratios: [
      { id: 'chain.pg.adapter_vs_raw.1', numerator: 'chain.pg.appends_per_s.1', denominator: 'chain.pg.raw_appends_per_s.1' },
      { id: 'chain.pg.adapter_vs_raw.20', numerator: 'chain.pg.appends_per_s.20', denominator: 'chain.pg.raw_appends_per_s.20' },
    ],
    runs: 5,
    async setup({ size }) {
      const server = await startPostgres({ storage: 'disk' });
      const pool = new pg.Pool({ connectionString: server.url, max: 20, connectionTimeoutMillis: 30_000 });
      // The caller owns the pool: an idle connection dropped by the server must not crash the run.
      pool.on('error', () => undefined);
      const store = new PostgresChainStore({ pool, schema: SCHEMA });
      await store.setup();
      await pool.query(`CREATE TABLE ${SCHEMA}.raw_chain (LIKE ${SCHEMA}.checkpoint_chain INCLUDING ALL)`);
      // Open all 20 connections before measuring, for both sides alike.
      const clients = await Promise.all(Array.from({ length: 20 }, () => pool.connect()));
      for (const c of clients) c.release();
      return { server, pool, store, size, run: 0 };
    },
    async run(state) {
      const one = await measure(state, 1);
      const twenty = await measure(state, 20);
      return {
        'chain.pg.appends_per_s.1': one.adapter,
        'chain.pg.raw_appends_per_s.1': one.raw,
        'chain.pg.appends_per_s.20': twenty.adapter,
        'chain.pg.raw_appends_per_s.20': twenty.raw,
      };
    },
    async teardown(state) {
      await state.store.close();
      await state.pool.end();
      await state.server.stop();
    },
  }),
];
