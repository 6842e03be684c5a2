import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { isGfError } from '../../../../core/errors';
import { armIoFaultForTesting, ioCallsForTesting, ioFaultsInjectedForTesting } from '../../../../core/project/fs-layer';
import { encodeJournal } from '../../../../core/project/formats';
import { createProject, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { deriveGenerationUuid } from '../../../../core/project/layout';
import type { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import {
  CliFailure,
  FAULT_OPERATIONS,
  appendWalkTransition,
  buildLaterHistory,
  continueChainWalk,
  forgetProcessMemos,
  isChainOperation,
  openWalkStore,
  runOperation,
  visibleState,
} from '../../../support/fault-ops';
import type { FaultOperation, Visible } from '../../../support/fault-ops';
import { bundleProjectChild } from '../../../support/project-child-bundle';
import { treeDigest } from '../../../support/project-state';

// The I/O fault walk (issue 23), in the style of SQLite's I/O error tests:
// every filesystem call of the engine goes through one layer (fs-layer.ts);
// for each operation, N walks 1, 2, … to its last call, and the N-th call
// fails (ENOSPC, EIO, EACCES in turn) or kills the writer process (SIGKILL).
// For every N: the operation fully happened or not at all and `committed`
// says which; after the fault, the workspace opens (recovering), recovery
// run twice changes no byte, and the same operation then succeeds.

/**
 * Error mode walks every N of every operation (one process). Kill mode costs a
 * fresh process per N (about 0.8 CPU-seconds each here: Node's start, the
 * bundle's load, the cold operation, then the checks in this process), so the
 * default run, which must fit the suite's budget, kills at every N of the
 * operations listed in `KILL_EVERY_N` (the short ones: about 200 kills) and at an
 * even spread of at most `DEFAULT_KILL_POINTS` N, always including the first and
 * the last call, of the long ones (publish, revert, cleanup: 250 to 130 calls
 * each). `GF_IO_WALK=full` kills at every N of every operation (about 870 kills).
 */
const FULL = process.env['GF_IO_WALK'] === 'full';
const DEFAULT_KILL_POINTS = 8;
const KILL_EVERY_N: ReadonlySet<FaultOperation> = new Set<FaultOperation>(['checkpoint-create', 'checkpoint-delete', 'recovery', 'chain-append-first', 'chain-append-later']);
/** Kill-mode children running at once (the machine has two cores; this process checks each killed workspace meanwhile). */
const KILL_POOL = 2;

/** The N to walk: all of 1 … total, or (kill mode, long operations, by default) an even spread including 1 and total. */
function pointsOf(op: FaultOperation, total: number, mode: 'error' | 'kill'): number[] {
  const all = Array.from({ length: total }, (_, i) => i + 1);
  const k = DEFAULT_KILL_POINTS;
  if (FULL || mode === 'error' || KILL_EVERY_N.has(op) || total <= k) return all;
  const picked = new Set<number>();
  for (let i = 0; i < k; i++) picked.add(1 + Math.round((i * (total - 1)) / (k - 1)));
  return [...picked].sort((a, b) => a - b);
}
const ERRNOS = ['ENOSPC', 'EIO', 'EACCES'] as const;
let base: string;
let child: string;
/** Per operation: the prepared workspace, what a reader sees before and after the operation, and (chain operations) after the continuation. */
const fixtures = {} as Record<FaultOperation, { dir: string; before: Visible; after: Visible; continued: Visible | undefined }>;
const injected: Record<string, number> = {};

function fixtureOf(op: FaultOperation): string {
  return path.join(base, `fixture-${op}`);
}

async function buildFixtures(): Promise<void> {
  const demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  for (const op of FAULT_OPERATIONS) {
    const dir = fixtureOf(op);
    if (op === 'publish-first') await createProject<Table>(dir, { catalog: registryCatalog });
    else if (op === 'publish-later') await buildLaterHistory(await createProject<Table>(dir, { catalog: registryCatalog }));
    else fs.cpSync(demo, dir, { recursive: true });
    if (op === 'chain-append-later') {
      await appendWalkTransition(dir, 0);
      await appendWalkTransition(dir, 1);
    }
    if (op === 'recovery') {
      // What interrupted writes leave: a PREPARING journal with its private directory and a staged file, its temp, a CURRENT temp.
      const cur = (await openProject(dir, { catalog: registryCatalog })).current();
      const txn = '018f0f4e-7b8c-7000-8000-00000000d001';
      const gen = deriveGenerationUuid(txn);
      const bytes = encodeJournal({ transactionUuid: txn, state: 'PREPARING', parentGenerationUuid: cur?.generationUuid ?? null, generationUuid: gen, extension: null });
      fs.writeFileSync(path.join(dir, 'transactions', `${txn}.json`), bytes);
      fs.writeFileSync(path.join(dir, 'transactions', `tmp-${txn}.json`), bytes.subarray(0, 40));
      fs.writeFileSync(path.join(dir, `current-tmp-${txn}`), 'partial');
      fs.mkdirSync(path.join(dir, 'generations', gen));
      fs.writeFileSync(path.join(dir, 'generations', gen, 'staging-0'), 'staged');
    }
    const before = await visibleState(dir);
    const ref = path.join(base, `reference-${op}`);
    fs.cpSync(dir, ref, { recursive: true });
    await runOperation(op, ref);
    const after = await visibleState(ref);
    let continued: Visible | undefined;
    if (isChainOperation(op)) {
      const store = openWalkStore(ref);
      try {
        await continueChainWalk(op, ref, store);
      } finally {
        await store.close();
      }
      continued = await visibleState(ref);
    }
    fixtures[op] = { dir, before, after, continued };
  }
}

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-iofault-'));
  // The walk's operations never reach LangGraph or PostgreSQL (lazy in the CLI): left out, each killed child starts faster.
  child = await bundleProjectChild(base, 'fault-child', ['@langchain/*', 'langsmith', 'pg']);
  await buildFixtures();
}, 180_000);

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true });
  // The closing note's figure: faults injected per operation and mode.
  process.stdout.write(`io-fault walk, injected faults: ${JSON.stringify(injected)}\n`);
});

function committedOf(e: unknown): boolean | null | undefined {
  if (e instanceof CliFailure) return e.committed;
  if (isGfError(e)) return e.committed;
  return undefined;
}

/**
 * After a fault: opens (recovering), compares what a reader sees, recovery twice changes no byte, the operation then succeeds.
 *
 * `store` (error mode, chain operations): the store instance the fault hit. The
 * next operation is then its continuation on that same instance (see
 * `continueChainWalk`), which must verify; otherwise a fresh run of the operation.
 */
async function afterFault(op: FaultOperation, dir: string, expected: readonly Visible[], label: string, store?: SqliteChainStore): Promise<void> {
  const seen = await visibleState(dir);
  expect({ label, ok: expected.some((v) => JSON.stringify(v) === JSON.stringify(seen)) }).toEqual({ label, ok: true });
  const once = treeDigest(dir);
  await (await openProject(dir, { catalog: registryCatalog, recover: false })).recover();
  expect({ label, tree: treeDigest(dir) }).toEqual({ label, tree: once });
  const failed = (e: unknown): never => {
    throw new Error(`${label}: the next operation failed: ${e instanceof Error ? e.message : String(e)}`);
  };
  if (store !== undefined && isChainOperation(op)) {
    const verdict = await continueChainWalk(op, dir, store).catch(failed);
    await store.close();
    expect({ label, verdict }).toEqual({ label, verdict: { status: 'ok', rows: fixtures[op].continued?.chain.length } });
    expect({ label, state: await visibleState(dir) }).toEqual({ label, state: fixtures[op].continued });
    return;
  }
  await runOperation(op, dir).catch(failed);
  expect({ label, state: await visibleState(dir) }).toEqual({ label, state: fixtures[op].after });
}

/** The number of calls of one run of `op` in this process (the walk's length). */
async function callsOf(op: FaultOperation): Promise<number> {
  const dir = fs.mkdtempSync(path.join(base, `count-${op}-`));
  fs.cpSync(fixtureOf(op), dir, { recursive: true });
  forgetProcessMemos();
  armIoFaultForTesting(undefined);
  await runOperation(op, dir);
  return ioCallsForTesting();
}

function runChild(op: FaultOperation, dir: string, spec: string | undefined): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const args = spec === undefined ? [child, op, dir] : [child, op, dir, spec];
    const proc = spawn(process.execPath, args, { env: { ...process.env, NODE_PATH: path.resolve('node_modules') }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ signal, stdout }));
  });
}

describe('I/O fault walk: every N-th filesystem call of each operation fails or kills the writer', () => {
  for (const op of FAULT_OPERATIONS) {
    it(`${op}: error mode (ENOSPC, EIO, EACCES in turn), every N = 1 … last call`, { timeout: 1_800_000 }, async () => {
      const total = await callsOf(op);
      process.stdout.write(`io-fault walk ${op}: ${total} calls\n`);
      expect(total).toBeGreaterThan(op.startsWith('chain-') ? 2 : 5);
      const f = fixtures[op];
      let count = 0;
      for (const n of pointsOf(op, total, 'error')) {
        const errno = ERRNOS[n % ERRNOS.length] as string;
        const label = `${op} #${n} ${errno}`;
        const dir = path.join(base, `err-${op}-${n}`);
        fs.cpSync(f.dir, dir, { recursive: true });
        forgetProcessMemos();
        const store = isChainOperation(op) ? openWalkStore(dir) : undefined;
        const before = ioFaultsInjectedForTesting();
        armIoFaultForTesting(`${n}:${errno}`);
        let outcome: boolean | null | undefined = true;
        let why = '';
        try {
          await runOperation(op, dir, store);
        } catch (e) {
          outcome = committedOf(e);
          why = e instanceof Error ? e.message : String(e);
        } finally {
          armIoFaultForTesting(undefined);
        }
        // Every run makes the same calls (process memos forgotten): the N-th call is always reached.
        const fired = ioFaultsInjectedForTesting() - before;
        expect({ label, fired }).toEqual({ label, fired: 1 });
        count += fired;
        // `committed` is stated, never unknown, and decides what a reader sees.
        expect({ label, why, committedStated: typeof outcome === 'boolean' }).toEqual({ label, why, committedStated: true });
        await afterFault(op, dir, [outcome === true ? f.after : f.before], label, store);
        fs.rmSync(dir, { recursive: true, force: true });
      }
      injected[`${op}/error`] = count;
      injected[`${op}/calls`] = total;
    });

    it(`${op}: kill mode (SIGKILL at the N-th call), N = 1 … last call${FULL || KILL_EVERY_N.has(op) ? '' : ' (spread)'}`, { timeout: FULL ? 3_600_000 : 900_000 }, async () => {
      const probe = path.join(base, `probe-${op}`);
      fs.cpSync(fixtureOf(op), probe, { recursive: true });
      const r = await runChild(op, probe, undefined);
      const total = (JSON.parse(r.stdout) as { calls: number }).calls;
      process.stdout.write(`io-fault walk ${op} (child): ${total} calls\n`);
      // A fresh process makes exactly the calls this one makes (no memo, pinned clock): every N below is reached.
      expect({ op, calls: total }).toEqual({ op, calls: await callsOf(op) });
      const f = fixtures[op];
      const queue = pointsOf(op, total, 'kill');
      let count = 0;
      const worker = async (): Promise<void> => {
        for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
          const label = `${op} kill #${n}`;
          const dir = path.join(base, `kill-${op}-${n}`);
          fs.cpSync(f.dir, dir, { recursive: true });
          const res = await runChild(op, dir, `${n}:kill`);
          expect({ label, signal: res.signal, stdout: res.stdout }).toEqual({ label, signal: 'SIGKILL', stdout: '' });
          count++;
          // Killed: the process could say nothing, so a reader sees exactly one of the two states.
          await afterFault(op, dir, [f.before, f.after], label);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      };
      await Promise.all(Array.from({ length: KILL_POOL }, worker));
      injected[`${op}/kill`] = count;
    });
  }
});
