// Issue 17 acceptance, shared by the SQLite and the Postgres test files: the
// threads.* operations against a real compiled LangGraph graph.
import { expect, it } from 'vitest';
import { Command } from '@langchain/langgraph';
import { uuid6, type BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { OperationInput, OperationName, OperationResult } from '../../../../core/contract/operations';
import type { ThreadHistoryRow } from '../../../../core/contract/threads';
import { unwrapEnvelope, type Envelope } from '../../../../core/contract/wire';
import { diffChannels } from '../../../../core/langgraph/thread-json';
import { stateValues } from '../../../../core/langgraph/thread-reader';
import { buildResumeGraph, RESUME_ANSWER, RESUME_INPUT, threadConfig } from './resume-graph';

/** One backend under test: a main database and a copy made after the graph ran. */
export interface ThreadsBackend {
  /** The request's `source`. */
  readonly source: OperationInput<'threads.list'>['source'];
  /** The facade's Postgres URL (Postgres only). */
  readonly postgresUrl?: string;
  /** An upstream saver on the main database (the test's own LangGraph process). */
  mainSaver(): Promise<BaseCheckpointSaver>;
  /** Closes every connection `mainSaver` opened. */
  closeMain(): Promise<void>;
  /** Copies the main database (all connections closed) for LangGraph's own time travel. */
  copy(): Promise<void>;
  /** An upstream saver on the copy. */
  copySaver(): Promise<BaseCheckpointSaver>;
  close(): Promise<void>;
}

/** Dispatches through the facade's dispatcher and unwraps (typed errors thrown). */
export function caller(facade: Facade) {
  return async <N extends OperationName>(op: N, request: OperationInput<N>): Promise<OperationResult<N>> =>
    unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

/** The error code an operation fails with (null when it succeeds). */
export async function codeOf(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null)) as unknown;

/** Registers the faithfulness tests (history, state, diff, restore, resume) on `backend()`. */
export function threadsFaithfulness(backend: () => ThreadsBackend): void {
  it('history, state, diff and restore agree with LangGraph itself, and resuming after a restore equals LangGraph time travel', { timeout: 120_000 }, async () => {
    const b = backend();
    // A real compiled graph writes the threads: `a` waits at the interrupt, `b` ran to the end.
    const main = buildResumeGraph(await b.mainSaver());
    await main.invoke(RESUME_INPUT, threadConfig('a'));
    await main.invoke(RESUME_INPUT, threadConfig('b'));
    await main.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig('b'));
    await b.closeMain();
    await b.copy();

    const facade = createFacade({ mode: 'library', ...(b.postgresUrl === undefined ? {} : { langgraphPostgresUrl: b.postgresUrl }) });
    const call = caller(facade);
    const graph = buildResumeGraph(await b.mainSaver());
    try {
      // threads.list
      const list = await call('threads.list', { source: b.source, limit: 1 });
      expect(list.rows.map((r) => r.thread_id)).toEqual(['a']);
      const rest = await call('threads.list', { source: b.source, limit: 1, after: list.next_page_token });
      expect(rest.rows.map((r) => r.thread_id)).toEqual(['b']);
      expect(rest.next_page_token).toBeNull();
      expect(list.rows[0]?.interrupted).toBe(true);
      expect(rest.rows[0]?.interrupted).toBe(false);
      const snapshotsB = [];
      for await (const s of graph.getStateHistory(threadConfig('b'))) snapshotsB.push(s);
      expect(rest.rows[0]?.checkpoint_count).toBe(snapshotsB.length);
      expect(rest.rows[0]?.latest_checkpoint_id).toBe(snapshotsB[0]?.config.configurable?.['checkpoint_id']);
      expect((await call('threads.list', { source: b.source, prefix: 'b' })).rows.map((r) => r.thread_id)).toEqual(['b']);

      // threads.history == getStateHistory (ids, parents, order, next), paged by 2.
      const history = async (thread: string): Promise<ThreadHistoryRow[]> => {
        const rows: ThreadHistoryRow[] = [];
        let after: string | null = null;
        do {
          const page: OperationResult<'threads.history'> = await call('threads.history', { source: b.source, thread_id: thread, limit: 2, after });
          rows.push(...page.rows);
          after = page.next_page_token;
        } while (after !== null);
        return rows;
      };
      const rowsB = await history('b');
      expect(rowsB.map((r) => r.checkpoint_id)).toEqual(snapshotsB.map((s) => s.config.configurable?.['checkpoint_id']));
      expect(rowsB.map((r) => r.parent_checkpoint_id)).toEqual(snapshotsB.map((s) => s.parentConfig?.configurable?.['checkpoint_id'] ?? null));
      expect(rowsB.map((r) => r.next)).toEqual(snapshotsB.map((s) => [...s.next]));
      expect(rowsB.map((r) => r.step)).toEqual(snapshotsB.map((s) => s.metadata?.step));
      // The plan node's writes produced the checkpoint that waits for review.
      const atReview = rowsB.find((r) => r.next.join() === 'review');
      expect(atReview?.writes).toEqual(['plan']);

      // threads.state == getState / getStateHistory: values, next, metadata, interrupts.
      for (const s of snapshotsB) {
        const id = s.config.configurable?.['checkpoint_id'] as string;
        const st = await call('threads.state', { source: b.source, thread_id: 'b', checkpoint_id: id });
        // Every channel the checkpoint holds equals LangGraph's value; a channel never written (no version) may be
        // absent: its default lives in the graph's code, not in the database (PostgresSaver stores no blob for it).
        const ours = Object.fromEntries(st.values.map((v) => [v.channel, v.value]));
        const theirs = plain(s.values) as Record<string, unknown>;
        const written = Object.fromEntries(Object.entries(theirs).filter(([k]) => k in st.channel_versions || k in ours));
        expect(ours).toEqual(written);
        expect(Object.keys(theirs).filter((k) => !(k in written) && k in st.channel_versions)).toEqual([]);
        expect(st.next).toEqual([...s.next]);
        // LangGraph's snapshot adds the config's thread_id to the stored metadata; everything stored is shown as stored.
        expect({ thread_id: 'b', ...(st.metadata as object) }).toEqual(plain(s.metadata));
        expect(st.interrupts).toEqual(plain(s.tasks.flatMap((t) => t.interrupts)));
      }
      const stateA = await call('threads.state', { source: b.source, thread_id: 'a' });
      const snapA = await graph.getState(threadConfig('a'));
      expect(stateA.is_head).toBe(true);
      expect(stateA.interrupts).toEqual(plain(snapA.tasks.flatMap((t) => t.interrupts)));
      expect(stateA.interrupts.length).toBe(1);
      expect(stateA.values.find((v) => v.channel === 'steps')).toMatchObject({ type: 'array', value: ['plan'] });

      // threads.diff: C (waiting for review) → HEAD of b.
      const c = atReview?.checkpoint_id as string;
      const diff = await call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', limit: 2 });
      // SqliteSaver stores the never-written `approval` channel with its default (''), PostgresSaver stores nothing for it.
      const stateC = await call('threads.state', { source: b.source, thread_id: 'b', checkpoint_id: c });
      const approvalAtC = stateC.values.find((v) => v.channel === 'approval');
      expect(approvalAtC === undefined ? b.source.kind : approvalAtC.value).toBe(b.source.kind === 'sqlite' ? '' : 'postgres');
      expect(diff.channels).toEqual([
        { channel: 'approval', change: approvalAtC === undefined ? 'added' : 'modified', changes: 1 },
        { channel: 'steps', change: 'modified', changes: 2 },
        { channel: 'total', change: 'modified', changes: 1 },
      ]);
      const all = [...diff.rows];
      let token = diff.next_page_token;
      while (token !== null) {
        const page: OperationResult<'threads.diff'> = await call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', limit: 2, after: token });
        all.push(...page.rows);
        token = page.next_page_token;
      }
      expect(all).toEqual([
        approvalAtC === undefined ? { pointer: '/approval', kind: 'added', before: null, after: RESUME_ANSWER } : { pointer: '/approval', kind: 'modified', before: '', after: RESUME_ANSWER },
        { pointer: '/steps/1', kind: 'added', before: null, after: 'review' },
        { pointer: '/steps/2', kind: 'added', before: null, after: 'apply' },
        { pointer: '/total', kind: 'modified', before: 5, after: 35 },
      ]);
      // A token is bound to its request: another page size, or an edited token, is refused.
      const t = diff.next_page_token as string;
      expect(await codeOf(call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', limit: 3, after: t }))).toBe('GF_PAGE_INVALID');
      const forged = `${t.slice(0, 10)}${t[10] === 'A' ? 'B' : 'A'}${t.slice(11)}`;
      expect(await codeOf(call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', limit: 2, after: forged }))).toBe('GF_PAGE_INVALID');
      // Cancellation as in the workspace diff: an operation cancelled before (or while) it runs is GF_CANCELLED.
      const op = '018f0f4e-7b8c-7000-8000-0000000000cc';
      expect(await call('operation.cancel', { operation_id: op })).toEqual({ cancelled: false });
      expect(await codeOf(call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', operation_id: op }))).toBe('GF_CANCELLED');
      expect((await call('threads.diff', { source: b.source, thread_id: 'b', from: c, to: 'HEAD', operation_id: op })).total_changes).toBe(4);
      const hpage = await call('threads.history', { source: b.source, thread_id: 'b', limit: 1 });
      const h = hpage.next_page_token as string;
      expect(await codeOf(call('threads.history', { source: b.source, thread_id: 'a', limit: 1, after: h }))).toBe('GF_PAGE_INVALID');
      expect(await codeOf(call('threads.history', { source: b.source, thread_id: 'b', limit: 1, after: `${h.slice(0, -2)}xx` }))).toBe('GF_PAGE_INVALID');

      // threads.restore to C: one new head whose state equals C's.
      const key = '018f0f4e-7b8c-7000-8000-0000000000b1';
      const headBefore = rowsB[0]?.checkpoint_id as string;
      const receipt = await call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: c, reason: '  the review was approved by mistake  ', actor: 'ops@example', idempotency_key: key });
      expect(receipt).toMatchObject({ thread_id: 'b', restored_from: c, parent_checkpoint_id: headBefore, reason: 'the review was approved by mistake', actor: 'ops@example', idempotency_key: key, replayed: false });
      const cSnap = snapshotsB.find((s) => s.config.configurable?.['checkpoint_id'] === c);
      const now = await graph.getState(threadConfig('b'));
      expect(now.config.configurable?.['checkpoint_id']).toBe(receipt.checkpoint_id);
      expect(plain(now.values)).toEqual(plain(cSnap?.values)); // LangGraph's own view of the new head, defaults included
      expect([...now.next]).toEqual([...(cSnap?.next ?? [])]);
      expect(now.metadata).toMatchObject({ restored_from: c, reason: 'the review was approved by mistake', actor: 'ops@example', idempotency_key: key });
      const after = [];
      for await (const s of graph.getStateHistory(threadConfig('b'))) after.push(s.config.configurable?.['checkpoint_id']);
      expect(after).toEqual([receipt.checkpoint_id, ...snapshotsB.map((s) => s.config.configurable?.['checkpoint_id'])]);
      const restoredRow = (await call('threads.history', { source: b.source, thread_id: 'b', limit: 1 })).rows[0];
      expect(restoredRow).toMatchObject({ checkpoint_id: receipt.checkpoint_id, restored_from: c, next: ['review'] });

      // Idempotency: an identical replay returns the receipt and writes nothing; a changed request with the key is refused.
      const replay = await call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: c, reason: 'the review was approved by mistake', actor: 'ops@example', idempotency_key: key });
      expect(replay).toEqual({ ...receipt, replayed: true });
      expect(await codeOf(call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: c, reason: 'another reason', actor: 'ops@example', idempotency_key: key }))).toBe('GF_IDEMPOTENCY_CONFLICT');
      expect(await codeOf(call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: receipt.checkpoint_id, reason: 'again', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000b2' }))).toBe('GF_VALIDATION');
      expect(await codeOf(call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: c, reason: '   ', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000b3' }))).toBe('GF_VALIDATION');
      expect(await codeOf(call('threads.restore', { source: b.source, thread_id: 'b', checkpoint_id: c, reason: 'x'.repeat(1025), idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000b4' }))).toBe('GF_VALIDATION');
      expect(await codeOf(call('threads.restore', { source: b.source, thread_id: 'nope', checkpoint_id: c, reason: 'r', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000b5' }))).toBe('GF_CHECKPOINT_NOT_FOUND');
      expect(await codeOf(call('threads.state', { source: b.source, thread_id: 'b', checkpoint_id: '1f000000-0000-6000-8000-000000000000' }))).toBe('GF_CHECKPOINT_NOT_FOUND');
      const count = (await call('threads.list', { source: b.source, prefix: 'b' })).rows[0]?.checkpoint_count;
      expect(count).toBe(snapshotsB.length + 1);

      // Resuming from the restored head ends where LangGraph's own time travel from C ends (on the copy).
      const resumed = await graph.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig('b'));
      const copy = buildResumeGraph(await b.copySaver());
      const travelled = await copy.invoke(new Command({ resume: RESUME_ANSWER }), { configurable: { thread_id: 'b', checkpoint_id: c } });
      expect(plain(resumed)).toEqual(plain(travelled));
      expect(plain(resumed)).toMatchObject({ steps: ['plan', 'review', 'apply'] });

      // A restore to a checkpoint that is not interrupted: invoke(null) continues like time travel with invoke(null).
      const rowsA = await history('a');
      const start = rowsA.find((r) => r.next.join() === 'plan')?.checkpoint_id as string;
      await call('threads.restore', { source: b.source, thread_id: 'a', checkpoint_id: start, reason: 'rerun the plan', idempotency_key: '018f0f4e-7b8c-7000-8000-0000000000a1' });
      await graph.invoke(null, threadConfig('a'));
      await copy.invoke(null, { configurable: { thread_id: 'a', checkpoint_id: start } });
      const endA = await graph.getState(threadConfig('a'));
      const travelA = await copy.getState(threadConfig('a'));
      expect(plain(endA.values)).toEqual(plain(travelA.values));
      expect([...endA.next]).toEqual(['review']);

      // threads.health: the writing adapter after the restores.
      const health = await call('threads.health', { source: b.source });
      expect(health.backend).toBe(b.source.kind);
      expect(health.last_write_age_seconds).not.toBeNull();
    } finally {
      await facade.close();
      await b.closeMain();
    }
  });
}

/** A checkpoint written straight through an upstream saver's `put` (no graph): `values` as its channel values. */
function rawCheckpoint(id: string, step: number, values: Record<string, unknown>): Checkpoint {
  return {
    v: 4,
    id,
    ts: new Date(Date.UTC(2026, 0, 2) + step * 1000).toISOString(),
    channel_values: values,
    channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, step + 1])),
    versions_seen: {},
  };
}

/**
 * Registers the batched thread list test: `threads.list` (heads of a page read in one SQL pass) equals
 * per-thread upstream `getTuple` / `list` answers on a database the upstream saver wrote, page by page.
 */
export function threadsListAgreement(backend: () => ThreadsBackend): void {
  it('the batched thread list equals per-thread getTuple answers, across page boundaries and with a prefix', { timeout: 120_000 }, async () => {
    const b = backend();
    const saver = await b.mainSaver();
    const graph = buildResumeGraph(saver);
    // Graph threads: interrupted ones wait at review; finished ones were resumed. Ids straddle the prefix `p-`.
    const interrupted = new Set(['p-0', 'p-2']);
    for (const t of ['p-0', 'p-1', 'p-2', 'p-3']) {
      await graph.invoke(RESUME_INPUT, threadConfig(t));
      if (!interrupted.has(t)) await graph.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig(t));
    }
    // Written through `put`: a head with a non-interrupt pending write and an empty interrupt list (not interrupted),
    // a larger state, and a newer checkpoint of p-2 in a subgraph namespace (the root head stays the list's head).
    const put = (config: RunnableConfig, cp: Checkpoint, metadata: CheckpointMetadata) => saver.put(config, cp, metadata, cp.channel_versions);
    const first = await put({ configurable: { thread_id: 'p-4', checkpoint_ns: '' } }, rawCheckpoint(uuid6(0), 0, { items: [1, 2] }), { source: 'input', step: -1, parents: {} });
    const head = await put(first, rawCheckpoint(uuid6(1), 1, { items: Array.from({ length: 200 }, (_, i) => ({ i, tags: new Set([i % 3]) })) }), { source: 'update', step: 7, parents: {} });
    await saver.putWrites(head, [['items', [9]], ['__interrupt__', []]], 'task-1');
    // Outside the prefix, on both sides of it: one head with an interrupt write (interrupted), two without.
    for (const [t, step] of [['o-9', 4], ['p_', 5], ['q-0', 6]] as const) {
      const written = await put({ configurable: { thread_id: t, checkpoint_ns: '' } }, rawCheckpoint(uuid6(step), step, { items: [t] }), { source: 'loop', step, parents: {} });
      if (t === 'q-0') await saver.putWrites(written, [['__interrupt__', [{ value: 'approve?', id: 'i-1' }]]], 'task-2');
    }
    await put({ configurable: { thread_id: 'p-2', checkpoint_ns: 'sub' } }, rawCheckpoint(uuid6(2), 3, { x: 1 }), { source: 'loop', step: 3, parents: {} });
    for (const t of interrupted) expect((await graph.getState(threadConfig(t))).tasks.some((task) => task.interrupts.length > 0)).toBe(true);
    interrupted.add('q-0');
    await b.closeMain();

    // What upstream answers thread by thread.
    const reader = await b.mainSaver();
    const ids = ['o-9', 'p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p_', 'q-0'];
    const expected = [];
    for (const t of ids) {
      const tuple = await reader.getTuple({ configurable: { thread_id: t, checkpoint_ns: '' } });
      let count = 0;
      for await (const _c of reader.list({ configurable: { thread_id: t, checkpoint_ns: '' } })) count += 1;
      const meta = (tuple?.metadata ?? {}) as Record<string, unknown>;
      expected.push({
        thread_id: t,
        checkpoint_count: count,
        latest_checkpoint_id: tuple?.config.configurable?.['checkpoint_id'],
        latest_time: tuple?.checkpoint.ts,
        latest_step: meta['step'],
        latest_source: meta['source'],
        interrupted: interrupted.has(t),
      });
    }
    await b.closeMain();
    expect(expected.find((r) => r.thread_id === 'p-4')).toMatchObject({ checkpoint_count: 2, latest_step: 7, latest_source: 'update' });

    const facade = createFacade({ mode: 'library', ...(b.postgresUrl === undefined ? {} : { langgraphPostgresUrl: b.postgresUrl }) });
    const call = caller(facade);
    const all = async (prefix: string, limit: number) => {
      const rows: OperationResult<'threads.list'>['rows'][number][] = [];
      let after: string | null = null;
      do {
        const page: OperationResult<'threads.list'> = await call('threads.list', { source: b.source, prefix, limit, after });
        expect(page.rows.length).toBeLessThanOrEqual(limit);
        rows.push(...page.rows);
        after = page.next_page_token;
      } while (after !== null);
      return rows;
    };
    try {
      expect(await all('', 3)).toEqual(expected);
      expect(await all('p-', 2)).toEqual(expected.filter((r) => r.thread_id.startsWith('p-')));
      expect(await all('p-', 5)).toEqual(expected.filter((r) => r.thread_id.startsWith('p-')));
      expect(await all('zz', 2)).toEqual([]);
    } finally {
      await facade.close();
    }
  });
}

/** A value nested `depth` levels deep, holding `leaf`. */
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { d: nested(depth - 1, leaf) });

/**
 * Registers the diff agreement test: `threads.diff` (which revives only what differs) equals the diff of the
 * two checkpoints as upstream `getTuple` revives them in full, on values the serializer encodes specially.
 */
export function threadsDiffAgreement(backend: () => ThreadsBackend): void {
  it('the thread diff equals the diff of fully revived getTuple states (sets, maps, bytes, undefined, records, depth)', { timeout: 60_000 }, async () => {
    const b = backend();
    const saver = await b.mainSaver();
    const protoKeyed = (v: number): unknown => JSON.parse(`{"__proto__": {"x": ${v}}, "y": 1}`);
    const before = {
      items: Array.from({ length: 30 }, (_, i) => ({ id: i, tags: new Set([i % 3]), score: i % 5, blob: new Uint8Array([i, 1]) })),
      table: new Map<string, unknown>([['a', 1], ['b', [1, 2]]]),
      maybe: { kept: 1, gone: 'soon', later: undefined },
      shape: [1, 2, 3],
      record: { lc: 2, type: 'note', text: 'user data that looks like a record' },
      proto: protoKeyed(1),
      deep: nested(70, 'old'),
      'a/b~c': { n: 1 },
      error: new Error('first'),
      removedChannel: 'bye',
    };
    const after = {
      items: [...before.items.slice(0, 28).map((it) => (it.id % 7 === 0 ? { ...it, tags: new Set([9]), score: it.score + 1 } : it.id === 5 ? { ...it, blob: new Uint8Array([0]) } : it)), { id: 99, tags: new Set<number>(), score: 0, blob: new Uint8Array() }],
      table: new Map<string, unknown>([['a', 1], ['b', [1, 3]], ['c', null]]),
      maybe: { kept: 1, gone: undefined, later: 'now' },
      shape: { 0: 1 },
      record: { lc: 2, type: 'note', text: 'changed' },
      proto: protoKeyed(2),
      deep: nested(70, 'new'),
      'a/b~c': { n: 2 },
      error: new Error('second'),
      addedChannel: [1],
    };
    const cp = (id: string, step: number, values: Record<string, unknown>) => rawCheckpoint(id, step, values);
    const first = await saver.put({ configurable: { thread_id: 'd', checkpoint_ns: '' } }, cp(uuid6(0), 0, before), { source: 'input', step: 0, parents: {} }, cp(uuid6(0), 0, before).channel_versions);
    const second = await saver.put(first, cp(uuid6(1), 1, after), { source: 'loop', step: 1, parents: {} }, cp(uuid6(1), 1, after).channel_versions);
    const ta = await saver.getTuple(first);
    const tb = await saver.getTuple(second);
    await b.closeMain();
    if (ta === undefined || tb === undefined) throw new Error('the saver lost a checkpoint');
    const reference = diffChannels(stateValues(ta), stateValues(tb));
    expect(reference.changes.length).toBeGreaterThan(15);
    expect(reference.channels.map((c) => c.change)).toContain('added');

    const facade = createFacade({ mode: 'library', ...(b.postgresUrl === undefined ? {} : { langgraphPostgresUrl: b.postgresUrl }) });
    const call = caller(facade);
    try {
      const from = ta.config.configurable?.['checkpoint_id'] as string;
      const rows = [];
      let page: OperationResult<'threads.diff'> = await call('threads.diff', { source: b.source, thread_id: 'd', from, to: 'HEAD', limit: 7 });
      expect(page.channels).toEqual(reference.channels);
      rows.push(...page.rows);
      while (page.next_page_token !== null) {
        page = await call('threads.diff', { source: b.source, thread_id: 'd', from, to: 'HEAD', limit: 7, after: page.next_page_token });
        rows.push(...page.rows);
      }
      expect(rows).toEqual(reference.changes);
      expect(page.total_changes).toBe(reference.changes.length);
    } finally {
      await facade.close();
    }
  });
}
