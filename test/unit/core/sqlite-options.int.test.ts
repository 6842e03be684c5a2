// GF_SQLITE_NATIVE_BINDING: the better-sqlite3 addon the adapters load (Electron passes its ABI build).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTransitionEvent } from '../../../core/chain/event';
import { SqliteChainStore } from '../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../core/chain/verify';
import { createLockFile, tryExclusive, tryShared } from '../../../core/project/sqlite-lock';
import { SQLITE_NATIVE_BINDING_ENV, sqliteNativeOptions } from '../../../core/sqlite-options';

const require = createRequire(import.meta.url);
const NODE_BUILD = resolve(import.meta.dirname, '../../../node_modules/better-sqlite3/build/Release/better_sqlite3.node');
let tmp: string;
let addon: string;
const saved = process.env[SQLITE_NATIVE_BINDING_ENV];

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gf-sqlite-native-'));
  // A copy at its own path, so the test can see which file was loaded.
  mkdirSync(join(tmp, 'electron-native'));
  addon = join(tmp, 'electron-native', 'better_sqlite3.node');
  copyFileSync(NODE_BUILD, addon);
});

afterEach(() => {
  if (saved === undefined) delete process.env[SQLITE_NATIVE_BINDING_ENV];
  else process.env[SQLITE_NATIVE_BINDING_ENV] = saved;
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function lockAndChainWork(dir: string): Promise<void> {
  mkdirSync(dir);
  const lockFile = join(dir, 'writer.lock');
  createLockFile(lockFile, 'writer.lock');
  const held = tryExclusive(lockFile, 'writer.lock');
  expect(held.kind).toBe('held');
  expect(tryShared(lockFile, 'writer.lock').kind).toBe('busy');
  if (held.kind === 'held') held.lock.release();
  expect(tryShared(lockFile, 'writer.lock').kind).toBe('held');

  const store = new SqliteChainStore(join(dir, 'chain'), { clock: () => new Date(0) });
  try {
    const e = buildTransitionEvent({
      workflow_id: 'native-binding',
      prior_state_id: 'needs_plan',
      next_state_id: 'plan_ready',
      triggering_outcome: { kind: 'plan_accepted', evidence_digest: null, detail: null },
      attempt: 0,
      occurred_at: new Date(Date.UTC(2026, 0, 1)),
    });
    const head = await store.append(e);
    expect(await store.tailChainHead('native-binding')).toBe(head);
    expect(await verify(store, 'native-binding')).toMatchObject({ status: 'ok', rows: 1 });
  } finally {
    await store.close();
  }
}

describe('sqliteNativeOptions', () => {
  it('ignores a missing, relative, non-.node, directory or symlinked value', () => {
    writeFileSync(join(tmp, 'not-an-addon.txt'), 'x');
    symlinkSync(addon, join(tmp, 'link.node'));
    mkdirSync(join(tmp, 'dir.node'));
    for (const bogus of ['', 'better_sqlite3.node', join(tmp, 'missing.node'), join(tmp, 'not-an-addon.txt'), join(tmp, 'dir.node'), join(tmp, 'link.node')]) {
      process.env[SQLITE_NATIVE_BINDING_ENV] = bogus;
      expect([bogus, sqliteNativeOptions()]).toEqual([bogus, {}]);
    }
    delete process.env[SQLITE_NATIVE_BINDING_ENV];
    expect(sqliteNativeOptions()).toEqual({});
    process.env[SQLITE_NATIVE_BINDING_ENV] = addon;
    expect(sqliteNativeOptions()).toEqual({ nativeBinding: addon });
  });

  it('with a bogus value the lock and the chain store still work (the package build loads)', async () => {
    process.env[SQLITE_NATIVE_BINDING_ENV] = join(tmp, 'missing.node');
    await lockAndChainWork(join(tmp, 'bogus'));
  });

  it('with the variable pointing at a Node build, the lock and the chain store load that file and work', async () => {
    process.env[SQLITE_NATIVE_BINDING_ENV] = addon;
    expect(require.cache[addon]).toBeUndefined();
    await lockAndChainWork(join(tmp, 'named'));
    expect(require.cache[addon]).toBeDefined();
  });
});
