// `--chain-postgres-url`: the option every ledger-reading command takes
// (commander and the contract's constants only, so `gf --help` stays light).
import type { Command } from 'commander';
import { CHAIN_POSTGRES_URL_ENV, CHAIN_POSTGRES_URL_OPTION } from '../contract/chain';

/** Adds `--chain-postgres-url <url>` to a CLI command (the environment variable is the safer way). */
export function addChainPostgresOption(command: Command): Command {
  return command.option(
    `${CHAIN_POSTGRES_URL_OPTION} <url>`,
    `PostgreSQL connection string for the shared chain store (prefer the ${CHAIN_POSTGRES_URL_ENV} environment variable: options are visible to other users of the machine)`,
  );
}
