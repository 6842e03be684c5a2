// The one thin layer every engine filesystem call goes through, with the test-only
// I/O fault injection.
import fs from 'node:fs';

/**
 * The one thin layer every engine filesystem call goes through (open, write,
 * fsync, rename, unlink, rmdir, mkdir, readdir, truncate).
 *
 * In production it is `node:fs` plus one counter increment. In tests it can
 * make the N-th call fail with ENOSPC, EIO or EACCES, or end the process at it
 * (SIGKILL to itself, as if the machine stopped), in the style of SQLite's I/O
 * error tests: walking N = 1, 2, … to the last call of an operation reaches
 * every window between the named failpoints, and what the operating system
 * does there (a full disk, a failing device, a revoked permission).
 */

/** Environment variable that arms one fault in a child process: `<n>:<ENOSPC|EIO|EACCES|kill>[:<call kind>]`. */
export const IO_FAULT_ENV = 'GF_IO_FAULT';

/** The fault kinds the layer can inject. */
export const IO_FAULT_MODES = ['ENOSPC', 'EIO', 'EACCES', 'kill'] as const;
/** One fault kind. */
export type IoFaultMode = (typeof IO_FAULT_MODES)[number];

/**
 * The call kinds the layer counts (one per filesystem call).
 *
 * `sqlite` is the boundary of SQLite's own file I/O, which runs in native
 * code and cannot go through this layer: the chain store counts one call
 * before each native step that reads or writes its ledger (open/create, the
 * journal-mode pragmas, schema creation, BEGIN IMMEDIATE, the insert, COMMIT).
 * A fault there is the step failing as SQLite reports a full disk or an I/O
 * error (nothing of the step done), or the process dying just before it.
 * `truncate` cuts a torn lineage-log line (GENERATIONS.md "Lineage log").
 */
export type IoCall = 'open' | 'write' | 'fsync' | 'rename' | 'unlink' | 'rmdir' | 'mkdir' | 'readdir' | 'sqlite' | 'truncate';

interface Armed {
  readonly nth: number;
  readonly mode: IoFaultMode;
  /** Count only this call kind (all kinds when undefined). */
  readonly call: IoCall | undefined;
}

function parse(spec: string | undefined): Armed | undefined {
  if (spec === undefined || spec === '') return undefined;
  const m = /^([1-9][0-9]{0,8}):(ENOSPC|EIO|EACCES|kill)(?::(open|write|fsync|rename|unlink|rmdir|mkdir|readdir|sqlite|truncate))?$/.exec(spec);
  if (m === null) return undefined;
  return { nth: Number(m[1]), mode: m[2] as IoFaultMode, call: m[3] as IoCall | undefined };
}

let armed = parse(process.env[IO_FAULT_ENV]);
let calls = 0;
let injected = 0;

const ERRNO: Record<Exclude<IoFaultMode, 'kill'>, number> = { ENOSPC: -28, EIO: -5, EACCES: -13 };

let matching = 0;

function gate(call: IoCall): void {
  calls++;
  if (armed === undefined) return;
  if (armed.call !== undefined && armed.call !== call) return;
  matching++;
  if (matching !== armed.nth) return;
  const mode = armed.mode;
  armed = undefined;
  injected++;
  if (mode === 'kill') {
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL is delivered asynchronously on some kernels; never continue past the instant.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  throw Object.assign(new Error(`${mode}: injected fault, ${call}`), { code: mode, errno: ERRNO[mode], syscall: call });
}

/**
 * Arms (or with `undefined` disarms) one fault in this process and restarts the call count.
 *
 * `<n>:<mode>[:<call kind>]`: the n-th counted call (of that kind) from now fails (or kills). Tests only;
 * unknown specs disarm.
 */
export function armIoFaultForTesting(spec: string | undefined): void {
  armed = parse(spec);
  calls = 0;
  matching = 0;
}

/** Calls counted since the last arm (tests: the length of an operation's walk). */
export function ioCallsForTesting(): number {
  return calls;
}

/** Faults injected in this process so far (tests: evidence that the walk really injected). */
export function ioFaultsInjectedForTesting(): number {
  return injected;
}

/** Counts one native SQLite step of the chain store (see `IoCall`); under an armed fault it fails or kills there. */
export function sqliteIoBoundary(): void {
  gate('sqlite');
}

/** The layer itself: the subset of `node:fs` the engine uses for machine-owned paths. */
export const fsx = {
  openSync(p: string, flags: number, mode?: number): number {
    gate('open');
    return fs.openSync(p, flags, mode);
  },
  writeSync(fd: number, buf: Uint8Array, off: number, len: number, pos?: number): number {
    gate('write');
    return pos === undefined ? fs.writeSync(fd, buf, off, len) : fs.writeSync(fd, buf, off, len, pos);
  },
  fsyncSync(fd: number): void {
    gate('fsync');
    fs.fsyncSync(fd);
  },
  fsync(fd: number, cb: (e: NodeJS.ErrnoException | null) => void): void {
    try {
      gate('fsync');
    } catch (e) {
      queueMicrotask(() => cb(e as NodeJS.ErrnoException));
      return;
    }
    fs.fsync(fd, cb);
  },
  ftruncateSync(fd: number, length: number): void {
    gate('truncate');
    fs.ftruncateSync(fd, length);
  },
  renameSync(from: string, to: string): void {
    gate('rename');
    fs.renameSync(from, to);
  },
  unlinkSync(p: string): void {
    gate('unlink');
    fs.unlinkSync(p);
  },
  unlink(p: string, cb: (e: NodeJS.ErrnoException | null) => void): void {
    try {
      gate('unlink');
    } catch (e) {
      queueMicrotask(() => cb(e as NodeJS.ErrnoException));
      return;
    }
    fs.unlink(p, cb);
  },
  rmdirSync(p: string): void {
    gate('rmdir');
    fs.rmdirSync(p);
  },
  mkdirSync(p: string, mode: number): void {
    gate('mkdir');
    fs.mkdirSync(p, { mode });
  },
  readdirSync(p: string): fs.Dirent[] {
    gate('readdir');
    return fs.readdirSync(p, { withFileTypes: true });
  },
  readdirNamesSync(p: string): string[] {
    gate('readdir');
    return fs.readdirSync(p);
  },
} as const;
