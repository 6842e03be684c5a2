// Which Chromium the e2e harness drives, found in a fixed order so that
// `npm install && npm test` works on a fresh machine with nothing installed by
// hand, and a machine that has its own browser can still use it:
//   1. GF_CHROMIUM (an executable path; when set it is the only candidate),
//   2. a browser Playwright itself installed (`npx playwright install chromium`),
//   3. `chromium`, `chromium-browser` or `google-chrome` on the PATH,
//   4. the headless Chromium inside the `@sparticuz/chromium` devDependency.
// Where none works the harness throws: e2e tests fail, they never skip.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

/** Where the Chromium in use came from (the first source that had one). */
export type ChromiumSource = 'GF_CHROMIUM' | 'playwright' | 'PATH' | '@sparticuz/chromium';

/** A Chromium executable and the source that named it. */
export interface ChromiumChoice {
  readonly path: string;
  readonly source: ChromiumSource;
  /** The one line the harness prints: which Chromium, from where. */
  readonly line: string;
}

/**
 * What discovery looks at, injectable so a test can put each source in or
 * out: the environment (GF_CHROMIUM, PATH), Playwright's installed-browser
 * path, and the bundled Chromium's `executablePath()`.
 */
export interface ChromiumProbe {
  readonly env: NodeJS.ProcessEnv;
  /** Path where Playwright installs its Chromium (whether or not it is there). */
  readonly playwrightPath: () => string | undefined;
  /** Unpacks (once) and returns the `@sparticuz/chromium` executable. */
  readonly bundledPath: () => Promise<string>;
}

/** The system browser names looked up on the PATH, in order. */
export const PATH_BROWSERS = ['chromium', 'chromium-browser', 'google-chrome'] as const;

/** The harness could not find or start a Chromium; its message names what it tried. */
export class ChromiumNotFoundError extends Error {
  override readonly name = 'ChromiumNotFoundError';
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

const require = createRequire(import.meta.url);

function bundledVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(dirname(require.resolve('@sparticuz/chromium')), '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** The real sources: this process's environment, playwright-core's registry, the devDependency. */
export const defaultProbe: ChromiumProbe = {
  env: process.env,
  playwrightPath: () => {
    try {
      return (require('playwright-core') as { chromium: { executablePath(): string } }).chromium.executablePath();
    } catch {
      return undefined;
    }
  },
  bundledPath: async () => {
    const mod = (await import('@sparticuz/chromium')) as unknown as { default: { executablePath(): Promise<string> } };
    return mod.default.executablePath();
  },
};

/** Finds the Chromium to use (see the file header for the order); throws ChromiumNotFoundError naming what it tried. */
export async function findChromium(probe: ChromiumProbe = defaultProbe): Promise<ChromiumChoice> {
  const explicit = probe.env['GF_CHROMIUM'];
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutableFile(explicit)) {
      throw new ChromiumNotFoundError(`e2e: GF_CHROMIUM=${explicit} is not an executable file; set GF_CHROMIUM to a Chromium executable, or unset it to use the bundled one`);
    }
    return { path: explicit, source: 'GF_CHROMIUM', line: `e2e: Chromium from GF_CHROMIUM: ${explicit}` };
  }
  const tried: string[] = [];
  const pw = probe.playwrightPath();
  if (pw !== undefined && isExecutableFile(pw)) return { path: pw, source: 'playwright', line: `e2e: Chromium installed by Playwright: ${pw}` };
  tried.push(`Playwright's browser (${pw ?? 'none'})`);
  for (const name of PATH_BROWSERS) {
    const found = onPath(name, probe.env['PATH']);
    if (found !== undefined) return { path: found, source: 'PATH', line: `e2e: Chromium on the PATH: ${found}` };
  }
  tried.push(`${PATH_BROWSERS.join(', ')} on the PATH`);
  let bundled: string;
  try {
    bundled = await probe.bundledPath();
  } catch (e) {
    tried.push(`@sparticuz/chromium (${e instanceof Error ? e.message : String(e)})`);
    throw new ChromiumNotFoundError(`e2e: no Chromium found; tried ${tried.join('; ')}. Set GF_CHROMIUM to a Chromium executable.`);
  }
  if (!isExecutableFile(bundled)) {
    tried.push(`@sparticuz/chromium (${bundled} is not executable)`);
    throw new ChromiumNotFoundError(`e2e: no Chromium found; tried ${tried.join('; ')}. Set GF_CHROMIUM to a Chromium executable.`);
  }
  return { path: bundled, source: '@sparticuz/chromium', line: `e2e: Chromium bundled in @sparticuz/chromium ${bundledVersion()}: ${bundled}` };
}
