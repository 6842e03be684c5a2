import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs bin/gf.mjs with its standard output closed by the reader before anything is written (`gf … | head` at its extreme). */
function runWithClosedStdout(args: readonly string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.destroy(); // the reader is gone: every write of the child meets a closed pipe
    let err = '';
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, err }));
  });
}

describe('bin/gf.mjs', () => {
  it('a reader that closes the pipe early (gf … | head) ends gf quietly: exit 0, no EPIPE stack trace', async () => {
    const r = await runWithClosedStdout(['checkpoint', 'diff', '--help']);
    expect(r).toEqual({ code: 0, signal: null, err: '' });
  });
});
