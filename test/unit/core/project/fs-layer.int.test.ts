import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
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
  copyWorkspace,
  isChainOperation,
  openWalkStore,
  runOperation,
  visibleState,
} from '../../../support/fault-ops';
import type { FaultOperation, Visible } from '../../../support/fault-ops';
import { FaultZygote, buildFaultFork, childEnv } from '../../../support/fault-fork';
import type { ChildEnd, FaultJob } from '../../../support/fault-fork';
import { bundleProjectChild, writeCodeCacheLoader } from '../../../support/project-child-bundle';
import { treeDigest } from '../../../support/project-state';

// The I/O fault walk (issue 23), in the style of SQLite's I/O error tests:
// every filesystem call of the engine goes through one layer (fs-layer.ts);
// for each operation, N walks 1, 2, … to its last call, and the N-th call
// fails (ENOSPC, EIO, EACCES in turn) or kills the writer process (SIGKILL).
// For every N: the operation fully happened or not at all and `committed`
// says which; after the fault, the workspace opens (recovering), recovery
// run twice changes no byte, and the same operation then succeeds.

/**
 * Error mode walks every N of every operation (one process). Kill mode needs a
 * process per N, about 920 for all operations: each is a real child that the
 * fault layer ends with SIGKILL. Starting Node and loading the engine for each
 * cost about 0.55 CPU-seconds, several times the operation itself, so the
 * children are forked (fork(2), test/support/fault-fork.c, built here with the
 * system C compiler) from a zygote (test/support/fault-zygote.ts) that loaded
 * the engine once and ran each operation once to compile it: a child costs
 * the fork and its share of the operation. `KILL_POOL` zygotes run at once
 * while this process checks each killed workspace. The workspaces live on
 * tmpfs when there is one (a process kill loses nothing the page cache holds,
 * on any file system: the outcomes are the same, the fsyncs cost microseconds).
 * So kill mode walks every N of every operation by default.
 *
 * Without a C compiler or Node's headers (or with GF_IO_WALK_CHILDREN=exec),
 * each child is started from scratch instead (test/support/fault-child.ts,
 * started ahead, compiling the bundle from a V8 code cache): that costs about
 * three times as much, so then the long operations (publish, revert, cleanup)
 * are killed at every `KILL_STRIDE`-th N from a rotating offset (the day
 * number modulo the stride, printed; `GF_IO_WALK_OFFSET` pins it), always with
 * the first and the last call, unless GF_IO_WALK=full.
 */
const FULL = process.env['GF_IO_WALK'] === 'full';
const FORCE_EXEC = process.env['GF_IO_WALK_CHILDREN'] === 'exec';
const KILL_STRIDE = 6;
const OFFSET_ENV = process.env['GF_IO_WALK_OFFSET'];
if (OFFSET_ENV !== undefined && !/^[0-9]+$/.test(OFFSET_ENV)) throw new Error(`GF_IO_WALK_OFFSET must be a whole number (0–${KILL_STRIDE - 1}), not ${JSON.stringify(OFFSET_ENV)}`);
const KILL_OFFSET = Number(OFFSET_ENV ?? Math.floor(Date.now() / 86_400_000)) % KILL_STRIDE;
const KILL_EVERY_N: ReadonlySet<FaultOperation> = new Set<FaultOperation>(['checkpoint-create', 'checkpoint-delete', 'recovery', 'chain-append-first', 'chain-append-later']);
/** Kill-mode children running at once (the machine has two cores; this process checks each killed workspace meanwhile). */
const KILL_POOL = 2;
/** Children started from scratch ahead (the fallback), loaded and waiting for a job. */
const IDLE = 2;

/** The N to walk: all of 1 … total, or (kill mode, children started from scratch, long operations) 1, total and every N ≡ `KILL_OFFSET` (mod `KILL_STRIDE`). */
function pointsOf(op: FaultOperation, total: number, mode: 'error' | 'kill'): number[] {
  const all = Array.from({ length: total }, (_, i) => i + 1);
  if (FULL || mode === 'error' || zygotes.length > 0 || KILL_EVERY_N.has(op)) return all;
  return all.filter((n) => n === 1 || n === total || n % KILL_STRIDE === KILL_OFFSET);
}
const ERRNOS = ['ENOSPC', 'EIO', 'EACCES'] as const;
let base: string;
/** The zygotes that fork the kill walk's children (none: the fallback, children started from scratch). */
const zygotes: FaultZygote[] = [];
/** Why kill mode starts children from scratch (undefined: it forks them). */
let slowPath: string | undefined;
/** The fallback's code-cache loader of the fault child (see `writeCodeCacheLoader`). */
let loader: string;
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

/** tmpfs (`/dev/shm`) when writable, else the temporary directory. */
function scratchRoot(): string {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch (_e) {
    return os.tmpdir();
  }
}

/** The walk's operations never reach LangGraph or PostgreSQL (lazy in the CLI): left out of the children's bundles. */
const NOT_BUNDLED = ['@langchain/*', 'langsmith', 'pg'];

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(scratchRoot(), 'gf-iofault-'));
  await buildFixtures();
  const built = FORCE_EXEC ? { reason: 'GF_IO_WALK_CHILDREN=exec' } : buildFaultFork(base);
  if ('addon' in built) {
    const bundle = await bundleProjectChild(base, 'fault-zygote', NOT_BUNDLED);
    // Each zygote runs every operation once on a copy of its fixture (compiled once, inherited by every child).
    const started = Array.from({ length: KILL_POOL }, (_, i) => {
      const warm: FaultJob[] = FAULT_OPERATIONS.map((op) => {
        const dir = path.join(base, `warm-${i}-${op}`);
        copyWorkspace(fixtureOf(op), dir);
        return { op, dir };
      });
      return FaultZygote.start(bundle, built.addon, warm);
    });
    zygotes.push(...(await Promise.all(started)));
    return;
  }
  slowPath = built.reason;
  process.stdout.write(`io-fault walk: children started from scratch (${slowPath})\n`);
  loader = writeCodeCacheLoader(await bundleProjectChild(base, 'fault-child', NOT_BUNDLED));
  // The code cache: one full revert (the operation that reaches the most code), compiled functions kept.
  const warm = path.join(base, 'code-cache-run');
  fs.cpSync(fixtureOf('revert'), warm, { recursive: true });
  const r = await runJob(startChild({ GF_CODE_CACHE: 'make' }), { op: 'revert', dir: warm });
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
}, 180_000);

afterAll(async () => {
  await Promise.all(zygotes.splice(0).map((z) => z.close()));
  for (const c of idle.splice(0)) c.kill('SIGKILL');
  fs.rmSync(base, { recursive: true, force: true });
  // The closing note's figure: faults injected per operation and mode.
  process.stdout.write(`io-fault walk, injected faults: ${JSON.stringify(injected)}\n`);
  if (slowPath === undefined) process.stdout.write('io-fault walk: kill mode forked every child from a loaded zygote, every N of every operation\n');
  else if (!FULL) process.stdout.write(`io-fault walk, long operations killed at every ${KILL_STRIDE}th N from ${KILL_OFFSET} (GF_IO_WALK_OFFSET=${KILL_OFFSET} repeats it)\n`);
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
  const dir = path.join(fs.mkdtempSync(path.join(base, `count-${op}-`)), 'workspace');
  copyWorkspace(fixtureOf(op), dir);
  armIoFaultForTesting(undefined);
  await runOperation(op, dir);
  return ioCallsForTesting();
}

/** Children started ahead (loaded, waiting on stdin for a job). */
const idle: ChildProcess[] = [];

function startChild(extraEnv: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [loader], { env: childEnv(extraEnv), stdio: ['pipe', 'pipe', 'inherit'] });
}

/** Gives `proc` its job and resolves when it ends (the signal that ended it, and what it printed). */
function runJob(proc: ChildProcess, job: FaultJob): Promise<ChildEnd> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    proc.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ signal, stdout }));
    proc.stdin?.end(`${JSON.stringify(job)}\n`);
  });
}

/** Runs a job in a child of kill worker `worker`: forked by its zygote, or (the fallback) one started ahead, starting the next ahead. */
function runChild(worker: number, job: FaultJob): Promise<ChildEnd> {
  const zygote = zygotes[worker];
  if (zygote !== undefined) return zygote.run(job);
  const proc = idle.shift() ?? startChild();
  while (idle.length < IDLE) idle.push(startChild());
  return runJob(proc, job);
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
        copyWorkspace(f.dir, dir);
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

    it(`${op}: kill mode (SIGKILL at the N-th call of a real child), N = 1 … last call`, { timeout: FULL ? 3_600_000 : 900_000 }, async () => {
      const probe = path.join(base, `probe-${op}`);
      copyWorkspace(fixtureOf(op), probe);
      const r = await runChild(0, { op, dir: probe });
      const total = (JSON.parse(r.stdout) as { calls: number }).calls;
      process.stdout.write(`io-fault walk ${op} (child): ${total} calls\n`);
      // A fresh process makes exactly the calls this one makes (no memo, pinned clock): every N below is reached.
      expect({ op, calls: total }).toEqual({ op, calls: await callsOf(op) });
      const f = fixtures[op];
      const queue = pointsOf(op, total, 'kill');
      if (queue.length < total) process.stdout.write(`io-fault walk ${op} (child): killed at ${queue.length} of ${total} N (every ${KILL_STRIDE}th from ${KILL_OFFSET}, first and last: ${slowPath})\n`);
      let count = 0;
      const worker = async (w: number): Promise<void> => {
        for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
          const label = `${op} kill #${n}`;
          const dir = path.join(base, `kill-${op}-${n}`);
          copyWorkspace(f.dir, dir);
          const res = await runChild(w, { op, dir, spec: `${n}:kill` });
          expect({ label, signal: res.signal, stdout: res.stdout }).toEqual({ label, signal: 'SIGKILL', stdout: '' });
          count++;
          // Killed: the process could say nothing, so a reader sees exactly one of the two states.
          await afterFault(op, dir, [f.before, f.after], label);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      };
      await Promise.all(Array.from({ length: KILL_POOL }, (_, w) => worker(w)));
      injected[`${op}/kill`] = count;
    });
  }
});
