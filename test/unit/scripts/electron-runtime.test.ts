// The start-up fetch decisions of scripts/electron-runtime.mjs that do not
// need a download: how long a failure is remembered, and for which version.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import * as runtime from '../../../scripts/electron-runtime.mjs';

const { RETRY_AFTER_MS, FETCH_TIMEOUT_MS, fetchTimeoutMs, recentFailure, runtimePaths, userCacheDir } = runtime as {
  RETRY_AFTER_MS: number;
  FETCH_TIMEOUT_MS: number;
  fetchTimeoutMs(env: NodeJS.ProcessEnv): number;
  recentFailure(stateFile: string, what: string, version: string, now: number): { at: number; reason: string } | undefined;
  runtimePaths(env: NodeJS.ProcessEnv): { stateFile: string; electronDir: string; nativeFile: string };
  userCacheDir(env: NodeJS.ProcessEnv): string;
};

const root = mkdtempSync(join(tmpdir(), 'gf-electron-runtime-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function stateWith(record: unknown): string {
  const dir = mkdtempSync(join(root, 's-'));
  const file = join(dir, 'electron-fetch.json');
  writeFileSync(file, JSON.stringify({ electron: record }));
  return file;
}

describe('electron-runtime', () => {
  const at = Date.UTC(2026, 11, 1, 12);

  it('a failure is remembered for a day, for the same Electron version only', () => {
    const file = stateWith({ version: '41.7.1', at, reason: 'refused' });
    expect(recentFailure(file, 'electron', '41.7.1', at + 1)).toMatchObject({ reason: 'refused' });
    expect(recentFailure(file, 'electron', '41.7.1', at + RETRY_AFTER_MS - 1)).toBeDefined();
    expect(recentFailure(file, 'electron', '41.7.1', at + RETRY_AFTER_MS)).toBeUndefined();
    expect(recentFailure(file, 'electron', '42.0.0', at + 1)).toBeUndefined();
    expect(recentFailure(file, 'electron-native', '41.7.1', at + 1)).toBeUndefined();
    expect(RETRY_AFTER_MS).toBe(24 * 60 * 60 * 1000);
  });

  it('a record from the future (clock moved back) or an unreadable state file means retry', () => {
    expect(recentFailure(stateWith({ version: '41.7.1', at: at + 60_000, reason: 'x' }), 'electron', '41.7.1', at)).toBeUndefined();
    const broken = join(root, 'broken.json');
    writeFileSync(broken, '{not json');
    expect(recentFailure(broken, 'electron', '41.7.1', at)).toBeUndefined();
    expect(recentFailure(join(root, 'absent.json'), 'electron', '41.7.1', at)).toBeUndefined();
  });

  it('state lives in the user cache directory, never in the repository', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/checkpoint-studio');
    const p = runtimePaths({ XDG_CACHE_HOME: '/x/cache' });
    expect(p.stateFile).toBe('/x/cache/checkpoint-studio/electron-fetch.json');
    expect(p.electronDir.endsWith(join('node_modules', 'electron'))).toBe(true);
    mkdirSync(join(root, 'e'), { recursive: true });
    expect(runtimePaths({ GF_ELECTRON_DIR: join(root, 'e') }).electronDir).toBe(join(root, 'e'));
  });

  it('the fetch timeout is bounded: 180 s unless GF_ELECTRON_FETCH_TIMEOUT_S names a positive number', () => {
    expect(fetchTimeoutMs({})).toBe(FETCH_TIMEOUT_MS);
    expect(FETCH_TIMEOUT_MS).toBe(180_000);
    expect(fetchTimeoutMs({ GF_ELECTRON_FETCH_TIMEOUT_S: '2.5' })).toBe(2500);
    expect(fetchTimeoutMs({ GF_ELECTRON_FETCH_TIMEOUT_S: '0' })).toBe(FETCH_TIMEOUT_MS);
    expect(fetchTimeoutMs({ GF_ELECTRON_FETCH_TIMEOUT_S: 'soon' })).toBe(FETCH_TIMEOUT_MS);
  });
});
