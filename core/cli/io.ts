import type { Command } from 'commander';

/** Output sinks, injectable so tests can run the CLI in-process. */
export interface CliIo {
  readonly stdout: (chunk: string | Uint8Array) => void;
  readonly stderr: (chunk: string) => void;
}

/** Adds one subcommand group to the root program. Each command module exports one. */
export type CommandRegistrar = (program: Command, io: CliIo) => void;
