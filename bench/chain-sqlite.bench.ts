import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TransitionEvent } from '../core/chain/event';
import { GENESIS, nextHead, type ChainHead } from '../core/chain/head';
import type { PersistedRow } from '../core/chain/port';
import { CHAIN_DB_FILE, CHAIN_METADATA_SCHEMA, CHAIN_PRAGMAS, CHECKPOINT_CHAIN_SCHEMA, workflowDirName } from '../core/chain/sqlite/sqlite-schema';
import { SqliteChainStore } from '../core/chain/sqlite/sqlite-store';
import { prepareAppend } from '../core/chain/store-support';
import { verify } from '../core/chain/verify';
import { benchEvents } from './chain-events';
import { defineBench, perSecond } from './harness';
import type { BenchSize } from './harness';

const APPENDS: Readonly<Record<BenchSize, number>> = { tiny: 20, small: 300, large: 3_000 };
/** Events in the verified chain per size (`tiny`: `npm test`'s one-run check). */
const VERIFY_EVENTS: Readonly<Record<BenchSize, number>> = { tiny: 200, small: 100_000, large: 100_000 };

interface AppendState {
  readonly dir: string;
  readonly n: number;
  run: number;
}

/** Appends per block: the two sides alternate block by block, so both see the same machine (a VM's fsync and CPU drift within a run). */
const BLOCK = 250;

/** Raw baseline: the same rows with bare better-sqlite3, same pragmas, BEGIN IMMEDIATE + INSERT + COMMIT each, one block at a time. */
function rawAppender(file: string, rows: readonly PersistedRow[]): { block(from: number, to: number): number; close(): void } {
  const db = new Database(file);
  for (const p of CHAIN_PRAGMAS) db.pragma(p);
  db.exec(CHECKPOINT_CHAIN_SCHEMA);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const insert = db.prepare('INSERT INTO checkpoint_chain (transition_id, prior_head, next_head, event_bytes, written_at) VALUES (?, ?, ?, ?, ?)');
  const buffers = rows.map((r) => Buffer.from(r.event_bytes));
  return {
    block(from, to) {
      const t0 = performance.now();
      for (let i = from; i < to; i++) {
        const r = rows[i] as PersistedRow;
        begin.run();
        insert.run(r.transition_id, r.prior_head, r.next_head, buffers[i], r.written_at);
        commit.run();
      }
      return performance.now() - t0;
    },
    close: () => db.close(),
  };
}

const CLOCK = (): Date => new Date(Date.UTC(2026, 0, 1));

/** The rows the store persists for `evs` (computed once, untimed, on a scratch root: the raw side inserts these bytes). */
async function storeRows(root: string, evs: readonly TransitionEvent[]): Promise<PersistedRow[]> {
  const store = new SqliteChainStore(root, { clock: CLOCK });
  for (const e of evs) await store.append(e);
  const rows: PersistedRow[] = [];
  for await (const r of store.readPersistedRows(evs[0]?.workflow_id ?? 'wf')) rows.push(r);
  await store.close();
  return rows;
}

/** Store and bare appends of the same events, alternating blocks of BLOCK (which side goes first alternates by run). */
async function sideBySide(base: string, evs: readonly TransitionEvent[], storeFirst: boolean): Promise<{ store: number; raw: number }> {
  const rows = await storeRows(join(base, 'scratch'), evs);
  const store = new SqliteChainStore(join(base, 'store'), { clock: CLOCK });
  store.connectionPragmas(evs[0]?.workflow_id ?? 'wf'); // open outside the timed blocks, like the raw side
  const raw = rawAppender(join(base, 'raw.sqlite'), rows);
  let storeMs = 0;
  let rawMs = 0;
  try {
    for (let from = 0; from < evs.length; from += BLOCK) {
      const to = Math.min(evs.length, from + BLOCK);
      const storeBlock = async (): Promise<void> => {
        const t0 = performance.now();
        for (let i = from; i < to; i++) await store.append(evs[i] as TransitionEvent);
        storeMs += performance.now() - t0;
      };
      if (storeFirst) await storeBlock();
      rawMs += raw.block(from, to);
      if (!storeFirst) await storeBlock();
    }
    // The store wrote exactly the rows the raw side inserted.
    let k = 0;
    for await (const r of store.readPersistedRows(evs[0]?.workflow_id ?? 'wf')) {
      if (r.next_head !== rows[k++]?.next_head) throw new Error('chain bench: the store and the raw side diverged');
    }
  } finally {
    raw.close();
    await store.close();
  }
  return { store: perSecond(evs.length, storeMs), raw: perSecond(evs.length, rawMs) };
}

/** Builds a VERIFY_EVENTS-row chain directly in the store's schema (generated data, one transaction). */
function seedChain(root: string, workflowId: string, n: number): void {
  const dir = join(root, workflowDirName(workflowId));
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, CHAIN_DB_FILE));
  for (const p of CHAIN_PRAGMAS) db.pragma(p);
  db.exec(CHECKPOINT_CHAIN_SCHEMA);
  db.exec(CHAIN_METADATA_SCHEMA);
  db.prepare('INSERT INTO chain_workflow (singleton, workflow_id) VALUES (1, ?)').run(workflowId);
  const insert = db.prepare('INSERT INTO checkpoint_chain (transition_id, prior_head, next_head, event_bytes, written_at) VALUES (?, ?, ?, ?, ?)');
  let head: ChainHead = GENESIS;
  db.transaction(() => {
    for (const e of benchEvents(workflowId, n)) {
      const p = prepareAppend(e);
      const next = nextHead(head, p.bytes);
      insert.run(e.transition_id, head, next, Buffer.from(p.bytes), '2026-01-01T00:00:00.000000Z');
      head = next;
    }
  })();
  db.close();
}

/** `npm run bench`: store vs bare SQLite appends (side by side in one run, alternating blocks of BLOCK) and verify throughput. */
export const benchmarks = [
  defineBench<AppendState>({
    id: 'chain.sqlite',
    results: { 'chain.sqlite.appends_per_s': 'appends/s', 'chain.sqlite.raw_appends_per_s': 'appends/s' },
    ratios: [{ id: 'chain.sqlite.store_to_raw', numerator: 'chain.sqlite.appends_per_s', denominator: 'chain.sqlite.raw_appends_per_s' }],
    runs: 5,
    setup: ({ size, tmpDir }) => ({ dir: tmpDir, n: APPENDS[size], run: 0 }),
    async run(state) {
      state.run += 1;
      const base = join(state.dir, `run-${state.run}`);
      mkdirSync(base, { recursive: true });
      const r = await sideBySide(base, benchEvents(`bench-${state.run}`, state.n), state.run % 2 === 0);
      return { 'chain.sqlite.appends_per_s': r.store, 'chain.sqlite.raw_appends_per_s': r.raw };
    },
  }),
  defineBench<{ readonly store: SqliteChainStore; readonly wf: string; readonly events: number }>({
    id: 'chain.verify',
    results: { 'chain.verify_events_per_s': 'events/s' },
    runs: 3,
    setup: ({ size, tmpDir }) => {
      const wf = 'bench-verify';
      seedChain(tmpDir, wf, VERIFY_EVENTS[size]);
      return { store: new SqliteChainStore(tmpDir), wf, events: VERIFY_EVENTS[size] };
    },
    async run({ store, wf, events }) {
      const t0 = performance.now();
      const v = await verify(store, wf);
      const ms = performance.now() - t0;
      if (v.status !== 'ok' || v.rows !== events) throw new Error(`verify bench: chain did not verify (${v.status}, ${v.rows})`);
      return { 'chain.verify_events_per_s': perSecond(v.rows, ms) };
    },
    teardown: ({ store }) => store.close(),
  }),
];
