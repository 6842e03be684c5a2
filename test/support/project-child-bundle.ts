import path from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles `project-child.ts` into one CommonJS file under `dir` and returns its path.
 *
 * Spawning `node --import tsx` costs seconds per child on a loaded machine;
 * a pre-bundled child starts in a fraction of that, so crash matrices can
 * afford one real process per failpoint. Run it with
 * `NODE_PATH=<repo>/node_modules` (better-sqlite3 stays external: native).
 * `external` leaves more packages out (loaded from node_modules if ever
 * required): a child that never reaches them starts faster without them.
 */
export async function bundleProjectChild(dir: string, entry = 'project-child', external: readonly string[] = []): Promise<string> {
  const outfile = path.join(dir, `${entry}.cjs`);
  await build({
    entryPoints: [path.resolve(`test/support/${entry}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    external: ['better-sqlite3', ...external],
    // Modules that locate files next to themselves read import.meta.url, which a CommonJS bundle lacks.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'error',
  });
  return outfile;
}
