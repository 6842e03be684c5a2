// What `npm start` needs to open the desktop window, fetched on first use:
// the Electron binary (through Electron's own installer, which honours
// ELECTRON_MIRROR and the download cache) and better-sqlite3 built for
// Electron's ABI (a prebuilt binary through prebuild-install, which honours
// npm_config_better_sqlite3_binary_host). `npm install` never downloads them
// (package.json allowScripts.electron is false), so an offline install works.
//
// Each fetch shows progress, is bounded by a timeout, and when it fails the
// failure is remembered for a day in the user's cache directory, so later
// starts go straight to browser mode instead of waiting again.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** How long one fetch may take before it is abandoned (GF_ELECTRON_FETCH_TIMEOUT_S overrides, in seconds). */
export const FETCH_TIMEOUT_MS = 180_000;

/** The fetch timeout in force: GF_ELECTRON_FETCH_TIMEOUT_S when it is a positive number, else FETCH_TIMEOUT_MS. */
export function fetchTimeoutMs(env = process.env) {
  const s = Number(env.GF_ELECTRON_FETCH_TIMEOUT_S);
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : FETCH_TIMEOUT_MS;
}
/** How long a failed fetch is remembered (no retry before then). */
export const RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
/** Seconds between "still downloading" lines. */
const HEARTBEAT_MS = 10_000;

/** Where start-up keeps its own state (never in the repository): `$XDG_CACHE_HOME/checkpoint-studio` or `~/.cache/checkpoint-studio`. */
export function userCacheDir(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'checkpoint-studio');
}

/** The paths `npm start` uses; the GF_ELECTRON_* variables exist so tests can work on a copy. */
export function runtimePaths(env = process.env) {
  const electronDir = env.GF_ELECTRON_DIR || join(ROOT, 'node_modules', 'electron');
  const nativeDir = env.GF_ELECTRON_NATIVE_DIR || join(ROOT, '.cache', 'electron-native');
  return {
    electronDir,
    nativeFile: join(nativeDir, 'better_sqlite3.node'),
    stateFile: join(userCacheDir(env), 'electron-fetch.json'),
    betterSqliteDir: join(ROOT, 'node_modules', 'better-sqlite3'),
    prebuildInstall: join(ROOT, 'node_modules', 'prebuild-install', 'bin.js'),
  };
}

/** The Electron version of the installed package. */
export function electronVersion(electronDir) {
  return JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
}

/** The Electron executable when its binary is installed, else undefined. */
export function installedElectron(electronDir) {
  const pathTxt = join(electronDir, 'path.txt');
  if (!existsSync(pathTxt)) return undefined;
  const exe = join(electronDir, 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(exe) ? exe : undefined;
}

function readState(stateFile) {
  try {
    const s = JSON.parse(readFileSync(stateFile, 'utf8'));
    return typeof s === 'object' && s !== null ? s : {};
  } catch {
    return {};
  }
}

function writeState(stateFile, state) {
  try {
    mkdirSync(dirname(stateFile), { recursive: true });
    writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  } catch {
    // Not remembering is only slower next time.
  }
}

/**
 * A failure of `what` (for this exact version) recorded less than a day ago, or undefined.
 * Pure apart from reading the state file.
 */
export function recentFailure(stateFile, what, version, now = Date.now()) {
  const f = readState(stateFile)[what];
  if (f === undefined || f.version !== version || typeof f.at !== 'number') return undefined;
  return now - f.at < RETRY_AFTER_MS && now >= f.at ? f : undefined;
}

function remember(stateFile, what, record) {
  const state = readState(stateFile);
  if (record === undefined) delete state[what];
  else state[what] = record;
  writeState(stateFile, state);
}

/**
 * Runs one fetch step as a child process with inherited output (its own
 * progress), a heartbeat line every 10 s, and a hard timeout (SIGKILL).
 * Resolves to { ok, reason }.
 */
function runBounded(label, command, args, { cwd, env, timeoutMs, log }) {
  return new Promise((resolveRun) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c.toString();
      if (stderr.length > 16_384) stderr = stderr.slice(-16_384);
    });
    const beat = setInterval(() => log(`  … ${label}: ${Math.round((Date.now() - started) / 1000)} s`), HEARTBEAT_MS);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearInterval(beat);
      clearTimeout(timer);
      resolveRun({ ok: false, reason: e.message });
    });
    child.on('exit', (code, signal) => {
      clearInterval(beat);
      clearTimeout(timer);
      if (code === 0) return resolveRun({ ok: true, reason: '' });
      const timedOut = signal === 'SIGKILL' && Date.now() - started >= timeoutMs;
      resolveRun({ ok: false, reason: timedOut ? `no answer within ${Math.round(timeoutMs / 1000)} s` : lastErrorLine(stderr) || `exit ${code ?? signal}` });
    });
  });
}

/** The most telling line of an installer's stderr (its first error message, without stack frames). */
function lastErrorLine(stderr) {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('at '));
  const err = lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '';
  return err.length > 200 ? `${err.slice(0, 200)}…` : err;
}

function when(at) {
  return new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * The Electron executable, downloading it with Electron's own installer when
 * missing. Returns { exe } or { fallback } (one sentence saying why not).
 */
export async function ensureElectron({ env = process.env, log = console.log, timeoutMs = fetchTimeoutMs(env), now = Date.now() } = {}) {
  const paths = runtimePaths(env);
  const installed = installedElectron(paths.electronDir);
  if (installed !== undefined) return { exe: installed };
  if (!existsSync(join(paths.electronDir, 'install.js'))) return { fallback: `the electron package is not installed (${paths.electronDir}; it is a devDependency)` };
  const version = electronVersion(paths.electronDir);
  const failed = recentFailure(paths.stateFile, 'electron', version, now);
  if (failed !== undefined) {
    return { fallback: `the Electron ${version} download failed at ${when(failed.at)} (${failed.reason}); it is retried after ${when(failed.at + RETRY_AFTER_MS)}, or delete ${paths.stateFile}` };
  }
  const mirror = env.ELECTRON_MIRROR ? ` from ${env.ELECTRON_MIRROR}` : '';
  log(`Checkpoint Studio: downloading Electron ${version}${mirror} (once, about 100 MB; up to ${Math.round(timeoutMs / 1000)} s)…`);
  const run = await runBounded('downloading Electron', process.execPath, [join(paths.electronDir, 'install.js')], {
    cwd: paths.electronDir,
    // The installer's own dependencies resolve from the project's node_modules even for a copy of the package.
    env: { ...env, NODE_PATH: [join(ROOT, 'node_modules'), env.NODE_PATH].filter(Boolean).join(':') },
    timeoutMs,
    log,
  });
  const exe = installedElectron(paths.electronDir);
  if (run.ok && exe !== undefined) {
    remember(paths.stateFile, 'electron', undefined);
    return { exe };
  }
  const reason = run.ok ? 'the installer finished without an executable' : run.reason;
  remember(paths.stateFile, 'electron', { version, at: now, reason });
  return { fallback: `the Electron ${version} download failed (${reason}); retried after ${when(now + RETRY_AFTER_MS)}` };
}

/**
 * better-sqlite3 built for Electron's ABI (the Node build in node_modules stays
 * for the tests and the CLI), fetched as a prebuilt binary when missing.
 * Returns { file } or { fallback }.
 */
export async function ensureElectronNative({ env = process.env, log = console.log, timeoutMs = fetchTimeoutMs(env), now = Date.now() } = {}) {
  const paths = runtimePaths(env);
  if (existsSync(paths.nativeFile)) return { file: paths.nativeFile };
  const version = electronVersion(paths.electronDir);
  const failed = recentFailure(paths.stateFile, 'electron-native', version, now);
  if (failed !== undefined) {
    return { fallback: `the Electron build of better-sqlite3 could not be fetched at ${when(failed.at)} (${failed.reason}); retried after ${when(failed.at + RETRY_AFTER_MS)}` };
  }
  // prebuild-install writes build/Release/better_sqlite3.node under its working directory: use a scratch copy of the package manifest.
  const work = join(tmpdir(), `gf-electron-native-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  copyFileSync(join(paths.betterSqliteDir, 'package.json'), join(work, 'package.json'));
  log(`Checkpoint Studio: fetching better-sqlite3 for Electron ${version} (prebuilt, once)…`);
  try {
    const run = await runBounded('fetching better-sqlite3 for Electron', process.execPath, [paths.prebuildInstall, '--runtime', 'electron', '--target', version, '--verbose'], {
      cwd: work,
      env,
      timeoutMs,
      log,
    });
    const built = join(work, 'build', 'Release', 'better_sqlite3.node');
    if (run.ok && existsSync(built)) {
      mkdirSync(dirname(paths.nativeFile), { recursive: true });
      copyFileSync(built, paths.nativeFile);
      remember(paths.stateFile, 'electron-native', undefined);
      return { file: paths.nativeFile };
    }
    const reason = run.ok ? 'no binary in the download' : run.reason;
    remember(paths.stateFile, 'electron-native', { version, at: now, reason });
    return { fallback: `the Electron build of better-sqlite3 could not be fetched (${reason}); retried after ${when(now + RETRY_AFTER_MS)}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
