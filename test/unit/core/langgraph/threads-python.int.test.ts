// Databases written by Python LangGraph's own SqliteSaver and PostgresSaver: browsed through the threads.*
// operations, the answers equal what Python LangGraph itself reads back (expected.json), and browsing writes nothing.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { PostgresCheckpointerAdapter } from '../../../../core/langgraph';
import type { OperationInput } from '../../../../core/contract/operations';
import { usePostgres } from '../../../support/postgres';
import Database from 'better-sqlite3';
import { encode, ExtData } from '@msgpack/msgpack';
import { decodePythonMsgpack } from '../../../../core/langgraph/python-serde';
import { replaceMapMembers } from '../../../../core/langgraph/msgpack-carry';
import { toThreadJson } from '../../../../core/langgraph/thread-json';
import { assertFix3Tree, assertMatchesPython, assertNamespaces, expectedOf, toExpectForm, PY_FIXTURES, PY_SQLITE, replayPostgres } from './python-fixtures';
import { caller } from './threads-support';

const root = mkdtempSync(join(tmpdir(), 'gf-threads-python-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fingerprint = (path: string): string[] =>
  [path, `${path}-wal`, `${path}-shm`, `${path}-journal`].map((p) => (existsSync(p) ? `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${statSync(p).mtimeMs}` : 'absent'));

type Source = OperationInput<'threads.list'>['source'];

/** The diff between two checkpoints of `fix-1`: after `plan` ran and the head (after the scans and the gate). */
async function assertFix1Diff(call: ReturnType<typeof caller>, source: Source, from: string, to: string): Promise<void> {
  const diff = await call('threads.diff', { source, thread_id: 'fix-1', from, to });
  const byChannel = Object.fromEntries(diff.channels.map((c) => [c.channel, c.change]));
  expect(byChannel).toEqual({ elapsed: 'unchanged', findings: 'modified', messages: 'modified', plan: 'unchanged', priority: 'unchanged', raw: 'unchanged', run_id: 'unchanged', seen: 'unchanged', window: 'unchanged' });
  const rows = diff.rows.map((r) => [r.pointer, r.kind]);
  expect(rows).toEqual([
    ['/findings/0', 'added'],
    ['/findings/1', 'added'],
    ['/messages/3', 'added'],
  ]);
  const added = diff.rows.find((r) => r.pointer === '/findings/0')?.after;
  expect(added).toEqual({ python_type: 'Finding', python_module: '__main__', fields: { cve: 'CVE-2026-0001', severity: 7.5, fixed: false } });
  expect((diff.rows.find((r) => r.pointer === '/messages/3')?.after as { fields?: { content?: unknown } }).fields?.content).toBe('approved=yes');
}

describe('threads on a SQLite file written by Python LangGraph (SqliteSaver)', () => {
  let facade: Facade;
  const path = join(root, 'python.sqlite');
  beforeAll(() => {
    copyFileSync(PY_SQLITE, path);
    facade = createFacade({ mode: 'library' });
  });
  afterAll(() => facade.close());

  it('list, history, state and interrupts equal what Python LangGraph reads back, value by value; browsing changes no byte of the file', async () => {
    const before = fingerprint(path);
    const compared = await assertMatchesPython(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
    expect(compared).toBe(9 * 14 - 7 * 3); // 14 checkpoints × 9 channels, less 7 for each of the 3 input checkpoints (2 channels)
    expect(fingerprint(path)).toEqual(before);
  });

  it('diffs two checkpoints of fix-1 as Python values', async () => {
    const e = expectedOf('sqlite')['fix-1'] ?? [];
    await assertFix1Diff(caller(facade), { kind: 'sqlite', path }, e[2]?.checkpoint_id ?? '', e[0]?.checkpoint_id ?? '');
  });

  it('the fork tree of fix-3: the fork point has two children, the head\'s path and the other branch are told apart', async () => {
    await assertFix3Tree(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
  });

  it('subgraph namespaces are listed, labelled and browsable, apart from the parent\'s timeline', async () => {
    await assertNamespaces(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
  });
});

const KEY = '018f0f4e-7b8c-7000-8000-0000000033a1';

/** The state values of a checkpoint through threads.state (by channel). */
async function valuesOf(call: ReturnType<typeof caller>, source: Source, threadId: string, checkpointId?: string): Promise<Record<string, unknown>> {
  const st = await call('threads.state', { source, thread_id: threadId, ...(checkpointId === undefined ? {} : { checkpoint_id: checkpointId }) });
  return Object.fromEntries(st.values.map((v) => [v.channel, v.value]));
}

/** Restores fix-2 (waiting at its interrupt) to its checkpoint after `plan`, checks the receipt, the head's values, history and a replay. */
async function restoreFix2(call: ReturnType<typeof caller>, source: Source, expected: ReturnType<typeof expectedOf>): Promise<{ id: string; target: string; head: string }> {
  const e = expected['fix-2'] ?? [];
  const target = e[1]?.checkpoint_id ?? '';
  const head = e[0]?.checkpoint_id ?? '';
  const receipt = await call('threads.restore', { source, thread_id: 'fix-2', checkpoint_id: target, reason: 'the scan ran against the wrong CVE list', actor: 'ops', idempotency_key: KEY });
  expect([receipt.restored_from, receipt.parent_checkpoint_id, receipt.replayed]).toEqual([target, head, false]);
  expect(receipt.checkpoint_id > head).toBe(true);
  expect(await valuesOf(call, source, 'fix-2')).toEqual(await valuesOf(call, source, 'fix-2', target));
  const history = await call('threads.history', { source, thread_id: 'fix-2' });
  expect(history.rows.map((r) => [r.checkpoint_id, r.restored_from, r.source, r.step, r.next])).toEqual([
    [receipt.checkpoint_id, target, 'update', 3, ['scan', 'scan']],
    ...e.map((w) => [w.checkpoint_id, null, w.source, w.step, w.next]),
  ]);
  const again = await call('threads.restore', { source, thread_id: 'fix-2', checkpoint_id: target, reason: 'the scan ran against the wrong CVE list', actor: 'ops', idempotency_key: KEY });
  expect([again.checkpoint_id, again.replayed]).toEqual([receipt.checkpoint_id, true]);
  expect((await call('threads.history', { source, thread_id: 'fix-2' })).rows).toHaveLength(e.length + 1);
  const health = await call('threads.health', { source });
  expect(health.last_write_age_seconds).not.toBeNull(); // the restore is the adapter's last write
  return { id: receipt.checkpoint_id, target, head };
}

describe('threads.restore of a thread Python LangGraph wrote, in its own format', () => {
  it('SQLite: the new head is the target\'s msgpack document byte for byte but for id and ts; metadata as Python writes it', async () => {
    const path = join(root, 'restore.sqlite');
    copyFileSync(PY_SQLITE, path);
    const facade = createFacade({ mode: 'library' });
    let ids: { id: string; target: string; head: string };
    try {
      ids = await restoreFix2(caller(facade), { kind: 'sqlite', path }, expectedOf('sqlite'));
    } finally {
      await facade.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const row = (id: string) => db.prepare("SELECT parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = 'fix-2' AND checkpoint_ns = '' AND checkpoint_id = ?").get(id) as { parent_checkpoint_id: string; type: string; checkpoint: Buffer; metadata: Buffer };
      const made = row(ids.id);
      const target = row(ids.target);
      expect([made.type, made.parent_checkpoint_id]).toEqual(['msgpack', ids.head]);
      const doc = decodePythonMsgpack(made.checkpoint) as Record<string, unknown>;
      const was = decodePythonMsgpack(target.checkpoint) as Record<string, unknown>;
      expect(doc['id']).toBe(ids.id);
      expect(doc['ts']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      expect(toThreadJson(doc['channel_values'])).toEqual(toThreadJson(was['channel_values']));
      expect([doc['channel_versions'], doc['versions_seen']]).toEqual([was['channel_versions'], was['versions_seen']]);
      // Carried, not re-encoded: putting the target's id and ts back gives the target's stored bytes exactly.
      expect(Buffer.from(replaceMapMembers(made.checkpoint, { id: was['id'], ts: was['ts'] })).equals(target.checkpoint)).toBe(true);
      const meta = JSON.parse(made.metadata.toString('utf8')) as Record<string, unknown>;
      expect(meta).toEqual({ source: 'update', step: 3, parents: {}, restored_from: ids.target, reason: 'the scan ran against the wrong CVE list', actor: 'ops', idempotency_key: KEY, restored_at: meta['restored_at'] });
    } finally {
      db.close();
    }
  });
});

const server = usePostgres({ beforeAll, afterAll });

async function replayedDatabase(name: string): Promise<string> {
  const u = new URL(server().url);
  const admin = new pg.Client({ connectionString: server().url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  u.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await replayPostgres(c);
  await c.end();
  return u.toString();
}

describe('threads on a PostgreSQL database written by Python LangGraph (PostgresSaver), replayed', () => {
  let facade: Facade;
  beforeAll(async () => {
    facade = createFacade({ mode: 'library', langgraphPostgresUrl: await replayedDatabase('python_fixture') });
  }, 60_000);
  afterAll(() => facade.close());

  it('list, history, state and interrupts equal what Python LangGraph reads back, value by value', async () => {
    const compared = await assertMatchesPython(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
    expect(compared).toBe(9 * 14 - 7 * 3);
  });

  it('diffs two checkpoints of fix-1 as Python values', async () => {
    const e = expectedOf('postgres')['fix-1'] ?? [];
    await assertFix1Diff(caller(facade), { kind: 'postgres' }, e[2]?.checkpoint_id ?? '', e[0]?.checkpoint_id ?? '');
  });

  it('the fork tree of fix-3', async () => {
    await assertFix3Tree(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
  });

  it('subgraph namespaces', async () => {
    await assertNamespaces(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
  });
});

describe('threads.restore on the Postgres replay', () => {
  it('the new head row is the target\'s document with id and ts replaced; the target\'s blobs serve it unchanged', async () => {
    const url = await replayedDatabase('python_restore');
    const facade = createFacade({ mode: 'library', langgraphPostgresUrl: url });
    let ids: { id: string; target: string; head: string };
    try {
      ids = await restoreFix2(caller(facade), { kind: 'postgres' }, expectedOf('postgres'));
    } finally {
      await facade.close();
    }
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ checkpoint_id: string; parent_checkpoint_id: string; checkpoint: Record<string, unknown>; metadata: Record<string, unknown> }>("SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints WHERE thread_id = 'fix-2' AND checkpoint_ns = '' AND checkpoint_id = ANY($1)", [[ids.id, ids.target]]);
      const made = r.rows.find((x) => x.checkpoint_id === ids.id);
      const target = r.rows.find((x) => x.checkpoint_id === ids.target);
      expect(made?.parent_checkpoint_id).toBe(ids.head);
      expect({ ...made?.checkpoint, id: null, ts: null }).toEqual({ ...target?.checkpoint, id: null, ts: null });
      expect(made?.checkpoint['id']).toBe(ids.id);
      expect(made?.metadata).toMatchObject({ source: 'update', step: 3, parents: {}, restored_from: ids.target, actor: 'ops', idempotency_key: KEY });
      // No blob was written: the database holds exactly the replayed blobs.
      const blobs = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM checkpoint_blobs');
      expect(blobs.rows[0]?.n).toBe(readFileSync(join(PY_FIXTURES, 'python-postgressaver.sql'), 'utf8').split('\n').filter((l) => l.startsWith('INSERT INTO checkpoint_blobs ')).length);
    } finally {
      await c.end();
    }
  });
});

describe('threads.health reports the adapter writing the source in this process', () => {
  it('an exhausted pool: the callers holding connections are in use, the one waiting is beside the record; the write age is the adapter\'s', async () => {
    const url = await replayedDatabase('python_health');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    const adapter = new PostgresCheckpointerAdapter({ pool });
    const facade = createFacade({ mode: 'library', langgraphPostgresUrl: url });
    try {
      const held = await pool.connect(); // a caller holds the only connection
      const waiting = pool.connect(); // a second caller waits for it
      const h = await caller(facade)('threads.health', { source: { kind: 'postgres' } });
      expect(h).toEqual({ backend: 'postgres', pool_in_use: 1, pool_idle: 0, last_write_age_seconds: null, pool_waiting: 1, readable: true, unreadable_reason: null });
      expect(Object.keys(adapter.health())).toEqual(['pool_in_use', 'pool_idle', 'last_write_age_seconds']); // the record itself keeps its three fields
      held.release();
      (await waiting).release();
      await (await adapter.saver()).put({ configurable: { thread_id: 'health-probe', checkpoint_ns: '' } }, { v: 4, id: '1f1ef299-0000-6000-8000-000000000001', ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} }, { source: 'input', step: -1, parents: {} }, {});
      const after = await caller(facade)('threads.health', { source: { kind: 'postgres' } });
      expect(after.last_write_age_seconds).not.toBeNull();
      expect(after.last_write_age_seconds ?? Infinity).toBeLessThanOrEqual(adapter.health().last_write_age_seconds);
    } finally {
      await facade.close();
      await pool.end();
    }
  });
});

describe('delta channels (DeltaChannel: a snapshot now and then, deltas in between)', () => {
  it('a snapshot reads as its value; a checkpoint without a value shows the seed and the writes after it, never a made-up value', async () => {
    const e = expectedOf('sqlite')['fix-1'] ?? [];
    const gate = e[1]?.checkpoint_id ?? ''; // step 2: after the two scans
    const sent = e[2]?.checkpoint_id ?? ''; // step 1: where the scans' writes are pending
    const path = join(root, 'delta.sqlite');
    copyFileSync(PY_SQLITE, path);
    const db = new Database(path);
    try {
      const doc = (id: string) => (db.prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'fix-1' AND checkpoint_ns = '' AND checkpoint_id = ?").get(id) as { checkpoint: Buffer }).checkpoint;
      const set = db.prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ? WHERE thread_id = 'fix-1' AND checkpoint_ns = '' AND checkpoint_id = ?");
      // At step 1 `findings` is stored as a snapshot (ext 7) of []; at step 2 it is not stored at all (deltas since the snapshot).
      set.run(Buffer.from(replaceMapMembers(doc(sent), { channel_values: { findings: new ExtData(7, encode([])), window: [1, 2, 3] } })), JSON.stringify({ source: 'loop', step: 1, parents: {}, counters_since_delta_snapshot: { findings: [0, 0] } }), sent);
      set.run(Buffer.from(replaceMapMembers(doc(gate), { channel_values: { window: [1, 2, 3] } })), JSON.stringify({ source: 'loop', step: 2, parents: {}, counters_since_delta_snapshot: { findings: [1, 1] } }), gate);
    } finally {
      db.close();
    }
    const facade = createFacade({ mode: 'library' });
    try {
      const call = caller(facade);
      const at1 = (await call('threads.state', { source: { kind: 'sqlite', path }, thread_id: 'fix-1', checkpoint_id: sent })).values.find((v) => v.channel === 'findings');
      expect([at1?.delta, at1?.value]).toEqual(['snapshot', []]);
      const at2 = (await call('threads.state', { source: { kind: 'sqlite', path }, thread_id: 'fix-1', checkpoint_id: gate })).values.find((v) => v.channel === 'findings');
      expect(at2?.delta).toBe('deltas');
      const v = at2?.value as { python_type: string; seed: unknown; writes: unknown[]; complete: boolean };
      expect([v.python_type, v.seed, v.complete]).toEqual(['delta_channel', [], true]);
      expect(v.writes.map((w) => toExpectForm(w as never))).toEqual([
        [{ python_type: 'Finding', cve: 'CVE-2026-0001', severity: 7.5, fixed: false }],
        [{ python_type: 'Finding', cve: 'CVE-2026-0002', severity: 7.5, fixed: false }],
      ]);
    } finally {
      await facade.close();
    }
  });
});
