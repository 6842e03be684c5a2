import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { buildTransitionEvent, type TransitionEvent } from '../core/chain/event';
import { GENESIS, nextHead, type ChainHead } from '../core/chain/head';
import type { PersistedRow } from '../core/chain/port';
import { CHAIN_DB_FILE, CHAIN_METADATA_SCHEMA, CHAIN_PRAGMAS, CHECKPOINT_CHAIN_SCHEMA, workflowDirName } from '../core/chain/sqlite/sqlite-schema';
import { SqliteChainStore } from '../core/chain/sqlite/sqlite-store';
import { prepareAppend } from '../core/chain/store-support';
import { verify } from '../core/chain/verify';
import { defineBench, perSecond } from './harness';
import type { BenchSize } from './harness';

const APPENDS: Readonly<Record<BenchSize, number>> = { small: 300, large: 3_000 };
const VERIFY_EVENTS = 100_000;

function events(workflowId: string, n: number): TransitionEvent[] {
  const id = monotonicFactory();
  return Array.from({ length: n }, (_, i) =>
    buildTransitionEvent(
      {
        workflow_id: workflowId,
        prior_state_id: 'plan_ready',
        next_state_id: 'patch_applied',
        triggering_outcome: { kind: 'patch_applied', evidence_digest: `sha256:${i.toString(16).padStart(64, '0')}`, detail: `bench step ${i}` },
        attempt: i % 3,
        occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
      },
      { newId: (t) => id(t) },
    ),
  );
}

interface AppendState {
  readonly dir: string;
  readonly n: number;
  run: number;
}

/** Raw baseline: the same rows with bare better-sqlite3, same pragmas, BEGIN IMMEDIATE + INSERT + COMMIT each. */
function rawAppend(file: string, rows: readonly PersistedRow[]): number {
  const db = new Database(file);
  for (const p of CHAIN_PRAGMAS) db.pragma(p);
  db.exec(CHECKPOINT_CHAIN_SCHEMA);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const insert = db.prepare('INSERT INTO checkpoint_chain (transition_id, prior_head, next_head, event_bytes, written_at) VALUES (?, ?, ?, ?, ?)');
  const buffers = rows.map((r) => Buffer.from(r.event_bytes));
  const t0 = performance.now();
  rows.forEach((r, i) => {
    begin.run();
    insert.run(r.transition_id, r.prior_head, r.next_head, buffers[i], r.written_at);
    commit.run();
  });
  const ms = performance.now() - t0;
  db.close();
  return perSecond(rows.length, ms);
}

async function storeAppend(root: string, evs: readonly TransitionEvent[]): Promise<{ perS: number; rows: PersistedRow[] }> {
  const store = new SqliteChainStore(root, { clock: () => new Date(Date.UTC(2026, 0, 1)) });
  const wf = evs[0]?.workflow_id ?? 'wf';
  store.connectionPragmas(wf); // open outside the timed loop, like the raw baseline
  const t0 = performance.now();
  for (const e of evs) await store.append(e);
  const ms = performance.now() - t0;
  const rows: PersistedRow[] = [];
  for await (const r of store.readPersistedRows(wf)) rows.push(r);
  await store.close();
  return { perS: perSecond(evs.length, ms), rows };
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
    for (const e of events(workflowId, n)) {
      const p = prepareAppend(e);
      const next = nextHead(head, p.bytes);
      insert.run(e.transition_id, head, next, Buffer.from(p.bytes), '2026-01-01T00:00:00.000000Z');
      head = next;
    }
  })();
  db.close();
}

/** `npm run bench`: store vs bare SQLite appends (side by side, one run) and verify throughput. */
export const benchmarks = [
  defineBench<AppendState>({
    id: 'chain.sqlite',
    results: { 'chain.sqlite.appends_per_s': 'appends/s', 'chain.sqlite.raw_appends_per_s': 'appends/s' },
    ratios: [{ id: 'chain.sqlite.store_to_raw', numerator: 'chain.sqlite.appends_per_s', denominator: 'chain.sqlite.raw_appends_per_s' }],
    runs: 5,
    setup: ({ size, tmpDir }) => ({ dir: tmpDir, n: APPENDS[size], run: 0 }),
    async run(state) {
      state.run += 1;
      const wf = `bench-${state.run}`;
      const evs = events(wf, state.n);
      const base = join(state.dir, `run-${state.run}`);
      mkdirSync(base, { recursive: true });
      // Alternate the order so neither side always runs on a warmer disk.
      if (state.run % 2 === 0) {
        const s = await storeAppend(join(base, 'store'), evs);
        const raw = rawAppend(join(base, 'raw.sqlite'), s.rows);
        return { 'chain.sqlite.appends_per_s': s.perS, 'chain.sqlite.raw_appends_per_s': raw };
      }
      // The raw side needs the same row bytes: compute them once through the store on a scratch root.
      const scratch = await storeAppend(join(base, 'scratch'), evs);
      const raw = rawAppend(join(base, 'raw.sqlite'), scratch.rows);
      const s = await storeAppend(join(base, 'store'), evs);
      return { 'chain.sqlite.appends_per_s': s.perS, 'chain.sqlite.raw_appends_per_s': raw };
    },
  }),
  defineBench<{ readonly store: SqliteChainStore; readonly wf: string }>({
    id: 'chain.verify',
    results: { 'chain.verify_events_per_s': 'events/s' },
    runs: 3,
    setup: ({ tmpDir }) => {
      const wf = 'bench-verify';
      seedChain(tmpDir, wf, VERIFY_EVENTS);
      return { store: new SqliteChainStore(tmpDir), wf };
    },
    async run({ store, wf }) {
      const t0 = performance.now();
      const v = await verify(store, wf);
      const ms = performance.now() - t0;
      if (v.status !== 'ok' || v.rows !== VERIFY_EVENTS) throw new Error(`verify bench: chain did not verify (${v.status}, ${v.rows})`);
      return { 'chain.verify_events_per_s': perSecond(v.rows, ms) };
    },
    teardown: ({ store }) => store.close(),
  }),
];
