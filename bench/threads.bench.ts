import { join } from 'node:path';
import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createFacade, type Facade } from '../core/api/facade';
import type { OperationInput, OperationName, OperationResult } from '../core/contract/operations';
import { unwrapEnvelope, type Envelope } from '../core/contract/wire';
import { defineBench } from './harness';

/**
 * Agent threads: the first pages of `threads.list` and
 * `threads.history` and a `threads.diff`, through the facade's dispatcher,
 * on a SQLite LangGraph database generated here (never committed): 10,000
 * threads, one thread of 10,000 checkpoints, and two checkpoints whose state
 * holds 10,000 list items. Beside them, in the same run, upstream
 * `SqliteSaver.list({ limit: 50 })` on the long thread.
 *
 * Targets: history first page ≤ 2× the raw upstream call; thread list first
 * page < 200 ms; diff < 300 ms. Each figure also has its CPU time
 * (`*_cpu_ms`, this process's user + system), which a loaded machine does
 * not inflate the way it inflates wall time. The data are written in the pinned savers'
 * format (the upstream serializer; the diff checkpoints through `put`).
 */

const THREADS = 10_000;
const LONG = 10_000;
const ITEMS = 10_000;
const PAGE = 50;

interface State {
  readonly facade: Facade;
  readonly raw: SqliteSaver;
  readonly path: string;
  readonly from: string;
  readonly to: string;
}

function checkpoint(id: string, step: number, values: Record<string, unknown>): Checkpoint {
  return {
    v: 4,
    id,
    ts: new Date(Date.UTC(2026, 0, 1) + step * 1000).toISOString(),
    channel_values: values,
    channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, step + 1])),
    versions_seen: { agent: { 'branch:to:agent': step } },
  };
}

async function generate(path: string): Promise<{ from: string; to: string }> {
  const saver = SqliteSaver.fromConnString(path);
  for await (const _t of saver.list({ configurable: { thread_id: 'none' } }, { limit: 1 })) break; // upstream creates its tables on first use
  const insert = saver.db.prepare('INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const rows: [string, string, string | null, string, Uint8Array, Uint8Array][] = [];
  const add = async (thread: string, step: number, parent: string | null, values: Record<string, unknown>): Promise<string> => {
    const id = uuid6(step);
    const [type, cp] = await saver.serde.dumpsTyped(checkpoint(id, step, values));
    const [, meta] = await saver.serde.dumpsTyped({ source: 'loop', step, parents: {} });
    rows.push([thread, id, parent, type, cp, meta]);
    return id;
  };
  for (let t = 0; t < THREADS; t++) {
    const thread = `thread-${String(t).padStart(5, '0')}`;
    const first = await add(thread, 0, null, { messages: [`hello ${t}`] });
    await add(thread, 1, first, { messages: [`hello ${t}`, `answer ${t}`] });
  }
  let parent: string | null = null;
  for (let s = 0; s < LONG; s++) parent = await add('long', s, parent, { messages: [`turn ${s}`], notes: { step: s } });
  saver.db.transaction(() => {
    for (const r of rows) insert.run(r[0], '', r[1], r[2], r[3], r[4], r[5]);
  })();
  // Two checkpoints of 10,000 list items, one item in a hundred different, through upstream put.
  const items = Array.from({ length: ITEMS }, (_, i) => ({ id: i, title: `paper ${i}`, score: i % 7 }));
  const changed = items.map((it) => (it.id % 100 === 0 ? { ...it, score: it.score + 1 } : it));
  const base = { configurable: { thread_id: 'big', checkpoint_ns: '' } };
  const a = await saver.put(base, checkpoint(uuid6(0), 0, { items }), { source: 'loop', step: 0, parents: {} });
  const b = await saver.put(a, checkpoint(uuid6(1), 1, { items: changed }), { source: 'loop', step: 1, parents: {} });
  saver.db.close();
  return { from: a.configurable?.['checkpoint_id'] as string, to: b.configurable?.['checkpoint_id'] as string };
}

async function call<N extends OperationName>(facade: Facade, op: N, request: OperationInput<N>): Promise<OperationResult<N>> {
  return unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

/** CPU milliseconds of this process over the last `timed` call (user + system): what a loaded machine cannot inflate. */
let lastCpuMs = 0;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  lastCpuMs = (c.user + c.system) / 1000;
  return ms;
}

export const benchmarks = [
  defineBench<State>({
    id: 'threads',
    results: {
      'threads.list_first_page_ms': 'ms',
      'threads.history_first_page_ms': 'ms',
      'threads.raw_list_ms': 'ms',
      'threads.diff_ms': 'ms',
      'threads.list_first_page_cpu_ms': 'ms',
      'threads.history_first_page_cpu_ms': 'ms',
      'threads.raw_list_cpu_ms': 'ms',
      'threads.diff_cpu_ms': 'ms',
    },
    ratios: [{ id: 'threads.history_vs_raw', numerator: 'threads.history_first_page_ms', denominator: 'threads.raw_list_ms' }],
    runs: 7,
    async setup({ tmpDir }) {
      const path = join(tmpDir, 'langgraph.sqlite');
      const { from, to } = await generate(path);
      const raw = SqliteSaver.fromConnString(path);
      return { facade: createFacade({ mode: 'library' }), raw, path, from, to };
    },
    async run(state) {
      const source = { kind: 'sqlite' as const, path: state.path };
      const list = await timed(async () => {
        const page = await call(state.facade, 'threads.list', { source, limit: PAGE });
        if (page.rows.length !== PAGE) throw new Error('threads.list returned a short page');
      });
      const listCpu = lastCpuMs;
      // History and raw alternate which goes first, so drift falls on both alike.
      const history = (): Promise<number> =>
        timed(async () => {
          const page = await call(state.facade, 'threads.history', { source, thread_id: 'long', limit: PAGE });
          if (page.rows.length !== PAGE) throw new Error('threads.history returned a short page');
        });
      const raw = (): Promise<number> =>
        timed(async () => {
          let n = 0;
          for await (const _t of state.raw.list({ configurable: { thread_id: 'long' } }, { limit: PAGE })) n++;
          if (n !== PAGE) throw new Error('upstream list returned a short page');
        });
      const h1 = await history();
      const h1Cpu = lastCpuMs;
      const r1 = await raw();
      const r1Cpu = lastCpuMs;
      const r2 = await raw();
      const r2Cpu = lastCpuMs;
      const h2 = await history();
      const h2Cpu = lastCpuMs;
      const diff = await timed(async () => {
        const d = await call(state.facade, 'threads.diff', { source, thread_id: 'big', from: state.from, to: state.to, limit: PAGE });
        if (d.total_changes !== ITEMS / 100) throw new Error(`threads.diff found ${d.total_changes} changes`);
      });
      const diffCpu = lastCpuMs;
      return {
        'threads.list_first_page_ms': list,
        'threads.history_first_page_ms': (h1 + h2) / 2,
        'threads.raw_list_ms': (r1 + r2) / 2,
        'threads.diff_ms': diff,
        'threads.list_first_page_cpu_ms': listCpu,
        'threads.history_first_page_cpu_ms': (h1Cpu + h2Cpu) / 2,
        'threads.raw_list_cpu_ms': (r1Cpu + r2Cpu) / 2,
        'threads.diff_cpu_ms': diffCpu,
      };
    },
    async teardown(state) {
      await state.facade.close();
      state.raw.db.close();
    },
  }),
];
