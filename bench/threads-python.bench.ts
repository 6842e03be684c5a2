import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createFacade, type Facade } from '../core/api/facade';
import type { OperationInput, OperationName, OperationResult } from '../core/contract/operations';
import { unwrapEnvelope, type Envelope } from '../core/contract/wire';
import { replaceMapMembers } from '../core/langgraph/msgpack-carry';
import { decodePythonMsgpack } from '../core/langgraph/python-serde';
import { toThreadJson } from '../core/langgraph/thread-json';
import { defineBench } from './harness';

/**
 * Agent threads on a database Python LangGraph wrote, beside the same on one
 * LangGraph.js wrote: the first pages of `threads.list` and `threads.history`
 * through the facade, on two SQLite files generated here (never committed),
 * each 10,000 threads × 20 checkpoints. The Python file holds, in every
 * checkpoint, the stored msgpack document of the fixture (Python's own
 * SqliteSaver output: messages, a Pydantic model, a dataclass, an Enum,
 * Decimal, date, timedelta, UUID, bytes, a set) with its id and ts set; the
 * JS file holds the same values as the JS savers write them (`json`).
 * Target: each Python figure within 2× of its JS twin (the ratios).
 */

const THREADS = 10_000;
const PER = 20;
const PAGE = 50;
/** Calls per figure and run (their median is the run's figure). */
const SAMPLES = 21;
const FIXTURE = fileURLToPath(new URL('../test/fixtures/python-langgraph/python-sqlitesaver.sqlite', import.meta.url));

interface State {
  readonly facade: Facade;
  readonly python: string;
  readonly js: string;
}

/** The fixture's checkpoint after `plan` ran in fix-1: every value type the graph writes. */
function fixtureDocument(): { doc: Buffer; interrupt: Buffer } {
  const db = new Database(FIXTURE, { readonly: true });
  try {
    const row = db.prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'fix-1' AND checkpoint_ns = '' ORDER BY checkpoint_id LIMIT 1 OFFSET 1").get() as { checkpoint: Buffer };
    const w = db.prepare("SELECT value FROM writes WHERE thread_id = 'fix-2' AND channel = '__interrupt__' LIMIT 1").get() as { value: Buffer };
    return { doc: row.checkpoint, interrupt: w.value };
  } finally {
    db.close();
  }
}

const ts = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

function generatePython(path: string): void {
  const { doc, interrupt } = fixtureDocument();
  copyFileSync(FIXTURE, path);
  const db = new Database(path);
  db.exec('DELETE FROM checkpoints; DELETE FROM writes;');
  const put = db.prepare("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, 'msgpack', ?, ?)");
  const write = db.prepare("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, '', ?, 'task-1', 0, '__interrupt__', 'msgpack', ?)");
  db.transaction(() => {
    for (let t = 0; t < THREADS; t++) {
      const thread = `thread-${String(t).padStart(5, '0')}`;
      let parent: string | null = null;
      for (let s = 0; s < PER; s++) {
        const id = uuid6(s);
        put.run(thread, id, parent, Buffer.from(replaceMapMembers(doc, { id, ts: ts(t * PER + s) })), JSON.stringify({ source: 'loop', step: s, parents: {} }));
        parent = id;
      }
      if (t % 10 === 0 && parent !== null) write.run(thread, parent, interrupt);
    }
  })();
  db.close();
}

async function generateJs(path: string): Promise<void> {
  const { doc } = fixtureDocument();
  // The same values, as plain JSON (what a LangGraph.js graph with these channels would hold).
  const values = toThreadJson((decodePythonMsgpack(doc) as { channel_values: unknown }).channel_values) as Record<string, unknown>;
  const saver = SqliteSaver.fromConnString(path);
  for await (const _t of saver.list({ configurable: { thread_id: 'none' } }, { limit: 1 })) break; // upstream creates its tables on first use
  const put = saver.db.prepare("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, ?, ?, ?)");
  const write = saver.db.prepare("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, '', ?, 'task-1', 0, '__interrupt__', ?, ?)");
  const [itype, ivalue] = await saver.serde.dumpsTyped([{ value: { question: 'apply the fix?', findings: 2 }, id: 'i-1' }]);
  const rows: [string, string, string | null, string, Uint8Array, Uint8Array][] = [];
  const heads: [string, string][] = [];
  for (let t = 0; t < THREADS; t++) {
    const thread = `thread-${String(t).padStart(5, '0')}`;
    let parent: string | null = null;
    for (let s = 0; s < PER; s++) {
      const id = uuid6(s);
      const [type, cp] = await saver.serde.dumpsTyped({ v: 4, id, ts: ts(t * PER + s), channel_values: values, channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, s + 1])), versions_seen: { plan: { 'branch:to:plan': s } } });
      const [, meta] = await saver.serde.dumpsTyped({ source: 'loop', step: s, parents: {} });
      rows.push([thread, id, parent, type, cp, meta]);
      parent = id;
    }
    if (t % 10 === 0 && parent !== null) heads.push([thread, parent]);
  }
  saver.db.transaction(() => {
    for (const r of rows) put.run(...r);
    for (const [thread, id] of heads) write.run(thread, id, itype, ivalue);
  })();
  saver.db.close();
}

async function call<N extends OperationName>(facade: Facade, op: N, request: OperationInput<N>): Promise<OperationResult<N>> {
  return unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

/** Wall and CPU milliseconds (this process's user + system: what a loaded machine does not inflate) of one call. */
async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

type Pages = { list: { wall: number; cpu: number }; history: { wall: number; cpu: number } };

async function firstPages(facade: Facade, path: string): Promise<Pages> {
  const source = { kind: 'sqlite' as const, path };
  const list = await timed(async () => {
    const page = await call(facade, 'threads.list', { source, limit: PAGE });
    if (page.rows.length !== PAGE || page.rows[0]?.checkpoint_count !== PER || page.rows[0]?.interrupted !== true) throw new Error('threads.list returned a wrong page');
  });
  const history = await timed(async () => {
    const page = await call(facade, 'threads.history', { source, thread_id: 'thread-04321', limit: PAGE });
    if (page.rows.length !== PER) throw new Error('threads.history returned a wrong page');
  });
  return { list, history };
}

export const benchmarks = [
  defineBench<State>({
    id: 'threads-python',
    results: {
      'threads.python_list_first_page_ms': 'ms',
      'threads.python_history_first_page_ms': 'ms',
      'threads.js20_list_first_page_ms': 'ms',
      'threads.js20_history_first_page_ms': 'ms',
      'threads.python_list_first_page_cpu_ms': 'ms',
      'threads.python_history_first_page_cpu_ms': 'ms',
      'threads.js20_list_first_page_cpu_ms': 'ms',
      'threads.js20_history_first_page_cpu_ms': 'ms',
    },
    ratios: [
      { id: 'threads.python_vs_js_list', numerator: 'threads.python_list_first_page_ms', denominator: 'threads.js20_list_first_page_ms' },
      { id: 'threads.python_vs_js_history', numerator: 'threads.python_history_first_page_ms', denominator: 'threads.js20_history_first_page_ms' },
      { id: 'threads.python_vs_js_list_cpu', numerator: 'threads.python_list_first_page_cpu_ms', denominator: 'threads.js20_list_first_page_cpu_ms' },
      { id: 'threads.python_vs_js_history_cpu', numerator: 'threads.python_history_first_page_cpu_ms', denominator: 'threads.js20_history_first_page_cpu_ms' },
    ],
    runs: 5,
    async setup({ tmpDir }) {
      const python = join(tmpDir, 'python.sqlite');
      const js = join(tmpDir, 'js.sqlite');
      generatePython(python);
      await generateJs(js);
      const facade = createFacade({ mode: 'library' });
      // Both files opened once (the reader's snapshot), so the runs measure the pages, not the first open.
      await firstPages(facade, python);
      await firstPages(facade, js);
      return { facade, python, js };
    },
    async run(state) {
      // Python and JS alternate which goes first, so drift falls on both alike. Each figure is the median of
      // SAMPLES calls: one call of about a millisecond is mostly the collector's timing (a single sample after
      // the list call gave 2.3x for history while the calls alone were equal).
      const samples: Pages[][] = [[], []];
      for (let k = 0; k < SAMPLES; k++) {
        const order = k % 2 === 0 ? [0, 1] : [1, 0];
        for (const side of order) samples[side]!.push(await firstPages(state.facade, side === 0 ? state.python : state.js));
      }
      const median = (side: number, k: 'list' | 'history', m: 'wall' | 'cpu') => {
        const v = samples[side]!.map((p) => p[k][m]).sort((a, b) => a - b);
        return v[Math.floor(v.length / 2)] as number;
      };
      return {
        'threads.python_list_first_page_ms': median(0, 'list', 'wall'),
        'threads.python_history_first_page_ms': median(0, 'history', 'wall'),
        'threads.js20_list_first_page_ms': median(1, 'list', 'wall'),
        'threads.js20_history_first_page_ms': median(1, 'history', 'wall'),
        'threads.python_list_first_page_cpu_ms': median(0, 'list', 'cpu'),
        'threads.python_history_first_page_cpu_ms': median(0, 'history', 'cpu'),
        'threads.js20_list_first_page_cpu_ms': median(1, 'list', 'cpu'),
        'threads.js20_history_first_page_cpu_ms': median(1, 'history', 'cpu'),
      };
    },
    async teardown(state) {
      await state.facade.close();
    },
  }),
];
