import fs from 'node:fs';
import path from 'node:path';

/** The environment variable naming an alternative better-sqlite3 addon (Electron's ABI build). */
export const SQLITE_NATIVE_BINDING_ENV = 'GF_SQLITE_NATIVE_BINDING';

let cached: { readonly env: string | undefined; readonly options: { readonly nativeBinding?: string } } | undefined;

/**
 * better-sqlite3 constructor options naming the native addon to load, if one is configured.
 *
 * Electron main sets `GF_SQLITE_NATIVE_BINDING` to an Electron-ABI build
 * (`scripts/build-electron-native.mjs`); Node (tests, CLI) leaves it unset and
 * uses the package's own build. The value is used only when it is an absolute
 * path to an existing regular file (not a symlink) ending in `.node`;
 * anything else is ignored, so a stray value never changes which code loads.
 * Spread into every `new Database(file, { ...sqliteNativeOptions(), … })`.
 */
export function sqliteNativeOptions(): { readonly nativeBinding?: string } {
  const env = process.env[SQLITE_NATIVE_BINDING_ENV];
  if (cached !== undefined && cached.env === env) return cached.options;
  const options = env !== undefined && isAddonFile(env) ? Object.freeze({ nativeBinding: env }) : Object.freeze({});
  cached = { env, options };
  return options;
}

function isAddonFile(p: string): boolean {
  if (!path.isAbsolute(p) || !p.endsWith('.node')) return false;
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}
