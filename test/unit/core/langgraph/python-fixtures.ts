// The databases Python LangGraph's own savers wrote (test/fixtures/python-langgraph, see its README), what Python
// LangGraph read back from them (`*.expected.json`), and the acceptance checks shared by the SQLite and Postgres files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type pg from 'pg';
import type { OperationInput, OperationName, OperationResult } from '../../../../core/contract/operations';
import type { ThreadJson } from '../../../../core/contract/threads';

export const PY_FIXTURES = join(__dirname, '../../../fixtures/python-langgraph');
export const PY_SQLITE = join(PY_FIXTURES, 'python-sqlitesaver.sqlite');

/** One checkpoint as `expect.py` wrote it: Python's `get_state_history`, newest first. */
export interface ExpectedCheckpoint {
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly source: string;
  readonly step: number;
  readonly next: readonly string[];
  readonly interrupts: readonly unknown[];
  readonly values: Readonly<Record<string, unknown>>;
}

export type Expected = Readonly<Record<string, readonly ExpectedCheckpoint[]>>;

export function expectedOf(kind: 'sqlite' | 'postgres'): Expected {
  return JSON.parse(readFileSync(join(PY_FIXTURES, kind === 'sqlite' ? 'python-sqlitesaver.expected.json' : 'python-postgressaver.expected.json'), 'utf8')) as Expected;
}

/** Replays `python-postgressaver.sql` (upstream's migrations, then every row) one statement at a time (it has CREATE INDEX CONCURRENTLY). */
export async function replayPostgres(client: pg.Client): Promise<void> {
  const sql = readFileSync(join(PY_FIXTURES, 'python-postgressaver.sql'), 'utf8');
  for (const statement of sql.split(/;\n/)) {
    const s = statement.replace(/^--.*$/gm, '').trim();
    if (s !== '') await client.query(s);
  }
}

type J = ThreadJson;
const isObj = (v: unknown): v is Record<string, J> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Our documented JSON form (PythonValueJson) in `expect.py`'s neutral form, as its `plain()` projects Python
 * objects: a LangChain message to its type, content and id; a Pydantic model or dataclass to its fields;
 * an Enum, UUID or Decimal to its value; a set to its sorted items; a timedelta to its total seconds.
 */
export function toExpectForm(v: J): unknown {
  if (Array.isArray(v)) return v.map(toExpectForm);
  if (!isObj(v)) return v;
  const t = v['python_type'];
  if (typeof t !== 'string') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toExpectForm(x)]));
  const fields = v['fields'];
  if (isObj(fields) && typeof v['python_module'] === 'string' && v['python_module'].startsWith('langchain_core.messages')) {
    return { python_type: t, type: fields['type'], content: fields['content'], id: fields['id'] };
  }
  if (isObj(fields)) return { python_type: t, ...Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, toExpectForm(x)])) };
  switch (t) {
    case 'bytes':
      return { python_type: t, base64: v['base64'] };
    case 'timedelta':
      return { python_type: t, seconds: v['total_seconds'] };
    case 'date':
    case 'datetime':
      return { python_type: t, iso: v['iso'] };
    case 'set':
    case 'frozenset':
      return { python_type: t, items: [...((v['items'] as J[]) ?? [])].map(toExpectForm).sort() };
    default:
      return { python_type: t, value: toExpectForm(v['value'] ?? null) };
  }
}

type Call = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/**
 * list, history (ids in Python's order), state (values equal expected.json value by value) and interrupts for
 * every thread and checkpoint of a Python-written database; returns how many values were compared.
 */
export async function assertMatchesPython(call: Call, source: OperationInput<'threads.list'>['source'], expected: Expected): Promise<number> {
  const list = await call('threads.list', { source });
  expect(list.rows.map((r) => r.thread_id)).toEqual(Object.keys(expected).sort());
  for (const row of list.rows) {
    const want = expected[row.thread_id] ?? [];
    expect(row.checkpoint_count).toBe(want.length);
    expect(row.latest_checkpoint_id).toBe(want[0]?.checkpoint_id);
    expect(row.latest_step).toBe(want[0]?.step);
    expect(row.latest_source).toBe(want[0]?.source);
    expect(row.interrupted).toBe((want[0]?.interrupts.length ?? 0) > 0);
  }
  let compared = 0;
  for (const [threadId, want] of Object.entries(expected)) {
    const history = await call('threads.history', { source, thread_id: threadId });
    expect(history.rows.map((r) => [r.checkpoint_id, r.parent_checkpoint_id, r.source, r.step, r.next])).toEqual(want.map((w) => [w.checkpoint_id, w.parent_checkpoint_id, w.source, w.step, w.next]));
    for (const w of want) {
      const state = await call('threads.state', { source, thread_id: threadId, checkpoint_id: w.checkpoint_id });
      const got = Object.fromEntries(state.values.map((c) => [c.channel, toExpectForm(c.value)]));
      for (const [channel, value] of Object.entries(w.values)) {
        if (channel in got) {
          expect({ threadId, checkpoint: w.checkpoint_id, channel, value: got[channel] }).toEqual({ threadId, checkpoint: w.checkpoint_id, channel, value });
        } else {
          // Not stored in the checkpoint: Python gives a reducer channel's empty default (`operator.add`, `add_messages`)
          // from the graph's definition, which the database does not hold. Nothing else may be missing.
          expect({ threadId, checkpoint: w.checkpoint_id, channel, value }).toEqual({ threadId, checkpoint: w.checkpoint_id, channel, value: [] });
        }
        compared += 1;
      }
      expect(Object.keys(got).filter((c) => !(c in w.values))).toEqual([]);
      expect(state.interrupts.map((i) => i.value)).toEqual(w.interrupts);
      expect(state.is_head).toBe(w === want[0]);
    }
  }
  return compared;
}

/**
 * fix-3 was forked with `update_state` at its checkpoint after `plan` (step 0): that checkpoint has two children,
 * the head (the update) is on branch 0 with it, and the run that went on (scan, then the gate) is branch 1.
 */
export async function assertFix3Tree(call: Call, source: OperationInput<'threads.list'>['source'], expected: Expected): Promise<void> {
  const { threadTree } = await import('../../../../core/contract/thread-tree');
  const e = expected['fix-3'] ?? [];
  const rows = (await call('threads.history', { source, thread_id: 'fix-3' })).rows;
  const tree = threadTree(rows);
  const [update, gate, scanned, planned, input] = e.map((w) => w.checkpoint_id);
  expect(tree.map((n) => [n.checkpoint_id, n.branch, n.is_head, n.children])).toEqual([
    [update, 0, true, 0],
    [gate, 1, false, 0],
    [scanned, 1, false, 1],
    [planned, 0, false, 2],
    [input, 0, false, 1],
  ]);
  expect(rows[0]?.source).toBe('update');
}

/** The subgraph fanned out with `Send`: two `scan` namespaces per thread, each its own timeline, labelled, under the parent's checkpoint that sent them. */
export async function assertNamespaces(call: Call, source: OperationInput<'threads.list'>['source'], expected: Expected): Promise<void> {
  const e = expected['fix-1'] ?? [];
  const sent = e.find((w) => w.next.join(',') === 'scan,scan')?.checkpoint_id;
  const ns = await call('threads.namespaces', { source, thread_id: 'fix-1' });
  expect(ns.rows.map((r) => [r.node, r.parent_ns, r.checkpoint_count, r.parent_checkpoint_id])).toEqual([
    ['scan', '', 3, sent],
    ['scan', '', 3, sent],
  ]);
  expect(ns.rows.every((r) => r.checkpoint_ns === `scan:${r.task_id}`)).toBe(true);
  const cves: unknown[] = [];
  for (const r of ns.rows) {
    const history = await call('threads.history', { source, thread_id: 'fix-1', checkpoint_ns: r.checkpoint_ns });
    expect(history.rows.map((h) => [h.step, h.source, h.next])).toEqual([
      [1, 'loop', []],
      [0, 'loop', ['scan_one']],
      [-1, 'input', ['__start__']],
    ]);
    expect(history.rows[0]?.checkpoint_id).toBe(r.latest_checkpoint_id);
    const state = await call('threads.state', { source, thread_id: 'fix-1', checkpoint_ns: r.checkpoint_ns });
    const values = Object.fromEntries(state.values.map((v) => [v.channel, v.value]));
    cves.push(values['cve']);
    expect(toExpectForm(values['findings'] ?? null)).toEqual([{ python_type: 'Finding', cve: values['cve'], severity: 7.5, fixed: false }]);
  }
  expect(cves.sort()).toEqual(['CVE-2026-0001', 'CVE-2026-0002']);
  // Not mixed into the parent's timeline: the root history is exactly Python's.
  expect((await call('threads.history', { source, thread_id: 'fix-1' })).rows.map((r) => r.checkpoint_id)).toEqual(e.map((w) => w.checkpoint_id));
}
