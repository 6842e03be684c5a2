import { spawn } from 'node:child_process';
import path from 'node:path';
import { main } from '../../core/cli/main';

/** One in-process `gf` run: exit code, text output, error output. */
export interface GfRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `gf` in this process with captured output (the real CLI: same parser, engine and error path). */
export async function gf(...argv: string[]): Promise<GfRun> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (c) => {
      out += typeof c === 'string' ? c : Buffer.from(c).toString('latin1');
    },
    stderr: (c) => {
      err += c;
    },
  });
  return { code, out, err };
}

/**
 * Runs `bin/gf.mjs` as a child process, killed with SIGKILL after `timeoutMs` (never waited on forever):
 * for inputs that could make `gf` hang or spin, where an in-process run would hang the test.
 */
export function runGf(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; err: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let timedOut = false;
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, err, timedOut });
    });
  });
}
