// The operations the I/O fault walk interrupts, shared by the in-process walk
// (error mode) and the child process (kill mode), plus what a reader sees.
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { buildTransitionEvent } from '../../core/chain/event';
import { verify } from '../../core/chain/verify';
import type { LedgerStateKind, WorkflowId } from '../../core/chain/event';
import { SqliteChainStore } from '../../core/chain/sqlite/sqlite-store';
import { main } from '../../core/cli/main';
import { openCheckpointedProject } from '../../core/checkpoints/checkpoints';
import { CheckpointRegistryStore } from '../../core/checkpoints/registry-store';
import { openProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import type { Project } from '../../core/project/index';
import { LATER_HISTORY, scenarioRequest } from './project-scenarios';

/** Operation names of the walk. */
export const FAULT_OPERATIONS = [
  'publish-first',
  'publish-later',
  'revert',
  'checkpoint-create',
  'checkpoint-delete',
  'cleanup',
  'recovery',
  'chain-append-first',
  'chain-append-later',
] as const;
/** One operation. */
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];

const KEYS: Partial<Record<FaultOperation, string>> = {
  revert: '018f0f4e-7b8c-7000-8000-00000000c001',
  'checkpoint-create': '018f0f4e-7b8c-7000-8000-00000000c002',
  'checkpoint-delete': '018f0f4e-7b8c-7000-8000-00000000c003',
};

/** Thrown by a CLI operation that exited non-zero: carries the printed code and `committed`. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    readonly committed: boolean | null,
    readonly text: string,
  ) {
    super(text);
  }
}

async function cli(argv: string[]): Promise<void> {
  let err = '';
  const code = await main(argv, { stdout: () => undefined, stderr: (c) => void (err += c) });
  if (code === 0) return;
  const m = /(GF_[A-Z_]+|[a-z_]+\.[a-z_.]+)/.exec(err);
  const c = /committed: (true|false)/.exec(err);
  throw new CliFailure(m?.[1] ?? 'unknown', c === null ? null : c[1] === 'true', err.trim());
}

/** The walk's workflow: its ledger is `<dir>/chain/…` (SQLite), beside the demo's own workflows. */
export const WALK_WORKFLOW = 'fault-walk' as WorkflowId;
/** The walk's transitions, in chain order, with fixed ids (so a rerun finds what a committed run appended). */
const WALK_STEPS: readonly (readonly [string, LedgerStateKind, LedgerStateKind])[] = [
  ['01J0000000000000000000FW01', 'needs_plan', 'plan_ready'],
  ['01J0000000000000000000FW02', 'plan_ready', 'patch_applied'],
  ['01J0000000000000000000FW03', 'patch_applied', 'awaiting_human_review'],
  ['01J0000000000000000000FW04', 'awaiting_human_review', 'completed'],
];

/** The walk transition a chain operation appends (the first append creates the ledger; the later one finds two rows). */
export const CHAIN_STEP: Readonly<Record<'chain-append-first' | 'chain-append-later', number>> = { 'chain-append-first': 0, 'chain-append-later': 2 };

/** True for the walk's chain operations. */
export function isChainOperation(op: FaultOperation): op is 'chain-append-first' | 'chain-append-later' {
  return op === 'chain-append-first' || op === 'chain-append-later';
}

/** The walk's chain store over `<dir>/chain`, with a fixed clock (a rerun writes the same bytes). */
export function openWalkStore(dir: string): SqliteChainStore {
  return new SqliteChainStore(path.join(dir, 'chain'), { clock: () => new Date(Date.UTC(2026, 0, 1)) });
}

/**
 * Appends the walk workflow's transition number `index` to `<dir>/chain` unless the ledger already holds it.
 *
 * As a resuming workflow does: it reads its ledger first, so an append that a
 * killed process committed is found and not repeated (the store refuses a
 * duplicate transition id).
 */
export async function appendWalkTransition(dir: string, index: number, shared?: SqliteChainStore): Promise<void> {
  const step = WALK_STEPS[index];
  if (step === undefined) throw new Error(`no walk transition ${index}`);
  const store = shared ?? openWalkStore(dir);
  try {
    for await (const e of store.readAllForWorkflow(WALK_WORKFLOW)) if (e.transition_id === step[0]) return;
    const event = buildTransitionEvent(
      {
        workflow_id: WALK_WORKFLOW,
        prior_state_id: step[1],
        next_state_id: step[2],
        triggering_outcome: { kind: 'fault-walk', evidence_digest: null, detail: null },
        occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
      },
      { newId: () => step[0] },
    );
    await store.append(event);
  } finally {
    if (shared === undefined) await store.close();
  }
}

/**
 * After an injected fault, the SAME store instance goes on (as a long-lived writer would).
 *
 * It appends the operation's transition (unless the faulted append committed it)
 * and the next one, and its chain must verify with exactly those rows. A store
 * whose append left its transaction open or kept a head it did not commit fails
 * here (a fresh store per append would hide both: closing the connection rolls back).
 */
export async function continueChainWalk(op: 'chain-append-first' | 'chain-append-later', dir: string, store: SqliteChainStore): Promise<{ status: string; rows: number }> {
  const index = CHAIN_STEP[op];
  await appendWalkTransition(dir, index, store);
  await appendWalkTransition(dir, index + 1, store);
  const v = await verify(store, WALK_WORKFLOW);
  return { status: v.status, rows: v.rows };
}

/** The engine clock's instant during a walked revert (ms since the epoch). */
const WALK_NOW_MS = Date.UTC(2030, 0, 1);
const realNow = Date.now;
let pinned = 0;

/**
 * Runs `fn` with `Date.now` (the engine's microsecond clock, `systemMicros`) pinned to `WALK_NOW_MS`.
 *
 * A revert stores a restoration record that carries its instant, as a
 * content-addressed object: with a live clock its SHA-256, hence its fan-out
 * directory `objects/sha256/<2 hex>`, differs per run, and when that directory
 * already exists the run skips its mkdir and the parent fsync (two calls fewer:
 * 251 instead of 253 measured). And an operation that verifies objects takes
 * the racy-clean path (the whole file read into memory) for an object whose
 * ctime is less than a second before `Date.now()`: a walk's workspace is
 * copied just before its run, so on a loaded machine a child that starts more
 * than a second after the copy took the other path (77 calls instead of 88 for
 * checkpoint-create, one fresh-clone run in five). Pinned in the future, every
 * run, in this process or a child, makes the same calls.
 */
async function withWalkClock<T>(fn: () => Promise<T>): Promise<T> {
  // Reentrant: the kill walk checks two workspaces at once in one process.
  if (pinned++ === 0) Date.now = () => WALK_NOW_MS;
  try {
    return await fn();
  } finally {
    if (--pinned === 0) Date.now = realNow;
  }
}

/**
 * Runs one operation on `dir` (opened, recovered first, exactly as a user's command would).
 *
 * Throws what the operation throws (`GfError` with `committed`, or `CliFailure`).
 * A chain operation appends through `chainStore` when given (left open), else through a store of its own.
 */
/**
 * Runs one operation of the walk on `dir`.
 *
 * Each run opens its own project (or session), and the memos that let a warm
 * run skip reads (verified objects, passed validations) belong to that open
 * project: a run in the test process makes the same calls as one in a fresh
 * child, and faults the same reads.
 */
export async function runOperation(op: FaultOperation, dir: string, chainStore?: SqliteChainStore): Promise<void> {
  // The chain store has its own fixed clock; every workspace operation runs under the walk's.
  return isChainOperation(op) ? runUnpinned(op, dir, chainStore) : withWalkClock(() => runUnpinned(op, dir, chainStore));
}

async function runUnpinned(op: FaultOperation, dir: string, chainStore?: SqliteChainStore): Promise<void> {
  switch (op) {
    case 'publish-first':
    case 'publish-later': {
      const p = await openProject<Table>(dir, { catalog: registryCatalog });
      // As `gf publish` does: the parent is read under the writer lock. A fresh transaction each run: the
      // operation after a committed fault is a new publication of the same content.
      const scenario = op === 'publish-first' ? 'first' : 'later';
      await p.withWriter((w) => w.publishAsync({ ...scenarioRequest(scenario, w.current()?.generationUuid ?? null), transactionUuid: undefined }));
      return;
    }
    case 'revert':
      return cli(['checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'walk', '--idempotency-key', KEYS.revert as string]);
    case 'checkpoint-create':
      return cli(['checkpoint', 'create', 'Walked', '--project', dir, '--description', 'fault walk', '--idempotency-key', KEYS['checkpoint-create'] as string]);
    case 'checkpoint-delete':
      return cli(['checkpoint', 'delete', 'Graph imported', '--project', dir, '--idempotency-key', KEYS['checkpoint-delete'] as string]);
    case 'cleanup': {
      const p = await openCheckpointedProject(dir, { retainAncestors: 0 });
      await p.cleanup();
      return;
    }
    case 'recovery': {
      const p = await openProject<Table>(dir, { catalog: registryCatalog, recover: false });
      await p.recover();
      return;
    }
    // The SQLite chain store's own I/O: the first append (creating the ledger) and a later one.
    case 'chain-append-first':
    case 'chain-append-later':
      return appendWalkTransition(dir, CHAIN_STEP[op], chainStore);
  }
}

/** Builds the "later" fixture's history on a fresh project (the publish-later walk's starting point). */
export async function buildLaterHistory(p: Project<Table>): Promise<void> {
  for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
}

/** What a reader sees: CURRENT's participants (verified objects), the active checkpoint names and the walk workflow's chain. */
export interface Visible {
  readonly participants: readonly string[];
  readonly checkpoints: readonly string[];
  /** `<sequence>:<transition id>:<next head>` of every row of the walk workflow's ledger. */
  readonly chain: readonly string[];
}

/** Opens `dir` (recovering), pins CURRENT, verifies every participant object, reads the registry. */
export async function visibleState(dir: string): Promise<Visible> {
  const p = await openProject<Table>(dir, { catalog: registryCatalog });
  let participants: string[] = [];
  if (p.state() === 'initialized') {
    const lease = p.lease();
    try {
      lease.verifyParticipants();
      // A revert's restoration record carries its own instant: compared by presence, every other family by content.
      participants = lease.manifest.participants.map((x) =>
        x.recordFamilyId === 'restoration_transition' ? `${x.capabilityId}/${x.recordFamilyId}` : `${x.capabilityId}/${x.recordFamilyId}=${x.contentSha256}`,
      );
    } finally {
      lease.release();
    }
  }
  const doc = new CheckpointRegistryStore(p.root).read().doc;
  const checkpoints = doc === null ? [] : doc.active.map((r) => r.name).sort();
  const chain: string[] = [];
  const store = new SqliteChainStore(path.join(dir, 'chain'));
  try {
    for await (const r of store.readPersistedRows(WALK_WORKFLOW)) chain.push(`${r.sequence}:${r.transition_id}:${r.next_head}`);
  } finally {
    await store.close();
  }
  return { participants, checkpoints, chain };
}

/**
 * Copies the workspace tree `src` to the new directory `dst` (directory modes kept; regular files and directories only).
 *
 * The walk copies a prepared workspace for each of its ~1,800 runs: this is a
 * third of `fs.cpSync`'s CPU (no per-entry option checks and stats). Anything
 * else in a workspace (a link, a FIFO) is refused, never silently skipped.
 */
export function copyWorkspace(src: string, dst: string): void {
  fs.mkdirSync(dst);
  fs.chmodSync(dst, fs.statSync(src).mode & 0o7777);
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isDirectory()) copyWorkspace(from, to);
    else if (e.isFile()) fs.copyFileSync(from, to);
    else throw new Error(`copyWorkspace: ${from} is neither a regular file nor a directory`);
  }
}
