import { join } from 'node:path';
import pg from 'pg';
import type { BaseCheckpointSaver, Checkpoint } from '@langchain/langgraph-checkpoint';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { RunnableConfig } from '@langchain/core/runnables';
import { PostgresCheckpointerAdapter, SqliteCheckpointerAdapter } from '../core/langgraph';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { defineBench, perSecond } from './harness';
import type { BenchSize } from './harness';

/**
 * LangGraph checkpointers: checkpoint puts per second through the adapters'
 * `saver()` beside the bare upstream savers of the pinned versions, in the
 * same run, interleaved slice by slice (alternating which side goes first),
 * so the machine's drift falls on both alike. The adapter must cost nothing
 * measurable: target ≥ 0.95 of bare upstream in each pair.
 *
 * Postgres: one server, one pool (max 20) shared by both sides, 1 and 20
 * concurrent threads (one sequential writer each). SQLite: one writer, each
 * side on its own database file in the run's temporary directory.
 */

const PUTS: Readonly<Record<BenchSize, { readonly pg1: number; readonly pg20: number; readonly sqlite: number }>> = {
  tiny: { pg1: 20, pg20: 2, sqlite: 30 },
  small: { pg1: 300, pg20: 30, sqlite: 600 },
  large: { pg1: 2_000, pg20: 200, sqlite: 5_000 },
};
const SLICES = 10;

interface Side {
  readonly saver: BaseCheckpointSaver;
}

interface State {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
  readonly pgAdapter: Side;
  readonly pgRaw: Side;
  readonly sqliteAdapter: SqliteCheckpointerAdapter;
  readonly sqliteAdapterSide: Side;
  readonly sqliteRaw: SqliteSaver;
  readonly size: BenchSize;
  run: number;
}

interface Put {
  readonly checkpoint: Checkpoint;
  readonly step: number;
}

/** `n` checkpoints of one thread, built outside the timed loop. */
function puts(n: number): Put[] {
  return Array.from({ length: n }, (_, step) => ({
    step,
    checkpoint: {
      v: 4,
      id: uuid6(step),
      ts: new Date(Date.UTC(2026, 0, 1, 0, 0, step)).toISOString(),
      channel_values: { messages: [`turn ${step}`], notes: { step, text: 'bench checkpoint' } },
      channel_versions: { messages: step + 1, notes: step + 1 },
      versions_seen: {},
    },
  }));
}

interface Thread {
  config: RunnableConfig;
  readonly puts: readonly Put[];
}

function threads(prefix: string, count: number, per: number): Thread[] {
  return Array.from({ length: count }, (_, t) => ({ config: { configurable: { thread_id: `${prefix}-${t}`, checkpoint_ns: '' } }, puts: puts(per) }));
}

async function slice(side: Side, ths: readonly Thread[], from: number, to: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    ths.map(async (th) => {
      for (const p of th.puts.slice(from, to)) {
        th.config = await side.saver.put(th.config, p.checkpoint, { source: 'loop', step: p.step, parents: {} }, { messages: p.step + 1, notes: p.step + 1 });
      }
    }),
  );
  return performance.now() - t0;
}

/** Interleaved adapter/raw slices; returns puts per second of each side. */
async function measure(state: State, adapter: Side, raw: Side, label: string, count: number, per: number): Promise<{ adapter: number; raw: number }> {
  state.run += 1;
  const a = threads(`bench-${label}-a-${state.run}`, count, per);
  const r = threads(`bench-${label}-r-${state.run}`, count, per);
  const slices = Math.min(SLICES, per);
  const bounds = (k: number): readonly [number, number] => [Math.floor((k * per) / slices), Math.floor(((k + 1) * per) / slices)];
  let adapterMs = 0;
  let rawMs = 0;
  for (let k = 0; k < slices; k++) {
    const [from, to] = bounds(k);
    if ((k + state.run) % 2 === 0) {
      adapterMs += await slice(adapter, a, from, to);
      rawMs += await slice(raw, r, from, to);
    } else {
      rawMs += await slice(raw, r, from, to);
      adapterMs += await slice(adapter, a, from, to);
    }
  }
  return { adapter: perSecond(count * per, adapterMs), raw: perSecond(count * per, rawMs) };
}

export const benchmarks = [
  defineBench<State>({
    id: 'langgraph',
    results: {
      'langgraph.pg.puts_per_s.1': 'puts/s',
      'langgraph.pg.raw_puts_per_s.1': 'puts/s',
      'langgraph.pg.puts_per_s.20': 'puts/s',
      'langgraph.pg.raw_puts_per_s.20': 'puts/s',
      'langgraph.sqlite.puts_per_s': 'puts/s',
      'langgraph.sqlite.raw_puts_per_s': 'puts/s',
    },
    ratios: [
      { id: 'langgraph.pg.adapter_vs_raw.1', numerator: 'langgraph.pg.puts_per_s.1', denominator: 'langgraph.pg.raw_puts_per_s.1' },
      { id: 'langgraph.pg.adapter_vs_raw.20', numerator: 'langgraph.pg.puts_per_s.20', denominator: 'langgraph.pg.raw_puts_per_s.20' },
      { id: 'langgraph.sqlite.adapter_vs_raw', numerator: 'langgraph.sqlite.puts_per_s', denominator: 'langgraph.sqlite.raw_puts_per_s' },
    ],
    runs: 5,
    async setup({ size, tmpDir }) {
      const server = await startPostgres();
      const pool = new pg.Pool({ connectionString: server.url, max: 20, connectionTimeoutMillis: 30_000 });
      pool.on('error', () => undefined);
      const pgAdapter = { saver: await new PostgresCheckpointerAdapter({ pool }).saver() };
      const bare = new PostgresSaver(pool);
      await bare.setup();
      // Open all 20 connections before measuring, for both sides alike.
      const clients = await Promise.all(Array.from({ length: 20 }, () => pool.connect()));
      for (const c of clients) c.release();
      const sqliteAdapter = new SqliteCheckpointerAdapter({ path: join(tmpDir, 'adapter.sqlite') });
      const sqliteAdapterSide = { saver: await sqliteAdapter.saver() };
      const sqliteRaw = SqliteSaver.fromConnString(join(tmpDir, 'raw.sqlite'));
      return { server, pool, pgAdapter, pgRaw: { saver: bare }, sqliteAdapter, sqliteAdapterSide, sqliteRaw, size, run: 0 };
    },
    async run(state) {
      const n = PUTS[state.size];
      const one = await measure(state, state.pgAdapter, state.pgRaw, 'pg1', 1, n.pg1);
      const twenty = await measure(state, state.pgAdapter, state.pgRaw, 'pg20', 20, n.pg20);
      const sqlite = await measure(state, state.sqliteAdapterSide, { saver: state.sqliteRaw }, 'sqlite', 1, n.sqlite);
      return {
        'langgraph.pg.puts_per_s.1': one.adapter,
        'langgraph.pg.raw_puts_per_s.1': one.raw,
        'langgraph.pg.puts_per_s.20': twenty.adapter,
        'langgraph.pg.raw_puts_per_s.20': twenty.raw,
        'langgraph.sqlite.puts_per_s': sqlite.adapter,
        'langgraph.sqlite.raw_puts_per_s': sqlite.raw,
      };
    },
    async teardown(state) {
      await state.sqliteAdapter.close();
      state.sqliteRaw.db.close();
      await state.pool.end();
      await state.server.stop();
    },
  }),
];
