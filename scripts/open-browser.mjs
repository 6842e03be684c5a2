// Opening browser mode's URL in the default browser (`npm start`).
//
// The decision is a pure function of the arguments, the platform and the
// environment (`openDecision`), so it is tested without a browser. Opening
// never fails the start: without a browser the URL stays printed for the
// user to open by hand. `GF_OPEN_BROWSER_LOG=<file>` records the command
// (one JSON line) instead of running it, for tests and CI.
import { spawn } from 'node:child_process';
import { accessSync, appendFileSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The environment variable naming a file that records the open command instead of running it. */
export const OPEN_LOG_ENV = 'GF_OPEN_BROWSER_LOG';

/** True when `file` is an executable regular file. */
function isExecutable(file) {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable named `name` on `PATH` (or `name` itself when absolute), else undefined. */
export function findOnPath(name, env = process.env, exists = isExecutable) {
  if (isAbsolute(name)) return exists(name) ? name : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (exists(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Whether and how `npm start` opens `url`: `{ command, args }`, or `{ reason }` when it does not.
 *
 * `--no-open` skips it. `$BROWSER` (its first `:`-separated entry, found on
 * PATH) wins where set; otherwise macOS uses `open`, Windows `cmd /c start`,
 * and other systems `xdg-open` when it is on PATH and a display
 * (`$DISPLAY` or `$WAYLAND_DISPLAY`) exists, so a headless server or an SSH
 * session never starts a text-mode browser in the terminal.
 */
export function openDecision(url, { argv = [], platform = process.platform, env = process.env, exists = isExecutable } = {}) {
  if (argv.includes('--no-open')) return { reason: '--no-open given' };
  const chosen = (env.BROWSER ?? '').split(':')[0]?.trim() ?? '';
  if (chosen !== '') {
    const command = findOnPath(chosen, env, exists);
    return command !== undefined ? { command, args: [url] } : { reason: `$BROWSER (${chosen}) is not an executable on PATH` };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  if ((env.DISPLAY ?? '') === '' && (env.WAYLAND_DISPLAY ?? '') === '') return { reason: 'no graphical display ($DISPLAY or $WAYLAND_DISPLAY)' };
  const command = findOnPath('xdg-open', env, exists);
  return command !== undefined ? { command, args: [url] } : { reason: 'xdg-open is not on PATH' };
}

/**
 * Opens `url` as `openDecision` says; never throws.
 *
 * Returns `{ opened: true, command, child? }` (the detached child, unref'd, when
 * one was started) or `{ opened: false, reason }`. With `GF_OPEN_BROWSER_LOG`
 * set, the command is appended to that file as JSON and nothing runs.
 */
export function openBrowser(url, options = {}) {
  const env = options.env ?? process.env;
  const how = openDecision(url, { ...options, env });
  if ('reason' in how) return { opened: false, reason: how.reason };
  const log = env[OPEN_LOG_ENV];
  if (log !== undefined && log !== '') {
    try {
      appendFileSync(log, `${JSON.stringify({ command: how.command, args: how.args })}\n`);
      return { opened: true, command: how.command };
    } catch (e) {
      return { opened: false, reason: `cannot record the command: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  try {
    const child = spawn(how.command, how.args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: (options.platform ?? process.platform) === 'win32' });
    child.on('error', () => undefined); // a browser that fails to start leaves the printed URL; the app keeps running
    child.unref();
    return { opened: true, command: how.command, child };
  } catch (e) {
    return { opened: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
