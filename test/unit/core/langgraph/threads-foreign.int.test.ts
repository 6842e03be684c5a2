// Nothing foreign gives GF_INTERNAL: an unknown serializer type, an unknown extension code, a value or JSON
// that does not decode, a table layout of another LangGraph version, a damaged page. Each is a stable code with
// a sentence naming the file, thread, checkpoint or table; the rest of the thread stays readable. Then a fuzz of
// the decoder and of whole SQLite files (seeded, bounded in count).
import { copyFileSync, mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encode, ExtData } from '@msgpack/msgpack';
import { afterAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import type { OperationInput } from '../../../../core/contract/operations';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { replaceMapMembers } from '../../../../core/langgraph/msgpack-carry';
import { decodePythonMsgpack, PythonDecodeError } from '../../../../core/langgraph/python-serde';
import { toThreadJson } from '../../../../core/langgraph/thread-json';
import { putChain } from './langgraph-support';
import { expectedOf, PY_SQLITE } from './python-fixtures';
import { caller } from './threads-support';

const root = mkdtempSync(join(tmpdir(), 'gf-threads-foreign-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh copy of the Python fixture, changed by `edit` (a writable connection closed before browsing). */
function pythonCopy(edit: (db: Database.Database) => void): string {
  const path = join(root, `py-${(n += 1)}.sqlite`);
  copyFileSync(PY_SQLITE, path);
  const db = new Database(path);
  try {
    edit(db);
  } finally {
    db.close();
  }
  return path;
}

/** A deterministic pseudo-random source (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Outcome {
  readonly code: string | null;
  readonly message: string;
}

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    await p;
    return { code: null, message: '' };
  } catch (e) {
    return { code: (e as { code?: string }).code ?? `untyped ${String(e)}`, message: (e as Error).message };
  }
}

type Call = ReturnType<typeof caller>;
type Source = OperationInput<'threads.list'>['source'];

/** Every read of every thread and checkpoint the database still lists: the outcomes (never thrown). */
async function browseOutcomes(call: Call, source: Source): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const list = await call('threads.list', { source }).catch((e: unknown) => {
    out.push({ code: (e as { code?: string }).code ?? 'untyped', message: (e as Error).message });
    return null;
  });
  const threads = list?.rows.map((r) => r.thread_id) ?? ['fix-1', 'fix-2', 'fix-3'];
  for (const t of threads) {
    out.push(await outcome(call('threads.state', { source, thread_id: t })));
    const history = await call('threads.history', { source, thread_id: t }).catch((e: unknown) => {
      out.push({ code: (e as { code?: string }).code ?? 'untyped', message: (e as Error).message });
      return null;
    });
    for (const r of history?.rows ?? []) {
      out.push(await outcome(call('threads.state', { source, thread_id: t, checkpoint_id: r.checkpoint_id })));
      out.push(await outcome(call('threads.diff', { source, thread_id: t, from: r.checkpoint_id, to: 'HEAD' })));
    }
  }
  return out;
}

const TYPED = new Set([null, 'GF_IO', 'GF_CHECKPOINT_UNREADABLE', 'GF_CHECKPOINT_NOT_FOUND', 'GF_SCHEMA_MISMATCH']);

const fix1 = expectedOf('sqlite')['fix-1'] ?? [];
const AT = fix1[1]?.checkpoint_id ?? ''; // fix-1 at the gate (step 2)

describe('foreign data in a Python-written SQLite file: typed, named, and the rest readable', () => {
  it('an unknown serializer type on one checkpoint: its history row says so, its state is GF_CHECKPOINT_UNREADABLE, the others read', async () => {
    const path = pythonCopy((db) => db.prepare("UPDATE checkpoints SET type = 'cbor' WHERE thread_id = 'fix-1' AND checkpoint_id = ?").run(AT));
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    const source = { kind: 'sqlite', path } as const;
    try {
      const history = await call('threads.history', { source, thread_id: 'fix-1' });
      expect(history.rows.map((r) => r.checkpoint_id)).toEqual(fix1.map((w) => w.checkpoint_id));
      const bad = history.rows.find((r) => r.checkpoint_id === AT);
      expect(bad?.unreadable).toBe(`checkpoint ${AT} of thread "fix-1" in py-${n}.sqlite (table checkpoints) could not be read: the serializer type "cbor" is not one LangGraph writes (msgpack, json, bytes, bytearray, null)`);
      expect(history.rows.filter((r) => r.unreadable !== null)).toHaveLength(1);
      const state = await outcome(call('threads.state', { source, thread_id: 'fix-1', checkpoint_id: AT }));
      expect(state.code).toBe('GF_CHECKPOINT_UNREADABLE');
      expect(state.message).toContain(`checkpoint ${AT} of thread "fix-1"`);
      expect((await call('threads.state', { source, thread_id: 'fix-1' })).values.length).toBe(9);
    } finally {
      await facade.close();
    }
  });

  it('an unknown extension code in one channel and a pending write that does not decode: marked in place and listed in problems', async () => {
    const path = pythonCopy((db) => {
      const row = db.prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = 'fix-1' AND checkpoint_id = ?").get(AT) as { checkpoint: Buffer };
      const doc = decodePythonMsgpack(row.checkpoint) as Record<string, unknown>;
      const channels = { ...(doc['channel_values'] as Record<string, unknown>) };
      channels['plan'] = new ExtData(42, new Uint8Array([1, 2]));
      channels['window'] = [1, 2, 3];
      delete channels['messages'];
      delete channels['findings'];
      delete channels['priority'];
      delete channels['seen'];
      delete channels['raw'];
      delete channels['elapsed'];
      delete channels['run_id'];
      delete channels['__pregel_tasks'];
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'fix-1' AND checkpoint_id = ?").run(Buffer.from(replaceMapMembers(row.checkpoint, { channel_values: channels })), AT);
      db.prepare("UPDATE writes SET value = X'92a1' WHERE thread_id = 'fix-1' AND checkpoint_ns = '' AND checkpoint_id = ? AND channel = '__interrupt__'").run(AT);
    });
    const facade = createFacade({ mode: 'library' });
    try {
      const state = await caller(facade)('threads.state', { source: { kind: 'sqlite', path }, thread_id: 'fix-1', checkpoint_id: AT });
      expect(state.values.map((v) => [v.channel, v.type])).toEqual([
        ['plan', 'unreadable'],
        ['window', 'array'],
      ]);
      expect(state.values[0]?.value).toEqual({ python_type: 'unreadable', problem: 'unknown_extension', detail: 'msgpack extension code 42 is not one LangGraph defines (0–7)' });
      expect(state.problems.map((p) => [p.code, p.channel, p.problem])).toEqual([
        ['GF_CHECKPOINT_UNREADABLE', 'plan', 'unknown_extension'],
        ['GF_CHECKPOINT_UNREADABLE', '__interrupt__', 'undecodable'],
      ]);
      expect(state.problems[0]?.message).toBe(`thread "fix-1", checkpoint ${AT}, channel "plan": msgpack extension code 42 is not one LangGraph defines (0–7)`);
      expect(state.problems[1]?.message).toMatch(new RegExp(`^thread "fix-1", checkpoint ${AT}, pending write to "__interrupt__": the stored msgpack value does not decode \\(.+\\)$`));
      // The interrupt still waits; its damaged value is marked, never a wrong value.
      expect(state.interrupts.map((i) => (i.value as { python_type?: string }).python_type)).toEqual(['unreadable']);
    } finally {
      await facade.close();
    }
  });

  it('metadata that is not JSON: the history row names the file, table and row; its state is GF_CHECKPOINT_UNREADABLE', async () => {
    const path = pythonCopy((db) => db.prepare("UPDATE checkpoints SET metadata = '{not json' WHERE thread_id = 'fix-1' AND checkpoint_id = ?").run(AT));
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    try {
      const rows = (await call('threads.history', { source: { kind: 'sqlite', path }, thread_id: 'fix-1' })).rows;
      expect(rows.find((r) => r.checkpoint_id === AT)?.unreadable).toBe(`the metadata of checkpoint ${AT} of thread "fix-1" in py-${n}.sqlite (table checkpoints) is not a JSON object`);
      expect((await outcome(call('threads.state', { source: { kind: 'sqlite', path }, thread_id: 'fix-1', checkpoint_id: AT }))).code).toBe('GF_CHECKPOINT_UNREADABLE');
    } finally {
      await facade.close();
    }
  });

  it('a table of another layout is GF_SCHEMA_MISMATCH naming the table and the missing column; an added column is read past', async () => {
    const missing = pythonCopy((db) => db.exec('ALTER TABLE writes DROP COLUMN type'));
    const added = pythonCopy((db) => db.exec("ALTER TABLE writes ADD COLUMN task_path TEXT NOT NULL DEFAULT ''"));
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    try {
      const r = await outcome(call('threads.list', { source: { kind: 'sqlite', path: missing } }));
      expect(r).toEqual({ code: 'GF_SCHEMA_MISMATCH', message: `GF_SCHEMA_MISMATCH: the table writes in py-${n - 1}.sqlite is not a LangGraph checkpoint table: it has no column type` });
      expect((await call('threads.list', { source: { kind: 'sqlite', path: added } })).rows).toHaveLength(3);
    } finally {
      await facade.close();
    }
  });

  it('bad JSON in a LangGraph.js file: GF_CHECKPOINT_UNREADABLE naming the thread and checkpoint, never GF_INTERNAL', async () => {
    const path = join(root, 'js.sqlite');
    const adapter = new SqliteCheckpointerAdapter({ path });
    await putChain(await adapter.saver(), 'js-thread', 3);
    await adapter.close();
    const db = new Database(path);
    const id = (db.prepare("SELECT checkpoint_id FROM checkpoints ORDER BY checkpoint_id LIMIT 1 OFFSET 1").get() as { checkpoint_id: string }).checkpoint_id;
    db.prepare("UPDATE checkpoints SET checkpoint = '{\"v\": 4, broken' WHERE checkpoint_id = ?").run(id);
    db.close();
    const facade = createFacade({ mode: 'library' });
    try {
      const r = await outcome(caller(facade)('threads.state', { source: { kind: 'sqlite', path }, thread_id: 'js-thread', checkpoint_id: id }));
      expect(r.code).toBe('GF_CHECKPOINT_UNREADABLE');
      expect(r.message).toContain(`thread "js-thread", checkpoint ${id} in the SQLite file js.sqlite could not be read`);
    } finally {
      await facade.close();
    }
  });

  it('a damaged page anywhere in the file: every read is typed (GF_IO names the file), never GF_INTERNAL', { timeout: 120_000 }, async () => {
    const pages = Math.ceil(statSync(PY_SQLITE).size / 4096);
    const random = prng(33);
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    const codes = new Map<string, number>();
    try {
      for (let page = 1; page < pages; page++) {
        const path = pythonCopy(() => undefined);
        const fd = openSync(path, 'r+');
        const junk = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(random() * 256)));
        writeSync(fd, junk, 0, junk.length, page * 4096);
        closeSync(fd);
        for (const o of await browseOutcomes(call, { kind: 'sqlite', path })) {
          codes.set(String(o.code), (codes.get(String(o.code)) ?? 0) + 1);
          expect(TYPED.has(o.code), `page ${page}: ${o.message}`).toBe(true);
          if (o.code === 'GF_IO') expect(o.message).toContain(`py-${n}.sqlite`);
        }
      }
    } finally {
      await facade.close();
    }
    expect(codes.get('GF_IO') ?? 0).toBeGreaterThan(0); // some damage is detected as such
    console.info(`damaged pages: ${pages - 1} files, outcomes ${JSON.stringify(Object.fromEntries(codes))}`);
  });
});

describe('fuzz: the Python decoder and whole Python-written SQLite files', () => {
  it('random bytes and truncated or mutated real msgpack values: a value or PythonDecodeError, never anything else', () => {
    const random = prng(3301);
    const db = new Database(PY_SQLITE, { readonly: true });
    const real = [
      ...(db.prepare('SELECT checkpoint AS v FROM checkpoints').all() as { v: Buffer }[]).map((r) => r.v),
      ...(db.prepare("SELECT value AS v FROM writes WHERE type = 'msgpack'").all() as { v: Buffer }[]).map((r) => r.v),
    ];
    db.close();
    const counts = { random: 0, truncated: 0, mutated: 0, decoded: 0, refused: 0 };
    const attempt = (bytes: Uint8Array) => {
      try {
        toThreadJson(decodePythonMsgpack(bytes));
        counts.decoded += 1;
      } catch (e) {
        expect(e).toBeInstanceOf(PythonDecodeError);
        counts.refused += 1;
      }
    };
    for (let i = 0; i < 3000; i++) {
      attempt(Uint8Array.from({ length: Math.floor(random() * 96) }, () => Math.floor(random() * 256)));
      counts.random += 1;
    }
    for (let i = 0; i < 1500; i++) {
      const v = real[Math.floor(random() * real.length)] as Buffer;
      attempt(v.subarray(0, Math.floor(random() * v.length)));
      counts.truncated += 1;
      const m = Buffer.from(v);
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) m[Math.floor(random() * m.length)] = Math.floor(random() * 256);
      attempt(m);
      counts.mutated += 1;
    }
    // Hostile nesting and sizes: 200,000 nested arrays, an ext inside 5,000 exts, a map claiming 2^32 members.
    attempt(Uint8Array.from([...Array<number>(200_000).fill(0x91), 0x00]));
    let deep: unknown = 0;
    for (let i = 0; i < 5000; i++) deep = new ExtData(7, encode(deep));
    attempt(encode(deep));
    attempt(Uint8Array.from([0xdf, 0xff, 0xff, 0xff, 0xff, 0xa0]));
    expect(counts.decoded + counts.refused).toBe(counts.random + counts.truncated + counts.mutated + 3);
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.decoded).toBeGreaterThan(0);
    console.info(`decoder fuzz: ${JSON.stringify(counts)}`);
  });

  it('mutated checkpoint and write blobs in a real file: every read is typed, never GF_INTERNAL', { timeout: 120_000 }, async () => {
    const random = prng(3302);
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    const codes = new Map<string, number>();
    let files = 0;
    try {
      for (let f = 0; f < 30; f++) {
        const path = pythonCopy((db) => {
          const rows = db.prepare("SELECT rowid, checkpoint FROM checkpoints WHERE checkpoint_ns = ''").all() as { rowid: number; checkpoint: Buffer }[];
          const writes = db.prepare('SELECT rowid, value FROM writes WHERE value IS NOT NULL').all() as { rowid: number; value: Buffer }[];
          for (let k = 0; k < 3; k++) {
            const r = rows[Math.floor(random() * rows.length)];
            if (r !== undefined) {
              const m = Buffer.from(r.checkpoint);
              for (let j = 0; j < 1 + Math.floor(random() * 3); j++) m[Math.floor(random() * m.length)] = Math.floor(random() * 256);
              db.prepare('UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?').run(random() < 0.3 ? m.subarray(0, Math.floor(random() * m.length)) : m, r.rowid);
            }
            const w = writes[Math.floor(random() * writes.length)];
            if (w !== undefined) db.prepare('UPDATE writes SET value = ? WHERE rowid = ?').run(Buffer.from(Array.from({ length: Math.floor(random() * 16) }, () => Math.floor(random() * 256))), w.rowid);
          }
        });
        files += 1;
        for (const o of await browseOutcomes(call, { kind: 'sqlite', path })) {
          codes.set(String(o.code), (codes.get(String(o.code)) ?? 0) + 1);
          expect(TYPED.has(o.code), o.message).toBe(true);
        }
      }
    } finally {
      await facade.close();
    }
    expect(files).toBe(30);
    console.info(`file fuzz: ${files} files, outcomes ${JSON.stringify(Object.fromEntries(codes))}`);
  });
});
