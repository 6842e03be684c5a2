import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FaultOperation } from './fault-ops';

/**
 * Builds test/support/fault-fork.c into `<dir>/fault-fork.node` and returns its path, or the reason it cannot.
 *
 * The system C compiler (`$CC`, else `cc`) against the headers of the running
 * Node (`<prefix>/include/node`, installed with every Node distribution): no
 * node-gyp, no download. A machine without either gets the reason, and the
 * walk then starts every child from scratch (see fs-layer.int.test.ts).
 */
export function buildFaultFork(dir: string): { addon: string } | { reason: string } {
  const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  if (!fs.existsSync(path.join(include, 'node_api.h'))) return { reason: `no Node headers at ${include}` };
  const addon = path.join(dir, 'fault-fork.node');
  const cc = process.env['CC'] ?? 'cc';
  try {
    execFileSync(cc, ['-shared', '-fPIC', '-O1', `-I${include}`, '-DNODE_GYP_MODULE_NAME=fault_fork', '-o', addon, path.resolve('test/support/fault-fork.c')], { stdio: 'pipe' });
  } catch (e) {
    return { reason: `${cc} could not build fault-fork.c: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
  }
  return { addon };
}

/** How long one job (or the zygote's start and warm-up) may take: a child that hangs fails the walk naming its job. */
const JOB_TIMEOUT_MS = 120_000;

/** One job of a kill walk: the operation, its workspace, and the armed fault (`<n>:kill`) or none. */
export interface FaultJob {
  readonly op: FaultOperation;
  readonly dir: string;
  readonly spec?: string | undefined;
}

/** How a child ended: the signal that ended it (null when it exited) and what it printed. */
export interface ChildEnd {
  readonly signal: string | null;
  readonly stdout: string;
}

/** The environment of a walk's Node processes: NODE_EXTRA_CA_CERTS costs every Node start about 50 CPU-ms and they make no TLS call. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, NODE_PATH: path.resolve('node_modules') };
  delete env['NODE_EXTRA_CA_CERTS'];
  return env;
}

/**
 * A running fault-zygote (test/support/fault-zygote.ts): one loaded process that forks a real child per job.
 *
 * One job at a time: `run` resolves when the zygote has reaped the child.
 */
export class FaultZygote {
  private buf = '';
  private waiter: ((line: string) => void) | undefined;
  private lines: string[] = [];
  private exited: string | undefined;
  /** A job got no answer in time: `close` then kills the zygote (and so, by PR_SET_PDEATHSIG, its child). */
  private stuck = false;

  private constructor(private readonly proc: ChildProcess) {
    proc.stdout?.on('data', (c: Buffer) => {
      this.buf += c.toString();
      for (let end = this.buf.indexOf('\n'); end >= 0; end = this.buf.indexOf('\n')) {
        this.lines.push(this.buf.slice(0, end));
        this.buf = this.buf.slice(end + 1);
      }
      this.wake();
    });
    proc.on('exit', (code, signal) => {
      this.exited = `the fault zygote ended (code ${String(code)}, signal ${String(signal)})`;
      this.wake();
    });
  }

  /**
   * Starts the zygote from its bundle with the built addon, runs `warm` in it, and resolves when it is ready.
   *
   * `--single-threaded`: no V8 background thread may be mid-task when it forks
   * (a child has only the forking thread). `--max-semi-space-size=1`: a child
   * pays a page fault (a copy) for every page it first writes, and the young
   * generation is where it writes most; kept at 1 MB, it reuses the same pages
   * (measured: about 3,000 faults per forked revert instead of 4,300).
   */
  static async start(bundle: string, addon: string, warm: readonly FaultJob[]): Promise<FaultZygote> {
    const proc = spawn(process.execPath, ['--single-threaded', '--max-semi-space-size=1', bundle], {
      env: childEnv({ GF_FAULT_FORK: addon, GF_FAULT_WARM: JSON.stringify(warm) }),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const z = new FaultZygote(proc);
    const ready = await z.line(undefined);
    if (!ready.includes('"ready":true')) throw new Error(`the fault zygote did not start: ${ready}`);
    return z;
  }

  private wake(): void {
    const w = this.waiter;
    if (w === undefined) return;
    const line = this.lines.shift();
    if (line !== undefined) {
      this.waiter = undefined;
      w(line);
    } else if (this.exited !== undefined) {
      this.waiter = undefined;
      w(JSON.stringify({ exited: this.exited }));
    }
  }

  /** The next line the zygote prints; a line naming the failure when it prints none within `JOB_TIMEOUT_MS` (a child that hangs ends the walk with its job named). */
  private line(job: FaultJob | undefined): Promise<string> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        this.stuck = true;
        resolve(JSON.stringify({ exited: `no answer from the fault zygote within ${JOB_TIMEOUT_MS} ms (job ${JSON.stringify(job ?? 'start')})` }));
      }, JOB_TIMEOUT_MS);
      this.waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.wake();
    });
  }

  /** Runs one job in a forked child; resolves with how the child ended. */
  async run(job: FaultJob): Promise<ChildEnd> {
    if (this.exited !== undefined) throw new Error(this.exited);
    this.proc.stdin?.write(`${JSON.stringify(job)}\n`);
    const printed: string[] = [];
    for (;;) {
      const line = await this.line(job);
      const v = JSON.parse(line) as { done?: boolean; signal?: string | null; exited?: string };
      if (v.exited !== undefined) throw new Error(v.exited);
      if (v.done === true) return { signal: v.signal ?? null, stdout: printed.map((l) => `${l}\n`).join('') };
      printed.push(line);
    }
  }

  /** Ends the zygote (stdin closed: it exits after its current job) and resolves when it has exited. */
  async close(): Promise<void> {
    if (this.exited !== undefined) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.stdin?.end();
    if (this.stuck) this.proc.kill('SIGKILL');
    await exited;
  }
}
