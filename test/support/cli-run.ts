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
