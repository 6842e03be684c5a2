// `npm start` opens browser mode's URL in the default browser where one exists
// (scripts/open-browser.mjs): the decision per platform and environment, with
// real executables on a private PATH, and never a real browser.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPEN_LOG_ENV, openBrowser, openDecision } from '../../../scripts/open-browser.mjs';

const root = mkdtempSync(join(tmpdir(), 'gf-open-browser-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const URL = 'http://127.0.0.1:4321/#token=abc_DEF-123';

/** A directory holding an executable `name` that writes its arguments to `<dir>/ran`. */
function binDir(name: string): string {
  const dir = mkdtempSync(join(root, 'bin-'));
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\nprintf '%s' "$*" > "${join(dir, 'ran')}"\n`);
  chmodSync(file, 0o755);
  return dir;
}

describe('openDecision', () => {
  it('--no-open skips opening on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(openDecision(URL, { argv: ['--browser', '--no-open'], platform, env: { DISPLAY: ':0', PATH: binDir('xdg-open') } })).toEqual({ reason: '--no-open given' });
    }
  });

  it('macOS uses open and Windows start, with the URL as one argument', () => {
    expect(openDecision(URL, { platform: 'darwin', env: {} })).toEqual({ command: 'open', args: [URL] });
    expect(openDecision(URL, { platform: 'win32', env: {} })).toEqual({ command: 'cmd', args: ['/c', 'start', '""', URL] });
  });

  it('Linux uses xdg-open from PATH when a display exists', () => {
    const dir = binDir('xdg-open');
    expect(openDecision(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: `/nonexistent:${dir}` } })).toEqual({ command: join(dir, 'xdg-open'), args: [URL] });
    expect(openDecision(URL, { platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0', PATH: dir } })).toEqual({ command: join(dir, 'xdg-open'), args: [URL] });
  });

  it('Linux without a display or without xdg-open does not open, and says why', () => {
    const dir = binDir('xdg-open');
    expect(openDecision(URL, { platform: 'linux', env: { PATH: dir } })).toEqual({ reason: 'no graphical display ($DISPLAY or $WAYLAND_DISPLAY)' });
    expect(openDecision(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: binDir('not-xdg-open') } })).toEqual({ reason: 'xdg-open is not on PATH' });
    // A non-executable file of that name is not a browser opener.
    const plain = mkdtempSync(join(root, 'plain-'));
    writeFileSync(join(plain, 'xdg-open'), 'not executable');
    expect(openDecision(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: plain } })).toEqual({ reason: 'xdg-open is not on PATH' });
  });

  it('$BROWSER wins where set (first entry of a list), and an unknown one is named', () => {
    const dir = binDir('my-browser');
    expect(openDecision(URL, { platform: 'linux', env: { BROWSER: 'my-browser:firefox', PATH: dir } })).toEqual({ command: join(dir, 'my-browser'), args: [URL] });
    expect(openDecision(URL, { platform: 'darwin', env: { BROWSER: 'nope', PATH: dir } })).toEqual({ reason: '$BROWSER (nope) is not an executable on PATH' });
  });
});

describe('openBrowser', () => {
  it(`with ${OPEN_LOG_ENV} set records the command and runs nothing`, () => {
    const dir = binDir('xdg-open');
    const log = join(root, 'opened.jsonl');
    const r = openBrowser(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: dir, [OPEN_LOG_ENV]: log } });
    expect(r).toEqual({ opened: true, command: join(dir, 'xdg-open') });
    expect(readFileSync(log, 'utf8')).toBe(`${JSON.stringify({ command: join(dir, 'xdg-open'), args: [URL] })}\n`);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('runs the opener as a detached child with the URL', async () => {
    const dir = binDir('xdg-open');
    const r = openBrowser(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: dir } });
    if (!r.opened || r.child === undefined) throw new Error(`expected a started opener, got ${JSON.stringify(r)}`);
    const code = await new Promise<number | null>((done) => r.child?.once('exit', (c) => done(c)));
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toBe(URL);
  });

  it('never throws when there is no browser, and when the log cannot be written', () => {
    expect(openBrowser(URL, { platform: 'linux', env: { PATH: '' } })).toEqual({ opened: false, reason: 'no graphical display ($DISPLAY or $WAYLAND_DISPLAY)' });
    const dir = binDir('xdg-open');
    const unwritable = join(root, 'missing-dir', 'log.jsonl');
    const r = openBrowser(URL, { platform: 'linux', env: { DISPLAY: ':0', PATH: dir, [OPEN_LOG_ENV]: unwritable } });
    expect(r.opened).toBe(false);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });
});
