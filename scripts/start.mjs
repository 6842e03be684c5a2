// `npm start [-- --project DIR] [-- --browser] [-- --no-open] [-- --postgres-url URL]`: builds the app
// if needed, creates the demo workspace on first run in the user data
// directory, and opens it in Electron — fetching the Electron binary and the
// Electron build of better-sqlite3 on first use (scripts/electron-runtime.mjs)
// — or, where that is impossible or `--browser` is given, in browser mode
// (printing the URL with its per-launch token, then opening it in the default
// browser where one exists, unless `--no-open`: scripts/open-browser.mjs).
//
// Launch to URL stays short: the app build and the CLI bundle are reused when
// fresh (a stat walk), the Electron helpers load only when Electron is tried,
// and the server listens before the workspace's first-screen warm-up runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ROOT, buildIfNeeded } from './build-if-needed.mjs';
import { cliEntryUrl } from './build-cli.mjs';
import { openBrowser } from './open-browser.mjs';

function argValue(argv, flag) {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) {
    console.error(`npm start: ${flag} needs a value`);
    process.exit(2);
  }
  return v;
}

/** `$XDG_DATA_HOME/checkpoint-studio` or `~/.local/share/checkpoint-studio`. */
function userDataDir() {
  const xdg = process.env.XDG_DATA_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.local', 'share'), 'checkpoint-studio');
}

/** Loads one entry of the CLI bundle (built JavaScript, rebuilt first when stale; no transpiler at run time). */
async function engine(entry) {
  return import(await cliEntryUrl(entry, { log: console.log }));
}

/** Creates the demo workspace once, exactly as `gf demo create DIR` does (in-process); returns its directory or undefined. */
async function ensureDemo() {
  const dir = join(userDataDir(), 'demo');
  if (existsSync(join(dir, 'FORMAT'))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  console.log(`Checkpoint Studio: creating the demo workspace in ${dir} …`);
  const { main } = await engine('gf');
  let err = '';
  const code = await main(['demo', 'create', dir], { stdout: () => undefined, stderr: (s) => void (err += s) });
  if (code === 0 && existsSync(join(dir, 'FORMAT'))) return dir;
  if (code === 2) console.log('Checkpoint Studio: this build has no demo builder (`gf demo create`); starting without a workspace.');
  else console.error(`npm start: creating the demo failed: ${err.trim().split('\n')[0] ?? ''}`);
  return undefined;
}

async function browserMode(project) {
  const { serve, readLaunchConfig } = await engine('serve');
  // The ledgers stay each project's SQLite ones here, as ever; Agent threads' URL is the option's, else the environment's.
  const launch = readLaunchConfig({ project, sharedLedgers: false, ...(postgresUrl !== undefined ? { langgraphPostgresUrl: postgresUrl } : {}) }, process.env);
  const { bridge, stop } = await serve({ launch });
  console.log(`Checkpoint Studio (browser mode): ${bridge.url}`);
  const opened = openBrowser(bridge.url, { argv });
  if (opened.opened) console.log(`Checkpoint Studio: opening it in your default browser (${opened.command}; --no-open skips this).`);
  else if (!argv.includes('--no-open')) console.log(`Checkpoint Studio: open the URL above in a browser (not opened automatically: ${opened.reason}).`);
  const shutdown = () => {
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/** One line for a failure the user can act on (its GF_* code and the path), never a stack trace; exit 1. */
function fail(e, path) {
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = e instanceof Error ? e.message.replace(/^GF_[A-Z_]+: /, '') : String(e);
  console.error(`npm start: ${code !== undefined ? `${code}: ` : ''}${message}${path !== undefined ? ` (${path})` : ''}`);
  process.exit(1);
}

/** Opens and closes the workspace through the engine, so a bad --project fails here with the engine's own code. */
async function checkProject(project) {
  const { openProject } = await engine('project');
  const p = await openProject(project);
  await p.close?.();
}

const argv = process.argv.slice(2);
const explicit = argValue(argv, '--project');
const browserOnly = argv.includes('--browser');
// Agent threads: a LangGraph Postgres URL (`--postgres-url`, or GF_LANGGRAPH_POSTGRES_URL which the
// engine reads itself) is held in memory only: handed to the server in-process, or to Electron through
// its environment (never its arguments), never written or printed. The demo's langgraph.sqlite (beside
// the demo workspace) is the screen's default source: the engine finds it when it opens the workspace.
const postgresUrl = argValue(argv, '--postgres-url');
const project = explicit !== undefined ? resolve(explicit) : undefined;
// A missing directory fails now, in one line, whichever mode would open it (before any build).
if (project !== undefined && !existsSync(project)) await checkProject(project).then(() => undefined, (e) => fail(e, project));
try {
  buildIfNeeded();
} catch {
  console.error('npm start: the build failed');
  process.exit(1);
}
const opened = project ?? (await ensureDemo());

let electron;
if (browserOnly) {
  console.log('Checkpoint Studio: --browser given, so it opens in browser mode.');
} else {
  const { ensureElectron, ensureElectronNative } = await import('./electron-runtime.mjs');
  const got = await ensureElectron();
  if ('fallback' in got) {
    console.log(`Checkpoint Studio opens in browser mode: ${got.fallback}.`);
  } else {
    const native = await ensureElectronNative();
    if ('fallback' in native) console.log(`Checkpoint Studio opens in browser mode: ${native.fallback}.`);
    else electron = { exe: got.exe, native: native.file };
  }
}
if (electron !== undefined) {
  const args = [ROOT, ...(opened !== undefined ? ['--project', opened] : [])];
  const child = spawn(electron.exe, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, GF_SQLITE_NATIVE_BINDING: electron.native, ...(postgresUrl !== undefined ? { GF_LANGGRAPH_POSTGRES_URL: postgresUrl } : {}) } });
  child.on('error', (e) => fail(e, electron.exe));
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  await browserMode(opened).catch((e) => fail(e, opened));
}
