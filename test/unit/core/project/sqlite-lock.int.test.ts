import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GfError } from '../../../../core/errors';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { createLockFile, lockFileImage, tryExclusive, tryShared } from '../../../../core/project/sqlite-lock';
import type { HeldLock, LockAttempt } from '../../../../core/project/sqlite-lock';
import { putNodes } from '../../../support/project-fixtures';

// Lock files are written from one image that SQLite built once per process
// (one write and one fsync, no connection). Such a file must still be a lock
// file: shared and exclusive as SQLite takes them, released when the holder
// is killed.

let tmp: string;
let n = 0;
const fresh = (): string => path.join(tmp, `l${n++}.lock`);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-sqlite-lock-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function held(a: LockAttempt): HeldLock {
  if (a.kind !== 'held') throw new Error(`expected held, got ${a.kind}`);
  return a.lock;
}

/** A child process holding the lock file exclusively through SQLite; resolves once it holds it. */
function holdInChild(file: string): Promise<{ kill: () => Promise<NodeJS.Signals | null> }> {
  const code = [
    "const Database = require('better-sqlite3');",
    'const db = new Database(process.argv[1], { fileMustExist: true, timeout: 0 });',
    "db.exec('BEGIN EXCLUSIVE');",
    "process.stdout.write('ready\\n');",
    'setInterval(() => {}, 1 << 30);',
  ].join('\n');
  const proc = spawn(process.execPath, ['-e', code, file], {
    env: { ...process.env, NODE_PATH: path.resolve('node_modules') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('close', (_c, s) => resolve(s)));
  return new Promise((resolve, reject) => {
    proc.stdout.on('data', (c: Buffer) => {
      if (c.toString().includes('ready')) {
        resolve({
          kill: () => {
            proc.kill('SIGKILL');
            return exited;
          },
        });
      }
    });
    proc.on('close', () => reject(new Error('child exited before holding the lock')));
  });
}

describe('lock files from the cached image', () => {
  it('the image is a SQLite database of 512-byte pages, and createLockFile writes exactly it', () => {
    const image = lockFileImage();
    expect(Buffer.from(image.subarray(0, 16)).toString('latin1')).toBe('SQLite format 3\0');
    expect((image[16] ?? 0) * 256 + (image[17] ?? 0)).toBe(512);
    expect(image.length).toBe(1024);
    expect(lockFileImage()).toBe(image); // built once per process
    const file = fresh();
    createLockFile(file, 'x.lock');
    expect(Buffer.compare(fs.readFileSync(file), Buffer.from(image))).toBe(0);
  });

  it('refuses an existing file and a planted symlink; the target is unchanged', () => {
    const file = fresh();
    createLockFile(file, 'x.lock');
    const codeOf = (f: () => void): unknown => {
      try {
        f();
      } catch (e) {
        return e instanceof GfError ? e.code : e;
      }
      return 'no error';
    };
    expect(codeOf(() => createLockFile(file, 'x.lock'))).toBe('GF_PROJECT_CORRUPT');
    const target = path.join(tmp, `target-${n++}`);
    fs.writeFileSync(target, 'keep');
    const link = fresh();
    fs.symlinkSync(target, link);
    expect(codeOf(() => createLockFile(link, 'x.lock'))).toBe('GF_PROJECT_CORRUPT');
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
  });

  it('takes shared and exclusive locks exactly as SQLite does', () => {
    const file = fresh();
    createLockFile(file, 'x.lock');
    const a = held(tryShared(file, 'x.lock'));
    const b = held(tryShared(file, 'x.lock'));
    expect(tryExclusive(file, 'x.lock').kind).toBe('busy');
    a.release();
    expect(tryExclusive(file, 'x.lock').kind).toBe('busy');
    b.release();
    const x = held(tryExclusive(file, 'x.lock'));
    expect(tryShared(file, 'x.lock').kind).toBe('busy');
    expect(tryExclusive(file, 'x.lock').kind).toBe('busy');
    x.release();
    held(tryShared(file, 'x.lock')).release();
  });

  it('a holder killed with SIGKILL releases its lock', async () => {
    const file = fresh();
    createLockFile(file, 'x.lock');
    const child = await holdInChild(file);
    expect(tryShared(file, 'x.lock').kind).toBe('busy');
    expect(tryExclusive(file, 'x.lock').kind).toBe('busy');
    expect(await child.kill()).toBe('SIGKILL');
    held(tryExclusive(file, 'x.lock')).release();
  });

  it("every lock file of a project (writer, registry, each generation's lease) is the image", async () => {
    const dir = path.join(tmp, `project-${n++}`);
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    const r = await p.publish({ parent: null, changes: [putNodes(2, 'img')] });
    for (const rel of ['locks/writer.lock', 'locks/checkpoints.lock', `generations/${r.generationUuid}/lease.lock`]) {
      expect([rel, Buffer.compare(fs.readFileSync(path.join(dir, rel)), Buffer.from(lockFileImage()))]).toEqual([rel, 0]);
    }
    // The lease file works as one: a reader's shared lease blocks cleanup's exclusive attempt.
    const lease = p.lease();
    expect(tryExclusive(path.join(dir, 'generations', r.generationUuid, 'lease.lock'), 'lease.lock').kind).toBe('busy');
    lease.release();
  });
});
