// Finds the Electron binary (npm install never downloads it; the first `npm start` does, where it can).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './browser';

/** The Electron executable, or a reason why there is none. */
export function electronExecutable(): { readonly path: string } | { readonly skip: string } {
  const pkg = join(ROOT, 'node_modules', 'electron');
  const pathTxt = join(pkg, 'path.txt');
  if (!existsSync(pathTxt)) return { skip: 'the Electron binary is not installed (node_modules/electron has no path.txt: npm install never downloads it; `npm start` fetches it where the download is reachable)' };
  const exe = join(pkg, 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(exe) ? { path: exe } : { skip: `the Electron binary named by path.txt is missing (${exe})` };
}
