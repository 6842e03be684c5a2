import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hasCode } from '../../../../core/errors';
import { VERIFY_CHUNK_BYTES, forgetVerifiedObjects, isVerifiedObject, objectPlace, readObjectVerified, readObjectVerifiedAsync } from '../../../../core/project/index';

let root: string;

function writeObject(bytes: Uint8Array): { sha: string; file: string; entry: { contentSha256: string; byteLength: number } } {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const file = objectPlace(root, sha).abs;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  return { sha, file, entry: { contentSha256: sha, byteLength: bytes.length } };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return hasCode(e, 'GF_PROJECT_CORRUPT') ? 'GF_PROJECT_CORRUPT' : String((e as { code?: unknown }).code);
  }
}

/** Moves the wall clock past the racy-clean window (the memo only trusts files whose ctime is old enough). */
function ageFiles(): void {
  vi.setSystemTime(Date.now() + 5_000);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-verified-'));
  forgetVerifiedObjects();
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('verified-object memo', () => {
  it('remembers a verified object, and still refuses it after its bytes and mtime change', () => {
    const bytes = new Uint8Array(4096).map((_, i) => i % 251);
    const { sha, file, entry } = writeObject(bytes);
    ageFiles();
    expect(Buffer.from(readObjectVerified(root, entry)).equals(Buffer.from(bytes))).toBe(true);
    expect(isVerifiedObject(sha)).toBe(true);
    // Same length, one byte changed, mtime set back to what it was: ctime still moves.
    const { mtime, atime } = fs.statSync(file);
    const tampered = Buffer.from(bytes);
    tampered[100] = (tampered[100] as number) ^ 1;
    fs.writeFileSync(file, tampered);
    fs.utimesSync(file, atime, mtime);
    ageFiles();
    expect(codeOf(() => readObjectVerified(root, entry))).toBe('GF_PROJECT_CORRUPT');
    expect(isVerifiedObject(sha)).toBe(false);
    // Replaced by another file (new inode) with a changed mtime: refused too.
    fs.rmSync(file);
    fs.writeFileSync(file, tampered);
    fs.utimesSync(file, atime, new Date(mtime.getTime() + 1000));
    expect(codeOf(() => readObjectVerified(root, entry))).toBe('GF_PROJECT_CORRUPT');
  });

  it('does not memoize a file modified within the racy-clean window', () => {
    const { sha, entry } = writeObject(new Uint8Array([1, 2, 3]));
    readObjectVerified(root, entry);
    expect(isVerifiedObject(sha)).toBe(false);
    ageFiles();
    readObjectVerified(root, entry);
    expect(isVerifiedObject(sha)).toBe(true);
  });

  it('refuses wrong lengths and missing objects', () => {
    const { file, entry } = writeObject(new Uint8Array([1, 2, 3]));
    expect(codeOf(() => readObjectVerified(root, { ...entry, byteLength: 2 }))).toBe('GF_PROJECT_CORRUPT');
    fs.rmSync(file);
    expect(codeOf(() => readObjectVerified(root, entry))).toBe('GF_PROJECT_CORRUPT');
  });

  it('the async read pauses between chunks and aborts there', async () => {
    const bytes = new Uint8Array(2 * VERIFY_CHUNK_BYTES + 7).map((_, i) => (i * 7) % 256);
    const { sha, entry } = writeObject(bytes);
    let pauses = 0;
    const got = await readObjectVerifiedAsync(root, entry, async () => {
      pauses++;
    });
    expect(pauses).toBe(2);
    expect(Buffer.from(got).equals(Buffer.from(bytes))).toBe(true);
    const stop = new Error('stop');
    await expect(readObjectVerifiedAsync(root, entry, async () => Promise.reject(stop))).rejects.toBe(stop);
    ageFiles();
    forgetVerifiedObjects();
    await readObjectVerifiedAsync(root, entry, async () => undefined);
    expect(isVerifiedObject(sha)).toBe(true);
  });
});
