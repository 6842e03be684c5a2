// The I/O fault walk's writers, forked from one loaded process (a zygote).
//
// Starting Node and loading the engine costs several times what one killed
// operation does, and kill mode needs one process per N. So this process
// loads once (the bundle, better-sqlite3, Arrow, the chain hash's WASM), then
// reads jobs from stdin, one JSON line each, {"op", "dir", "spec"?}, and for
// each forks a real child (fork(2), test/support/fault-fork.c) that arms the
// fault and runs the operation: the fault layer ends that child with SIGKILL at
// the N-th call, as it would end a child started from scratch. The child
// prints one JSON line when it survives ({"ok", "calls", "error"?}); then this
// process reaps it and prints {"done": true, "code", "signal"}.
//
// Run with `--single-threaded` (no V8 background thread may be mid-task at a
// fork) and GF_FAULT_FORK=<fault-fork.node>.
import fs from 'node:fs';
import { constants } from 'node:os';
import { toWireError } from '../../core/errors';
import { armIoFaultForTesting, ioCallsForTesting } from '../../core/project/fs-layer';
import { runOperation } from './fault-ops';
import type { FaultOperation } from './fault-ops';

interface Job {
  readonly op: FaultOperation;
  readonly dir: string;
  readonly spec?: string;
}

interface ForkAddon {
  fork(): number;
  waitpid(pid: number): [number, number];
  getpid(): number;
  exit(code: number): never;
}

const addonPath = process.env['GF_FAULT_FORK'];
if (addonPath === undefined) throw new Error('GF_FAULT_FORK must name the built fault-fork.node');
// A native addon is loaded through require (the bundle is CommonJS).
const addon = require(addonPath) as ForkAddon; // eslint-disable-line @typescript-eslint/no-require-imports

const SIGNALS = new Map<number, string>(Object.entries(constants.signals).map(([name, n]) => [n, name]));

function out(v: unknown): void {
  fs.writeSync(1, `${JSON.stringify(v)}\n`);
}

let pending = '';
/** The next line of stdin (blocking: this process has nothing else to do), or undefined at its end. */
function nextLine(): string | undefined {
  const buf = Buffer.alloc(65_536);
  for (;;) {
    const end = pending.indexOf('\n');
    if (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      return line;
    }
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      throw e;
    }
    if (n === 0) return undefined;
    pending += buf.toString('utf8', 0, n);
  }
}

/** Prints the child's one line, then ends it through `_exit` whatever happens (a Node exit would wait forever for the zygote's threads). */
function finish(v: unknown): void {
  try {
    out(v);
  } finally {
    addon.exit(0);
  }
}

/** In the forked child: this process's own pid (Node's `process.pid` is the zygote's, set at start-up), then the job. */
function child(job: Job): void {
  Object.defineProperty(process, 'pid', { value: addon.getpid(), enumerable: true, configurable: true });
  process.on('uncaughtException', () => addon.exit(70));
  process.on('unhandledRejection', () => addon.exit(70));
  armIoFaultForTesting(job.spec); // counting starts here: the same calls the in-process walk counts
  runOperation(job.op, job.dir).then(
    () => finish({ ok: true, calls: ioCallsForTesting() }),
    (e: unknown) => finish({ ok: false, calls: ioCallsForTesting(), error: toWireError(e) }),
  );
}

/** Forks one child per job until stdin ends; returns in a child (which then runs its job on the event loop). */
function serve(): void {
  for (let line = nextLine(); line !== undefined; line = nextLine()) {
    if (line.trim() === '') continue;
    const job = JSON.parse(line) as Job;
    const pid = addon.fork();
    if (pid === 0) {
      child(job);
      return;
    }
    const [code, signal] = addon.waitpid(pid);
    out({ done: true, code: code < 0 ? null : code, signal: signal === 0 ? null : (SIGNALS.get(signal) ?? signal) });
  }
}

/**
 * Runs each job of GF_FAULT_WARM (a JSON list, on workspaces of its own) here, once, before forking.
 *
 * A function V8 compiles in a child is lost with it: compiled once in the zygote,
 * every child inherits it. What the jobs remembered went with the projects they opened.
 */
async function warm(): Promise<void> {
  const jobs = JSON.parse(process.env['GF_FAULT_WARM'] ?? '[]') as Job[];
  for (const j of jobs) {
    armIoFaultForTesting(undefined);
    await runOperation(j.op, j.dir);
  }
  out({ ready: true });
}

warm().then(serve, (e: unknown) => {
  out({ ready: false, error: toWireError(e) });
  process.exit(1);
});
