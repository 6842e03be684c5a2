import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { redactConnectionString } from '../chain/postgres/postgres-config';
import { GfError } from '../errors';
import { CHECKPOINTER_HEALTH_FIELDS, openCheckpointerPool, PostgresCheckpointerAdapter, SqliteCheckpointerAdapter, type CheckpointerHealth } from '../langgraph';
import type { CliIo } from './io';

interface HealthOpts {
  readonly postgresUrl?: string;
  readonly sqlite?: string;
  readonly json?: boolean;
}

function assertPostgresUrl(url: string): void {
  let scheme = '';
  try {
    scheme = new URL(url).protocol;
  } catch (_e) {
    scheme = '';
  }
  if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new GfError('GF_VALIDATION', 'the --postgres-url value is not a postgres:// or postgresql:// connection string', { field: 'postgres_url' });
  }
}

/** The health of a Postgres adapter on a fresh pool, after one round trip proves the database answers. */
async function postgresHealth(url: string): Promise<CheckpointerHealth> {
  assertPostgresUrl(url);
  const pool = await openCheckpointerPool(url, { max: 1 });
  try {
    const adapter = new PostgresCheckpointerAdapter({ pool });
    try {
      await pool.query('SELECT 1');
    } catch (e) {
      // The driver's text is not echoed (it can name the server's settings); only its code.
      const code = (e as { code?: unknown } | null)?.code;
      throw new GfError('GF_IO', `the LangGraph PostgreSQL database at ${redactConnectionString(url)} did not answer`, { reason: typeof code === 'string' ? code : 'unreachable' });
    }
    return adapter.health();
  } finally {
    await pool.end();
  }
}

/** The health of a SQLite adapter on an existing checkpoint database (nothing is created). */
async function sqliteHealth(path: string): Promise<CheckpointerHealth> {
  if (!existsSync(path)) throw new GfError('GF_IO', 'the --sqlite database file does not exist', { field: 'sqlite' }, false);
  const adapter = new SqliteCheckpointerAdapter({ path });
  try {
    await adapter.saver();
    return adapter.health();
  } finally {
    await adapter.close();
  }
}

/**
 * `gf threads health --postgres-url URL | --sqlite PATH`: a LangGraph checkpointer's health record.
 *
 * Opens the adapter the option names, as an agent worker would, and prints
 * `pool_in_use`, `pool_idle` and `last_write_age_seconds` ("never" in the
 * table, `null` in `--json`, until that adapter has written). The
 * connection string is never printed: errors show it with its password redacted.
 */
export function registerThreadsCommands(program: Command, io: CliIo): void {
  const threads = program.command('threads').description('LangGraph agent threads: checkpointer health');
  threads
    .command('health')
    .description("print a LangGraph checkpointer adapter's health: pool counters and the age of its last write")
    .option('--postgres-url <url>', 'LangGraph PostgreSQL checkpoint database (its password is never printed)')
    .option('--sqlite <path>', 'LangGraph SQLite checkpoint database file')
    .option('--json', 'print JSON (last_write_age_seconds is null before a write)')
    .addHelpText('after', '\nExample:\n  gf threads health --sqlite ./agent/checkpoints.sqlite --json\n')
    .action(async (opts: HealthOpts) => {
      if ((opts.postgresUrl === undefined) === (opts.sqlite === undefined)) throw new GfError('GF_VALIDATION', 'give exactly one of --postgres-url or --sqlite');
      const health = opts.postgresUrl !== undefined ? await postgresHealth(opts.postgresUrl) : await sqliteHealth(opts.sqlite as string);
      const age = Number.isFinite(health.last_write_age_seconds) ? health.last_write_age_seconds : null;
      if (opts.json === true) {
        io.stdout(`${JSON.stringify({ pool_in_use: health.pool_in_use, pool_idle: health.pool_idle, last_write_age_seconds: age })}\n`);
        return;
      }
      for (const field of CHECKPOINTER_HEALTH_FIELDS) {
        const value = field === 'last_write_age_seconds' ? (age === null ? 'never' : age.toFixed(3)) : String(health[field]);
        io.stdout(`${field.padEnd(24)}${value}\n`);
      }
    });
}
