// `gf serve`: browser mode. Starts the loopback bridge over the dispatcher
// (./browser-host, loaded when the command runs) and prints the URL (with its
// per-launch token) to open in a browser.
import { InvalidArgumentError, type Command } from 'commander';
import { GfError } from '../errors';
import { addChainPostgresOption } from './chain-option';
import type { CliIo } from './io';
import { chooseFormat, withOutputOptions, type OutputFlags } from './output-options';
import { assertPostgresUrl } from './threads-command';

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('a port number 0–65535');
  return Number(value);
}

interface ServeOpts extends OutputFlags {
  readonly project?: string;
  readonly port?: number;
  readonly renderer?: string;
  readonly chainPostgresUrl?: string;
  readonly postgresUrl?: string;
  readonly threadsSqlite?: string;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<void> {
  return new Promise((done) => {
    const on = (): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      done();
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** `gf serve [--project DIR] [--port N]`. */
export function registerServeCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('serve')
    .description('serve the app in a browser: a loopback-only HTTP bridge with a per-launch token')
    .option('--project <dir>', 'workspace to open (default: none; the page can open one)')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)', parsePort)
    .option('--renderer <dir>', 'built renderer directory (default: out/renderer of this package)')
    .option('--threads-sqlite <path>', 'LangGraph SQLite checkpoint database the Agent threads screen opens first (default: langgraph.sqlite beside --project, as `gf demo create` writes it)')
    .option('--postgres-url <url>', 'LangGraph PostgreSQL database for the Agent threads screen (prefer GF_LANGGRAPH_POSTGRES_URL); held in memory only, never written, logged or sent to the page')
    .addHelpText('after', '\nExample:\n  gf serve --project ./my-workspace --port 8765\n  → prints http://127.0.0.1:8765/?token=… ; open it in a browser (it signs the browser in until Ctrl-C). Ctrl-C stops.\n\n--json prints {"url": …}; the URL is not a table (--csv and --arrow are refused).\n');
  withOutputOptions(addChainPostgresOption(cmd)).action(async (opts: ServeOpts) => {
    const format = chooseFormat(opts);
    if (format === 'csv' || format === 'arrow') throw new GfError('GF_VALIDATION', 'this result is not a table: use --json or the default text', { format });
    const [{ serve, readLaunchConfig }, { openErrorFor }] = await Promise.all([import('./browser-host'), import('./session')]);
    const launch = readLaunchConfig(
      {
        ...(opts.project === undefined ? {} : { project: opts.project }),
        ...(opts.chainPostgresUrl === undefined ? {} : { chainPostgresUrl: opts.chainPostgresUrl }),
        ...(opts.postgresUrl === undefined ? {} : { langgraphPostgresUrl: opts.postgresUrl }),
        ...(opts.threadsSqlite === undefined ? {} : { langgraphSqlite: opts.threadsSqlite }),
      },
      process.env,
    );
    if (opts.postgresUrl !== undefined) assertPostgresUrl(opts.postgresUrl);
    const { bridge, rendererBuilt, stop } = await serve({ launch, port: opts.port, rendererDir: opts.renderer }).catch((e: unknown) => {
      throw opts.project === undefined ? e : openErrorFor(e, opts.project);
    });
    if (launch.chainRedacted !== null) io.stderr(`gf serve: ledgers from the shared PostgreSQL store ${launch.chainRedacted}\n`);
    if (!rendererBuilt) io.stderr('gf serve: the renderer is not built (run `npm run build`); serving the API only\n');
    io.stdout(format === 'json' ? `${JSON.stringify({ url: bridge.url })}\n` : `${bridge.url}\n`);
    await untilSignal();
    await stop();
  });
}
