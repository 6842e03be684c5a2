// Browser mode's host: the loopback bridge over a facade's dispatcher. Loaded
// by `gf serve` when it runs (never for `gf --help`) and by `npm start`'s fallback.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bridge } from '../api/http-bridge';
import type { LaunchConfig } from '../api/launch-config';

/** `npm start`'s browser fallback reads its launch configuration with the same reader as `gf serve`. */
export { readLaunchConfig } from '../api/launch-config';

/** The built renderer inside this package (`npm run build` writes it). */
export const BUILT_RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

/** Options of one browser-mode launch (shared with `npm start`'s fallback). */
export interface ServeOptions {
  /** The launch configuration (core/api/launch-config.ts): the workspace, the ledgers, Agent threads' sources. */
  readonly launch: LaunchConfig;
  readonly port?: number;
  readonly rendererDir?: string;
}

/** A running browser mode. */
export interface Served {
  readonly bridge: Bridge;
  /** False when the renderer is not built (the bridge then serves the API only). */
  readonly rendererBuilt: boolean;
  readonly stop: () => Promise<void>;
}

/** Starts browser mode; resolves to the running bridge and a stop function. */
export async function serve(options: ServeOptions): Promise<Served> {
  // The engine loads when browser mode starts, not for `gf --help`.
  const [{ createFacade }, { startBridge }, { launchFacadeOptions }] = await Promise.all([import('../api/facade'), import('../api/http-bridge'), import('../api/launch-config')]);
  const facade = createFacade(launchFacadeOptions(options.launch, 'browser'));
  let bridge: Bridge | undefined;
  try {
    const rendererDir = options.rendererDir ?? BUILT_RENDERER_DIR;
    const rendererBuilt = existsSync(resolve(rendererDir, 'index.html'));
    // Listen first: the launch schedules the first screen's warm-up (synchronous engine work),
    // which must not stand between the process start and the listening socket. Nothing
    // reaches the bridge before serve resolves, since no one knows its URL and token yet.
    bridge = await startBridge({ dispatcher: facade.dispatcher, rendererDir: rendererBuilt ? rendererDir : undefined, port: options.port ?? 0 });
    if (options.launch.project !== null) await facade.launch(options.launch.project);
    const listening = bridge;
    return {
      bridge: listening,
      rendererBuilt,
      stop: async () => {
        await listening.close();
        await facade.close();
      },
    };
  } catch (e) {
    await bridge?.close();
    await facade.close();
    throw e;
  }
}
