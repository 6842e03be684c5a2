// The e2e harness's Chromium discovery: the order of the sources, and a loud
// failure naming the path when none works (the e2e tests fail, never skip).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../../e2e/support/browser';
import { ChromiumNotFoundError, findChromium, type ChromiumProbe } from '../../../../e2e/support/chromium';

const root = mkdtempSync(join(tmpdir(), 'gf-chromium-probe-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An executable shell script at dir/name that exits with `code`. */
function stub(dir: string, name: string, code = 0): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nexit ${code}\n`);
  chmodSync(path, 0o755);
  return path;
}

const bundled = stub(join(root, 'bundled'), 'chromium');
const playwright = stub(join(root, 'ms-playwright'), 'chrome');
const pathDir = join(root, 'bin');
const onPath = stub(pathDir, 'chromium-browser');
const missing = join(root, 'nowhere', 'chrome');

function probe(over: { env?: NodeJS.ProcessEnv; playwright?: string; bundled?: () => Promise<string> }): ChromiumProbe {
  return {
    env: over.env ?? { PATH: join(root, 'empty') },
    playwrightPath: () => over.playwright ?? missing,
    bundledPath: over.bundled ?? (async () => bundled),
  };
}

describe('findChromium', () => {
  it('GF_CHROMIUM=/nonexistent fails with a message naming that path, even when other browsers exist', async () => {
    const p = probe({ env: { GF_CHROMIUM: '/nonexistent', PATH: pathDir }, playwright });
    await expect(findChromium(p)).rejects.toThrow(ChromiumNotFoundError);
    await expect(findChromium(p)).rejects.toThrow(/GF_CHROMIUM=\/nonexistent is not an executable file/);
  });

  it('the harness itself (launchChromium) fails naming the GF_CHROMIUM path', async () => {
    await expect(launchChromium(probe({ env: { GF_CHROMIUM: '/nonexistent' } }))).rejects.toThrow(/\/nonexistent/);
  });

  it('GF_CHROMIUM comes first', async () => {
    const mine = stub(join(root, 'mine'), 'my-chrome');
    const c = await findChromium(probe({ env: { GF_CHROMIUM: mine, PATH: pathDir }, playwright }));
    expect(c).toMatchObject({ path: mine, source: 'GF_CHROMIUM' });
    expect(c.line).toContain(mine);
  });

  it("then Playwright's installed browser, then the PATH, then @sparticuz/chromium", async () => {
    expect(await findChromium(probe({ env: { PATH: pathDir }, playwright }))).toMatchObject({ path: playwright, source: 'playwright' });
    expect(await findChromium(probe({ env: { PATH: `${join(root, 'empty')}:${pathDir}` } }))).toMatchObject({ path: onPath, source: 'PATH' });
    const c = await findChromium(probe({}));
    expect(c).toMatchObject({ path: bundled, source: '@sparticuz/chromium' });
    expect(c.line).toMatch(/^e2e: Chromium bundled in @sparticuz\/chromium 153\.\d+\.\d+: /);
  });

  it('a directory or a non-executable file on the PATH is not a browser', async () => {
    const odd = join(root, 'odd');
    mkdirSync(join(odd, 'chromium'), { recursive: true });
    writeFileSync(join(odd, 'google-chrome'), 'not executable');
    expect(await findChromium(probe({ env: { PATH: odd } }))).toMatchObject({ source: '@sparticuz/chromium' });
  });

  it('none works: the error lists every source it tried', async () => {
    const p = probe({ bundled: async () => Promise.reject(new Error('cannot unpack')) });
    await expect(findChromium(p)).rejects.toThrow(/no Chromium found; tried Playwright's browser .*chromium, chromium-browser, google-chrome on the PATH; @sparticuz\/chromium \(cannot unpack\)/);
  });

  it('a Chromium that does not start fails the harness, naming its path', async () => {
    const broken = stub(join(root, 'broken'), 'chromium', 1);
    await expect(launchChromium(probe({ env: { GF_CHROMIUM: broken } }))).rejects.toThrow(new RegExp(`Chromium from GF_CHROMIUM \\(${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) did not start`));
  });
});
