import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import type { CliIo } from '../../../../core/cli/io';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/canonical-fingerprint-v1.subset.json', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

interface Expected {
  vectors: { id: string; source_cases: unknown[]; canonical_payload_hex: string; sha256: string; uuid_v8?: string }[];
  negative_vectors: { id: string; error: string }[];
}
const file = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Expected;

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: (c) => void (out += typeof c === 'string' ? c : Buffer.from(c).toString()), stderr: (c) => void (err += c) },
    out: () => out,
    err: () => err,
  };
}

/** The file's own expected values, for comparison with what the CLI computes. */
function checkAgainstFile(printed: unknown): void {
  const results = printed as { id: string; cases?: Record<string, string>[]; error?: string }[];
  expect(results).toHaveLength(file.vectors.length + file.negative_vectors.length);
  for (const v of file.vectors) {
    const r = results.find((x) => x.id === v.id);
    expect(r?.cases).toHaveLength(v.source_cases.length);
    for (const c of r?.cases ?? []) {
      expect(c.canonical_payload_hex).toBe(v.canonical_payload_hex);
      expect(c.sha256).toBe(v.sha256);
      if (v.uuid_v8 !== undefined) expect(c.uuid_v8).toBe(v.uuid_v8);
      expect(c.uuid_v8).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  }
  for (const n of file.negative_vectors) {
    expect(results.find((x) => x.id === n.id)).toEqual({ id: n.id, error: n.error });
  }
}

describe('gf canonical vectors', () => {
  it('prints values equal to the file expected ones (in-process)', async () => {
    const c = capture();
    expect(await main(['canonical', 'vectors', FIXTURE, '--json'], c.io)).toBe(0);
    checkAgainstFile(JSON.parse(c.out()));
    expect(c.err()).toBe('');
  });

  it('prints the same through the real bin/gf.mjs child process', () => {
    const r = spawnSync(process.execPath, ['bin/gf.mjs', 'canonical', 'vectors', FIXTURE, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    checkAgainstFile(JSON.parse(r.stdout));
  });

  it('a missing file is refused in a sentence (exit 1) without echoing the path', async () => {
    const c = capture();
    expect(await main(['canonical', 'vectors', '/no/such/secret-dir/v.json', '--json'], c.io)).toBe(1);
    expect(c.err()).toMatch(/^GF_VALIDATION: the vector file does not exist/);
    expect(c.err()).not.toContain('secret-dir');
  });

  it('a missing argument is a usage error (exit 2)', async () => {
    const c = capture();
    expect(await main(['canonical', 'vectors'], c.io)).toBe(2);
  });
});
