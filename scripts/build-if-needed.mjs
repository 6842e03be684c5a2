// Runs `electron-vite build` when out/ is missing or older than its sources.
// Shared by `npm start` and the e2e harness.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'out');
const STAMP = join(OUT, '.build-stamp');
const BUILD_INPUTS = ['core', 'electron', 'renderer', 'electron.vite.config.ts', 'package.json'];
const BUILD_OUTPUTS = ['main/index.js', 'preload/index.cjs', 'renderer/index.html'];

/** Newest modification time under a path (files only; skips dot folders and node_modules). */
function newestMtime(p) {
  let st;
  try {
    st = statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(p, e.name)));
  }
  return newest;
}

/** True when every build output exists and is newer than every input. */
export function isBuildFresh() {
  if (!BUILD_OUTPUTS.every((f) => existsSync(join(OUT, f))) || !existsSync(STAMP)) return false;
  const sourceTime = Math.max(...BUILD_INPUTS.map((p) => newestMtime(join(ROOT, p))));
  return statSync(STAMP).mtimeMs >= sourceTime;
}

/** Builds main, preload and renderer into out/ when needed; returns whether it built. */
export function buildIfNeeded({ log = console.log } = {}) {
  if (isBuildFresh()) return false;
  log('Checkpoint Studio: building the app (electron-vite build)…');
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error('electron-vite build failed');
  mkdirSync(OUT, { recursive: true });
  // The stamp records when the inputs were read, so edits made during the build still count as newer.
  writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
  utimesSync(STAMP, new Date(started), new Date(started));
  return true;
}
