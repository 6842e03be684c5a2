import { ensureCliBundle } from '../../scripts/build-cli.mjs';

/**
 * Global set-up for the unit project: the CLI bundle (dist/cli) is brought up
 * to date once, before any test spawns `bin/gf.mjs`, so parallel test files
 * do not each rebuild a stale bundle (the Postgres harness is per-suite).
 */
export async function setup(): Promise<void> {
  await ensureCliBundle({ log: (line: string) => void process.stderr.write(`${line}\n`) });
}
