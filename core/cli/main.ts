import { Command, CommanderError } from 'commander';
import { toWireError } from '../errors';
import { COMMANDS } from './commands';
import { addExamples } from './examples';
import type { CliIo } from './io';
import { escapeControl, escapingIo } from './escape';

/** Exit codes: 0 ok, 1 a `GF_*` (or chain-store) failure, 2 a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const defaultIo: CliIo = {
  stdout: (c) => void process.stdout.write(c),
  stderr: (c) => void process.stderr.write(c),
};

/** Builds the `gf` program. */
export function buildProgram(rawIo: CliIo = defaultIo): Command {
  // Every text the CLI prints goes through one escaping wrapper (terminal escape injection).
  const io = escapingIo(rawIo);
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
    io.stderr(`${escapeControl(w.message)}${committed}${safeDetails(w.details)}\n`);
    return EXIT_FAILURE;
  }
}

/** A machine-owned relative name: lowercase ASCII, digits, `-`, `_`, `.`, `/`, never absolute, never `..`. */
const SAFE_NAME = /^(?!\/)(?!.*\.\.)[A-Za-z0-9_./-]{1,200}$/;

/**
 * The safe details of an error for a person: the machine-owned path relative to
 * the workspace and the errno name, e.g. ` [path: locks/writer.lock, errno: EACCES]`.
 *
 * Only those two, and only when they have the shapes the engine produces, so
 * no absolute path, value or secret can reach the terminal through them.
 */
export function safeDetails(details: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  const name = details['name'];
  if (typeof name === 'string' && SAFE_NAME.test(name)) parts.push(`path: ${name}`);
  const errno = details['errno'];
  if (typeof errno === 'string' && /^E[A-Z0-9]{1,15}$/.test(errno)) parts.push(`errno: ${errno}`);
  return parts.length === 0 ? '' : ` [${parts.join(', ')}]`;
}
