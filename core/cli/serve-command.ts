// `gf serve`: browser mode. Starts the loopback bridge over the facade and
// prints the URL (with its per-launch token) to open in a browser.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import type { Bridge } from '../api/http-bridge';
import { addChainPostgresOption, resolveChainPostgresTarget } from '../chain/postgres/postgres-config';
import type { CliIo } from './io';

/** The built renderer inside this package (`npm run build` writes it). */
export const BUILT_RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('a port number 0–65535');
  return Number(value);
}

/** Options of one browser-mode launch (shared with `npm start`'s fallback). */
export interface ServeOptions {
  readonly project?: string;
  readonly port?: number;
  readonly rendererDir?: string;
  /** Shared PostgreSQL chain store (default: each project's SQLite ledgers). */
  readonly chainPostgresUrl?: string;
}

/** Starts browser mode; resolves to the running bridge and a stop function. */
export async function serve(options: ServeOptions): Promise<{ readonly bridge: Bridge; readonly stop: () => Promise<void> }> {
  // The engine loads when browser mode starts, not for `gf --help`.
  const [{ createFacade }, { startBridge }] = await Promise.all([import('../api/facade'), import('../api/http-bridge')]);
  const facade = createFacade({
    mode: 'browser',
    chain: options.chainPostgresUrl === undefined ? { kind: 'sqlite' } : { kind: 'postgres', url: options.chainPostgresUrl },
  });
  try {
    if (options.project !== undefined) await facade.launch(resolve(options.project));
    const rendererDir = options.rendererDir ?? BUILT_RENDERER_DIR;
    const bridge = await startBridge({
      dispatcher: facade.dispatcher,
      rendererDir: existsSync(resolve(rendererDir, 'index.html')) ? rendererDir : undefined,
      port: options.port ?? 0,
    });
    return {
      bridge,
      stop: async () => {
        await bridge.close();
        await facade.close();
      },
    };
  } catch (e) {
    await facade.close();
    throw e;
  }
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
    .addHelpText('after', '\nExample:\n  gf serve --project ./my-workspace --port 8765\n  → prints http://127.0.0.1:8765/?token=… ; open it in a browser (it signs the browser in until Ctrl-C). Ctrl-C stops.\n')
    .action(async (opts: { project?: string; port?: number; renderer?: string; chainPostgresUrl?: string }) => {
      const target = resolveChainPostgresTarget({ option: opts.chainPostgresUrl, env: process.env });
      const { bridge, stop } = await serve({ project: opts.project, port: opts.port, rendererDir: opts.renderer, chainPostgresUrl: target?.url });
      if (target !== null) io.stderr(`gf serve: ledgers from the shared PostgreSQL store ${target.redacted}\n`);
      if (!existsSync(resolve(opts.renderer ?? BUILT_RENDERER_DIR, 'index.html'))) {
        io.stderr('gf serve: the renderer is not built (run `npm run build`); serving the API only\n');
      }
      io.stdout(`${bridge.url}\n`);
      await untilSignal();
      await stop();
    });
  addChainPostgresOption(cmd);
}
