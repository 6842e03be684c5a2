// The output flags every result-printing command takes: commander and the error type only, so
// `gf --help` registers them without loading Arrow or the contract's schemas (see ./output).
import type { Command } from 'commander';
import { GfError } from '../errors';

/** Output formats, in the order `--help` lists them. */
export const OUTPUT_FORMATS = ['table', 'json', 'csv', 'arrow'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The flags every result-printing command takes. */
export interface OutputFlags {
  readonly json?: boolean;
  readonly csv?: boolean;
  readonly arrow?: boolean;
}

/** Adds `--json`, `--csv` and `--arrow` to a command. */
export function withOutputOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print {"rows": [...], "next_page_token": ...} (one JSON object)')
    .option('--csv', 'print CSV with a header row')
    .option('--arrow', 'write the Arrow IPC stream to stdout (next-page token in the schema metadata)');
}

/** Picks the format: at most one flag; a table by default (also when stdout is not a terminal, JSON is not implied). */
export function chooseFormat(flags: OutputFlags): OutputFormat {
  const chosen = (['json', 'csv', 'arrow'] as const).filter((f) => flags[f] === true);
  if (chosen.length > 1) throw new GfError('GF_VALIDATION', 'choose one of --json, --csv, --arrow', { flags: chosen });
  return chosen[0] ?? 'table';
}

/** The output format of a command's flags (`--json`, `--csv`, `--arrow`; the table by default). */
export function formatOf(flags: OutputFlags): OutputFormat {
  return chooseFormat(flags);
}
