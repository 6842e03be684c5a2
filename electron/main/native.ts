// The Electron-ABI build of better-sqlite3. Node (tests, CLI) loads the
// package's own build; Electron must load one compiled for its ABI, passed to
// better-sqlite3 through its `nativeBinding` option. `scripts/build-electron-native.mjs`
// produces it where the Electron binary exists.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the Electron-ABI build is written, relative to the app root. */
export const ELECTRON_NATIVE_RELATIVE = join('.cache', 'electron-native', 'better_sqlite3.node');

/** The Electron-ABI `better_sqlite3.node` if it was built, else null. */
export function electronNativeBindingPath(appRoot: string): string | null {
  const p = join(appRoot, ELECTRON_NATIVE_RELATIVE);
  return existsSync(p) ? p : null;
}
