import { Option } from 'commander';

/** The default of `--project`: the directory the command runs in (resolved by the engine). */
export const DEFAULT_PROJECT_DIR = '.';

/**
 * The `--project <dir>` option every project command takes.
 *
 * Defaults to the current directory, so scripts can `cd`
 * into a workspace and omit it; `--help` says so.
 */
export function projectOption(description = 'project directory'): Option {
  return new Option('--project <dir>', description).default(DEFAULT_PROJECT_DIR, 'the current directory');
}
