// `npm start [-- --project DIR]`: builds the app if needed, creates the demo
// workspace on first run in the user data directory, and opens it in
// Electron, or, where the Electron binary is not installed, in browser mode
// (printing the URL with its per-launch token).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ROOT, buildIfNeeded } from './build-if-needed.mjs';
import { cliEntryUrl } from './build-cli.mjs';

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

/** The Electron executable when its binary is installed, else undefined. */
function electronBinary() {
  const pkg = join(ROOT, 'node_modules', 'electron');
  const pathTxt = join(pkg, 'path.txt');
  if (!existsSync(pathTxt)) return undefined;
  const exe = join(pkg, 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(exe) ? exe : undefined;
}

async function browserMode(project) {
  const { serve } = await engine('serve');
  const { bridge, stop } = await serve({ project });
  console.log(`Checkpoint Studio (browser mode): ${bridge.url}`);
  const shutdown = () => {
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

const argv = process.argv.slice(2);
const explicit = argValue(argv, '--project');
try {
  buildIfNeeded();
} catch {
  console.error('npm start: the build failed');
  process.exit(1);
}
const project = explicit !== undefined ? resolve(explicit) : await ensureDemo();
const electron = electronBinary();
if (electron !== undefined) {
  // better-sqlite3 compiled for Electron's ABI (the Node build stays for tests and the CLI).
  if (!existsSync(join(ROOT, '.cache', 'electron-native', 'better_sqlite3.node'))) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-electron-native.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) console.error('npm start: no Electron build of better-sqlite3; workspace operations may fail in the window');
  }
  const args = [ROOT, ...(project !== undefined ? ['--project', project] : [])];
  const child = spawn(electron, args, { cwd: ROOT, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('Electron is not installed here (its binary download is disabled), so Checkpoint Studio opens in browser mode instead.');
  await browserMode(project);
}
