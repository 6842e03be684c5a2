import { writeFileSync } from 'node:fs';
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

/**
 * Writes `<bundle>.loader.cjs`, which runs `bundle` through a V8 code cache, and returns its path.
 *
 * A fault walk starts hundreds of children of one bundle: each would parse and
 * compile the same 3 MB again. The loader compiles it with `vm.Script`, giving
 * `<bundle>.v8cache` as cached data when that file exists; run once with
 * `GF_CODE_CACHE=make`, it writes that cache when the process exits, with
 * every function the run compiled. Same Node, same flags: V8 accepts the cache
 * (or, if not, compiles as usual; nothing else changes).
 */
export function writeCodeCacheLoader(bundle: string): string {
  const loader = `${bundle}.loader.cjs`;
  const source = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const file = ${JSON.stringify(bundle)};
const cacheFile = file + '.v8cache';
const make = process.env.GF_CODE_CACHE === 'make';
let cachedData;
if (!make && fs.existsSync(cacheFile)) cachedData = fs.readFileSync(cacheFile);
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
if (make) process.once('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));
const m = new Module(file, module);
m.filename = file;
m.paths = Module._nodeModulePaths(path.dirname(file));
script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file));
`;
  writeFileSync(loader, source);
  return loader;
}
