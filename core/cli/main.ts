import { Command, CommanderError } from 'commander';
import { toWireError } from '../errors';
import { COMMANDS } from './commands';
import { addExamples } from './examples';
import type { CliIo } from './io';

/** Exit codes: 0 ok, 1 a `GF_*` (or chain-store) failure, 2 a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const defaultIo: CliIo = {
  stdout: (c) => void process.stdout.write(c),
  stderr: (c) => void process.stderr.write(c),
};

/** Builds the `gf` program. */
export function buildProgram(io: CliIo = defaultIo): Command {
  const program = new Command('gf')
    .description('Checkpoint Studio engine: inspect, diff and revert versioned workspaces')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
  for (const register of COMMANDS) register(program, io);
  addExamples(program);
  return program;
}

/** Runs `gf` with the given arguments and returns the exit code (never calls process.exit). */
export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return EXIT_OK;
      return EXIT_USAGE;
    }
    const w = toWireError(e);
    const committed = w.committed === null ? '' : ` (committed: ${String(w.committed)})`;
    io.stderr(`${w.message}${committed}\n`);
    return EXIT_FAILURE;
  }
}
