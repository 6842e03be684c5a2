// Builds better-sqlite3 for Electron's ABI into .cache/electron-native/,
// leaving node_modules/better-sqlite3 (the Node build the tests and the CLI
// use) untouched. Electron main passes the result to better-sqlite3 through
// GF_SQLITE_NATIVE_BINDING (the adapters' `nativeBinding` option).
//
// Runs only where the Electron binary exists; elsewhere it says so and exits 0.
// Needs Electron's headers (node-gyp fetches them from electronjs.org) and a
// C++ toolchain, like any native rebuild for Electron.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ELECTRON = join(ROOT, 'node_modules', 'electron');
const OUT_DIR = join(ROOT, '.cache', 'electron-native');
const OUT = join(OUT_DIR, 'better_sqlite3.node');

const pathTxt = join(ELECTRON, 'path.txt');
if (!existsSync(pathTxt) || !existsSync(join(ELECTRON, 'dist', readFileSync(pathTxt, 'utf8').trim()))) {
  console.log('build-electron-native: skipped (the Electron binary is not installed here)');
  process.exit(0);
}
const electronVersion = JSON.parse(readFileSync(join(ELECTRON, 'package.json'), 'utf8')).version;

function nodeGyp() {
  const npmCli = process.env.npm_execpath;
  const candidates = [
    npmCli === undefined ? undefined : join(dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  const found = candidates.find((c) => c !== undefined && existsSync(c));
  if (found === undefined) throw new Error('node-gyp not found (it ships with npm)');
  return found;
}

const work = join(OUT_DIR, 'src');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
for (const part of ['binding.gyp', 'src', 'deps', 'package.json']) cpSync(join(pkg, part), join(work, part), { recursive: true });
const r = spawnSync(process.execPath, [nodeGyp(), 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'], {
  cwd: work,
  stdio: 'inherit',
});
if (r.status !== 0) {
  console.error('build-electron-native: the rebuild failed');
  process.exit(1);
}
copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), OUT);
rmSync(work, { recursive: true, force: true });
console.log(`build-electron-native: ${OUT} (Electron ${electronVersion})`);
